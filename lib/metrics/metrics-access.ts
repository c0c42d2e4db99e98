// The one metrics interface of a sync cycle: cluster metrics APIs and the metric providers' readers
// (./providers) behind MetricsAccess.fetchAll. Identical queries of a call are fetched once;
// a failure is that query's { error }, never an exception.
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { Clock, ClusterMetricsApi, MetricAnswer, MetricQuery, MetricReadOptions, MetricsAccess, ObjectMetricQuery } from '#sync/ports';
import type { PrometheusSourceOptions, PrometheusStats } from './prometheus-source.js';
import type { CloudWatchSourceOptions, CloudWatchStats, RetryOptions } from './cloudwatch-source.js';
import { stableKey } from '../shared/stable-key.js';
import type { SqsSourceOptions, SqsStats } from './sqs-source.js';
import { isObjectQuery, metricProviders } from './providers/index.js';
import type { MetricObject, MetricProvider, ObjectAnswer, ObjectReader } from './providers/provider.js';

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
  /** Seconds after a period ends before it is read (60), until a shorter delay is learned. */
  publishDelaySeconds?: number;
  /** Learn each object's publication delay (the deploy's default; off here: a fixed grid). */
  learnPublishDelay?: boolean;
  /** Told when a learned publication delay is reset (CloudWatchSourceOptions.onDelayReset). */
  onDelayReset?: CloudWatchSourceOptions['onDelayReset'];
  retry?: Partial<RetryOptions>;
  /** How PrometheusMetric objects are queried (credentials, local endpoints); its region defaults to CloudWatch's. */
  prometheus?: PrometheusSourceOptions;
  /** How SQSQueueMetric objects are read (clients, grants); absent: each is a metric failure. */
  sqs?: SqsSourceOptions;
  /** Monotonic milliseconds measuring CloudWatch's retry budget (real time by default). */
  timer?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Each provider's reader's counts (by its statsKey), and the cluster metrics APIs' calls. */
export interface MetricsStats {
  cloudWatch: CloudWatchStats;
  prometheus: PrometheusStats;
  sqs: SqsStats;
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
  const readers = new Map<MetricProvider, ObjectReader>(metricProviders.map((p) => [p, p.createReader(options)]));
  let clusterCalls = 0;

  const clusterQuery = (q: Exclude<MetricQuery, ObjectMetricQuery>, signal?: AbortSignal): Promise<MetricAnswer> => {
    clusterCalls++;
    const api = () => options.clusterMetrics(q.cluster);
    switch (q.type) {
      case 'PodResource':
        return settle(() => api().listPodMetrics(q.namespace, signal, q.selector)).then((result) => ({ type: q.type, result }));
      case 'Pods':
        return settle(() => api().getPodsMetric(q.namespace, q.metric, q.podSelector, signal)).then((result) => ({ type: q.type, result }));
      case 'Object':
        return settle(() => api().getObjectMetric(q.namespace, q.describedObject, q.metric, signal)).then((result) => ({ type: q.type, result }));
      case 'External':
        return settle(() => api().getExternalMetric(q.namespace, q.metric, signal)).then((result) => ({ type: q.type, result }));
    }
  };

  /** One batched read per provider of the objects its queries name (each object once; same specs are read once inside). */
  const readObjects = async (queries: ObjectMetricQuery[], now: Date, signal?: AbortSignal, read?: MetricReadOptions): Promise<Map<MetricObject, ObjectAnswer>> => {
    const answered = await Promise.all(
      [...readers].map(async ([p, reader]) => {
        const objects = [...new Set(queries.filter((q) => q.type === p.queryType).map((q): MetricObject => q.source))];
        if (!objects.length) return [];
        const answers = await reader
          .fetch(objects, now, signal, read)
          .catch((e: unknown): ObjectAnswer[] => objects.map(() => ({ result: { error: `${p.sourceName}: ${message(e)}` } })));
        return objects.map((o, i) => [o, answers[i]!] as const);
      }),
    );
    return new Map(answered.flat());
  };

  return {
    async fetchAll(queries: MetricQuery[], now: Date, signal?: AbortSignal, read?: MetricReadOptions): Promise<MetricAnswer[]> {
      // Cluster queries: one call per distinct query; provider objects: one batched read per provider.
      const byKey = new Map<string, Promise<MetricAnswer>>();
      const keys = queries.map((q) => {
        if (isObjectQuery(q)) return undefined;
        const key = stableKey(q);
        if (!byKey.has(key)) byKey.set(key, clusterQuery(q, signal));
        return key;
      });
      const [objectAnswers, clusterAnswers] = await Promise.all([
        readObjects(queries.filter(isObjectQuery), now, signal, read),
        Promise.all([...byKey].map(async ([k, p]) => [k, await p] as const)).then((e) => new Map(e)),
      ]);
      return queries.map((q, i): MetricAnswer => {
        if (!isObjectQuery(q)) return structuredClone(clusterAnswers.get(keys[i]!)!);
        const a = objectAnswers.get(q.source)!;
        return { type: q.type, result: structuredClone(a.result), ...(a.messages ? { messages: [...a.messages] } : {}), ...(a.shared ? { shared: a.shared } : {}) };
      });
    },
    stats: () => ({ ...(Object.fromEntries([...readers].map(([p, r]) => [p.statsKey, r.stats()])) as Omit<MetricsStats, 'clusterCalls'>), clusterCalls }),
    resetStats: () => {
      for (const r of readers.values()) r.resetStats();
      clusterCalls = 0;
    },
  };
}
