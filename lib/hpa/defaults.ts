// API server defaulting (pkg/apis/autoscaling/v2/defaults.go) and the controller's defaults.
// CONTRACT (owned by the validation helper): keep these exports and signatures.
import type { ControllerSettings, FeatureGates, HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior } from './types.js';

export const DEFAULT_FEATURE_GATES: FeatureGates = { HPAScaleToZero: true, HPAConfigurableTolerance: true };

/** kube-controller-manager defaults. */
export const DEFAULT_CONTROLLER_SETTINGS: ControllerSettings = {
  tolerance: { scaleUp: 0.1, scaleDown: 0.1 },
  cpuInitializationPeriodSeconds: 300,
  initialReadinessDelaySeconds: 30,
  downscaleStabilizationWindowSeconds: 300,
  scaleUpLimitFactor: 2,
  scaleUpLimitMinimum: 4,
  featureGates: DEFAULT_FEATURE_GATES,
};

/** SetDefaults_HorizontalPodAutoscaler: minReplicas 1, cpu 80% when no metrics, behavior filled only when present. Returns a new object. */
export function applyDefaults(hpa: HorizontalPodAutoscaler): HorizontalPodAutoscaler {
  throw new Error('not implemented');
}

/** GenerateHPAScaleUpRules/GenerateHPAScaleDownRules for a present behavior; scaleDown window left undefined when unset (the controller fills it). */
export function defaultBehavior(behavior: HorizontalPodAutoscalerBehavior): HorizontalPodAutoscalerBehavior {
  throw new Error('not implemented');
}
