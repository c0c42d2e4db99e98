// An autoscaler's recent events, kept in its stored state: what `kubectl describe hpa`
// shows under Events, and what Kubernetes Events are written from. Repeats aggregate as
// client-go's event recorder does (same type, reason and message: count + 1, lastTimestamp),
// and the log is bounded, oldest entries dropped first. Like the recorder's spam filter, a
// repeat alone is stored at most every few minutes: its count then counts the cycles since.
import { redact } from '#api';
import type { DecisionLogEntry } from './ports/decision-log.js';

export type { DecisionLogEntry } from './ports/decision-log.js';

export interface NewEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  from?: number;
  to?: number;
  limit?: string;
}

/** Entries kept per autoscaler: about 2 KB stored at most. */
export const EVENT_LOG_LIMIT = 12;

/** A repeat alone makes the log worth storing once this old (client-go's spam filter refills every 5 minutes). */
export const REPEAT_WRITE_INTERVAL_MS = 300_000;

/**
 * The log with `events` recorded at `now`; the input is not modified. A repeat counts the
 * cycles of `periodMs` since the entry was last stored (at least one), since repeats that
 * were not worth a write were not stored one by one; a rescale, always stored, counts one.
 */
export function recordEvents(log: readonly DecisionLogEntry[], events: readonly NewEvent[], now: Date, periodMs: number, limit = EVENT_LOG_LIMIT): DecisionLogEntry[] {
  if (events.length === 0) return [...log];
  const at = now.toISOString();
  const out = log.map((e) => ({ ...e }));
  for (const raw of events) {
    // Events go through the logs' redaction: stored, shown by describe, written as Kubernetes Events.
    const ev = { ...raw, message: redact(raw.message) };
    const same = out.findIndex((e) => e.type === ev.type && e.reason === ev.reason && e.message === ev.message);
    if (same >= 0) {
      const [e] = out.splice(same, 1);
      // A rescale (it carries its sizes) is stored every time it happens: it counts once.
      const rescale = ev.from !== undefined && ev.to !== undefined;
      const repeats = rescale ? 1 : Math.max(1, Math.round((now.getTime() - Date.parse(e.lastTimestamp)) / Math.max(1, periodMs)));
      out.push({ ...e, lastTimestamp: at, count: e.count + repeats, ...rescaleFields(ev) });
    } else {
      out.push({ type: ev.type, reason: ev.reason, message: ev.message, firstTimestamp: at, lastTimestamp: at, count: 1, ...rescaleFields(ev) });
    }
  }
  return out.slice(-limit);
}

/** Whether `next` holds anything `prev` did not: a new entry, or a repeat stored long enough ago. */
export function logNeedsWrite(prev: readonly DecisionLogEntry[], next: readonly DecisionLogEntry[], nowMs: number): boolean {
  for (const e of next) {
    const old = prev.find((p) => p.type === e.type && p.reason === e.reason && p.message === e.message);
    if (!old) return true;
    if (old.count !== e.count && nowMs - Date.parse(old.lastTimestamp) >= REPEAT_WRITE_INTERVAL_MS) return true;
  }
  return false;
}

/** The entries of `next` that are new or changed since `prev` (what to send as Kubernetes Events). */
export function changedEntries(prev: readonly DecisionLogEntry[], next: readonly DecisionLogEntry[]): DecisionLogEntry[] {
  return next.filter((e) => {
    const old = prev.find((p) => p.type === e.type && p.reason === e.reason && p.message === e.message);
    return !old || old.count !== e.count || old.lastTimestamp !== e.lastTimestamp;
  });
}

function rescaleFields(ev: NewEvent): Partial<DecisionLogEntry> {
  const f: Partial<DecisionLogEntry> = {};
  if (ev.from !== undefined) f.from = ev.from;
  if (ev.to !== undefined) f.to = ev.to;
  if (ev.limit !== undefined) f.limit = ev.limit;
  return f;
}
