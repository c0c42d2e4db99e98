// Types of the autoscaling/v2 HorizontalPodAutoscaler API and of the inputs the
// upstream controller reads. Wire shapes follow the Kubernetes JSON exactly, so
// a YAML document decodes straight into them. Quantities stay strings here;
// lib/hpa/api/quantity.ts parses them. Times are RFC 3339 strings.

/** A Kubernetes quantity string: "100m", "1.5Gi", "10k", "1e3". */
export type QuantityString = string;
/** An RFC 3339 timestamp. "0001-01-01T00:00:00Z" is Go's zero time, a real value. */
export type Timestamp = string;

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: Timestamp;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
}

export interface CrossVersionObjectReference {
  kind: string;
  name: string;
  apiVersion?: string;
}

export type MetricTargetType = 'Utilization' | 'Value' | 'AverageValue';

export interface MetricTarget {
  type: MetricTargetType;
  value?: QuantityString;
  averageValue?: QuantityString;
  averageUtilization?: number;
}

export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface MetricIdentifier {
  name: string;
  selector?: LabelSelector;
}

/**
 * KEP-5679 ExternalMetricFallback: the replica count a metric proposes once it has failed for
 * failureDurationSeconds. Upstream's on External metrics; ours on every other type too.
 */
export interface MetricFallback {
  /** Default 180 (KEP-5679), at least 180. */
  failureDurationSeconds?: number;
  /** > 0. */
  replicas: number;
}

/** KEP-5679 status fields, on every type's status entry when its metric configures a fallback. */
export interface MetricFallbackStatus {
  fallbackStatus?: 'Normal' | 'Fallback';
  /** The first of the current run of consecutive failures; absent once the metric is read again. */
  firstFailureTime?: Timestamp;
}

export interface ResourceMetricSource {
  name: string;
  target: MetricTarget;
  fallback?: MetricFallback;
}

export interface ContainerResourceMetricSource {
  name: string;
  container: string;
  target: MetricTarget;
  fallback?: MetricFallback;
}

export interface PodsMetricSource {
  metric: MetricIdentifier;
  target: MetricTarget;
  fallback?: MetricFallback;
}

export interface ObjectMetricSource {
  describedObject: CrossVersionObjectReference;
  metric: MetricIdentifier;
  target: MetricTarget;
  fallback?: MetricFallback;
  /** Ours (KEDA's activation threshold): at zero replicas, scale up only while the value is above it. */
  activation?: ActivationThreshold;
}

export interface ExternalMetricSource {
  metric: MetricIdentifier;
  target: MetricTarget;
  fallback?: MetricFallback;
  /** Ours (KEDA's activation threshold): at zero replicas, scale up only while the total is above it. */
  activation?: ActivationThreshold;
}

/** Ours: the metric's value (an External metric's total over its series) must exceed `value` to leave zero replicas. */
export interface ActivationThreshold {
  value: QuantityString;
}

export type MetricSourceType = 'Resource' | 'ContainerResource' | 'Pods' | 'Object' | 'External';

export interface MetricSpec {
  type: MetricSourceType;
  resource?: ResourceMetricSource;
  containerResource?: ContainerResourceMetricSource;
  pods?: PodsMetricSource;
  object?: ObjectMetricSource;
  external?: ExternalMetricSource;
}

export type HPAScalingPolicyType = 'Pods' | 'Percent';

export interface HPAScalingPolicy {
  type: HPAScalingPolicyType;
  value: number;
  periodSeconds: number;
}

export type ScalingPolicySelect = 'Max' | 'Min' | 'Disabled';

export interface HPAScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: ScalingPolicySelect;
  policies?: HPAScalingPolicy[];
  /** Per-direction tolerance (HPAConfigurableTolerance), a quantity such as "0.05". */
  tolerance?: QuantityString;
}

export interface HorizontalPodAutoscalerBehavior {
  scaleUp?: HPAScalingRules;
  scaleDown?: HPAScalingRules;
}

export interface HorizontalPodAutoscalerSpec {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas?: number;
  maxReplicas: number;
  metrics?: MetricSpec[];
  behavior?: HorizontalPodAutoscalerBehavior;
  /** How often this autoscaler is evaluated (KEP-6003's proposed field, our extension now); absent: the deploy's period. */
  syncPeriodSeconds?: number;
  /** Ours: named windows raising the minimum while open (lib/hpa/schedules.ts). */
  minReplicaSchedules?: MinReplicaSchedule[];
  /** Ours: a minimum learned from this autoscaler's own demand history (lib/hpa/predictive.ts). */
  predictive?: PredictiveSpec;
}

