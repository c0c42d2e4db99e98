// The metrics port (lib/metrics implements it): the queries a cycle needs, their answers, one batched read.
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline no longer has time for.
import type { CloudWatchMetric, PrometheusMetric, SQSQueueMetric } from '#api';
import type { SharedMetricAnswer } from './autoscaler-store.js';
import type { CrossVersionObjectReference, Fetched, MetricIdentifier, MetricSample, PodMetric, PodMetricSample } from '#hpa';

/** One metric a cycle needs; identical queries are fetched once. */
export type MetricQuery =
  /** selector: a list selector covering a part shard's targets (lib/sync/part-selectors.ts); none: the whole namespace. */
  | { type: 'PodResource'; cluster: string; namespace: string; selector?: string }
  | { type: 'Pods'; cluster: string; namespace: string; metric: MetricIdentifier; podSelector: string }
  | {
      type: 'Object';
      cluster: string;
      namespace: string;
      describedObject: CrossVersionObjectReference;
      metric: MetricIdentifier;
    }
  | { type: 'External'; cluster: string; namespace: string; metric: MetricIdentifier }
  | { type: 'CloudWatch'; cluster: string; namespace: string; source: CloudWatchMetric }
  | { type: 'Prometheus'; cluster: string; namespace: string; source: PrometheusMetric }
  | { type: 'SQS'; cluster: string; namespace: string; source: SQSQueueMetric };

/** Queries of our own metric objects: read in one batched fetch a cycle, answers kept for the deployment. */
export type ObjectMetricQuery = Extract<MetricQuery, { type: 'CloudWatch' | 'Prometheus' | 'SQS' }>;

export type MetricAnswer =
  | { type: 'PodResource'; result: Fetched<PodMetric[]> }
  | { type: 'Pods'; result: Fetched<PodMetricSample[]> }
  | { type: 'Object'; result: Fetched<MetricSample> }
  | { type: 'External'; result: Fetched<MetricSample[]>; messages?: string[] }
  | {
      type: 'CloudWatch' | 'Prometheus' | 'SQS';
      result: Fetched<MetricSample[]>;
      messages?: string[];
      /** The answer to keep for the deployment until its window moves (absent: not to be kept, e.g. partial data). */
      shared?: { key: string; answer: SharedMetricAnswer };
    };

/** How a cycle wants its metrics read. */
export interface MetricReadOptions {
  /** Answer by then (the cycle's read deadline): retries stop in time to report their last error. */
  readBy?: Date;
  /**
   * Alarms that asked for this cycle, by name, with the end of the period each evaluated: the
   * CloudWatchMetric objects naming one (spec.alarmName) are read fresh, up to that period.
   */
  alarms?: ReadonlyMap<string, Date>;
  /** Answers kept in the table by earlier cycles, by query key: used while their window stands. */
  shared?: ReadonlyMap<string, SharedMetricAnswer>;
  /** When the data read could first have been read (a tick's own time): publication delays are timed against it. */
  observedAt?: Date;
}

export interface MetricsAccess {
  /** Answers align with queries by index. Never throws for one metric. */
  fetchAll(queries: MetricQuery[], now: Date, signal?: AbortSignal, options?: MetricReadOptions): Promise<MetricAnswer[]>;
}
