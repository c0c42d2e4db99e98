// Upstream horizontal.go: normalizeDesiredReplicas (legacy, no behavior) and
// normalizeDesiredReplicasWithBehaviors, stabilization and rate policies, scale events.
// CONTRACT (owned by the behavior helper): keep these exports and signatures.
import type {
  HorizontalPodAutoscalerBehavior,
  ScaleEvent,
  ScalingHistory,
  TimestampedRecommendation,
} from './types.js';

/** One step that changed the recommendation, for the decision record. */
export interface NormalizeStep {
  /** e.g. "scaleDownStabilization", "scaleUpPolicy", "minReplicas", "maxReplicas", "legacyScaleUpLimit" */
  rule: string;
  from: number;
  to: number;
  detail?: string;
}

export interface NormalizeResult {
  replicas: number;
  /** The ScalingLimited condition: DesiredWithinRange (False) or TooFewReplicas/TooManyReplicas/ScaleUpLimit/ScaleDownLimit (True). */
  limited: { status: 'True' | 'False'; reason: string; message: string };
  /** Set when stabilization changed the recommendation: AbleToScale True ScaleUpStabilized/ScaleDownStabilized. */
  stabilized?: { reason: 'ScaleUpStabilized' | 'ScaleDownStabilized'; message: string };
  /** The recommendation history to store (this recommendation recorded, slots reused as upstream). */
  recommendations: TimestampedRecommendation[];
  steps: NormalizeStep[];
}

export interface NormalizeArgs {
  currentReplicas: number;
  prenormalizedDesiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  recommendations: TimestampedRecommendation[];
  now: Date;
}

/** With spec.behavior (fully defaulted, scaleDown.stabilizationWindowSeconds filled in). */
export function normalizeWithBehavior(
  args: NormalizeArgs & {
    behavior: HorizontalPodAutoscalerBehavior;
    scaleUpEvents: ScaleEvent[];
    scaleDownEvents: ScaleEvent[];
  },
): NormalizeResult {
  throw new Error('not implemented');
}

/** Without spec.behavior: downscale stabilization window, scale-up limit max(factor × current, minimum). */
export function normalizeLegacy(
  args: NormalizeArgs & {
    downscaleStabilizationWindowSeconds: number;
    scaleUpLimitFactor: number;
    scaleUpLimitMinimum: number;
  },
): NormalizeResult {
  throw new Error('not implemented');
}

/** Upstream storeScaleEvent after a successful rescale; nothing is stored without behavior. Prunes what no policy period can count. */
export function recordScaleEvent(
  history: Pick<ScalingHistory, 'scaleUpEvents' | 'scaleDownEvents'>,
  behavior: HorizontalPodAutoscalerBehavior | undefined,
  prevReplicas: number,
  newReplicas: number,
  now: Date,
): Pick<ScalingHistory, 'scaleUpEvents' | 'scaleDownEvents'> {
  throw new Error('not implemented');
}
