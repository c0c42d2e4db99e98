// Short human text from lib/hpa's decision record and conditions, for live lines and the decision log.
import type { Decision, HpaEvent } from '../hpa/reconcile.js';
import { parseQuantity, toFloat } from '../hpa/quantity.js';
import type { HorizontalPodAutoscalerCondition, MetricTarget, MetricValueStatus } from '../hpa/types.js';

/** Why the desired count is not simply the metrics' recommendation, or why nothing was computed; "" when nothing limits it. */
export function limitingReason(conditions: HorizontalPodAutoscalerCondition[] | undefined): string {
  const c = (type: string) => conditions?.find((x) => x.type === type);
  const active = c('ScalingActive');
  if (active?.status === 'False') return active.reason ?? 'ScalingInactive';
  const able = c('AbleToScale');
  if (able?.status === 'False') return able.reason ?? 'UnableToScale';
  const limited = c('ScalingLimited');
  if (limited?.status === 'True') return limited.reason ?? 'ScalingLimited';
  if (able?.reason === 'ScaleUpStabilized' || able?.reason === 'ScaleDownStabilized') return able.reason;
  return '';
}

/** A quantity string as a number; undefined when absent or unparsable. */
export function quantityNumber(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  try {
    return toFloat(parseQuantity(q));
  } catch {
    return undefined;
  }
}

/** The number a target compares against: percent for Utilization, else the quantity. */
export function targetNumber(t: MetricTarget): number {
  if (t.type === 'Utilization') return t.averageUtilization ?? 0;
  return quantityNumber(t.type === 'Value' ? t.value : t.averageValue) ?? 0;
}

/** The current value in the target's terms. */
export function currentNumber(t: MetricTarget, cur: MetricValueStatus | undefined): number | undefined {
  if (!cur) return undefined;
  if (t.type === 'Utilization') return cur.averageUtilization;
  return quantityNumber(t.type === 'Value' ? cur.value : cur.averageValue);
}

export function formatNumber(x: number): string {
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
}

const BINARY = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** A number in the binary unit a target quantity was written in ("1Gi" -> Gi), else as is. */
function formatLike(x: number, t: MetricTarget): string {
  const q = t.type === 'Value' ? t.value : t.type === 'AverageValue' ? t.averageValue : undefined;
  const k = BINARY.findIndex((u) => q?.endsWith(u));
  return k < 0 ? formatNumber(x) : `${formatNumber(Number((x / 1024 ** (k + 1)).toPrecision(3)))}${BINARY[k]}`;
}

/** "cpu 92%/60%", "memory 1.18Gi/1Gi" or "jobs-backlog FailedGetExternalMetric". */
export function metricsText(d: Decision): string {
  return d.metrics
    .map((m) => {
      if (m.error) return `${m.name} ${m.error.reason}`;
      if (!m.target) return m.name;
      const pct = m.target.type === 'Utilization' ? '%' : '';
      const cur = currentNumber(m.target, m.current);
      return `${m.name} ${cur === undefined ? '?' : formatLike(cur, m.target)}${pct}/${formatLike(targetNumber(m.target), m.target)}${pct}`;
    })
    .join(', ');
}

/** One line for the decision log: the metrics, the recommendation, each step that changed it, the events. */
export function decisionText(d: Decision, events: HpaEvent[]): string {
  if (d.skipped) return `${d.skipped.reason}: ${d.skipped.message}`;
  const parts = [metricsText(d)];
  if (d.recommendation !== undefined) parts.push(`recommends ${d.recommendation}${d.winner ? ` (${d.winner})` : ''}`);
  for (const s of d.steps) parts.push(`${s.rule} ${s.from}→${s.to}`);
  parts.push(d.rescale ? `scaled ${d.currentReplicas ?? '?'}→${d.desiredReplicas}` : `holds ${d.desiredReplicas}`);
  for (const e of events) if (e.type === 'Warning') parts.push(`${e.reason}: ${e.message}`);
  return parts.join('; ');
}

/**
 * The decision-log entry of one sync, or undefined when it is not worth one: the log keeps what an
 * operator reviews, scalings, events, errors and each change of what limits the autoscaler.
 */
export function logEntry(text: string, reason: string, previousReason: string, scaled: boolean, events: number, errors: string[] = []): string | undefined {
  if (!scaled && events === 0 && errors.length === 0 && reason === previousReason) return undefined;
  return [text, reason && `[${reason}]`, ...errors].filter(Boolean).join(' ');
}

/** Each metric's current value in its target's terms, by spec index; null where it could not be read. */
export function metricValues(d: Decision, count: number): (number | null)[] {
  const out: (number | null)[] = new Array(count).fill(null);
  for (const m of d.metrics) if (m.target && m.index < count) out[m.index] = currentNumber(m.target, m.current) ?? null;
  return out;
}
