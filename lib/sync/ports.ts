// The adapter interfaces one sync cycle depends on. lib/store, lib/cluster and
// lib/metrics implement them; tests and the demo can pass local ones.
import type {
  CrossVersionObjectReference,
  Fetched,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerStatus,
  MetricIdentifier,
  MetricSample,
  PodInfo,
  PodMetric,
  PodMetricSample,
  ScaleInfo,
  ScalingHistory,
} from '../hpa/types.js';
import type { CloudWatchMetric } from '../metrics/cloudwatch-types.js';
import type { DecisionLogEntry } from './event-log.js';

export interface Clock {
  now(): Date;
}

/** A cluster the product manages (a record in the store). */
export interface ClusterRecord {
  name: string;
  region: string;
  /** IAM role to assume for clusters in other accounts. */
  roleArn?: string;
  /** API server URL override (skips DescribeCluster); with caData for local servers. */
  endpoint?: string;
  caData?: string;
}

/** One autoscaler as stored: spec (validated, defaulted), status, history, version. */
export interface AutoscalerRecord {
  cluster: string;
  namespace: string;
  name: string;
  hpa: HorizontalPodAutoscaler;
  history: ScalingHistory;
  /** Optimistic-concurrency version: every write is conditional on it. */
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Recent events, newest last (lib/sync/event-log.ts). */
  log?: DecisionLogEntry[];
}

/** A stored item that could not be decoded: reported, never fatal to the cycle. */
export interface BrokenRecord {
  cluster: string;
  namespace: string;
  name: string;
  error: string;
}

export interface ClusterSnapshot {
  autoscalers: AutoscalerRecord[];
  cloudWatchMetrics: CloudWatchMetric[];
  broken: BrokenRecord[];
}

/** What a cycle writes back for one autoscaler. */
export interface AutoscalerStateUpdate {
  status: HorizontalPodAutoscalerStatus;
  history: ScalingHistory;
}

export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly key: string,
    readonly expectedVersion: number,
  ) {
    super(`autoscaler ${key} was changed by another writer (expected version ${expectedVersion})`);
  }
}

export interface AutoscalerStore {
  /** Everything a cycle needs for one cluster, in one paginated Query. */
  loadCluster(cluster: string): Promise<ClusterSnapshot>;
  /** Conditional on expectedVersion; throws VersionConflictError when it lost a race. Returns the new version. */
  saveState(record: AutoscalerRecord, update: AutoscalerStateUpdate, now: Date): Promise<number>;
  /** Conditional put with an expiry; false when another owner holds an unexpired lease. */
  acquireLease(name: string, owner: string, now: Date, ttlSeconds: number): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;
}

/** An error from the cluster API, with the HTTP status when there was one. */
export class ClusterApiError extends Error {
  override readonly name = 'ClusterApiError';
  constructor(
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
  }
}

/** One cluster's API as a cycle uses it. Implementations batch and retry. */
export interface ClusterAccess {
  getScale(namespace: string, ref: CrossVersionObjectReference): Promise<ScaleInfo>;
  /** Writes spec.replicas through /scale. */
  updateScale(namespace: string, ref: CrossVersionObjectReference, replicas: number): Promise<void>;
  /** All pods of a namespace (a cycle lists each namespace once). */
  listPods(namespace: string): Promise<PodInfo[]>;
}

/** The cluster's metrics APIs (metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io). */
export interface ClusterMetricsApi {
  /** PodMetrics of a whole namespace (a cycle lists each namespace once). */
  listPodMetrics(namespace: string): Promise<PodMetric[]>;
  /** custom.metrics.k8s.io/v1beta2 pods metric, with the pod selector and optional metric selector. */
  getPodsMetric(namespace: string, metric: MetricIdentifier, podSelector: string): Promise<PodMetricSample[]>;
  /** custom.metrics.k8s.io/v1beta2 for the described object. */
  getObjectMetric(namespace: string, describedObject: CrossVersionObjectReference, metric: MetricIdentifier): Promise<MetricSample>;
  /** external.metrics.k8s.io/v1beta1; one sample per series. */
  getExternalMetric(namespace: string, metric: MetricIdentifier): Promise<MetricSample[]>;
}

/** One metric a cycle needs; identical queries are fetched once. */
export type MetricQuery =
  | { type: 'PodResource'; cluster: string; namespace: string }
  | { type: 'Pods'; cluster: string; namespace: string; metric: MetricIdentifier; podSelector: string }
  | {
      type: 'Object';
      cluster: string;
      namespace: string;
      describedObject: CrossVersionObjectReference;
      metric: MetricIdentifier;
    }
  | { type: 'External'; cluster: string; namespace: string; metric: MetricIdentifier }
  | { type: 'CloudWatch'; cluster: string; namespace: string; source: CloudWatchMetric };

export type MetricAnswer =
  | { type: 'PodResource'; result: Fetched<PodMetric[]> }
  | { type: 'Pods'; result: Fetched<PodMetricSample[]> }
  | { type: 'Object'; result: Fetched<MetricSample> }
  | { type: 'External'; result: Fetched<MetricSample[]>; messages?: string[] }
  | { type: 'CloudWatch'; result: Fetched<MetricSample[]>; messages?: string[] };

export interface MetricsAccess {
  /** All metrics of a cycle at once; answers align with queries by index. Never throws for one metric. */
  fetchAll(queries: MetricQuery[], now: Date): Promise<MetricAnswer[]>;
}
