// The one metrics interface of a sync cycle: cluster metrics APIs and CloudWatch
// behind MetricsAccess.fetchAll. Identical queries of a call are fetched once;
// a failure is that query's { error }, never an exception.
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { Clock, ClusterMetricsApi, MetricAnswer, MetricQuery, MetricReadOptions, MetricsAccess } from '#sync/ports';
import type { CloudWatchMetric, PrometheusMetric, SQSQueueMetric } from '#api';
import { PrometheusSource, type PrometheusAnswer, type PrometheusSourceOptions, type PrometheusStats } from './prometheus-source.js';
import { CloudWatchSource, type CloudWatchAnswer, type CloudWatchSourceOptions, type CloudWatchStats, type RetryOptions } from './cloudwatch-source.js';
import { stableKey } from '../shared/stable-key.js';
import { SqsSource, type SqsAnswer, type SqsSourceOptions, type SqsStats } from './sqs-source.js';

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
  const cw = options.cloudWatch;
  const sourceOptions: CloudWatchSourceOptions = {
    clients: 'client' in cw ? { clientFor: () => cw.client } : { clientFor: (region, role) => cw.clientFor(region, role) },
    defaultRegion: cw.defaultRegion,
    lookbackPeriods: options.lookbackPeriods,
    publishDelaySeconds: options.publishDelaySeconds,
    learnPublishDelay: options.learnPublishDelay,
    onDelayReset: options.onDelayReset,
    retry: options.retry,
    clock: options.clock,
    timer: options.timer,
    sleep: options.sleep,
  };
  const cloudWatch = new CloudWatchSource(sourceOptions);
  const prometheus = new PrometheusSource({
    defaultRegion: cw.defaultRegion,
    clock: options.clock,
    timer: options.timer,
    sleep: options.sleep,
    ...options.prometheus,
  });
  const sqsOptions = options.sqs;
  const sqs = sqsOptions ? new SqsSource({ defaultRegion: cw.defaultRegion, ...sqsOptions }) : undefined;
  let clusterCalls = 0;

  const clusterQuery = (q: Exclude<MetricQuery, { type: 'CloudWatch' | 'Prometheus' | 'SQS' }>, signal?: AbortSignal): Promise<MetricAnswer> => {
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

  return {
    async fetchAll(queries: MetricQuery[], now: Date, signal?: AbortSignal, options?: MetricReadOptions): Promise<MetricAnswer[]> {
      // Cluster queries: one call per distinct query; CloudWatch and Prometheus: one batched fetch of all of each.
      const byKey = new Map<string, Promise<MetricAnswer>>();
      const cloudWatchObjects: CloudWatchMetric[] = [];
      const cloudWatchIndex = new Map<CloudWatchMetric, number>();
      const prometheusObjects: PrometheusMetric[] = [];
      const prometheusIndex = new Map<PrometheusMetric, number>();
      const sqsObjects: SQSQueueMetric[] = [];
      const sqsIndex = new Map<SQSQueueMetric, number>();
      // Objects with the same spec are fetched once inside the sources (by spec key).
      const slotOf = <T>(objects: T[], index: Map<T, number>, o: T): number => {
        let i = index.get(o);
        if (i === undefined) {
          i = objects.push(o) - 1;
          index.set(o, i);
        }
        return i;
      };
      const plan = queries.map((q): { cloudWatch: number } | { prometheus: number } | { sqs: number } | { cluster: string } => {
        if (q.type === 'CloudWatch') return { cloudWatch: slotOf(cloudWatchObjects, cloudWatchIndex, q.source) };
        if (q.type === 'Prometheus') return { prometheus: slotOf(prometheusObjects, prometheusIndex, q.source) };
        if (q.type === 'SQS') return { sqs: slotOf(sqsObjects, sqsIndex, q.source) };
        const key = stableKey(q);
        if (!byKey.has(key)) byKey.set(key, clusterQuery(q, signal));
        return { cluster: key };
      });
      const cloudWatchAnswers: Promise<CloudWatchAnswer[]> = cloudWatchObjects.length
        ? cloudWatch.fetch(cloudWatchObjects, now, signal, options).catch((e: unknown) =>
            cloudWatchObjects.map(() => ({ result: { error: `CloudWatch: ${message(e)}` } })),
          )
        : Promise.resolve([]);
      const prometheusAnswers: Promise<PrometheusAnswer[]> = prometheusObjects.length
        ? prometheus.fetch(prometheusObjects, now, signal, options).catch((e: unknown) => prometheusObjects.map(() => ({ result: { error: `Prometheus: ${message(e)}` } })))
        : Promise.resolve([]);
      // SQS: one GetQueueAttributes per distinct queue for the whole fetch (the shard's tick).
      const sqsAnswers: Promise<SqsAnswer[]> = !sqsObjects.length
        ? Promise.resolve([])
        : sqs
          ? sqs.fetch(sqsObjects, now, signal)
          : Promise.resolve(sqsObjects.map(() => ({ result: { error: 'SQS: this deploy reads no SQS queues' } })));
      const [cwAnswers, promAnswers, sqsRead, clusterAnswers] = await Promise.all([
        cloudWatchAnswers,
        prometheusAnswers,
        sqsAnswers,
        Promise.all([...byKey].map(async ([k, p]) => [k, await p] as const)).then((e) => new Map(e)),
      ]);
      return plan.map((slot): MetricAnswer => {
        if ('cluster' in slot) return structuredClone(clusterAnswers.get(slot.cluster)!);
        if ('sqs' in slot) return { type: 'SQS', result: structuredClone(sqsRead[slot.sqs].result) };
        const [type, a] = 'cloudWatch' in slot ? (['CloudWatch', cwAnswers[slot.cloudWatch]] as const) : (['Prometheus', promAnswers[slot.prometheus]] as const);
        const messages = a.messages;
        return { type, result: structuredClone(a.result), ...(messages ? { messages: [...messages] } : {}), ...(a.shared ? { shared: a.shared } : {}) };
      });
    },
    stats: () => ({ cloudWatch: cloudWatch.stats(), prometheus: prometheus.stats(), sqs: sqs?.stats() ?? { calls: 0, objects: 0 }, clusterCalls }),
    resetStats: () => {
      cloudWatch.resetStats();
      prometheus.resetStats();
      sqs?.resetStats();
      clusterCalls = 0;
    },
  };
}
