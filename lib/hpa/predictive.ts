// Ours (issue 32): spec.predictive, the minimum learned from the autoscaler's own demand history
// (lib/hpa/forecast.ts). It raises the minimum as an open window does (AWS predictive scaling's
// rule: capacity in place a buffer ahead of the forecast need, never a scale-in on the forecast).
import { assessForecast, predictiveMinimum, recordDemand, type DemandHistory, type ForecastSettings, type PredictiveMinimum } from './forecast.js';
import { FieldPath, forbidden, invalid, notSupported, required, typeInvalid, type FieldError } from './api/field-path.js';
import type { HorizontalPodAutoscaler, PredictiveMaxReplicasBehavior, PredictiveMode, PredictiveSpec } from './types.js';

export const PREDICTIVE_MODES: readonly PredictiveMode[] = ['ForecastOnly', 'ForecastAndScale'];
export const PREDICTIVE_MAX_BEHAVIORS: readonly PredictiveMaxReplicasBehavior[] = ['HonorMaxReplicas', 'IncreaseMaxReplicas'];
export const DEFAULT_SCHEDULING_BUFFER_SECONDS = 300;
export const DEFAULT_PREDICTIVE_HISTORY_SECONDS = 14 * 86_400;
export const DEFAULT_MIN_HISTORY_SECONDS = 86_400;
/** The forecast compares a time of day on two days at least. */
export const MIN_PREDICTIVE_HISTORY_SECONDS = 2 * 86_400;
/** As AWS: 14 days at most (4,032 buckets of 5 minutes in the store). */
export const MAX_PREDICTIVE_HISTORY_SECONDS = 14 * 86_400;
export const MAX_SCHEDULING_BUFFER_SECONDS = 3600;
/** The pattern check runs again after this long (AWS refreshes its forecast every 6 hours). */
const ASSESS_EVERY_SECONDS = 6 * 3600;

/** spec.predictive with its defaults filled. */
export function defaultPredictive(p: PredictiveSpec): Required<PredictiveSpec> {
  return {
    mode: p.mode,
    schedulingBufferSeconds: p.schedulingBufferSeconds ?? DEFAULT_SCHEDULING_BUFFER_SECONDS,
    historySeconds: p.historySeconds ?? DEFAULT_PREDICTIVE_HISTORY_SECONDS,
    minHistorySeconds: p.minHistorySeconds ?? DEFAULT_MIN_HISTORY_SECONDS,
    maxReplicasBehavior: p.maxReplicasBehavior ?? 'HonorMaxReplicas',
  };
}

/** Shape and bounds of spec.predictive, each problem naming its field. */
export function validatePredictive(value: unknown, path: FieldPath): FieldError[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [typeInvalid(path, value, 'must be an object')];
  const v = value as Record<string, unknown>;
  const errors: FieldError[] = [];
  const fields = ['mode', 'schedulingBufferSeconds', 'historySeconds', 'minHistorySeconds', 'maxReplicasBehavior'];
  for (const k of Object.keys(v)) if (!fields.includes(k)) errors.push(forbidden(path.child(k), 'unknown field'));
  if (v.mode === undefined) errors.push(required(path.child('mode'), ''));
  else if (!PREDICTIVE_MODES.includes(v.mode as PredictiveMode)) errors.push(notSupported(path.child('mode'), v.mode, PREDICTIVE_MODES));
  if (v.maxReplicasBehavior !== undefined && !PREDICTIVE_MAX_BEHAVIORS.includes(v.maxReplicasBehavior as PredictiveMaxReplicasBehavior)) {
    errors.push(notSupported(path.child('maxReplicasBehavior'), v.maxReplicasBehavior, PREDICTIVE_MAX_BEHAVIORS));
  }
  const int = (k: string, min: number, max: number, bound: string): number | undefined => {
    const n = v[k];
    if (n === undefined) return undefined;
    if (typeof n !== 'number' || !Number.isInteger(n)) return void errors.push(typeInvalid(path.child(k), n, 'must be an integer'));
    if (n < min || n > max) return void errors.push(invalid(path.child(k), n, `must be between ${min} and ${max}${bound}`));
    return n;
  };
  int('schedulingBufferSeconds', 0, MAX_SCHEDULING_BUFFER_SECONDS, ' (1 hour)');
  const history = int('historySeconds', MIN_PREDICTIVE_HISTORY_SECONDS, MAX_PREDICTIVE_HISTORY_SECONDS, ' (2 to 14 days)');
  const least = int('minHistorySeconds', 0, MAX_PREDICTIVE_HISTORY_SECONDS, ' (14 days)');
  if (least !== undefined && least > (history ?? DEFAULT_PREDICTIVE_HISTORY_SECONDS)) {
    errors.push(invalid(path.child('minHistorySeconds'), least, 'must be less than or equal to `historySeconds`'));
  }
  return errors;
}

/** What the forecast says at one sync. */
export interface PredictiveReading {
  spec: Required<PredictiveSpec>;
  minimum: PredictiveMinimum;
}

