// Ours (no upstream equivalent; KEDA's paused-scale-in/out have no expiry, kedacore/keda#6956):
// pause one direction or both with an annotation, "true" (no expiry) or until an RFC 3339 time.
// While paused the autoscaler still evaluates and records its recommendations; only the move in
// a paused direction is not written (a hold, as lib/hpa/reconcile.ts holds a direction whose
// history could not be trusted), so unpausing applies the ordinary behavior at once.
//
// A malformed value on an object already stored does not pause (fail open on the pause, loud on
// the mistake): a typo must not become a freeze without an end that stops scale-up under load.
// It is refused at `shpa apply` and by admission; the sync reports it in the ScalingPaused
// condition and a Warning event.
import { FieldPath, invalid, type FieldError } from './api/field-path.js';
import type { HorizontalPodAutoscalerCondition, ObjectMeta } from './types.js';

export const PAUSE_ANNOTATION = 'shpa.dev/pause';
export const PAUSE_SCALE_UP_ANNOTATION = 'shpa.dev/pause-scale-up';
export const PAUSE_SCALE_DOWN_ANNOTATION = 'shpa.dev/pause-scale-down';
export const PAUSE_ANNOTATIONS = [PAUSE_ANNOTATION, PAUSE_SCALE_UP_ANNOTATION, PAUSE_SCALE_DOWN_ANNOTATION] as const;

export type Direction = 'up' | 'down';

/** A pause of one direction: until a time, or with no expiry. */
export interface DirectionPause {
  annotation: string;
  until?: Date;
}

export interface PauseState {
  /** The pauses in force at `now`. */
  active: Partial<Record<Direction, DirectionPause>>;
  /** Directions whose pause annotation is still there but whose time has passed. */
  expired: Partial<Record<Direction, DirectionPause>>;
  errors: FieldError[];
}

// RFC 3339 with a zone (Z or an offset), as metav1.Time writes it; fractions allowed.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/;

