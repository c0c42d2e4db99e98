// Upstream horizontal.go: normalizeDesiredReplicas (legacy, no behavior) and
// normalizeDesiredReplicasWithBehaviors, stabilization and rate policies, scale events.
//
// History kept bounded, equivalently to upstream: a recommendation older than every window
// in use is never counted again, so besides reusing one such slot as upstream does we drop
// the others (upstream leaves them in memory, unused). Scale events keep upstream's own
// scheme exactly (reuse the last outdated slot, else append): it is bounded by the number of
// scale events within the longest policy period, and pruning more would not be equivalent,
// because upstream counts the events of both directions in both limits.
import type {
  HPAScalingRules,
  HorizontalPodAutoscalerBehavior,
  ScaleEvent,
  ScalingHistory,
  TimestampedRecommendation,
} from './types.js';

/** The rules that can change a recommendation: upstream's normalization, then ours (schedules, activation, holds). */
export type NormalizeRule =
  | 'scaleUpStabilization'
  | 'scaleDownStabilization'
  | 'scaleUpPolicy'
  | 'scaleDownPolicy'
  | 'legacyScaleUpLimit'
  | 'minReplicas'
  | 'maxReplicas'
  | 'schedule'
  | 'predictive'
  | 'activation'
  | 'pauseScaleUp'
  | 'pauseScaleDown'
  | 'historyHoldUp'
  | 'historyHoldDown';

/** One step that changed the recommendation, for the decision record. */
export interface NormalizeStep {
  rule: NormalizeRule;
  from: number;
  to: number;
  detail?: string;
}

export interface NormalizeResult {
  replicas: number;
  /** The ScalingLimited condition: DesiredWithinRange (False) or TooFewReplicas/TooManyReplicas/ScaleUpLimit/ScaleDownLimit (True). */
  limited: { status: 'True' | 'False'; reason: string; message: string };
  /** Set when stabilization changed the recommendation: AbleToScale True ScaleUpStabilized/ScaleDownStabilized. */
  stabilized?: { reason: 'ScaleUpStabilized' | 'ScaleDownStabilized'; message: string };
  /** The recommendation history to store (this recommendation recorded, slots reused as upstream). */
  recommendations: TimestampedRecommendation[];
  steps: NormalizeStep[];
}

export interface NormalizeArgs {
  currentReplicas: number;
  prenormalizedDesiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  recommendations: TimestampedRecommendation[];
  now: Date;
}

const MAX_INT32 = 2147483647;
const MIN_INT32 = -2147483648;

/** Go int32 arithmetic wraps around. */
const i32 = (x: number): number => x | 0;

/** Go's float64 -> int32 conversion truncates toward zero; out of range (or NaN) it yields MinInt32 on amd64. */
function floatToInt32(x: number): number {
  return x > MIN_INT32 - 1 && x < MAX_INT32 + 1 ? Math.trunc(x) | 0 : MIN_INT32;
}

const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;
const twoDigits = (s: string, i: number): number => digit(s, i) * 10 + digit(s, i + 1);

/**
 * Epoch milliseconds of an RFC 3339 timestamp ("0001-01-01T00:00:00Z", Go's zero time, included).
 * Fast path for the UTC form we write ("2026-01-01T00:00:00.123Z"); Date.parse for the rest.
 * Sub-millisecond digits are dropped, as by Date.parse.
 */
function epochMs(timestamp: string, list: string, index: number): number {
  const s = timestamp;
  if (s.length >= 20 && s.charCodeAt(s.length - 1) === 90 /* Z */ && s[4] === '-' && s[7] === '-' && s[10] === 'T' && s[13] === ':' && s[16] === ':') {
    const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
    let ms = 0;
    let scale = 100;
    let i = 19;
    if (s[i] === '.') for (i++; i < s.length - 1 && scale >= 1; i++, scale /= 10) ms += digit(s, i) * scale;
    // Date.UTC maps years 0-99 to 1900-1999, so those (Go's zero time) take the slow path.
    const month = twoDigits(s, 5);
    const day = twoDigits(s, 8);
    const hour = twoDigits(s, 11);
    const minute = twoDigits(s, 14);
    const second = twoDigits(s, 17);
    const inRange = month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59;
    if (year >= 100 && inRange && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(s)) {
      return Date.UTC(year, month - 1, day, hour, minute, second, ms);
    }
  }
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) throw new RangeError(`${list}[${index}].timestamp: invalid timestamp ${JSON.stringify(timestamp)} (want RFC 3339)`);
  return ms;
}

