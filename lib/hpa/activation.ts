// Ours, after KEDA's activation threshold (keda.sh "Activating and Scaling thresholds", kedacore/keda#2800):
// while the target is at zero replicas, it leaves zero only if some metric is active. A metric with
// `activation` is active while its value is above the threshold (KEDA: value > threshold); one without
// is active when its own proposal is above zero (KEDA's default threshold, 0). Above zero the threshold
// has no effect: unlike KEDA, a value below it never scales a running workload to zero. A metric that
// cannot be read but is on its fallback count (lib/hpa/fallback.ts) is active: the fallback says how many
// replicas to assume, from zero too (what KEDA's users asked for in kedacore/keda#7239).
import { formatMilli, milliToBig, parseMilli } from './api/quantity.js';
import type { MetricData } from './replica-calculator.js';
import type { ActivationThreshold, MetricSpec, QuantityString } from './types.js';

/** One metric's activation at zero replicas, as the decision log shows it. */
export interface MetricActivation {
  threshold: QuantityString;
  /** The value compared with it (an External metric's total over its series); absent when it could not be read. */
  value?: QuantityString;
  active: boolean;
  /** Active because the metric, unreadable, is on its fallback count. */
  fallback?: true;
}

export interface ActivationCheck {
  /** By metric index: the metrics that set a threshold. */
  metrics: Map<number, MetricActivation>;
  /** Some metric is active: the target may leave zero. */
  active: boolean;
  /** What the condition says while the target stays at zero, e.g. "queue: 3 (activation 5)". */
  message: string;
}

/** The metric's activation threshold (Object and External metrics only). */
export function activationThreshold(spec: MetricSpec): ActivationThreshold | undefined {
  if (spec.type === 'Object') return spec.object?.activation;
  if (spec.type === 'External') return spec.external?.activation;
  return undefined;
}

/** The metrics of a spec that set a threshold: an autoscaler without any is never held at zero. */
function usesActivation(specs: readonly MetricSpec[]): boolean {
  return specs.some((s) => activationThreshold(s) !== undefined);
}

/** One metric as the activation check reads it. */
export interface ActivationInput {
  spec: MetricSpec;
  data: MetricData;
  /** The metric's replica proposal: undefined when it failed, the fallback count while `fellBack`. */
  proposal?: number;
  /** Its name for the message. */
  name: string;
  fellBack?: boolean;
}

/**
 * At zero replicas: which metrics are active (by index in `metrics`), and whether the target may leave
 * zero; undefined when no metric sets a threshold.
 */
export function checkActivation(metrics: readonly ActivationInput[]): ActivationCheck | undefined {
  if (!usesActivation(metrics.map((m) => m.spec))) return undefined;
  const found = new Map<number, MetricActivation>();
  const below: string[] = [];
  let active = false;
  metrics.forEach((m, i) => {
    const threshold = activationThreshold(m.spec);
    if (threshold === undefined) {
      if ((m.proposal ?? 0) > 0) active = true;
      return;
    }
    const value = metricValueMilli(m.spec, m.data);
    const limit = milliOf(threshold.value);
    const onFallback = value === undefined && m.fellBack === true && (m.proposal ?? 0) > 0;
    const above = onFallback || (value !== undefined && limit !== undefined && value > limit);
    const entry: MetricActivation = { threshold: threshold.value, active: above, ...(onFallback ? { fallback: true as const } : {}) };
    if (value !== undefined) entry.value = formatMilli(value);
    found.set(i, entry);
    if (above) active = true;
    else below.push(`${m.name}: ${entry.value ?? 'unavailable'} (activation ${threshold.value})`);
  });
  const message = `the target stays at zero replicas: no metric is above its activation threshold (${below.join('; ')})`;
  return { metrics: found, active, message };
}

/** The value an activation threshold is compared with, in milli-units: the Object metric's, or the sum of an External metric's series. */
function metricValueMilli(spec: MetricSpec, data: MetricData): bigint | undefined {
  if (spec.type === 'Object') {
    const v = data.objectMetric?.value;
    return v === undefined ? undefined : milliOf(v.value);
  }
  const series = data.externalMetrics?.value;
  if (series === undefined || series.length === 0) return undefined;
  let total = 0n;
  for (const s of series) {
    const m = milliOf(s.value);
    if (m === undefined) return undefined;
    total += m;
  }
  return total;
}

function milliOf(q: QuantityString): bigint | undefined {
  try {
    return milliToBig(parseMilli(q));
  } catch {
    return undefined;
  }
}