/** Ours: ForecastOnly computes and shows the predictive minimum; ForecastAndScale also raises the minimum with it. */
export type PredictiveMode = 'ForecastOnly' | 'ForecastAndScale';
/**
 * Where the forecast passes maxReplicas (AWS predictive scaling's MaxCapacityBreachBehavior): HonorMaxReplicas
 * caps the predictive minimum at maxReplicas; IncreaseMaxReplicas lets the predictive minimum (only) exceed it.
 */
export type PredictiveMaxReplicasBehavior = 'HonorMaxReplicas' | 'IncreaseMaxReplicas';

/** Ours: predictive minimums (issue 32, docs/predictive.md). */
export interface PredictiveSpec {
  mode: PredictiveMode;
  /** The minimum covers the demand forecast this far ahead; default 300 (AWS SchedulingBufferTime), 0..3600. */
  schedulingBufferSeconds?: number;
  /** History kept and used; default 1209600 (14 days, as AWS), 2 to 14 days. */
  historySeconds?: number;
  /** History needed before the forecast acts; default 86400 (24 hours, as AWS), at most historySeconds. */
  minHistorySeconds?: number;
  /** Default HonorMaxReplicas. */
  maxReplicasBehavior?: PredictiveMaxReplicasBehavior;
}

/** Ours: a window raising the minimum; start and end are 5-field cron expressions (in timezone) or RFC 3339 times. */
export interface MinReplicaSchedule {
  name: string;
  minReplicas: number;
  /** IANA timezone of the cron expressions; default UTC. */
  timezone?: string;
  start: string;
  end: string;
}

export interface MetricValueStatus {
  value?: QuantityString;
  averageValue?: QuantityString;
  averageUtilization?: number;
}

