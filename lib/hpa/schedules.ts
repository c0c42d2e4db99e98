// Ours: scheduled minimums. Named windows, each opening and closing on 5-field cron
// expressions (in an IANA timezone: a recurring window) or at explicit RFC 3339 times (a one-off),
// raise the minimum while they are open: the effective minimum is the largest of spec.minReplicas and the open
// windows' (capped at maxReplicas). A window is a floor, not a metric (KEDA's cron scaler is a
// metric, hence its complaints: kedacore/keda#1941, #6787, #6709, #7095), and it enters the
// recommendation the controller records, so when it closes the scale-down stabilization window
// and policies govern the way down as they would for any drop: no cooldown of our own.
// Cron occurrences come from croner (DST: a time skipped by the spring change fires at the next
// valid minute, one repeated by the autumn change fires once, as Vixie cron does).
import { Cron } from 'croner';
import { FieldPath, forbidden, invalid, required, typeInvalid, type FieldError } from './api/field-path.js';
import { parseRfc3339 } from './pause.js';
import type { HorizontalPodAutoscaler, MinReplicaSchedule } from './types.js';

/** The HPA form in the table carries the same list as JSON in this annotation. */
export const MIN_REPLICA_SCHEDULES_ANNOTATION = 'shpa.dev/min-replica-schedules';
export const MAX_SCHEDULES = 20;
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Bound of each memo of a ScheduleCache (parsed annotations, cron programs): cleared whole when reached. */
const MAX_MEMO = 1000;

/**
 * What reading schedules can keep between syncs, held by the caller (lib/hpa keeps no state of its own):
 * each annotation text parsed once, and each cron's occurrences around the last `now` (croner's backward
 * walk costs ~1 ms; `npm run bench -- hpa`: 2 cron windows cost ~2.4 ms a sync without it, ~0.1 ms with it).
 * Without one, each call starts empty.
 */
export class ScheduleCache {
  readonly annotations = new Map<string, { schedules: MinReplicaSchedule[]; errors: FieldError[] }>();
  readonly crons = new Map<string, { cron: Cron; last?: Date; next?: Date }>();
}

/** A window open at `now`: since its last start, until its next end (undefined: none ahead). */
export interface OpenWindow {
  schedule: MinReplicaSchedule;
  since: Date;
  until?: Date;
}

export interface ScheduledMinimum {
  /** max(spec.minReplicas, open windows), capped at maxReplicas. */
  minReplicas: number;
  /** The window that set it, when one raised it above spec.minReplicas. */
  raisedBy?: OpenWindow;
  open: OpenWindow[];
  /** The next window to open after `now`, for the status and `shpa describe`. */
  next?: { schedule: MinReplicaSchedule; at: Date };
  /** Why the schedules could not be read (then none applies). */
  errors: FieldError[];
}

/** The schedules of an autoscaler (spec field, else the annotation); errors when the annotation cannot be read. */
export function schedulesOf(hpa: Pick<HorizontalPodAutoscaler, 'metadata' | 'spec'>, cache = new ScheduleCache()): { schedules: MinReplicaSchedule[]; errors: FieldError[] } {
  if (hpa.spec.minReplicaSchedules) return { schedules: hpa.spec.minReplicaSchedules, errors: [] };
  const text = hpa.metadata.annotations?.[MIN_REPLICA_SCHEDULES_ANNOTATION];
  if (text === undefined) return { schedules: [], errors: [] };
  // Read once per text (and maxReplicas): each sync of the same object reads the same annotation.
  const key = `${hpa.spec.maxReplicas} ${text}`;
  const known = cache.annotations.get(key);
  if (known) return known;
  if (cache.annotations.size >= MAX_MEMO) cache.annotations.clear();
  const read = readAnnotation(text, hpa.spec.maxReplicas);
  cache.annotations.set(key, read);
  return read;
}

function readAnnotation(text: string, maxReplicas: number): { schedules: MinReplicaSchedule[]; errors: FieldError[] } {
  const path = FieldPath.root('metadata').child('annotations').key(MIN_REPLICA_SCHEDULES_ANNOTATION);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { schedules: [], errors: [invalid(path, text, `must be a JSON list of windows: ${e instanceof Error ? e.message : String(e)}`)] };
  }
  const errors = validateSchedules(value, path, maxReplicas);
  return errors.length > 0 ? { schedules: [], errors } : { schedules: value as MinReplicaSchedule[], errors: [] };
}

