// When a shard's PodMetrics answers change, learned from consecutive ticks' reads rather than from the
// samples' own timestamps. An answer changes when metrics-server stores its node's scrape (one loop over
// the nodes, a second or two long, each resolution); its timestamp is the earliest container sample
// (cAdvisor's housekeeping, 10 s + jitter, kubernetes#55863; metrics-server#119), up to ~10 s before, so
// timestamps place the scrape only while they are few seconds apart. Two reads less than a period apart
// say more: a pod whose answer (timestamp or usage) did not change between ticks at t1 and t2 = t1 + P − k
// had its answer become visible in the k seconds (t2 mod P, t1 mod P]. So the ticks are dithered a
// second at a time (a sweep while nothing is known, one probe on either side of the chosen second every
// few minutes after), each second of the period keeps the share of answers last seen appearing in it, and
// the ticks go to the second just after the window in which answers appear. Any probe that contradicts the
// window forgets the rest and sweeps again (metrics-server restarted: its loop has a new phase).
import { fnv1a } from './shards.js';
import type { Visibility } from './ports/tick-phase.js';

export type { Visibility } from './ports/tick-phase.js';

/** One pod's answer as a cycle read it (metrics.k8s.io PodMetrics). */
export interface PodAnswerSeen {
  /** "namespace/pod" */
  pod: string;
  /** The answer's timestamp (epoch ms). */
  atMs: number;
  /** Its usage, as text: a change of value with the same timestamp is a change too. */
  usage: string;
}

/** What a shard keeps between ticks (with its TickPhase, in the cycle item): the evidence and the last read. */

/** Where the ticks go, as learned so far. */
export interface VisibilityChoice {
  /** The settled second after the window; undefined: still learning, or scattered (then `scattered`). */
  offsetSeconds?: number;
  scattered?: boolean;
  /** The window's width (s) when settled. */
  windowSeconds?: number;
}

/** Pods whose answers are compared between ticks: the same few each time (smallest name hashes), a few bytes each in the cycle item. */
export const SAMPLE_PODS = 24;
/** A second holds the window when at least this share of the compared answers appeared in it (a straggling node's pods do not move the ticks). */
export const MIN_SHARE = 0.05;
/** ... and the window holds at least this share of the answers (each answer appears once a period: the shares of the period add up to about 1). */
export const WINDOW_SHARE = 0.7;
/** Seconds free of answers needed before the window's start to close it while sweeping. */
export const CLEAR_BEFORE = 2;
/** In steady state, one minute in this many probes a second beside the chosen one. */
export const PROBE_EVERY_MINUTES = 3;
/** Answers stamped this close to the read (ms) are the adapter's query time (prometheus-adapter), not a sample: never compared. */
export const QUERY_TIME_MS = 1_000;

const mod = (a: number, p: number) => ((a % p) + p) % p;
const hex = (n: number) => n.toString(36);

/** The digests of the sample of pods compared between ticks; answers stamped at the query, or from the future, left out. */
export function digestAnswers(seen: readonly PodAnswerSeen[], readMs: number): Record<string, string> {
  const byPod = new Map<string, string>();
  for (const a of seen) {
    if (!Number.isFinite(a.atMs) || readMs - a.atMs < QUERY_TIME_MS) continue;
    byPod.set(hex(fnv1a(a.pod)), hex(fnv1a(`${a.atMs}|${a.usage}`)));
  }
  const sample = [...byPod.keys()].sort((x, y) => parseInt(x, 36) - parseInt(y, 36)).slice(0, SAMPLE_PODS);
  return Object.fromEntries(sample.map((k) => [k, byPod.get(k)!]));
}

/** The pod ("namespace/pod") of the compared answers with the smallest name hash: the first the gate compares. */
export function firstComparedPod(seen: readonly PodAnswerSeen[], answers: Record<string, string>): string | undefined {
  const first = Object.keys(answers).sort((x, y) => parseInt(x, 36) - parseInt(y, 36))[0];
  return first === undefined ? undefined : seen.find((a) => hex(fnv1a(a.pod)) === first)?.pod;
}

/**
 * Adds what this read says to the evidence: when it came less than a period after the last read, the share of
 * compared pods whose answer did not change lies in the seconds between; for one second that is its share,
 * for several, none unchanged clears them all (more than none says nothing about which).
 */
export function observeRead(prev: Visibility | undefined, answers: Record<string, string>, tickMs: number, periodSeconds: number): Visibility {
  const kept = prev?.bins.length === periodSeconds;
  const bins = kept ? [...prev.bins] : new Array<number | null>(periodSeconds).fill(null);
  const last = prev?.last;
  const next: Visibility = { bins, sinceMs: kept ? prev.sinceMs : tickMs, last: { tickMs, answers } };
  if (!last) return next;
  const gapMs = tickMs - last.tickMs;
  const k = periodSeconds - gapMs / 1000;
  // Whole-second probes only (ticks fall on seconds); a period or more apart, every answer changed at least once.
  if (gapMs <= 0 || !Number.isInteger(k) || k < 1) return next;
  const shared = Object.keys(answers).filter((p) => last.answers[p] !== undefined);
  if (shared.length === 0) return next;
  const unchanged = shared.filter((p) => last.answers[p] === answers[p]).length;
  const from = mod(Math.round(tickMs / 1000), periodSeconds);
  if (k === 1) bins[from] = Math.round((unchanged / shared.length) * 1000) / 1000;
  else if (unchanged === 0) for (let i = 0; i < k; i++) bins[mod(from + i, periodSeconds)] = 0;
  return next;
}

