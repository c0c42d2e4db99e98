// The sync runs on every stored or listed spec the same defaulting and validation as
// `shpa apply` and upstream's API server: a spec written by another tool, a hand edit or an
// older version is never acted on as is. An invalid one gets a status that says why.
import { applyDefaults, formatFieldError, validateHPA } from '#hpa/api';
import type { FeatureGates, HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus } from '#hpa';
import type { MetricAccess } from '../api/metric-access.js';
import { metricProviders, type CheckedMetricObjects, type MetricObject, type MetricObjectListing, type MetricProvider } from '../metrics/providers/index.js';
import type { NewEvent } from './event-log.js';

export type SpecCheck = { valid: true; hpa: HorizontalPodAutoscaler } | { valid: false; errors: string[] };

/** Validates the object as stored (or listed), then defaults it, as `shpa apply` does. */
export function checkSpec(hpa: HorizontalPodAutoscaler, gates: FeatureGates): SpecCheck {
  const { status, ...object } = hpa;
  const r = validateHPA(object, gates);
  if (!r.valid) return { valid: false, errors: r.errors.map(formatFieldError) };
  const defaulted = applyDefaults(r.hpa);
  return { valid: true, hpa: status ? { ...defaulted, status } : defaulted };
}

/**
 * Each provider's objects that pass their validation and the deploy's metric allowlist (metricAccess),
 * per namespace by name, and why the others do not ("is invalid: ..." or "is refused: ...").
 */
export function checkMetricObjects(listing: MetricObjectListing, access: MetricAccess = {}): CheckedMetricObjects[] {
  return metricProviders.map((provider) => checkProviderObjects(provider, provider.objectsOf(listing), access));
}

function checkProviderObjects(provider: MetricProvider, objects: readonly MetricObject[], access: MetricAccess): CheckedMetricObjects {
  const valid = new Map<string, Map<string, MetricObject>>();
  const invalid = new Map<string, string>();
  for (const o of objects) {
    const r = provider.validate(o);
    const namespace = o.metadata.namespace ?? 'default';
    const key = `${namespace}/${o.metadata.name}`;
    if (!r.valid) {
      invalid.set(key, `is invalid: ${r.errors.map(formatFieldError).join('; ')}`);
      continue;
    }
    const refused = provider.accessProblem(r.object, access);
    if (refused) invalid.set(key, `is refused: ${refused}`);
    else {
      if (!valid.has(namespace)) valid.set(namespace, new Map());
      valid.get(namespace)!.set(r.object.metadata.name, r.object);
    }
  }
  return { provider, valid, invalid };
}

/** The status of an autoscaler whose spec (of `generation`) is invalid: ScalingActive False, reason InvalidSpec, the field errors. */
export function invalidSpecStatus(
  old: HorizontalPodAutoscalerStatus | undefined,
  errors: string[],
  now: Date,
  generation: number | undefined,
): { status: HorizontalPodAutoscalerStatus; event: NewEvent } {
  const message = `the spec is invalid and is not acted on until it is fixed: ${errors.join('; ')}`;
  const conditions = [...(old?.conditions ?? [])];
  const i = conditions.findIndex((c) => c.type === 'ScalingActive');
  const prev = i >= 0 ? conditions[i] : undefined;
  const cond: HorizontalPodAutoscalerCondition = {
    type: 'ScalingActive',
    status: 'False',
    reason: 'InvalidSpec',
    message,
    // Upstream's setCondition: the transition time changes only with the status.
    lastTransitionTime: prev?.status === 'False' && prev.lastTransitionTime ? prev.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  if (i >= 0) conditions[i] = cond;
  else conditions.push(cond);
  return {
    status: { ...(old ?? { currentReplicas: 0, desiredReplicas: 0 }), conditions, ...(generation !== undefined ? { observedGeneration: generation } : {}) },
    event: { type: 'Warning', reason: 'InvalidSpec', message },
  };
}