/** The predictive minimum of `hpa` at `now` from `demand`; the pattern check is refreshed on `demand` (kept with it) every 6 hours. */
export function readPredictive(hpa: HorizontalPodAutoscaler, demand: DemandHistory | undefined, now: Date): PredictiveReading | undefined {
  if (!hpa.spec.predictive) return undefined;
  const spec = defaultPredictive(hpa.spec.predictive);
  const settings: ForecastSettings = { historySeconds: spec.historySeconds, minHistorySeconds: spec.minHistorySeconds, schedulingBufferSeconds: spec.schedulingBufferSeconds };
  let assessment = demand?.assessed;
  if (demand) {
    const bucket = Math.floor(now.getTime() / 1000 / demand.bucketSeconds);
    const stale = !assessment || bucket < assessment.atBucket || (bucket - assessment.atBucket) * demand.bucketSeconds >= ASSESS_EVERY_SECONDS;
    if (stale) {
      assessment = { ...assessForecast(demand, now, spec.historySeconds), atBucket: bucket };
      demand.assessed = assessment;
    }
  }
  const minimum = predictiveMinimum(demand, now, hpa.spec.maxReplicas, settings, spec.maxReplicasBehavior === 'HonorMaxReplicas', assessment);
  return { spec, minimum };
}

/** The floor ForecastAndScale raises the minimum with; undefined when the forecast does not act. */
export function predictiveFloor(r: PredictiveReading | undefined): number | undefined {
  return r?.spec.mode === 'ForecastAndScale' && r.minimum.acting ? r.minimum.replicas : undefined;
}

/**
 * Learns this sync's demand: the recommendation before behavior, within spec minReplicas..maxReplicas (a floor the
 * forecast raised never feeds back). `demand` is updated in place.
 */
export function learnDemand(hpa: HorizontalPodAutoscaler, demand: DemandHistory | undefined, now: Date, recommendation: number | undefined): DemandHistory | undefined {
  const p = hpa.spec.predictive;
  if (!p) return undefined;
  if (recommendation === undefined) return demand;
  const replicas = Math.min(hpa.spec.maxReplicas, Math.max(hpa.spec.minReplicas ?? 1, recommendation));
  return recordDemand(demand, now, replicas, p.historySeconds ?? DEFAULT_PREDICTIVE_HISTORY_SECONDS);
}

type Condition = { status: 'True' | 'False'; reason: string; message: string };
type Event = { type: 'Normal'; reason: string; message: string };

/** "3d 4h", "5h", "20m": how much history the forecast rests on. */
export function formatSpan(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  if (d > 0) return h > 0 ? `${d}d ${h}h` : `${d}d`;
  return h > 0 ? `${h}h` : `${Math.floor(seconds / 60)}m`;
}

/**
 * The PredictiveMinimum condition and its event (when the forecast raises the minimum, or raises it further).
 * `otherMinimum` is the minimum without the forecast (spec.minReplicas or an open window's).
 */
export function predictiveCondition(
  r: PredictiveReading | undefined,
  otherMinimum: number,
  previous: { status?: string; message?: string } | undefined,
): { condition: Condition; events: Event[] } | undefined {
  if (!r) return previous ? { condition: { status: 'False', reason: 'NotConfigured', message: 'spec.predictive is not set' }, events: [] } : undefined;
  const m = r.minimum;
  const span = `history ${formatSpan(m.historySeconds)}`;
  if (!m.acting) {
    const why = {
      NotEnoughHistory: `not enough history: ${formatSpan(m.historySeconds)} of the ${formatSpan(r.spec.minHistorySeconds)} needed`,
      NoPattern: `no pattern for the next ${r.spec.schedulingBufferSeconds} s yet (a time of day is forecast once seen on two days); ${span}`,
      NotWorthActing: `the forecast did not beat a flat one on most of the last days; ${span}`,
    }[m.reason];
    const prefix = r.spec.mode === 'ForecastOnly' ? 'forecast only: ' : '';
    return { condition: { status: 'False', reason: m.reason, message: `${prefix}${why}` }, events: [] };
  }
  const capped = m.cappedAtMax ? `, ${m.forecast} capped at maxReplicas` : '';
  const forecast = `forecast ${m.replicas} for the next ${r.spec.schedulingBufferSeconds} s${capped}`;
  if (r.spec.mode === 'ForecastOnly') {
    return { condition: { status: 'False', reason: 'ForecastOnly', message: `forecast only, not applied: ${forecast} (minimum ${otherMinimum}); ${span}` }, events: [] };
  }
  if (m.replicas <= otherMinimum) {
    return { condition: { status: 'False', reason: 'ForecastNotHigher', message: `minimum stays ${otherMinimum}: ${forecast}; ${span}` }, events: [] };
  }
  const head = `minimum ${m.replicas} (`;
  const condition: Condition = { status: 'True', reason: 'ForecastAboveMinimum', message: `${head}${forecast}; ${otherMinimum} without it); ${span}` };
  const raised = previous?.status !== 'True' || !previous.message?.startsWith(head);
  return { condition, events: raised ? [{ type: 'Normal', reason: 'PredictiveMinimumRaised', message: condition.message }] : [] };
}
