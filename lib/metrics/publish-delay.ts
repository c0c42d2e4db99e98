// How long after its period ends a CloudWatch datapoint is complete, learned per query object.
// CloudWatch keeps adding late samples to a period for a while after it ends, and a value read
// too early is a partial one: the reader waits a fixed 60 s unless it has learned better. It
// learns from the periods' SampleCount (probes read alongside the values, for ten minutes every six
// hours): a period is complete from the first read at which its count reached its final value.
// The learned delay is the largest of the last few settled periods', at the resolution of the
// reads (the shard's ticks); a value that still changes after being read at that delay throws
// the learned delay away (back to 60 s) and starts learning again; the reader never steps back
// to an older period meanwhile (cloudwatch-source.ts keepForward). The learning's type is the store port's
// (lib/sync/ports/publish-delay.ts), its stored encoding lib/store/publish-delay-codec.ts.
import type { DelayLearning, WatchedPeriod } from '#sync/ports';

/** The settled periods a delay is learned from. */
export const MIN_SETTLED = 3;
const KEEP_SETTLED = 5;
/** A period's count is final this long after the period ends (CloudWatch's late samples). */
export const SETTLE_SECONDS = 180;
/** How long a probing lasts, and how often it starts again once a delay is learned. */
export const PROBE_MS = 10 * 60_000;
export const RELEARN_MS = 6 * 60 * 60_000;

/** A new learning: probing from now. */
export function startLearning(nowMs: number): DelayLearning {
  return { settledDelaysSeconds: [], watched: [], probingUntilMs: nowMs + PROBE_MS };
}

export function probing(l: DelayLearning, nowMs: number): boolean {
  return nowMs < l.probingUntilMs;
}

/** The learning at a cycle's start: a finished probing starts again when due. */
export function dueLearning(l: DelayLearning | undefined, nowMs: number): DelayLearning {
  if (!l) return startLearning(nowMs);
  if (!probing(l, nowMs) && l.nextProbingMs !== undefined && nowMs >= l.nextProbingMs) {
    const { nextProbingMs: _next, ...rest } = l;
    return { ...rest, settledDelaysSeconds: [], watched: [], probingUntilMs: nowMs + PROBE_MS };
  }
  return l;
}

/**
 * One probe's sample counts (period start → summed count over the object's metric stats), read at
 * `readMs`: periods ended by then are watched until they settle.
 */
export function observeCounts(l: DelayLearning, counts: ReadonlyMap<number, number>, periodSeconds: number, readMs: number, defaultDelaySeconds: number): DelayLearning {
  const watched = new Map(l.watched.map((w) => [w.periodStart, w]));
  for (const [start, count] of counts) {
    const end = start + periodSeconds;
    if (end * 1000 > readMs || (readMs - end * 1000) / 1000 >= SETTLE_SECONDS) continue;
    const seen = watched.get(start);
    // Only a period that ended while probing is seen soon enough after its end to time it.
    if (!seen && end * 1000 < l.probingUntilMs - PROBE_MS) continue;
    if (!seen || seen.sampleCount !== count) watched.set(start, { periodStart: start, sampleCount: count, firstSeenMs: readMs });
  }
  const settled = [...l.settledDelaysSeconds];
  const open: WatchedPeriod[] = [];
  for (const w of [...watched.values()].sort((a, b) => a.periodStart - b.periodStart)) {
    const end = w.periodStart + periodSeconds;
    // Settled: its count no longer changes.
    if ((readMs - end * 1000) / 1000 >= SETTLE_SECONDS) settled.push(Math.max(0, Math.ceil((w.firstSeenMs - end * 1000) / 1000)));
    else open.push(w);
  }
  const next: DelayLearning = { ...l, settledDelaysSeconds: settled.slice(-KEEP_SETTLED), watched: open };
  if (next.settledDelaysSeconds.length < MIN_SETTLED) return next;
  // Learned: probing stops until the next one; a delay no shorter than the default teaches nothing.
  const worst = Math.max(...next.settledDelaysSeconds);
  const { learnedDelaySeconds: _old, ...rest } = next;
  return { ...rest, ...(worst < defaultDelaySeconds ? { learnedDelaySeconds: worst } : {}), watched: [], probingUntilMs: readMs, nextProbingMs: readMs + RELEARN_MS };
}

/** A probing that ran out without enough settled periods: the default stays until the next one. */
export function closeProbing(l: DelayLearning, nowMs: number): DelayLearning {
  return !probing(l, nowMs) && l.nextProbingMs === undefined ? { ...l, watched: [], nextProbingMs: nowMs + RELEARN_MS } : l;
}

/** A datapoint read at the learned delay that changed afterwards: the delay was too short. */
export interface LateValue {
  periodStart: number;
  before: number;
  after: number;
}

/**
 * The value a decision read: a datapoint used at the learned delay that has changed since says
 * the delay was too short. Returns the learning to keep and whether that happened.
 */
export function checkUsedValue(l: DelayLearning, points: readonly { t: number; v: number }[], used: { t: number; v: number } | undefined, nowMs: number): { learning: DelayLearning; late?: LateValue } {
  let late: LateValue | undefined;
  const last = l.used;
  if (last && l.learnedDelaySeconds !== undefined) {
    const again = points.find((p) => p.t === last.periodStart);
    if (again && again.v !== last.value) late = { periodStart: last.periodStart, before: last.value, after: again.v };
  }
  const base = late ? startLearning(nowMs) : l;
  const { used: _used, ...rest } = base;
  return { learning: used ? { ...rest, used: { periodStart: used.t, value: used.v } } : rest, ...(late ? { late } : {}) };
}
