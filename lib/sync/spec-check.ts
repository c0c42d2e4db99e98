// The sync runs on every stored or listed spec the same defaulting and validation as
// `shpa apply` and upstream's API server: a spec written by another tool, a hand edit or an
// older version is never acted on as is. An invalid one gets a status that says why.
import { applyDefaults, type FieldError, formatFieldError, validateHPA } from '#hpa/api';
import type { FeatureGates, HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus } from '#hpa';
import type { CloudWatchMetric } from '../api/cloudwatch-types.js';
import { validateCloudWatchMetric } from '../api/cloudwatch-validation.js';
import { metricAccessProblem, prometheusAccessProblem, type MetricAccess } from '../api/metric-access.js';
import type { PrometheusMetric } from '../api/prometheus-types.js';
import { validatePrometheusMetric } from '../api/prometheus-validation.js';
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
 * The CloudWatchMetric objects that pass their validation and the deploy's metric allowlist, and
 * why the others do not ("is invalid: ..." or "is refused: ...").
 */
export function checkCloudWatchMetrics(objects: CloudWatchMetric[], access: MetricAccess = {}): { valid: CloudWatchMetric[]; invalid: Map<string, string> } {
  return checkMetricObjects(objects, validateCloudWatchMetric, (o) => metricAccessProblem(o, access));
}

/** The same for PrometheusMetric objects: validation, then the allowlist's workspaces, servers, secrets and roles. */
export function checkPrometheusMetrics(objects: PrometheusMetric[], access: MetricAccess = {}): { valid: PrometheusMetric[]; invalid: Map<string, string> } {
  return checkMetricObjects(objects, validatePrometheusMetric, (o) => prometheusAccessProblem(o, access));
}

function checkMetricObjects<T extends CloudWatchMetric | PrometheusMetric>(
  objects: T[],
  validate: (o: unknown) => { valid: true; object: T } | { valid: false; errors: FieldError[] },
  refusal: (o: T) => string | undefined,
): { valid: T[]; invalid: Map<string, string> } {
  const valid: T[] = [];
  const invalid = new Map<string, string>();
  for (const o of objects) {
    const r = validate(o);
    const key = `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
    if (!r.valid) {
      invalid.set(key, `is invalid: ${r.errors.map(formatFieldError).join('; ')}`);
      continue;
    }
    const refused = refusal(r.object);
    if (refused) invalid.set(key, `is refused: ${refused}`);
    else valid.push(r.object);
  }
  return { valid, invalid };
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
