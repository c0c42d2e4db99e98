// Upstream pkg/controller/podautoscaler/replica_calculator.go and the per-metric
// dispatch of horizontal.go (computeReplicasForMetric and its helpers).
// CONTRACT (owned by the replica-calculator helper): keep these exports and signatures.
import type {
  Fetched,
  MetricSample,
  MetricSpec,
  MetricStatus,
  PodInfo,
  PodMetric,
  PodMetricSample,
  Timestamp,
  Tolerances,
} from './types.js';

export interface ReplicaCalcContext {
  /** Replicas from the scale's spec. */
  currentReplicas: number;
  /** Replicas from the scale's status (per-pod Object/External targets). */
  statusReplicas: number;
  /** Pods the HPA's selector matched. */
  pods: PodInfo[];
  tolerances: Tolerances;
  cpuInitializationPeriodSeconds: number;
  initialReadinessDelaySeconds: number;
  now: Date;
}

/** The metric values for one MetricSpec; only the field matching its type is read. */
export interface MetricData {
  podMetrics?: Fetched<PodMetric[]>;
  podCustomMetrics?: Fetched<PodMetricSample[]>;
  objectMetric?: Fetched<MetricSample>;
  externalMetrics?: Fetched<MetricSample[]>;
}

export interface MetricProposal {
  replicas: number;
  timestamp: Timestamp;
  /** Upstream's metric name for messages, e.g. "cpu resource utilization (percentage of request)". */
  metricName: string;
  /** The entry for status.currentMetrics. */
  status: MetricStatus;
  /** Utilization targets only: current average utilization in percent. */
  utilization?: number;
  /** Current raw value in milli-units (average for per-pod targets), saturated at int64. */
  rawMilli: bigint;
}

export type MetricOutcome =
  | { ok: true; proposal: MetricProposal }
  /** reason: FailedGetResourceMetric, FailedGetContainerResourceMetric, FailedGetPodsMetric, FailedGetObjectMetric, FailedGetExternalMetric or InvalidMetricSourceType. */
  | { ok: false; reason: string; message: string };

export function computeReplicasForMetric(metric: MetricSpec, ctx: ReplicaCalcContext, data: MetricData): MetricOutcome {
  throw new Error('not implemented');
}
