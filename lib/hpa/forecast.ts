// Ours: the forecast behind predictive minimums. What is learned is the demand: the largest
// recommendation the metrics made (replicas before behavior) in each bucket of time. What is
// predicted is a floor, never a target: the demand that recurred at the same time of day on most
// recent days and at the same time of week on every recent week. A bucket is forecast as
//   min(lower median of the same slot over the last 7 days, min of the same slot over the last 2 weeks)
// so a value seen once (a one-off spike) is not learned, a quiet day (a holiday) lowers at most the
// same weekday of the next week, and weekends keep their own level once a week of history exists.
// Why this model and not Holt-Winters or MSTL (docs/predictive.md, `npm run bench -- predictive`):
// those fit a mean, so a spike or a holiday moves every later forecast, and a mean under-forecast
// half the time; a floor must be right when it binds, which needs a recurring value, not an average.
// AWS predictive scaling's rules are kept: a minimum of history before acting, capacity in place a
// buffer ahead of the need, and it never lowers anything (the caller takes the max with the other floors).

/** The demand of one autoscaler: the largest recommendation in each bucket (null: none recorded). */
export interface DemandHistory {
  bucketSeconds: number;
  /** floor(epoch seconds / bucketSeconds) of values[0]. */
  firstBucket: number;
  values: (number | null)[];
  /** The last pattern check (assessForecast) and the bucket it ran in: refreshed every 6 hours, as AWS refreshes its forecast. */
  assessed?: ForecastAssessment & { atBucket: number };
}

export interface ForecastSettings {
  /** History kept and used. Default 14 days (as AWS predictive scaling). */
  historySeconds: number;
  /** History needed before the forecast acts. Default 24 hours (as AWS). */
  minHistorySeconds: number;
  /** The floor covers the demand forecast this far ahead. Default 300 s (AWS `SchedulingBufferTime`). */
  schedulingBufferSeconds: number;
}

export const DEFAULT_FORECAST_SETTINGS: ForecastSettings = { historySeconds: 14 * 86_400, minHistorySeconds: 86_400, schedulingBufferSeconds: 300 };
export const DEFAULT_BUCKET_SECONDS = 300;
const DAY_SECONDS = 86_400;
const DAYS_FOR_DAILY = 7;
const WEEKS_FOR_WEEKLY = 2;
/** A time of day seen on fewer days is no pattern yet: one day cannot tell a peak from a spike. */
const MIN_DAYS_SEEN = 2;

/**
 * `history` with `replicas` recorded at `now` (the bucket keeps its largest), trimmed to `keepSeconds`.
 * Updated in place and returned (a new one when there is none, or on another grid): on the tick path a
 * call costs the bucket it writes, plus, once per new bucket, dropping the oldest.
 */
export function recordDemand(history: DemandHistory | undefined, now: Date, replicas: number, keepSeconds: number, bucketSeconds = DEFAULT_BUCKET_SECONDS): DemandHistory {
  const bucket = Math.floor(now.getTime() / 1000 / bucketSeconds);
  const keep = Math.max(1, Math.ceil(keepSeconds / bucketSeconds));
  // A history on another grid (a changed bucket size) is started afresh rather than mis-read.
  const h = history && history.bucketSeconds === bucketSeconds ? history : { bucketSeconds, firstBucket: bucket, values: [] };
  const { values } = h;
  if (values.length === 0) h.firstBucket = bucket;
  // A clock that went back writes into the bucket it names, if kept.
  if (bucket < h.firstBucket) return h;
  if (bucket - h.firstBucket >= keep + values.length) {
    // Silent for longer than the history kept: nothing of it is left.
    values.length = 0;
    h.firstBucket = bucket;
  }
  while (h.firstBucket + values.length <= bucket) values.push(null);
  const i = bucket - h.firstBucket;
  const old = values[i];
  values[i] = old === null || old === undefined ? replicas : Math.max(old, replicas);
  const drop = values.length - keep;
  if (drop > 0) {
    values.splice(0, drop);
    h.firstBucket += drop;
  }
  return h;
}

function valueAt(h: DemandHistory, bucket: number): number | null {
  const i = bucket - h.firstBucket;
  return i >= 0 && i < h.values.length ? (h.values[i] ?? null) : null;
}

/** How long the history spans up to `now` (from its first recorded bucket), in seconds. */
export function historySpanSeconds(h: DemandHistory | undefined, now: Date): number {
  if (!h) return 0;
  const first = h.values.findIndex((v) => v !== null);
  if (first < 0) return 0;
  return Math.max(0, now.getTime() / 1000 - (h.firstBucket + first) * h.bucketSeconds);
}

/** The demand forecast for `bucket` from the days and weeks before it; undefined when no pattern is known. */
export function forecastBucket(h: DemandHistory, bucket: number, historySeconds = DEFAULT_FORECAST_SETTINGS.historySeconds): number | undefined {
  const perDay = Math.round(DAY_SECONDS / h.bucketSeconds);
  const oldest = bucket - Math.floor(historySeconds / h.bucketSeconds);
  const daily: number[] = [];
  for (let k = 1; k <= DAYS_FOR_DAILY; k++) {
    const b = bucket - k * perDay;
    const v = b >= oldest ? valueAt(h, b) : null;
    if (v !== null) daily.push(v);
  }
  if (daily.length < MIN_DAYS_SEEN) return undefined;
  // With two days, the smaller; a value on one day of three or more is outvoted.
  let forecast = lowerMedian(daily)!;
  for (let k = 1; k <= WEEKS_FOR_WEEKLY; k++) {
    const b = bucket - k * 7 * perDay;
    const v = b >= oldest ? valueAt(h, b) : null;
    if (v !== null) forecast = Math.min(forecast, v);
  }
  return forecast;
}