function nowMs(now: Date): number {
  const ms = now.getTime();
  if (Number.isNaN(ms)) throw new RangeError('now: invalid date');
  return ms;
}

const MESSAGES = {
  ScaleUpStabilized: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
  ScaleDownStabilized: 'recent recommendations were higher than current one, applying the highest recent recommendation',
  DesiredWithinRange: 'the desired count is within the acceptable range',
  TooFewReplicas: 'the desired replica count is less than the minimum replica count',
  TooManyReplicas: 'the desired replica count is more than the maximum replica count',
  ScaleUpLimit: 'the desired replica count is increasing faster than the maximum scale rate',
  ScaleDownLimit: 'the desired replica count is decreasing faster than the maximum scale rate',
} as const;

type LimitReason = 'DesiredWithinRange' | 'TooFewReplicas' | 'TooManyReplicas' | 'ScaleUpLimit' | 'ScaleDownLimit';

interface Converted {
  replicas: number;
  reason: LimitReason;
}

/** Decision-record names of the clamps; ScaleUpLimit is "legacyScaleUpLimit" without behavior. */
const LIMIT_RULES = { TooFewReplicas: 'minReplicas', TooManyReplicas: 'maxReplicas', ScaleUpLimit: 'scaleUpPolicy', ScaleDownLimit: 'scaleDownPolicy' } as const;

/** Upstream: ScalingLimited is False exactly when conversion left the stabilized recommendation unchanged. */
function finish(
  current: number,
  stabilizedReplicas: number,
  converted: Converted,
  stabilized: NormalizeResult['stabilized'],
  recommendations: TimestampedRecommendation[],
  steps: NormalizeStep[],
  legacy: boolean,
): NormalizeResult {
  const { replicas, reason } = converted;
  if (reason !== 'DesiredWithinRange' && replicas !== stabilizedReplicas) {
    const rule = legacy && reason === 'ScaleUpLimit' ? 'legacyScaleUpLimit' : LIMIT_RULES[reason];
    steps.push({ rule, from: stabilizedReplicas, to: replicas, detail: `${reason} (current ${current})` });
  }
  return {
    replicas,
    limited: { status: replicas === stabilizedReplicas ? 'False' : 'True', reason, message: MESSAGES[reason] },
    ...(stabilized ? { stabilized } : {}),
    recommendations,
    steps,
  };
}

// ---------------------------------------------------------------- with behavior

type Direction = 'scaleUp' | 'scaleDown';

/** The defaulted rules of one direction; upstream dereferences these pointers unchecked. */
function rulesOf(behavior: HorizontalPodAutoscalerBehavior, direction: Direction): Required<Pick<HPAScalingRules, 'stabilizationWindowSeconds'>> & HPAScalingRules {
  const rules = behavior[direction];
  if (!rules || typeof rules.stabilizationWindowSeconds !== 'number') {
    throw new TypeError(`behavior.${direction}.stabilizationWindowSeconds is required (apply API defaults first)`);
  }
  return rules as Required<Pick<HPAScalingRules, 'stabilizationWindowSeconds'>> & HPAScalingRules;
}

/** Upstream stabilizeRecommendationWithBehaviors: clamp current into [min over up window, max over down window]. */
function stabilizeWithBehaviors(
  desired: number,
  current: number,
  upWindowSeconds: number,
  downWindowSeconds: number,
  history: TimestampedRecommendation[],
  now: number,
  nowIso: string,
): { recommendation: number; recommendations: TimestampedRecommendation[] } {
  const upCutoff = now - upWindowSeconds * 1000;
  const downCutoff = now - downWindowSeconds * 1000;
  let upRecommendation = desired;
  let downRecommendation = desired;
  const old: boolean[] = [];
  for (let i = 0; i < history.length; i++) {
    const rec = history[i];
    const t = epochMs(rec.timestamp, 'recommendations', i);
    if (t > upCutoff) upRecommendation = Math.min(rec.replicas, upRecommendation);
    if (t > downCutoff) downRecommendation = Math.max(rec.replicas, downRecommendation);
    old.push(t < upCutoff && t < downCutoff); // older than both windows: never counted again
  }
  let recommendation = current;
  if (recommendation < upRecommendation) recommendation = upRecommendation;
  if (recommendation > downRecommendation) recommendation = downRecommendation;
  return { recommendation, recommendations: record(history, old, desired, nowIso) };
}

