// When a shard's ticks fall within its sync period: just after metrics-server's answer changes.
// A PodMetrics answer becomes visible at the scrape of its node, which follows every sample it
// carries; kubelets stamp each container from cAdvisor's housekeeping loop (10 s + jitter,
// kubernetes#55863) and metrics-server keeps the earliest (metrics-server#119), so a pod's
// timestamp lies up to ~10 s before the scrape. Where ticks go is learned from when answers
// change between ticks (lib/sync/visibility.ts); the samples' arc (its end, the latest sample,
// is about the scrape) only says where the first sweep starts. Only when the phase at which
// answers change is itself scattered does the shard stay on the even ticks.
import { chooseOffset, decodeVisibility, digestAnswers, forgetAllBut, observeRead, planMinute, type PodAnswerSeen } from './visibility.js';
import type { TickPhase, Visibility } from './ports/tick-phase.js';

export type { TickPhase } from './ports/tick-phase.js';

/**
 * A sample stamped less than this before the cycle started says nothing of the data's phase: an adapter that
 * stamps the time of the query (prometheus-adapter does) would otherwise pull the ticks after themselves.
 */
export const MIN_SAMPLE_AGE_MS = 1_000;
/** The stretch of the period free of samples must be at least this long, else the phase is scattered. */
export const MIN_GAP_MS = 2_000;
/** ... and this many times the samples' mean spacing on their arc: a gap that random spacing would not leave. */
export const GAP_OVER_SPACING = 2;
/** After the last sample of the loop: the time for the scrape to be stored and served. */
export const PUBLISH_MARGIN_MS = 1_000;
/** A cycle that starts this long after its tick (a busy worker, a slow delivery) read at no known second: it teaches nothing. */
export const LATE_READ_MS = 2_000;
/** A phase learned longer ago than this is not used (the shard stopped reading pod metrics). */
export const PHASE_TTL_MS = 10 * 60_000;

/** The phase at which these samples (epoch ms) become visible within a period of `periodSeconds`: after the end of their arc. */
export function learnPhase(sampleMs: readonly number[], periodSeconds: number, nowMs: number): TickPhase | undefined {
  if (sampleMs.length === 0) return undefined;
  const periodMs = periodSeconds * 1000;
  const phases = [...new Set(sampleMs.map((t) => ((t % periodMs) + periodMs) % periodMs))].sort((a, b) => a - b);
  // The smallest arc holding every phase starts after the largest gap between neighbours (the period is a circle).
  let gap = phases[0] + periodMs - phases[phases.length - 1];
  let end = phases[phases.length - 1];
  for (let i = 1; i < phases.length; i++) {
    if (phases[i] - phases[i - 1] > gap) {
      gap = phases[i] - phases[i - 1];
      end = phases[i - 1];
    }
  }
  const spreadMs = periodMs - gap;
  const base = { spreadMs, samples: sampleMs.length, atMs: nowMs };
  const spacing = phases.length > 1 ? spreadMs / (phases.length - 1) : 0;
  if (gap < MIN_GAP_MS || gap < GAP_OVER_SPACING * spacing) return base;
  return { ...base, offsetSeconds: Math.ceil((end + PUBLISH_MARGIN_MS) / 1000) % periodSeconds };
}

/**
 * What a tick's read teaches (undefined when it read no pod metrics): the evidence of when answers change,
 * the settled offset, and the offsets of the next minute's ticks (a sweep, or a probe, or the settled second).
 */
export function learnTickPhase(prev: TickPhase | undefined, seen: readonly PodAnswerSeen[], tickMs: number, periodSeconds: number, nowMs: number): TickPhase | undefined {
  if (seen.length === 0) return undefined;
  const arc = learnPhase(seen.map((a) => a.atMs).filter((t) => nowMs - t >= MIN_SAMPLE_AGE_MS), periodSeconds, nowMs);
  const fresh = prev && nowMs - prev.atMs <= PHASE_TTL_MS && prev.visibility?.bins.length === periodSeconds ? prev : undefined;
  const before = fresh?.visibility;
  const settled = fresh?.offsetSeconds;
  const answers = digestAnswers(seen, nowMs);
  // Read late: kept at its own time, a fraction of a second off the ticks' seconds, so neither it nor the next read is compared.
  let v = observeRead(before, answers, nowMs - tickMs > LATE_READ_MS ? nowMs + 0.5 : tickMs, periodSeconds);
  let choice = chooseOffset(v);
  // The window moved or came undone: what this read probed is kept, the rest learned again.
  if (settled !== undefined && choice.offsetSeconds !== settled) {
    v = forgetAllBut(v, before);
    choice = chooseOffset(v);
  }
  // Nothing to compare (every answer stamped at the query: an adapter's time, not a sample's): even ticks.
  if (Object.keys(answers).length === 0 && choice.offsetSeconds === undefined) return { spreadMs: arc?.spreadMs ?? 0, samples: seen.length, atMs: nowMs, visibility: v };
  // Scattered: even ticks, until the evidence is PHASE_TTL_MS old; then a new sweep.
  if (choice.scattered) {
    const visibility = tickMs - v.sinceMs > PHASE_TTL_MS ? { bins: v.bins.map(() => null), sinceMs: tickMs, ...(v.last ? { last: v.last } : {}) } : v;
    return { spreadMs: arc?.spreadMs ?? 0, samples: seen.length, atMs: nowMs, visibility };
  }
  const minute = Math.floor(tickMs / 60_000);
  // A window that moved or came undone: the new sweep starts above the samples' end, as a first one.
  const base = sweepBase(settled === undefined ? fresh : undefined, minute, arc, seen, periodSeconds);
  const ticks = 60 % periodSeconds === 0 ? 60 / periodSeconds : 0;
  // A period that does not divide the minute cannot be dithered (its ticks' slots shift each minute): the samples' arc places its ticks.
  if (ticks === 0) return arc && { ...arc, visibility: v };
  return {
    ...(choice.offsetSeconds === undefined ? {} : { offsetSeconds: choice.offsetSeconds, windowSeconds: choice.windowSeconds }),
    spreadMs: arc?.spreadMs ?? 0,
    samples: seen.length,
    atMs: nowMs,
    visibility: v,
    plan: { minute: minute + 1, from: base, offsets: planMinute(choice, base, ticks, minute + 1, periodSeconds) },
  };
}