/** How the forecast did on each of the recent days, against a forecast that knows no time of day. */
export interface ForecastAssessment {
  /** Days of the last week on which the forecast covered any bucket. */
  daysAssessed: number;
  /** Of those, days on which it clearly beat the flat forecast. */
  daysHelped: number;
  /** It helped on at least half of the days assessed: the history has a pattern worth acting on. */
  worthActing: boolean;
}

const ASSESS_DAYS = 7;
/** "Clearly": the time-of-day forecast's error at most this share of the flat one's. */
const CLEAR_MARGIN = 0.8;

/**
 * Backtests the forecast on each of the last seven days before `now`, each bucket forecast from what
 * came before it, against a flat forecast (the lower median of the week before that day). Where time
 * of day and week mean nothing (a random walk) the flat one is as good or better, and a floor learned
 * from noise only adds replicas: such a history is not acted on. Day by day, so that one odd day (the
 * first weekend, a holiday) does not outvote the week.
 */
export function assessForecast(h: DemandHistory, now: Date, historySeconds = DEFAULT_FORECAST_SETTINGS.historySeconds): ForecastAssessment {
  const perDay = Math.round(DAY_SECONDS / h.bucketSeconds);
  const end = Math.floor(now.getTime() / 1000 / h.bucketSeconds);
  let daysAssessed = 0;
  let daysHelped = 0;
  for (let day = 0; day < ASSESS_DAYS; day++) {
    const from = end - (day + 1) * perDay;
    const flat = lowerMedian(valuesBetween(h, from - DAYS_FOR_DAILY * perDay, from));
    if (flat === undefined) continue;
    let slotError = 0;
    let flatError = 0;
    let covered = false;
    for (let b = from; b < from + perDay; b++) {
      const actual = valueAt(h, b);
      const f = actual === null ? undefined : forecastBucket(h, b, historySeconds);
      if (actual === null || f === undefined) continue;
      covered = true;
      slotError += Math.abs(f - actual);
      flatError += Math.abs(flat - actual);
    }
    if (!covered) continue;
    daysAssessed++;
    if (slotError <= CLEAR_MARGIN * flatError && flatError > 0) daysHelped++;
  }
  return { daysAssessed, daysHelped, worthActing: daysAssessed > 0 && 2 * daysHelped >= daysAssessed };
}

function valuesBetween(h: DemandHistory, from: number, to: number): number[] {
  const out: number[] = [];
  for (let b = Math.max(from, h.firstBucket); b < to; b++) {
    const v = valueAt(h, b);
    if (v !== null) out.push(v);
  }
  return out;
}

/** The lower median: with an even count, the smaller of the two middle values. */
function lowerMedian(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const sorted = xs.slice().sort((x, y) => x - y);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

export type PredictiveMinimum =
  | { acting: true; replicas: number; forecast: number; horizonEnd: Date; historySeconds: number; cappedAtMax: boolean }
  | { acting: false; reason: 'NotEnoughHistory' | 'NoPattern' | 'NotWorthActing'; historySeconds: number };

/**
 * The predictive minimum at `now`: the largest demand forecast from now to `schedulingBufferSeconds`
 * ahead, capped at `maxReplicas` when honoured. It is a floor the caller raises the minimum with.
 */
export function predictiveMinimum(
  h: DemandHistory | undefined,
  now: Date,
  maxReplicas: number,
  settings: ForecastSettings = DEFAULT_FORECAST_SETTINGS,
  honourMaxReplicas = true,
  assessment?: ForecastAssessment,
): PredictiveMinimum {
  const historySeconds = historySpanSeconds(h, now);
  if (!h || historySeconds < settings.minHistorySeconds) return { acting: false, reason: 'NotEnoughHistory', historySeconds };
  const nowSeconds = now.getTime() / 1000;
  const from = Math.floor(nowSeconds / h.bucketSeconds);
  const to = Math.floor((nowSeconds + settings.schedulingBufferSeconds) / h.bucketSeconds);
  let forecast: number | undefined;
  for (let b = from; b <= to; b++) {
    const f = forecastBucket(h, b, settings.historySeconds);
    if (f !== undefined) forecast = Math.max(forecast ?? 0, f);
  }
  if (forecast === undefined) return { acting: false, reason: 'NoPattern', historySeconds };
  if (!(assessment ?? assessForecast(h, now, settings.historySeconds)).worthActing) return { acting: false, reason: 'NotWorthActing', historySeconds };
  const cappedAtMax = honourMaxReplicas && forecast > maxReplicas;
  return {
    acting: true,
    replicas: cappedAtMax ? maxReplicas : forecast,
    forecast,
    horizonEnd: new Date((nowSeconds + settings.schedulingBufferSeconds) * 1000),
    historySeconds,
    cappedAtMax,
  };
}
