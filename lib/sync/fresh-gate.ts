// A tick one second before its shard's settled offset (lib/sync/tick-phase.ts) waits, within its
// invocation, for the answers to change. metrics-server serves a whole loop at once, once its slowest
// node has answered (its tick: Scrape, then Store), so the change is sharp but seldom on a whole second,
// where SQS delays put the ticks: a tick on the second after it waits up to a second for nothing. The gate
// reads one namespace's pod metrics every POLL_MS until the compared pods' answers differ from the last
// tick's, or until a little past the settled second; the cycle's pod metrics reads wait for it.
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from './ports/clock.js';
import type { MetricAnswer } from './ports/metrics-access.js';
import { digestAnswers, type PodAnswerSeen } from './visibility.js';

export const POLL_MS = 100;
/** The gate stops waiting this long after the settled second: what is read then is used. */
export const GATE_MARGIN_MS = 200;
/** The share of the compared pods whose answers must differ for the gate to open (a pod whose sample did not move keeps its answer). */
export const CHANGED_SHARE = 0.75;

export interface GateRequest {
  /** The namespace whose pod metrics the gate reads. */
  namespace: string;
  /** The last tick's digests (lib/sync/visibility.ts): pod hash → answer hash. */
  previous: Record<string, string>;
  /** The tick (epoch ms): the gate waits until a second after it, and a margin. */
  tickMs: number;
}

export interface GateResult {
  namespace: string;
  /** The last read: the namespace's answer for the cycle; absent: a read outlasted the gate (the namespace is read on its own). */
  answer?: MetricAnswer;
  /** The first read's answers, and when it started: what a tick at this second would have seen. */
  first: PodAnswerSeen[];
  firstAtMs: number;
  /** When the read that found the answers changed started; absent: they had not by the gate's end (or could not be compared). */
  openedAtMs?: number;
  /** When the last read that found them unchanged started: the change came after. */
  unchangedAtMs?: number;
  reads: number;
}

/** The namespace's pod metrics answers, as the tick phase compares them. */
export function podAnswersOf(namespace: string, answer: MetricAnswer): PodAnswerSeen[] {
  if (answer.type !== 'PodResource' || !answer.result.value) return [];
  return answer.result.value.map((m) => ({ pod: `${namespace}/${m.pod}`, atMs: Date.parse(m.timestamp), usage: JSON.stringify(m.containers) }));
}

/** The share of the compared pods whose answers differ from the last tick's; undefined when none of them was read. */
export function changedShare(previous: Record<string, string>, seen: readonly PodAnswerSeen[], readMs: number): number | undefined {
  const now = digestAnswers(seen, readMs);
  const shared = Object.keys(now).filter((p) => previous[p] !== undefined);
  if (shared.length === 0) return undefined;
  return shared.filter((p) => previous[p] !== now[p]).length / shared.length;
}

/** Reads until the answers changed (or cannot be compared), or the gate's time is up. */
export async function awaitChange(req: GateRequest, read: () => Promise<MetricAnswer>, clock: Clock, signal: AbortSignal): Promise<GateResult> {
  const untilMs = req.tickMs + 1000 + GATE_MARGIN_MS;
  let first: { seen: PodAnswerSeen[]; atMs: number } | undefined;
  let unchangedAtMs: number | undefined;
  for (let reads = 1; ; reads++) {
    const atMs = clock.now().getTime();
    // A read that hangs holds up only its own namespace: the cycle's other pod metrics reads go at the gate's end.
    const answer = await within(read(), untilMs - atMs);
    if (!answer) return { namespace: req.namespace, first: first?.seen ?? [], firstAtMs: first?.atMs ?? atMs, ...(unchangedAtMs === undefined ? {} : { unchangedAtMs }), reads };
    const seen = podAnswersOf(req.namespace, answer);
    first ??= { seen, atMs };
    const changed = answer.type === 'PodResource' && answer.result.error === undefined ? changedShare(req.previous, seen, atMs) : undefined;
    const result = { namespace: req.namespace, answer, first: first.seen, firstAtMs: first.atMs, reads };
    if (changed === undefined || changed >= CHANGED_SHARE) return { ...result, ...(unchangedAtMs === undefined ? {} : { unchangedAtMs }), ...(changed === undefined ? {} : { openedAtMs: atMs }) };
    unchangedAtMs = atMs;
    if (clock.now().getTime() + POLL_MS > untilMs || signal.aborted) return { ...result, unchangedAtMs };
    await sleep(clock, POLL_MS, signal).catch(() => undefined);
  }
}

/** The promise's value, or undefined when it takes longer than `ms` (a timer: the gate's end is real time in Lambda). */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return clock.sleep ? clock.sleep(ms, signal) : delay(ms, undefined, { signal });
}