/** Shape and meaning of a list of windows; `maxReplicas` bounds each minimum. */
export function validateSchedules(value: unknown, path: FieldPath, maxReplicas: unknown): FieldError[] {
  if (!Array.isArray(value)) return [typeInvalid(path, value, 'must be a list')];
  const errors: FieldError[] = [];
  if (value.length > MAX_SCHEDULES) errors.push(invalid(path, value.length, `must have at most ${MAX_SCHEDULES} windows`));
  const names = new Set<string>();
  value.forEach((raw: unknown, i) => {
    const p = path.index(i);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return void errors.push(typeInvalid(p, raw, 'must be an object'));
    const w = raw as Record<string, unknown>;
    for (const k of Object.keys(w)) if (!['name', 'minReplicas', 'timezone', 'start', 'end'].includes(k)) errors.push(forbidden(p.child(k), 'unknown field'));
    if (typeof w.name !== 'string' || w.name === '') errors.push(w.name === undefined ? required(p.child('name'), '') : invalid(p.child('name'), w.name, 'must be a non-empty string'));
    else if (!NAME.test(w.name) || w.name.length > 63) errors.push(invalid(p.child('name'), w.name, 'must be a DNS-1123 label (lowercase letters, digits and -, at most 63)'));
    else if (names.has(w.name)) errors.push({ field: String(p.child('name')), type: 'Duplicate', message: '', value: w.name });
    else names.add(w.name);
    const min = w.minReplicas;
    if (min === undefined) errors.push(required(p.child('minReplicas'), ''));
    else if (typeof min !== 'number' || !Number.isInteger(min)) errors.push(typeInvalid(p.child('minReplicas'), min, 'must be an integer'));
    else if (min < 1) errors.push(invalid(p.child('minReplicas'), min, 'must be greater than 0'));
    else if (typeof maxReplicas === 'number' && min > maxReplicas) errors.push(invalid(p.child('minReplicas'), min, 'must be less than or equal to `maxReplicas`'));
    const tz = w.timezone;
    if (tz !== undefined && (typeof tz !== 'string' || !validTimezone(tz))) errors.push(invalid(p.child('timezone'), tz, 'must be an IANA timezone such as "Europe/Berlin" or "UTC"'));
    for (const k of ['start', 'end'] as const) {
      const at = w[k];
      if (at === undefined) errors.push(required(p.child(k), ''));
      else if (typeof at !== 'string') errors.push(typeInvalid(p.child(k), at, 'must be a string'));
      else {
        const problem = whenProblem(at);
        if (problem) errors.push(invalid(p.child(k), at, problem));
      }
    }
    if (typeof w.start === 'string' && w.start === w.end) errors.push(invalid(p.child('end'), w.end, 'must differ from start: the window would never open'));
    const s = typeof w.start === 'string' ? parseRfc3339(w.start) : undefined;
    const e = typeof w.end === 'string' ? parseRfc3339(w.end) : undefined;
    if (s && e && e.getTime() <= s.getTime()) errors.push(invalid(p.child('end'), w.end, 'must be after start'));
    else if (typeof w.start === 'string' && typeof w.end === 'string' && !whenProblem(w.start) && !whenProblem(w.end) && !s !== !e) {
      errors.push(invalid(p.child('end'), w.end, 'must be of the kind of start: both cron expressions (a recurring window) or both RFC 3339 times (a one-off window)'));
    }
  });
  return errors;
}

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Why `at` is neither a 5-field cron expression nor an RFC 3339 time; undefined when it is one. */
function whenProblem(at: string): string | undefined {
  if (parseRfc3339(at)) return undefined;
  const fields = at.trim().split(/\s+/);
  if (fields.length !== 5 || /^\d{4}-/.test(at)) return 'must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or an RFC 3339 time such as "2026-12-24T18:00:00Z"';
  try {
    const c = new Cron(at, { timezone: 'UTC' });
    if (!c.nextRun()) return 'never matches a date';
  } catch (e) {
    return `not a valid cron expression: ${e instanceof Error ? e.message : String(e)}`;
  }
  return undefined;
}

// ---- when windows are open ----

type Moments = { last?: Date; next?: Date };

// Occurrences of a cron expression in a timezone, memoized by the interval between two of them:
// a sync inside the interval already known costs no cron walk (croner's backward walk is ~1 ms).

/** The memo entry of a cron expression in a timezone. */
function cronOf(at: string, timezone: string | undefined, cache: ScheduleCache): { cron: Cron; last?: Date; next?: Date } {
  const key = `${timezone ?? 'UTC'} ${at}`;
  let c = cache.crons.get(key);
  if (!c) {
    if (cache.crons.size >= MAX_MEMO) cache.crons.clear();
    c = { cron: new Cron(at.trim(), { timezone: timezone ?? 'UTC' }) };
    cache.crons.set(key, c);
  }
  return c;
}

/** The occurrence of `at` at or before now, and the first one after it. */
function moments(at: string, timezone: string | undefined, now: Date, cache: ScheduleCache): Moments {
  const t = parseRfc3339(at);
  if (t) return t.getTime() <= now.getTime() ? { last: t } : { next: t };
  const c = cronOf(at, timezone, cache);
  const ms = now.getTime();
  const known = c.last !== undefined && c.last.getTime() <= ms && (c.next === undefined || ms < c.next.getTime());
  if (!known) {
    // croner's previousRuns is strict: ask from one second later and keep what is not after now.
    c.last = c.cron.previousRuns(2, new Date(ms + 1000)).find((d) => d.getTime() <= ms);
    c.next = c.cron.nextRun(now) ?? undefined;
  }
  return { ...(c.last ? { last: c.last } : {}), ...(c.next ? { next: c.next } : {}) };
}

