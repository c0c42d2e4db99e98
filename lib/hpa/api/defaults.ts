// API server defaulting (pkg/apis/autoscaling/v2/defaults.go) and the controller's defaults.
import type {
  ControllerSettings,
  FeatureGates,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HPAScalingRules,
  MetricSpec,
} from '../types.js';
import { defaultPredictive } from '../predictive.js';

export const DEFAULT_FEATURE_GATES: FeatureGates = { HPAScaleToZero: true, HPAConfigurableTolerance: true, HPAExternalMetricFallback: true };

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

/** autoscaling.DefaultCPUUtilization */
export const DEFAULT_CPU_UTILIZATION = 80;

// defaultHPAScaleUpRules: the pre-behavior limits (4 pods or 100% per 15 s), no stabilization.
const scaleUpDefaults = (): HPAScalingRules => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});

// defaultHPAScaleDownRules: the window stays unset, as the controller's
// --horizontal-pod-autoscaler-downscale-stabilization flag supplies it.
const scaleDownDefaults = (): HPAScalingRules => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** SetDefaults_HorizontalPodAutoscaler: minReplicas 1, cpu 80% when no metrics, behavior filled only when present. Returns a new object. */
export function applyDefaults(hpa: HorizontalPodAutoscaler): HorizontalPodAutoscaler {
  const spec = hpa.spec;
  const metrics: MetricSpec[] = spec.metrics?.length
    ? spec.metrics
    : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  const out: HorizontalPodAutoscaler = {
    ...hpa,
    // Nested values are shared, not copied: lib/hpa never mutates its inputs.
    spec: { ...spec, minReplicas: spec.minReplicas ?? 1, metrics },
  };
  // An absent behavior stays absent: the controller then takes its legacy path.
  if (spec.behavior != null) out.spec.behavior = defaultBehavior(spec.behavior);
  else delete out.spec.behavior;
  // Ours: spec.predictive's defaults, only when it is set.
  if (spec.predictive != null) out.spec.predictive = defaultPredictive(spec.predictive);
  return out;
}

/** GenerateHPAScaleUpRules/GenerateHPAScaleDownRules for a present behavior; scaleDown window left undefined when unset (the controller fills it). */
export function defaultBehavior(behavior: HorizontalPodAutoscalerBehavior): HorizontalPodAutoscalerBehavior {
  return {
    scaleUp: fillRules(behavior.scaleUp, scaleUpDefaults()),
    scaleDown: fillRules(behavior.scaleDown, scaleDownDefaults()),
  };
}

// copyHPAScalingRules: every field that is set wins; given policies are kept whole (even []).
function fillRules(from: HPAScalingRules | undefined, to: HPAScalingRules): HPAScalingRules {
  if (from == null) return to;
  if (from.selectPolicy != null) to.selectPolicy = from.selectPolicy;
  if (from.stabilizationWindowSeconds != null) to.stabilizationWindowSeconds = from.stabilizationWindowSeconds;
  if (from.policies != null) to.policies = from.policies.map((p) => ({ ...p }));
  if (from.tolerance != null) to.tolerance = from.tolerance;
  return to;
}
