// How long after its period ends a CloudWatch datapoint is complete, learned per query object.
// CloudWatch keeps adding late samples to a period for a while after it ends, and a value read
// too early is a partial one: the reader waits a fixed 60 s unless it has learned better. It
// learns from the periods' SampleCount (probes read alongside the values, for ten minutes every six
// hours): a period is complete from the first read at which its count reached its final value.
// The learned delay is the largest of the last few settled periods', at the resolution of the
// reads (the shard's ticks); a value that still changes after being read at that delay throws
// the learned delay away (back to 60 s) and starts learning again; the reader never steps back
// to an older period meanwhile (lib/metrics/cloudwatch-source.ts keepForward).

/** What a shard keeps of one object's learning (stored with its answers: it survives restarts and containers). */
export interface DelayLearning {
  /** The learned delay, whole seconds after a period ends; absent: not learned, the default applies. */
  d?: number;
  /** The last settled periods' completion delays (seconds), newest last. */
  s: number[];
  /** Periods watched: [period start (epoch s), sample count, first read with that count (epoch ms)]. */
  o: [number, number, number][];
  /** Probing until then (epoch ms); after it, the next probing starts at n. */
  p: number;
  /** When the next probing starts (epoch ms). */
  n?: number;
  /** The datapoint the last decision read: [period start (epoch s), value], checked at the next read. */
  u?: [number, number];
}

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
  return { s: [], o: [], p: nowMs + PROBE_MS };
}

export function probing(l: DelayLearning, nowMs: number): boolean {
  return nowMs < l.p;
}

/** The learning at a cycle's start: a finished probing starts again when due. */
export function dueLearning(l: DelayLearning | undefined, nowMs: number): DelayLearning {
  if (!l) return startLearning(nowMs);
  if (!probing(l, nowMs) && l.n !== undefined && nowMs >= l.n) return { ...l, s: [], o: [], p: nowMs + PROBE_MS, n: undefined };
  return l;
}

/**
 * One probe's sample counts (period start → summed count over the object's metric stats), read at
 * `readMs`: periods ended by then are watched until they settle.
 */
export function observeCounts(l: DelayLearning, counts: ReadonlyMap<number, number>, periodSeconds: number, readMs: number, defaultDelaySeconds: number): DelayLearning {
  const watched = new Map(l.o.map((e) => [e[0], e]));
  for (const [start, count] of counts) {
    const end = start + periodSeconds;
    if (end * 1000 > readMs || (readMs - end * 1000) / 1000 >= SETTLE_SECONDS) continue;
    const seen = watched.get(start);
    // Only a period that ended while probing is seen soon enough after its end to time it.
    if (!seen && end * 1000 < l.p - PROBE_MS) continue;
    if (!seen || seen[1] !== count) watched.set(start, [start, count, readMs]);
  }
  const s = [...l.s];
  const o: DelayLearning['o'] = [];
  for (const e of [...watched.values()].sort((a, b) => a[0] - b[0])) {
    const end = e[0] + periodSeconds;
    // Settled: its count no longer changes.
    if ((readMs - end * 1000) / 1000 >= SETTLE_SECONDS) s.push(Math.max(0, Math.ceil((e[2] - end * 1000) / 1000)));
    else o.push(e);
  }
  const next: DelayLearning = { ...l, s: s.slice(-KEEP_SETTLED), o };
  if (next.s.length < MIN_SETTLED) return next;
  // Learned: probing stops until the next one; a delay no shorter than the default teaches nothing.
  const worst = Math.max(...next.s);
  const { d: _old, ...rest } = next;
  return { ...rest, ...(worst < defaultDelaySeconds ? { d: worst } : {}), o: [], p: readMs, n: readMs + RELEARN_MS };
}

/** A probing that ran out without enough settled periods: the default stays until the next one. */
export function closeProbing(l: DelayLearning, nowMs: number): DelayLearning {
  return !probing(l, nowMs) && l.n === undefined ? { ...l, o: [], n: nowMs + RELEARN_MS } : l;
}

/**
 * The value a decision read: a datapoint used at the learned delay that has changed since says
 * the delay was too short. Returns the learning to keep and whether that happened.
 */
export function checkUsedValue(l: DelayLearning, points: readonly { t: number; v: number }[], used: { t: number; v: number } | undefined, nowMs: number): { learning: DelayLearning; late?: { periodStart: number; before: number; after: number } } {
  let late: { periodStart: number; before: number; after: number } | undefined;
  if (l.u && l.d !== undefined) {
    const again = points.find((p) => p.t === l.u![0]);
    if (again && again.v !== l.u[1]) late = { periodStart: l.u[0], before: l.u[1], after: again.v };
  }
  const base = late ? startLearning(nowMs) : l;
  const { u: _u, ...rest } = base;
  return { learning: used ? { ...rest, u: [used.t, used.v] } : rest, ...(late ? { late } : {}) };
}

/** What a learned object adds to its kept answer (bytes, encodeLearning; test/sync/publish-delay.test.ts checks it). */
export const LEARNED_BYTES = 75;

/** As stored with the shard's answers: empty lists left out. */
export function encodeLearning(l: DelayLearning): Partial<DelayLearning> {
  const { s, o, ...rest } = l;
  return { ...rest, ...(s.length ? { s } : {}), ...(o.length ? { o } : {}) };
}

/** A learning as stored, or undefined when it is not one: the object then learns again from scratch. */
export function decodeLearning(v: unknown): DelayLearning | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const { d, s = [], o = [], p, n, u } = v as Record<string, unknown>;
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  const secs = (x: unknown) => num(x) && Number.isInteger(x) && (x as number) >= 0 && (x as number) < 3600;
  if (d !== undefined && !secs(d)) return undefined;
  if (!Array.isArray(s) || !s.every(secs) || !num(p) || (n !== undefined && !num(n))) return undefined;
  if (!Array.isArray(o) || !o.every((e) => Array.isArray(e) && e.length === 3 && e.every(num))) return undefined;
  if (u !== undefined && !(Array.isArray(u) && u.length === 2 && u.every(num))) return undefined;
  return { ...(v as DelayLearning), s: s as number[], o: o as DelayLearning['o'] };
}
