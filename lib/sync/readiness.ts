// Ours: the Ready condition of a ServerlessHorizontalPodAutoscaler, the summary that kstatus (Flux's health
// checks), `kubectl wait --for=condition=Ready` and our Argo CD health check (infra/argocd/health.lua) read.
// True when the spec of `generation` was evaluated and the autoscaler can scale on valid metrics; False with
// the reason of the condition that says why not (InvalidSpec, FailedGetScale, FailedGetExternalMetric, ...,
// and ours InvalidPauseAnnotation, InvalidSchedule). A pause in force leaves it True: the autoscaler still evaluates.
import type { HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus } from '#hpa';

/** The status with its Ready condition; `previous` is the status in the cluster, for the transition time. */
export function withReadyCondition(
  status: HorizontalPodAutoscalerStatus,
  generation: number | undefined,
  previous: readonly HorizontalPodAutoscalerCondition[] | undefined,
  now: Date,
): HorizontalPodAutoscalerStatus {
  const conditions = (status.conditions ?? []).filter((c) => c.type !== 'Ready');
  const find = (type: HorizontalPodAutoscalerCondition['type']) => conditions.find((c) => c.type === type);
  const able = find('AbleToScale');
  const active = find('ScalingActive');
  // KEP-5679: scaling on a fallback count is Ready (it scales), but says so: Argo CD reads it as Degraded.
  const fallback = find('ExternalMetricFallbackActive');
  const working = fallback?.status === 'True' ? fallback : active;
  // Ours: a malformed pause or schedule annotation is acted on as if absent, which is not what was written.
  const misread = conditions.find((c) => (c.type === 'ScalingPaused' && c.reason === 'InvalidPauseAnnotation') || (c.type === 'ScheduledMinimum' && c.reason === 'InvalidSchedule'));
  const cause = able?.status === 'False' ? able : active?.status === 'False' ? active : misread ?? (active?.status === 'True' ? working : undefined);
  const ready: HorizontalPodAutoscalerCondition = {
    type: 'Ready',
    status: cause?.status ?? 'Unknown',
    reason: cause?.reason ?? 'NotEvaluated',
    message: cause?.message ?? 'the autoscaler has not been evaluated yet',
  };
  const was = previous?.find((c) => c.type === 'Ready');
  ready.lastTransitionTime = was?.status === ready.status && was.lastTransitionTime ? was.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (generation !== undefined) ready.observedGeneration = generation;
  return { ...status, conditions: [...conditions, ready] };
}