/** An RFC 3339 time, or undefined when `value` is not one: a date that exists (no 2026-13-45, no 02-30), hours < 24, minutes and seconds < 60, as Go's time.Parse. */
export function parseRfc3339(value: string): Date | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (mo < 1 || mo > 12 || d < 1 || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return undefined;
  if (h > 23 || mi > 59 || s > 59) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

type Parsed = { paused: false } | { paused: true; until?: Date } | { error: FieldError };

function parseValue(annotation: string, value: string): Parsed {
  if (value === 'true') return { paused: true };
  if (value === 'false') return { paused: false };
  const until = parseRfc3339(value);
  if (until) return { paused: true, until };
  const path = FieldPath.root('metadata').child('annotations').key(annotation);
  return { error: invalid(path, value, 'must be "true" (no expiry), "false", or an RFC 3339 time such as "2026-11-27T18:00:00Z" (paused until then)') };
}

/** The errors of the pause annotations (for `shpa apply` and admission). */
export function validatePauseAnnotations(annotations: Record<string, string> | undefined): FieldError[] {
  return pauseState(annotations, new Date(0)).errors;
}

/** What the pause annotations say at `now`: a direction paused by two annotations takes the later end. */
export function pauseState(annotations: ObjectMeta['annotations'], now: Date): PauseState {
  const state: PauseState = { active: {}, expired: {}, errors: [] };
  for (const annotation of PAUSE_ANNOTATIONS) {
    const value = annotations?.[annotation];
    if (value === undefined) continue;
    const p = parseValue(annotation, value);
    if ('error' in p) {
      state.errors.push(p.error);
      continue;
    }
    if (!p.paused) continue;
    const dirs: Direction[] = annotation === PAUSE_SCALE_UP_ANNOTATION ? ['up'] : annotation === PAUSE_SCALE_DOWN_ANNOTATION ? ['down'] : ['up', 'down'];
    const pause: DirectionPause = { annotation, ...(p.until ? { until: p.until } : {}) };
    const inForce = !p.until || p.until.getTime() > now.getTime();
    for (const d of dirs) {
      const into = inForce ? state.active : state.expired;
      if (laterEnd(pause, into[d])) into[d] = pause;
    }
  }
  for (const d of ['up', 'down'] as const) if (state.active[d]) delete state.expired[d];
  return state;
}

function laterEnd(a: DirectionPause, b: DirectionPause | undefined): boolean {
  if (!b) return true;
  if (!b.until) return false;
  return !a.until || a.until.getTime() > b.until.getTime();
}

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
const untilText = (p: DirectionPause) => (p.until ? `until ${iso(p.until)}` : 'with no expiry');

/** "scale down paused until 2026-11-27T18:00:00Z (shpa.dev/pause-scale-down)"; both directions alike are said once. */
export function pauseText(active: PauseState['active']): string {
  const { up, down } = active;
  if (up && down && up.annotation === down.annotation && up.until?.getTime() === down.until?.getTime()) return `scale up and down paused ${untilText(up)} (${up.annotation})`;
  return [up && `scale up paused ${untilText(up)} (${up.annotation})`, down && `scale down paused ${untilText(down)} (${down.annotation})`].filter(Boolean).join(', ');
}

const REASONS = { up: 'ScaleUpPaused', down: 'ScaleDownPaused', both: 'ScalingPaused' } as const;

function pausedDirections(c: HorizontalPodAutoscalerCondition | undefined): Direction[] {
  if (c?.status !== 'True') return [];
  return c.reason === REASONS.both ? ['up', 'down'] : c.reason === REASONS.up ? ['up'] : c.reason === REASONS.down ? ['down'] : [];
}

export interface PauseCondition {
  condition: { status: 'True' | 'False'; reason: string; message: string };
  events: { type: 'Normal' | 'Warning'; reason: string; message: string }[];
}

/**
 * The ScalingPaused condition and the events of this sync, from the pause state and the condition
 * stored last time; undefined for an autoscaler that never used a pause (nothing new appears).
 * `wouldScaleTo`: the replica count recommended (after behavior), when one was computed.
 */
export function pauseCondition(state: PauseState, previous: HorizontalPodAutoscalerCondition | undefined, currentReplicas: number | undefined, wouldScaleTo: number | undefined): PauseCondition | undefined {
  const dirs = (['up', 'down'] as const).filter((d) => state.active[d]);
  if (dirs.length === 0 && state.errors.length === 0 && !previous) return undefined;
  const events: PauseCondition['events'] = [];
  const invalidText = state.errors.map((e) => `${e.field}: ${JSON.stringify(e.value)} is not a pause value, ignored (not paused by it): ${e.message}`).join('; ');
  if (invalidText && (previous?.message ?? '').indexOf(invalidText) < 0) events.push({ type: 'Warning', reason: 'InvalidPauseAnnotation', message: invalidText });

  const was = pausedDirections(previous);
  for (const d of was.filter((x) => !state.active[x])) {
    const expired = state.expired[d];
    events.push(
      expired
        ? { type: 'Normal', reason: 'PauseExpired', message: `scale ${d} pause expired at ${iso(expired.until!)} (${expired.annotation}): scaling ${d} resumes` }
        : { type: 'Normal', reason: 'PauseRemoved', message: `scale ${d} pause removed: scaling ${d} resumes` },
    );
  }
  if (dirs.length === 0) {
    if (invalidText) return { condition: { status: 'False', reason: 'InvalidPauseAnnotation', message: invalidText }, events };
    const ended = events.find((e) => e.reason === 'PauseExpired' || e.reason === 'PauseRemoved');
    // Once ended, the condition stays False with the way it ended, as upstream keeps its conditions.
    const kept = previous?.status === 'False' && previous.reason !== 'InvalidPauseAnnotation';
    if (!ended) return kept ? { condition: { status: 'False', reason: previous.reason ?? 'NotPaused', message: previous.message ?? '' }, events } : { condition: { status: 'False', reason: 'NotPaused', message: 'no pause annotation' }, events };
    return { condition: { status: 'False', reason: ended.reason, message: events.map((e) => e.message).join('; ') }, events };
  }
  const what = pauseText(state.active);
  const previousWhat = previous?.status === 'True' ? (previous.message ?? '').split(';')[0] : undefined;
  if (previousWhat !== what) events.push({ type: 'Normal', reason: 'ScalingPaused', message: what });
  const would =
    wouldScaleTo === undefined ? 'no recommendation this sync' : wouldScaleTo === currentReplicas ? `recommends ${wouldScaleTo} (the current size)` : `would scale to ${wouldScaleTo}`;
  const reason = dirs.length === 2 ? REASONS.both : REASONS[dirs[0]];
  return { condition: { status: 'True', reason, message: `${what}; ${would}${invalidText ? `; ${invalidText}` : ''}` }, events };
}