/** Where the next minute's sweep continues from: the current minute's last tick; a new sweep starts just above the latest sample. */
function sweepBase(prev: TickPhase | undefined, minute: number, arc: TickPhase | undefined, seen: readonly PodAnswerSeen[], periodSeconds: number): number {
  // Planned earlier this minute for the next: the same base again.
  if (prev?.plan?.minute === minute + 1) return prev.plan.from;
  const current = prev?.plan?.minute === minute ? prev.plan.offsets.at(-1) : undefined;
  if (current !== undefined) return current;
  // Two seconds above the samples' end (timestamps are whole seconds, floored): the sweep's first probe finds a clear second after the window.
  if (arc?.offsetSeconds !== undefined) return (arc.offsetSeconds + 3) % periodSeconds;
  const latest = seen.reduce((m, a) => (Number.isFinite(a.atMs) ? Math.max(m, a.atMs) : m), 0);
  return (Math.floor(latest / 1000) + 4) % periodSeconds;
}

/** The offsets a dispatcher uses for the shard's ticks in the minute starting at `minuteMs`: the plan for that minute; undefined: tickOffsetSeconds for each. */
export function tickOffsetsOfMinute(phase: TickPhase | undefined, periodSeconds: number, minuteMs: number, nowMs: number): number[] | undefined {
  if (!phase || nowMs - phase.atMs > PHASE_TTL_MS) return undefined;
  const plan = phase.plan;
  if (plan && plan.minute === Math.floor(minuteMs / 60_000) && plan.offsets.length * periodSeconds === 60) return plan.offsets.map((o) => o % periodSeconds);
  return undefined;
}

/** The offset a dispatcher uses for a shard: from a recent phase, else 0 (even ticks). */
export function tickOffsetSeconds(phase: TickPhase | undefined, periodSeconds: number, nowMs: number): number {
  if (!phase || phase.offsetSeconds === undefined || nowMs - phase.atMs > PHASE_TTL_MS) return 0;
  // Learned at another period (the shard's changed): the same seconds within this one.
  return phase.offsetSeconds % periodSeconds;
}

/** A phase as stored (JSON), or undefined when it is not one (another tool, a hand edit): the shard then ticks evenly. */
export function decodePhase(v: unknown): TickPhase | undefined {
  if (typeof v !== 'string') return undefined;
  let p: unknown;
  try {
    p = JSON.parse(v);
  } catch {
    return undefined;
  }
  if (typeof p !== 'object' || p === null) return undefined;
  const { offsetSeconds, spreadMs, samples, atMs, windowSeconds, visibility, plan } = p as Record<string, unknown>;
  const count = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
  if (!(typeof spreadMs === 'number' && spreadMs >= 0)) return undefined;
  if (!count(samples) || typeof atMs !== 'number' || !Number.isFinite(atMs)) return undefined;
  if (offsetSeconds !== undefined && !(count(offsetSeconds) && (offsetSeconds as number) < 900)) return undefined;
  // The learning's parts that do not read back are dropped: the shard learns again, its other fields kept.
  const seen = decodeVisibility(visibility);
  const minute = decodePlan(plan);
  return {
    ...(offsetSeconds === undefined ? {} : { offsetSeconds: offsetSeconds as number }),
    spreadMs: spreadMs as number,
    samples: samples as number,
    atMs,
    ...(count(windowSeconds) ? { windowSeconds: windowSeconds as number } : {}),
    ...(seen ? { visibility: seen } : {}),
    ...(minute ? { plan: minute } : {}),
  };
}

function decodePlan(v: unknown): TickPhase['plan'] {
  if (typeof v !== 'object' || v === null) return undefined;
  const { minute, from, offsets } = v as Record<string, unknown>;
  const second = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x < 900;
  if (!(typeof minute === 'number' && Number.isInteger(minute)) || !second(from) || !Array.isArray(offsets) || offsets.length > 60 || !offsets.every(second)) return undefined;
  return { minute, from: from as number, offsets: offsets as number[] };
}