export interface MetricStatus {
  /** "" for a metric that failed this sync: upstream leaves an empty MetricStatus in its slot. */
  type: MetricSourceType | '';
  resource?: { name: string; current: MetricValueStatus } & MetricFallbackStatus;
  containerResource?: { name: string; container: string; current: MetricValueStatus } & MetricFallbackStatus;
  pods?: { metric: MetricIdentifier; current: MetricValueStatus } & MetricFallbackStatus;
  object?: { describedObject: CrossVersionObjectReference; metric: MetricIdentifier; current: MetricValueStatus } & MetricFallbackStatus;
  external?: { metric: MetricIdentifier; current: MetricValueStatus } & MetricFallbackStatus;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';
/**
 * Upstream's four (ScaledToZero since 1.37, kubernetes/kubernetes#135118), and ours: HistoryIntact False when the
 * stored history could not be trusted and was reset; Ready, the summary GitOps tools read (lib/sync/readiness.ts);
 * ScalingPaused (lib/hpa/pause.ts) and ScheduledMinimum (lib/hpa/schedules.ts), only on autoscalers that use them.
 */
export type HorizontalPodAutoscalerConditionType =
  | 'AbleToScale'
  | 'ScalingActive'
  | 'ScalingLimited'
  | 'ScaledToZero'
  | 'HistoryIntact'
  | 'Ready'
  /** KEP-5679: True while any metric uses its fallback; only on objects that configure one. */
  | 'ExternalMetricFallbackActive'
  | 'ScalingPaused'
  | 'ScheduledMinimum'
  /** Ours: the forecast minimum (lib/hpa/predictive.ts), only on autoscalers with spec.predictive. */
  | 'PredictiveMinimum';

export interface HorizontalPodAutoscalerCondition {
  type: HorizontalPodAutoscalerConditionType;
  status: ConditionStatus;
  lastTransitionTime?: Timestamp;
  reason?: string;
  message?: string;
  /** metadata.generation of the spec the condition was set from (upstream 1.37, kubernetes/kubernetes#138653). */
  observedGeneration?: number;
}

export interface HorizontalPodAutoscalerStatus {
  observedGeneration?: number;
  lastScaleTime?: Timestamp;
  currentReplicas: number;
  desiredReplicas: number;
  currentMetrics?: MetricStatus[];
  conditions?: HorizontalPodAutoscalerCondition[];
  /** Ours, display only: where each of spec.metrics was read at the last evaluation ("CloudWatchMetric demo/queue: AWS/SQS …"). */
  metricSources?: string[];
  /** Ours: how this autoscaler's dry-run decisions compared with the live autoscaler it shadows (lib/sync/shadow.ts). */
  shadow?: ShadowSummary;
}

/** Ours: a shadow period's summary, from its first dry-run decision beside the live autoscaler. */
export interface ShadowSummary {
  /** The live autoscaler: "HorizontalPodAutoscaler/web" or "ScaledObject/web" (whose HPA is keda-hpa-web). */
  of: string;
  /** When the comparison started (the first decision compared). */
  since: Timestamp;
  /** When ours took over (left dry-run): the period is over, its numbers kept. */
  until?: Timestamp;
  /** Decisions compared with a live HPA status, and of those, how many wanted the same replica count. */
  decisions: number;
  agreed: number;
  /** The largest |ours − live desiredReplicas| seen. */
  maxDifference: number;
  /** The latest decision compared. */
  last?: { time: Timestamp; desiredReplicas: number; liveDesiredReplicas?: number; liveCurrentReplicas?: number; problem?: string };
}

export interface HorizontalPodAutoscaler {
  apiVersion: 'autoscaling/v2';
  kind: 'HorizontalPodAutoscaler';
  metadata: ObjectMeta;
  spec: HorizontalPodAutoscalerSpec;
  status?: HorizontalPodAutoscalerStatus;
}

// ---- What the controller reads from the cluster ----

/** A pod as the replica calculator sees it. */
export interface PodInfo {
  name: string;
  labels?: Record<string, string>;
  /** Pending, Running, Succeeded, Failed, Unknown, or "" */
  phase: string;
  /** Status of the Ready condition; absent when the pod has no Ready condition. */
  ready?: ConditionStatus;
  readyTransitionTime?: Timestamp;
  /** Absent when the pod has no start time. */
  startTime?: Timestamp;
  deletionTimestamp?: Timestamp;
  containers: { name: string; requests: Record<string, QuantityString> }[];
}

/** One pod's resource metrics (metrics.k8s.io PodMetrics). */
export interface PodMetric {
  pod: string;
  timestamp: Timestamp;
  windowSeconds: number;
  containers: { name: string; usage: Record<string, QuantityString> }[];
}

/** A Pods-type (custom.metrics.k8s.io) value for one pod. */
export interface PodMetricSample {
  pod: string;
  value: QuantityString;
  timestamp: Timestamp;
}

/** One value of an Object metric, or one series of an External metric. */
export interface MetricSample {
  value: QuantityString;
  timestamp: Timestamp;
}

/** The scale subresource of the target. selector is its status.selector ("" = missing). */
export interface ScaleInfo {
  specReplicas: number;
  statusReplicas: number;
  selector: string;
  /** The target's resourceVersion when read: a write of the scale with it fails if the target changed since. */
  resourceVersion?: string;
}

export interface Tolerances {
  scaleUp: number;
  scaleDown: number;
}

export interface TimestampedRecommendation {
  timestamp: Timestamp;
  replicas: number;
}

/** A scale event: change is a positive replica count. */
export interface ScaleEvent {
  timestamp: Timestamp;
  change: number;
}

/** The controller's per-HPA memory, which we persist instead of losing it on restart. */
export interface ScalingHistory {
  /** null: none yet (the controller seeds one after reading the scale). */
  recommendations: TimestampedRecommendation[] | null;
  scaleUpEvents: ScaleEvent[];
  scaleDownEvents: ScaleEvent[];
}

export interface FeatureGates {
  HPAScaleToZero: boolean;
  HPAConfigurableTolerance: boolean;
  /** KEP-5679 (alpha upstream, on by default here): off, fallback blocks are ignored and their status left alone. */
  HPAExternalMetricFallback: boolean;
}

/** The controller's flags (kube-controller-manager --horizontal-pod-autoscaler-*). */
export interface ControllerSettings {
  tolerance: Tolerances;
  cpuInitializationPeriodSeconds: number;
  initialReadinessDelaySeconds: number;
  downscaleStabilizationWindowSeconds: number;
  /** Legacy (no behavior) scale-up limit: max(factor * current, minimum). */
  scaleUpLimitFactor: number;
  scaleUpLimitMinimum: number;
  featureGates: FeatureGates;
}

/** A value or an error message, per metric or per API call. */
export type Fetched<T> = { value: T; error?: undefined } | { error: string; value?: undefined };