/** Store this recommendation in the last old slot as upstream does (else append), and drop the other old entries. */
function record(history: TimestampedRecommendation[], old: boolean[], replicas: number, nowIso: string): TimestampedRecommendation[] {
  const reuse = old.lastIndexOf(true);
  const fresh = { timestamp: nowIso, replicas };
  const out: TimestampedRecommendation[] = [];
  for (let i = 0; i < history.length; i++) {
    if (i === reuse) out.push(fresh);
    else if (!old[i]) out.push(history[i]);
  }
  if (reuse < 0) out.push(fresh);
  return out;
}

/** Upstream getReplicasChangePerPeriod: sum of changes strictly after now - period (int32). */
function changeInPeriod(periodSeconds: number, events: ScaleEvent[], now: number, which: string): number {
  const cutoff = now - periodSeconds * 1000;
  let sum = 0;
  for (let i = 0; i < events.length; i++) {
    if (epochMs(events[i].timestamp, which, i) > cutoff) sum = i32(sum + events[i].change);
  }
  return sum;
}

/** Upstream calculateScaleUpLimitWithScalingRules. */
export function calculateScaleUpLimitWithScalingRules(
  currentReplicas: number,
  scaleUpEvents: ScaleEvent[],
  scaleDownEvents: ScaleEvent[],
  rules: HPAScalingRules,
  now: Date,
): number {
  return policyLimit('scaleUp', currentReplicas, scaleUpEvents, scaleDownEvents, rules, now);
}

/** Upstream calculateScaleDownLimitWithBehaviors. */
export function calculateScaleDownLimitWithBehaviors(
  currentReplicas: number,
  scaleUpEvents: ScaleEvent[],
  scaleDownEvents: ScaleEvent[],
  rules: HPAScalingRules,
  now: Date,
): number {
  return policyLimit('scaleDown', currentReplicas, scaleUpEvents, scaleDownEvents, rules, now);
}

