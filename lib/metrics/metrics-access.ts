// The one metrics interface of a sync cycle: cluster metrics APIs and CloudWatch
// behind MetricsAccess.fetchAll. Identical queries of a call are fetched once;
// a failure is that query's { error }, never an exception.
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { ClusterMetricsApi, Clock, MetricAnswer, MetricQuery, MetricReadOptions, MetricsAccess } from '../sync/ports.js';
import type { CloudWatchMetric } from '../api/cloudwatch-types.js';
import { CloudWatchSource, type CloudWatchAnswer, type CloudWatchSourceOptions, type CloudWatchStats, type RetryOptions } from './cloudwatch-source.js';
import { stableKey } from './stable-key.js';

export interface MetricsAccessOptions {
  /** The metrics APIs of a cluster, by cluster name. */
  clusterMetrics: (clusterName: string) => ClusterMetricsApi;
  cloudWatch: ({ clientFor(region: string, roleArn?: string): CloudWatchClient } | { client: CloudWatchClient }) & {
    /** Region of CloudWatchMetric objects that name none. */
    defaultRegion?: string;
  };
  clock?: Clock;
  /** Default lookback, in periods, when a CloudWatchMetric sets none (5). */
  lookbackPeriods?: number;
  /** Seconds after a period ends before it is read (60). */
  publishDelaySeconds?: number;
  retry?: Partial<RetryOptions>;
  /** Monotonic milliseconds measuring CloudWatch's retry budget (real time by default). */
  timer?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface MetricsStats {
  cloudWatch: CloudWatchStats;
  /** Calls to cluster metrics APIs. */
  clusterCalls: number;
}

export interface CountingMetricsAccess extends MetricsAccess {
  /** As MetricsAccess's, with how the cycle wants CloudWatch read (its read deadline, alarms). */
  fetchAll(queries: MetricQuery[], now: Date, signal?: AbortSignal, options?: MetricReadOptions): Promise<MetricAnswer[]>;
  stats(): MetricsStats;
  resetStats(): void;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function settle<T>(work: () => Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await work() };
  } catch (e) {
    return { error: message(e) };
  }
}

export function createMetricsAccess(options: MetricsAccessOptions): CountingMetricsAccess {
  const cw = options.cloudWatch;
  const sourceOptions: CloudWatchSourceOptions = {
    clients: 'client' in cw ? { clientFor: () => cw.client } : { clientFor: (region, role) => cw.clientFor(region, role) },
    defaultRegion: cw.defaultRegion,
    lookbackPeriods: options.lookbackPeriods,
    publishDelaySeconds: options.publishDelaySeconds,
    retry: options.retry,
    clock: options.clock,
    timer: options.timer,
    sleep: options.sleep,
  };
  const cloudWatch = new CloudWatchSource(sourceOptions);
  let clusterCalls = 0;

  const clusterQuery = (q: Exclude<MetricQuery, { type: 'CloudWatch' }>, signal?: AbortSignal): Promise<MetricAnswer> => {
    clusterCalls++;
    const api = () => options.clusterMetrics(q.cluster);
    switch (q.type) {
      case 'PodResource':
        return settle(() => api().listPodMetrics(q.namespace, signal)).then((result) => ({ type: q.type, result }));
      case 'Pods':
        return settle(() => api().getPodsMetric(q.namespace, q.metric, q.podSelector, signal)).then((result) => ({ type: q.type, result }));
      case 'Object':
        return settle(() => api().getObjectMetric(q.namespace, q.describedObject, q.metric, signal)).then((result) => ({ type: q.type, result }));
      case 'External':
        return settle(() => api().getExternalMetric(q.namespace, q.metric, signal)).then((result) => ({ type: q.type, result }));
    }
  };

  return {
    async fetchAll(queries: MetricQuery[], now: Date, signal?: AbortSignal, options?: MetricReadOptions): Promise<MetricAnswer[]> {
      // Cluster queries: one call per distinct query; CloudWatch: one batched fetch of all.
      const byKey = new Map<string, Promise<MetricAnswer>>();
      const cloudWatchObjects: CloudWatchMetric[] = [];
      const cloudWatchIndex = new Map<CloudWatchMetric, number>();
      const plan = queries.map((q): { cloudWatch: number } | { cluster: string } => {
        if (q.type === 'CloudWatch') {
          // Objects with the same spec are fetched once inside the source (by spec key).
          let i = cloudWatchIndex.get(q.source);
          if (i === undefined) {
            i = cloudWatchObjects.push(q.source) - 1;
            cloudWatchIndex.set(q.source, i);
          }
          return { cloudWatch: i };
        }
        const key = stableKey(q);
        if (!byKey.has(key)) byKey.set(key, clusterQuery(q, signal));
        return { cluster: key };
      });
      const cloudWatchAnswers: Promise<CloudWatchAnswer[]> = cloudWatchObjects.length
        ? cloudWatch.fetch(cloudWatchObjects, now, signal, options).catch((e: unknown) =>
            cloudWatchObjects.map(() => ({ result: { error: `CloudWatch: ${message(e)}` } })),
          )
        : Promise.resolve([]);
      const [cwAnswers, clusterAnswers] = await Promise.all([
        cloudWatchAnswers,
        Promise.all([...byKey].map(async ([k, p]) => [k, await p] as const)).then((e) => new Map(e)),
      ]);
      return plan.map((slot): MetricAnswer => {
        if ('cluster' in slot) return structuredClone(clusterAnswers.get(slot.cluster)!);
        const a = cwAnswers[slot.cloudWatch];
        const messages = a.messages;
        return { type: 'CloudWatch', result: structuredClone(a.result), ...(messages ? { messages: [...messages] } : {}), ...(a.shared ? { shared: a.shared } : {}) };
      });
    },
    stats: () => ({ cloudWatch: cloudWatch.stats(), clusterCalls }),
    resetStats: () => {
      cloudWatch.resetStats();
      clusterCalls = 0;
    },
  };
}