/** The first occurrence of `at` at or after `from`. */
function firstFrom(at: string, timezone: string | undefined, from: Date, cache: ScheduleCache): Date | undefined {
  const t = parseRfc3339(at);
  if (t) return t.getTime() >= from.getTime() ? t : undefined;
  return cronOf(at, timezone, cache).cron.nextRun(new Date(from.getTime() - 1000)) ?? undefined;
}

/** Open from its last start until the first end at or after that start (a window spanning midnight works alike). */
export function openWindow(schedule: MinReplicaSchedule, now: Date, cache = new ScheduleCache()): OpenWindow | undefined {
  const since = moments(schedule.start, schedule.timezone, now, cache).last;
  if (!since) return undefined;
  const until = firstFrom(schedule.end, schedule.timezone, since, cache);
  if (until && until.getTime() <= now.getTime()) return undefined;
  return { schedule, since, ...(until ? { until } : {}) };
}

/**
 * The effective minimum at `now`; undefined for an autoscaler without schedules (nothing changes for it).
 * Schedules that cannot be read (a malformed annotation on a stored object) raise nothing and are reported.
 */
export function scheduledMinimum(
  hpa: Pick<HorizontalPodAutoscaler, 'metadata' | 'spec'>,
  now: Date,
  cache = new ScheduleCache(),
): ScheduledMinimum | undefined {
  const { schedules, errors } = schedulesOf(hpa, cache);
  if (schedules.length === 0 && errors.length === 0) return undefined;
  const specMin = hpa.spec.minReplicas ?? 1;
  const open = schedules.map((s) => openWindow(s, now, cache)).filter((w): w is OpenWindow => w !== undefined);
  let minReplicas = specMin;
  let raisedBy: OpenWindow | undefined;
  for (const w of open) {
    const m = Math.min(w.schedule.minReplicas, hpa.spec.maxReplicas);
    if (m > minReplicas) {
      minReplicas = m;
      raisedBy = w;
    }
  }
  let next: ScheduledMinimum['next'];
  for (const s of schedules) {
    if (open.some((w) => w.schedule === s)) continue;
    const at = moments(s.start, s.timezone, now, cache).next;
    if (at && (!next || at.getTime() < next.at.getTime())) next = { schedule: s, at };
  }
  return { minReplicas, open, errors, ...(raisedBy ? { raisedBy } : {}), ...(next ? { next } : {}) };
}

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

/** "business-hours (minReplicas 10, Europe/Berlin) open since … until …". */
export function windowText(w: OpenWindow): string {
  return `${w.schedule.name} (minReplicas ${w.schedule.minReplicas}, ${w.schedule.timezone ?? 'UTC'}) open since ${iso(w.since)}${w.until ? ` until ${iso(w.until)}` : ''}`;
}

type Condition = { status: 'True' | 'False'; reason: string; message: string };
type Event = { type: 'Normal' | 'Warning'; reason: string; message: string };

/**
 * The ScheduledMinimum condition (True while a window is open, False with the next one otherwise)
 * and the events of this sync: a window opening, the last one closing, schedules that cannot be read.
 */
export function scheduleCondition(
  m: ScheduledMinimum | undefined,
  specMin: number,
  previous: { status?: string; reason?: string; message?: string } | undefined,
): { condition: Condition; events: Event[] } | undefined {
  // Never configured: nothing. Configured once: the condition says there is none now.
  if (!m) return previous ? { condition: { status: 'False', reason: 'NoSchedules', message: `no window configured: minimum spec.minReplicas ${specMin}` }, events: [] } : undefined;
  let condition: Condition;
  if (m.errors.length > 0) {
    const text = m.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    condition = { status: 'False', reason: 'InvalidSchedule', message: `schedules ignored (minimum spec.minReplicas ${specMin}): ${text}` };
  } else if (m.open.length > 0) {
    const effect = m.raisedBy ? `minimum ${m.minReplicas} (spec.minReplicas ${specMin})` : `minimum stays ${m.minReplicas} (spec.minReplicas is not lower)`;
    condition = { status: 'True', reason: 'WindowOpen', message: `window ${m.open.map(windowText).join(', window ')}: ${effect}` };
  } else {
    const next = m.next ? `; next: ${m.next.schedule.name} at ${iso(m.next.at)}` : '; no window ahead';
    condition = { status: 'False', reason: 'NoWindowOpen', message: `no window open: minimum spec.minReplicas ${specMin}${next}` };
  }
  const events: Event[] = [];
  if (condition.reason === 'InvalidSchedule' && previous?.message !== condition.message) events.push({ type: 'Warning', reason: 'InvalidSchedule', message: condition.message });
  else if (condition.status === 'True' && previous?.message !== condition.message) events.push({ type: 'Normal', reason: 'ScheduleWindowOpen', message: condition.message });
  else if (condition.status === 'False' && previous?.status === 'True') {
    events.push({ type: 'Normal', reason: 'ScheduleWindowClosed', message: `${condition.message}; the way down follows spec.behavior.scaleDown` });
  }
  return { condition, events };
}