/** The replica limit the policies allow in one direction, from the replicas at each period's start. */
function policyLimit(
  direction: Direction,
  currentReplicas: number,
  scaleUpEvents: ScaleEvent[],
  scaleDownEvents: ScaleEvent[],
  rules: HPAScalingRules,
  now: Date,
): number {
  if (rules.selectPolicy === 'Disabled') return currentReplicas;
  const up = direction === 'scaleUp';
  // The largest change ('Max') is the highest limit up and the lowest limit down; 'Min' the reverse.
  const highest = up === (rules.selectPolicy !== 'Min');
  let result = highest ? MIN_INT32 : MAX_INT32;
  const t = nowMs(now);
  let proposed = 0; // upstream keeps the previous proposal for a policy of another type (validation rejects those)
  for (const policy of rules.policies ?? []) {
    const added = changeInPeriod(policy.periodSeconds, scaleUpEvents, t, 'scaleUpEvents');
    const deleted = changeInPeriod(policy.periodSeconds, scaleDownEvents, t, 'scaleDownEvents');
    const periodStart = i32(i32(currentReplicas - added) + deleted);
    if (policy.type === 'Pods') proposed = i32(up ? periodStart + policy.value : periodStart - policy.value);
    else if (policy.type === 'Percent') {
      // Up: rounded up, so that a small percentage still adds a pod. Down: truncated (Go int32 conversion).
      proposed = up ? floatToInt32(Math.ceil(periodStart * (1 + policy.value / 100))) : floatToInt32(periodStart * (1 - policy.value / 100));
    }
    result = highest ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

/** With spec.behavior (fully defaulted, scaleDown.stabilizationWindowSeconds filled in). */
export function normalizeWithBehavior(
  args: NormalizeArgs & {
    behavior: HorizontalPodAutoscalerBehavior;
    scaleUpEvents: ScaleEvent[];
    scaleDownEvents: ScaleEvent[];
  },
): NormalizeResult {
  const { currentReplicas: current, prenormalizedDesiredReplicas: desired, minReplicas, maxReplicas } = args;
  const up = rulesOf(args.behavior, 'scaleUp');
  const down = rulesOf(args.behavior, 'scaleDown');
  const now = nowMs(args.now);
  const steps: NormalizeStep[] = [];

  const stab = stabilizeWithBehaviors(
    desired,
    current,
    up.stabilizationWindowSeconds,
    down.stabilizationWindowSeconds,
    args.recommendations,
    now,
    args.now.toISOString(),
  );
  let stabilized: NormalizeResult['stabilized'];
  if (stab.recommendation !== desired) {
    // Upstream names the direction by the unstabilized recommendation versus current.
    const reason = desired >= current ? 'ScaleUpStabilized' : 'ScaleDownStabilized';
    stabilized = { reason, message: MESSAGES[reason] };
    const window = reason === 'ScaleUpStabilized' ? up.stabilizationWindowSeconds : down.stabilizationWindowSeconds;
    steps.push({
      rule: reason === 'ScaleUpStabilized' ? 'scaleUpStabilization' : 'scaleDownStabilization',
      from: desired,
      to: stab.recommendation,
      detail: `${window}s window`,
    });
  }

  // Upstream convertDesiredReplicasWithBehaviorRate: limits apply only in the direction of the change.
  const target = stab.recommendation;
  let converted: Converted = { replicas: target, reason: 'DesiredWithinRange' };
  if (target > current) {
    let scaleUpLimit = calculateScaleUpLimitWithScalingRules(current, args.scaleUpEvents, args.scaleDownEvents, up, args.now);
    if (scaleUpLimit < current) scaleUpLimit = current; // no further scale-up until the events age out
    const limitedByRate = maxReplicas > scaleUpLimit;
    const maximumAllowed = limitedByRate ? scaleUpLimit : maxReplicas;
    if (target > maximumAllowed) converted = { replicas: maximumAllowed, reason: limitedByRate ? 'ScaleUpLimit' : 'TooManyReplicas' };
  } else if (target < current) {
    let scaleDownLimit = calculateScaleDownLimitWithBehaviors(current, args.scaleUpEvents, args.scaleDownEvents, down, args.now);
    if (scaleDownLimit > current) scaleDownLimit = current; // no further scale-down until the events age out
    const limitedByRate = minReplicas < scaleDownLimit;
    const minimumAllowed = limitedByRate ? scaleDownLimit : minReplicas;
    if (target < minimumAllowed) converted = { replicas: minimumAllowed, reason: limitedByRate ? 'ScaleDownLimit' : 'TooFewReplicas' };
  }
  return finish(current, target, converted, stabilized, stab.recommendations, steps, false);
}

// ---------------------------------------------------------------- legacy

/** Upstream calculateScaleUpLimit: int32(max(factor * current, minimum)). */
export function calculateScaleUpLimit(currentReplicas: number, factor: number, minimum: number): number {
  return floatToInt32(Math.max(factor * currentReplicas, minimum));
}

/** Upstream convertDesiredReplicasWithRules: min, then the lower of maxReplicas and the scale-up limit. */
function convertWithRules(current: number, desired: number, minReplicas: number, maxReplicas: number, factor: number, minimum: number): Converted {
  const scaleUpLimit = calculateScaleUpLimit(current, factor, minimum);
  const limitedByRate = maxReplicas > scaleUpLimit;
  const maximumAllowed = limitedByRate ? scaleUpLimit : maxReplicas;
  // minReplicas 0 with desired 0 is simply within range (upstream has no special case any more).
  if (desired < minReplicas) return { replicas: minReplicas, reason: 'TooFewReplicas' };
  if (desired > maximumAllowed) return { replicas: maximumAllowed, reason: limitedByRate ? 'ScaleUpLimit' : 'TooManyReplicas' };
  return { replicas: desired, reason: 'DesiredWithinRange' };
}

/** Without spec.behavior: downscale stabilization window, scale-up limit max(factor × current, minimum). */
export function normalizeLegacy(
  args: NormalizeArgs & {
    downscaleStabilizationWindowSeconds: number;
    scaleUpLimitFactor: number;
    scaleUpLimitMinimum: number;
  },
): NormalizeResult {
  const { currentReplicas: current, prenormalizedDesiredReplicas: desired } = args;
  const now = nowMs(args.now);
  const steps: NormalizeStep[] = [];

  // Upstream stabilizeRecommendation: max over the window; an entry older than the window is
  // skipped (its slot reused), never compared, even when it is the only one.
  const cutoff = now - args.downscaleStabilizationWindowSeconds * 1000;
  let maxRecommendation = desired;
  const old = args.recommendations.map((rec, i) => epochMs(rec.timestamp, 'recommendations', i) < cutoff);
  args.recommendations.forEach((rec, i) => {
    if (!old[i] && rec.replicas > maxRecommendation) maxRecommendation = rec.replicas;
  });
  const recommendations = record(args.recommendations, old, desired, args.now.toISOString());
  let stabilized: NormalizeResult['stabilized'];
  if (maxRecommendation !== desired) {
    stabilized = { reason: 'ScaleDownStabilized', message: MESSAGES.ScaleDownStabilized };
    steps.push({ rule: 'scaleDownStabilization', from: desired, to: maxRecommendation, detail: `${args.downscaleStabilizationWindowSeconds}s window` });
  }

  const converted = convertWithRules(current, maxRecommendation, args.minReplicas, args.maxReplicas, args.scaleUpLimitFactor, args.scaleUpLimitMinimum);
  return finish(current, maxRecommendation, converted, stabilized, recommendations, steps, true);
}

// ---------------------------------------------------------------- scale events

/** Upstream getLongestPolicyPeriod. */
function longestPolicyPeriod(rules: HPAScalingRules | undefined): number {
  let longest = 0;
  for (const p of rules?.policies ?? []) if (p.periodSeconds > longest) longest = p.periodSeconds;
  return longest;
}

/** Upstream markScaleEventsOutdated + the slot reuse of storeScaleEvent: replace the last outdated event, else append. */
function storeEvent(events: ScaleEvent[], change: number, longestSeconds: number, now: number, nowIso: string, which: string): ScaleEvent[] {
  const cutoff = now - longestSeconds * 1000;
  let oldIndex = -1;
  events.forEach((e, i) => {
    if (epochMs(e.timestamp, which, i) < cutoff) oldIndex = i;
  });
  const fresh = { timestamp: nowIso, change };
  if (oldIndex < 0) return [...events, fresh];
  const out = events.slice();
  out[oldIndex] = fresh;
  return out;
}

/**
 * Upstream storeScaleEvent after a successful rescale; nothing is stored without behavior.
 * Keeps upstream's slot reuse exactly (see the header for why that bounds the history).
 */
export function recordScaleEvent(
  history: Pick<ScalingHistory, 'scaleUpEvents' | 'scaleDownEvents'>,
  behavior: HorizontalPodAutoscalerBehavior | undefined,
  prevReplicas: number,
  newReplicas: number,
  now: Date,
): Pick<ScalingHistory, 'scaleUpEvents' | 'scaleDownEvents'> {
  const { scaleUpEvents, scaleDownEvents } = history;
  if (!behavior) return { scaleUpEvents, scaleDownEvents };
  const t = nowMs(now);
  const iso = now.toISOString();
  if (newReplicas > prevReplicas) {
    const up = storeEvent(scaleUpEvents, i32(newReplicas - prevReplicas), longestPolicyPeriod(behavior.scaleUp), t, iso, 'scaleUpEvents');
    return { scaleUpEvents: up, scaleDownEvents };
  }
  const down = storeEvent(scaleDownEvents, i32(prevReplicas - newReplicas), longestPolicyPeriod(behavior.scaleDown), t, iso, 'scaleDownEvents');
  return { scaleUpEvents, scaleDownEvents: down };
}