const holds = (share: number | null | undefined) => share !== null && share !== undefined && share >= MIN_SHARE;
const clear = (share: number | null | undefined) => share !== null && share !== undefined && share < MIN_SHARE;

/**
 * The window in which answers appear, once the evidence closes it: a run of seconds holding answers, a clear
 * second after it and CLEAR_BEFORE clear seconds before it. Answers everywhere (no such run within a third of the
 * period once every second is probed), or nowhere (every answer always changed: stamped at each query): scattered.
 */
export function chooseOffset(v: Visibility | undefined): VisibilityChoice {
  if (!v) return {};
  const bins = inferLastSecond(v.bins);
  const p = bins.length;
  for (let end = 0; end < p; end++) {
    if (!holds(bins[end]) || !clear(bins[mod(end + 1, p)])) continue;
    let start = end;
    let share = bins[end]!;
    while (holds(bins[mod(start - 1, p)]) && end - start + 1 < p) share += bins[mod(--start, p)]!;
    const before = Array.from({ length: CLEAR_BEFORE }, (_, i) => bins[mod(start - 1 - i, p)]);
    const width = end - start + 1;
    if (before.every(clear) && width <= p / 3 && share >= WINDOW_SHARE) return { offsetSeconds: mod(end + 1, p), windowSeconds: width };
  }
  return bins.every((b) => b !== null) ? { scattered: true } : {};
}

/**
 * The period's last second can never be probed (ticks in consecutive slots are at most P − 1 s short of a period
 * apart, within their slots): once every other second is known, it holds what they leave of the answers.
 */
function inferLastSecond(bins: readonly (number | null)[]): (number | null)[] {
  const p = bins.length;
  const others = bins.slice(0, p - 1);
  if (bins[p - 1] !== null || others.some((b) => b === null)) return [...bins];
  return [...others, Math.max(0, 1 - others.reduce<number>((a, b) => a + b!, 0))];
}

/**
 * The offsets of the next minute's ticks (one per tick, `ticks` of them): while learning, a sweep down one second a
 * tick from where the last one went; settled, the chosen second, and one minute in PROBE_EVERY_MINUTES a probe of
 * the second after it (the first tick one second late) and of the second before it (the last one a second early,
 * which waits for the change: lib/sync/fresh-gate.ts); gated, every tick a second early.
 */
export function planMinute(choice: VisibilityChoice, fromOffset: number, ticks: number, nextMinute: number, periodSeconds: number, gated = false): number[] {
  if (choice.offsetSeconds === undefined) return Array.from({ length: ticks }, (_, i) => mod(fromOffset - 1 - i, periodSeconds));
  const o = choice.offsetSeconds;
  // Gated (lib/sync/fresh-gate.ts): every tick a second early, each its own probe of that second.
  if (gated) return new Array<number>(ticks).fill(mod(o - 1, periodSeconds));
  const plan = new Array<number>(ticks).fill(o);
  if (nextMinute % PROBE_EVERY_MINUTES !== 0) return plan;
  // Both probes in one minute when it has three ticks or more; else one, then the other.
  const above = ticks >= 3 || (nextMinute / PROBE_EVERY_MINUTES) % 2 === 0;
  const below = ticks >= 3 || !above;
  if (above) plan[0] = mod(o + 1, periodSeconds);
  if (below) plan[ticks - 1] = mod(o - 1, periodSeconds);
  return plan;
}

/** After a read that moved or undid the settled window: what this read probed kept, the rest forgotten (a new sweep finds the window). */
export function forgetAllBut(v: Visibility, before: Visibility | undefined): Visibility {
  return { ...v, bins: v.bins.map((b, i) => (before?.bins[i] !== b ? b : null)), sinceMs: v.last?.tickMs ?? v.sinceMs };
}

/** Evidence as stored (JSON-parsed), or undefined when it is not (another version, a hand edit): the shard then learns again. */
export function decodeVisibility(v: unknown): Visibility | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { bins, sinceMs, last } = v as Record<string, unknown>;
  const share = (x: unknown) => x === null || (typeof x === 'number' && x >= 0 && x <= 1);
  if (!Array.isArray(bins) || bins.length === 0 || bins.length > 900 || !bins.every(share) || typeof sinceMs !== 'number' || !Number.isFinite(sinceMs)) return undefined;
  const out: Visibility = { bins: bins as (number | null)[], sinceMs };
  if (typeof last !== 'object' || last === null) return out;
  const { tickMs, answers } = last as Record<string, unknown>;
  const digests = typeof answers === 'object' && answers !== null && !Array.isArray(answers) ? Object.entries(answers) : undefined;
  if (typeof tickMs !== 'number' || !Number.isFinite(tickMs) || !digests || digests.length > SAMPLE_PODS || !digests.every(([, d]) => typeof d === 'string')) return out;
  return { ...out, last: { tickMs, answers: Object.fromEntries(digests) as Record<string, string> } };
}
