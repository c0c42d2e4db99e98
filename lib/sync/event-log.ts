// An autoscaler's recent events, kept in its stored state: what `kubectl describe hpa`
// shows under Events, and what Kubernetes Events are written from. Repeats aggregate as
// client-go's event recorder does (same type, reason and message: count + 1, lastTimestamp),
// and the log is bounded, oldest entries dropped first.

export interface DecisionLogEntry {
  type: 'Normal' | 'Warning';
  /** Upstream's reason: SuccessfulRescale, FailedGetScale, FailedGetResourceMetric, ... or ours (InvalidSpec, HistoryReset). */
  reason: string;
  /** Upstream's words, e.g. "New size: 4; reason: cpu resource utilization (percentage of request) above target". */
  message: string;
  /** First and last time it happened (ISO 8601), and how many times. */
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  /** For rescales: replicas before and after. */
  from?: number;
  to?: number;
  /** The rule that limited the decision, when one did (e.g. "ScaleUpLimit", "max replicas"). */
  limit?: string;
}

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

/** The log with `events` recorded at `now`; the input is not modified. */
export function recordEvents(log: readonly DecisionLogEntry[], events: readonly NewEvent[], now: Date, limit = EVENT_LOG_LIMIT): DecisionLogEntry[] {
  if (events.length === 0) return [...log];
  const at = now.toISOString();
  const out = log.map((e) => ({ ...e }));
  for (const ev of events) {
    const same = out.findIndex((e) => e.type === ev.type && e.reason === ev.reason && e.message === ev.message);
    if (same >= 0) {
      const [e] = out.splice(same, 1);
      out.push({ ...e, lastTimestamp: at, count: e.count + 1, ...rescaleFields(ev) });
    } else {
      out.push({ type: ev.type, reason: ev.reason, message: ev.message, firstTimestamp: at, lastTimestamp: at, count: 1, ...rescaleFields(ev) });
    }
  }
  return out.slice(-limit);
}

function rescaleFields(ev: NewEvent): Partial<DecisionLogEntry> {
  const f: Partial<DecisionLogEntry> = {};
  if (ev.from !== undefined) f.from = ev.from;
  if (ev.to !== undefined) f.to = ev.to;
  if (ev.limit !== undefined) f.limit = ev.limit;
  return f;
}
