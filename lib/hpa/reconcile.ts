// One whole sync of one HPA (upstream horizontal.go reconcileAutoscaler), as a pure function.
// CONTRACT (owned by the lead): keep these exports and signatures.
import type { MetricData } from './replica-calculator.js';
import type { NormalizeStep } from './behavior.js';
import type {
  ControllerSettings,
  Fetched,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerStatus,
  MetricTarget,
  MetricValueStatus,
  PodInfo,
  ScaleInfo,
  ScalingHistory,
} from './types.js';

export interface ReconcileInput {
  /** As stored: validated; API defaults are applied inside (idempotent). */
  hpa: HorizontalPodAutoscaler;
  /** The target's scale subresource, or the error reading it. */
  scale: Fetched<ScaleInfo>;
  /** Pods of the HPA's namespace (or already selected); the scale's selector picks among them. */
  pods: PodInfo[];
  /** Metric values aligned by index with the defaulted spec.metrics. */
  metrics: MetricData[];
  history: ScalingHistory;
  /** Other HPAs of the controller: one selecting any of our pods makes the selector ambiguous. */
  otherHpaSelectors?: { namespace: string; name: string; selector: string }[];
  settings: ControllerSettings;
  now: Date;
}

export interface HpaEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** What the sync decided for one metric. */
export interface MetricDecision {
  index: number;
  type: string;
  /** e.g. "cpu", "qps", or upstream's metric description. */
  name: string;
  target?: MetricTarget;
  current?: MetricValueStatus;
  proposal?: number;
  timestamp?: string;
  error?: { reason: string; message: string };
}

/** The explanation of one sync: logged as one line per autoscaler per cycle. */
export interface Decision {
  currentReplicas?: number;
  metrics: MetricDecision[];
  /** The max over valid metrics, before normalization. */
  recommendation?: number;
  /** Which metric gave the recommendation. */
  winner?: string;
  /** Each stabilization/policy/clamp step that changed it. */
  steps: NormalizeStep[];
  desiredReplicas: number;
  rescale: boolean;
  rescaleReason?: string;
  /** Why nothing was computed (e.g. FailedGetScale, ScalingDisabled, InvalidSelector). */
  skipped?: { reason: string; message: string };
}

/** Phase 1: everything up to writing the scale. */
export interface ReconcilePlan {
  input: ReconcileInput;
  /** The replica count to write through /scale when rescale is true. */
  desiredReplicas: number;
  rescale: boolean;
  decision: Decision;
  // internal state carried to phase 2
  readonly state: unknown;
}

export interface ReconcileResult {
  status: HorizontalPodAutoscalerStatus;
  history: ScalingHistory;
  events: HpaEvent[];
  /** The scale subresource was written successfully. */
  scaled: boolean;
  /** status differs from the input status by value. */
  statusChanged: boolean;
  conditions: HorizontalPodAutoscalerCondition[];
  decision: Decision;
}

export function planReconcile(input: ReconcileInput): ReconcilePlan {
  throw new Error('not implemented');
}

/** Phase 2: after the scale write (or none); scaleWriteError when it failed. */
export function completeReconcile(plan: ReconcilePlan, scaleWriteError?: string): ReconcileResult {
  throw new Error('not implemented');
}

/** Both phases, for callers that know the write outcome up front (tests, simulator). */
export function reconcile(input: ReconcileInput, scaleWriteError?: string): ReconcileResult {
  return completeReconcile(planReconcile(input), scaleWriteError);
}
