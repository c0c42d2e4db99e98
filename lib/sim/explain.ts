// The decision log in upstream's words: the events lib/hpa emits ("New size: 4; reason: ...") and
// the conditions that held the count back ("ScaleUpLimit: the desired replica count is ...").
import type { Decision, HorizontalPodAutoscalerCondition, HpaEvent } from '#hpa';
import { parseQuantity, toFloat } from '#hpa/api';
import type { DecisionRow } from '../report/model.js';
import { formatAmount } from '../report/units.js';
import { currentNumber, metricUnit, targetNumber } from './metric-info.js';

/**
 * The condition that explains why the count is not simply the metrics' recommendation, or why
 * nothing was computed; undefined when nothing holds it back.
 */
export function limitingCondition(conditions: HorizontalPodAutoscalerCondition[] | undefined): { reason: string; message: string } | undefined {
  const c = (type: string) => conditions?.find((x) => x.type === type);
  const pick = (x: HorizontalPodAutoscalerCondition | undefined) => x && { reason: x.reason ?? x.type, message: x.message ?? '' };
  const active = c('ScalingActive');
  if (active?.status === 'False') return pick(active);
  // Ours (lib/hpa/activation.ts): held at zero replicas below the activation thresholds.
  if (active?.reason === 'BelowActivationThreshold') return pick(active);
  const able = c('AbleToScale');
  if (able?.status === 'False') return pick(able);
  const limited = c('ScalingLimited');
  if (limited?.status === 'True') return pick(limited);
  if (able?.reason === 'ScaleUpStabilized' || able?.reason === 'ScaleDownStabilized') return pick(able);
  return undefined;
}

/** The limiting condition's reason alone ("" when none): the demo's live lines. */
export function limitingReason(conditions: HorizontalPodAutoscalerCondition[] | undefined): string {
  return limitingCondition(conditions)?.reason ?? '';
}

/** "cpu 92%/60%, memory 1.18Gi/1Gi, jobs-backlog <unknown>/100": each metric's current/target. */
export function metricsText(d: Decision): string {
  return d.metrics
    .map((m) => {
      if (!m.target) return `${m.name} <unknown>`;
      const unit = metricUnit(m.type, m.name, m.target);
      if (noPodsToAverage(d, m)) return `${m.name} <no pods>/${formatAmount(targetNumber(m.target), unit)}`;
      const cur = m.error ? undefined : currentNumber(m.target, m.current);
      const fallback = m.fallback?.status === 'Fallback' ? ` (fallback ${m.fallback.replicas})` : '';
      return `${m.name} ${cur === undefined ? '<unknown>' : formatAmount(cur, unit)}/${formatAmount(targetNumber(m.target), unit)}${fallback}`;
    })
    .join(', ');
}

/** One sync as lib/hpa reports it, with the replicas before and after. */
export interface SyncOutcome {
  time: number;
  decision: Decision;
  events: HpaEvent[];
  conditions: HorizontalPodAutoscalerCondition[] | undefined;
  from: number;
  to: number;
}

/** The limiting condition as "Reason: message" ("" when none): what a row's limit shows, and what rows are compared by. */
export function limitText(conditions: HorizontalPodAutoscalerCondition[] | undefined): string {
  const l = limitingCondition(conditions);
  return l ? `${l.reason}: ${l.message}` : '';
}

/**
 * The decision-log rows of one sync: one per event (rescales with the condition that limited them),
 * or one for a change of the limiting condition (`previousLimit`, from limitText) when there was no event.
 */
export function decisionRows(o: SyncOutcome, previousLimit: string): DecisionRow[] {
  const metrics = metricsText(o.decision);
  const limit = limitText(o.conditions);
  const row = (type: 'Normal' | 'Warning', reason: string, message: string, withLimit: boolean): DecisionRow => {
    const shownLimit = withLimit && limit ? limit : undefined;
    const change = o.from === o.to ? `holds ${o.to}` : `scaled ${o.from}→${o.to}`;
    const zero = reason === 'SuccessfulRescale' ? scaledToZeroText(o) : undefined;
    const text = [`${change}: ${reason}: ${message}`, shownLimit && `limited by ${shownLimit}`, zero, metrics].filter(Boolean).join('; ');
    return { time: o.time, from: o.from, to: o.to, type, reason, message, ...(shownLimit ? { limit: shownLimit } : {}), metrics, text };
  };
  if (o.events.length > 0) return o.events.map((e) => row(e.type, e.reason, e.message, e.reason === 'SuccessfulRescale'));
  if (limit === previousLimit || limit === '') return [];
  const l = limitingCondition(o.conditions)!;
  return [row('Normal', l.reason, l.message, false)];
}

/** "ScaledToZero True (ScaledToZero)" for a rescale to or from zero that set the condition; undefined otherwise. */
function scaledToZeroText(o: SyncOutcome): string | undefined {
  const c = o.conditions?.find((x) => x.type === 'ScaledToZero');
  const set = c && ((c.status === 'True' && o.to === 0) || (c.status === 'False' && o.from === 0));
  return set ? `ScaledToZero ${c.status} (${c.reason ?? ''})` : undefined;
}

/** A row for a failure around the sync itself (the demo's handler), not a decision of lib/hpa. */
export function errorRow(time: number, replicas: number, message: string): DecisionRow {
  return { time, from: replicas, to: replicas, type: 'Warning', reason: 'SyncError', message, metrics: '', text: `holds ${replicas}: SyncError: ${message}` };
}

/** Each metric's fallback replica count while it is in fallback (KEP-5679), by spec index; null otherwise. */
export function metricFallbacks(d: Decision, count: number): (number | null)[] {
  const out: (number | null)[] = new Array(count).fill(null);
  for (const m of d.metrics) if (m.index < count && m.fallback?.status === 'Fallback') out[m.index] = m.fallback.replicas ?? null;
  return out;
}

/** At zero replicas, each metric's value compared with its activation threshold, by spec index; null otherwise. */
export function metricActivationValues(d: Decision, count: number): (number | null)[] {
  const out: (number | null)[] = new Array(count).fill(null);
  for (const m of d.metrics) {
    const v = m.activation?.value;
    if (m.index < count && d.currentReplicas === 0 && v !== undefined) out[m.index] = toFloat(parseQuantity(v));
  }
  return out;
}

/** Each metric's current value in its target's terms, by spec index; null where it could not be read. */
export function metricValues(d: Decision, count: number): (number | null)[] {
  const out: (number | null)[] = new Array(count).fill(null);
  for (const m of d.metrics) if (m.target && m.index < count && !m.error && !noPodsToAverage(d, m)) out[m.index] = currentNumber(m.target, m.current) ?? null;
  return out;
}

/** At zero replicas a per-pod average has no pods (upstream's status then holds a saturated int64): not shown as a value. */
function noPodsToAverage(d: Decision, m: Decision['metrics'][number]): boolean {
  return d.currentReplicas === 0 && m.target?.type === 'AverageValue';
}
