// When a shard's ticks fall within its sync period: just after metrics-server's answer changes.
// A PodMetrics answer becomes visible at the scrape of its node, which follows every sample it
// carries; kubelets stamp each container from cAdvisor's housekeeping loop (10 s + jitter,
// kubernetes#55863) and metrics-server keeps the earliest (metrics-server#119), so a pod's
// timestamp lies up to ~10 s before the scrape. Where ticks go is learned from when answers
// change between ticks (lib/sync/visibility.ts); the samples' arc (its end, the latest sample,
// is about the scrape) only says where the first sweep starts. Only when the phase at which
// answers change is itself scattered does the shard stay on the even ticks.
import { GATE_MARGIN_MS, POLL_MS, type GateRequest, type GateResult } from './fresh-gate.js';
import type { TickGate, TickPhase, Visibility } from './ports/tick-phase.js';
import { chooseOffset, decodeVisibility, digestAnswers, firstComparedPod, forgetAllBut, observeRead, planMinute, PROBE_EVERY_MINUTES, type PodAnswerSeen } from './visibility.js';

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
/**
 * The ticks go a second early and wait for the change (lib/sync/fresh-gate.ts) when it comes at most this long into
 * that second: they then read it within a poll of it, for at most this much more of the invocation's time; later
 * in the second, a tick on the next second reads it within less than 1 − this.
 */
export const GATE_MAX_WAIT_MS = 300;
/** Gated ticks in a row that find the answers changed at once: the change may have moved earlier, so it is learned again. */
export const GATE_AT_ONCE_LIMIT = 3;

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
export function learnTickPhase(prev: TickPhase | undefined, seen: readonly PodAnswerSeen[], tickMs: number, periodSeconds: number, nowMs: number, gated?: GateResult): TickPhase | undefined {
  if (seen.length === 0) return undefined;
  const arc = learnPhase(seen.map((a) => a.atMs).filter((t) => nowMs - t >= MIN_SAMPLE_AGE_MS), periodSeconds, nowMs);
  const fresh = prev && nowMs - prev.atMs <= PHASE_TTL_MS && prev.visibility?.bins.length === periodSeconds ? prev : undefined;
  const before = fresh?.visibility;
  const settled = fresh?.offsetSeconds;
  const answers = digestAnswers(seen, nowMs);
  // Read late: kept at its own time, a fraction of a second off the ticks' seconds, so neither it nor the next read is compared.
  let v = gated ? observeGated(before, gated, fresh?.gate, answers, tickMs, periodSeconds) : observeRead(before, answers, nowMs - tickMs > LATE_READ_MS ? nowMs + 0.5 : tickMs, periodSeconds);
  const gate = learnGate(fresh?.gate, gated, seen, answers, tickMs);
  let choice = chooseOffset(v);
  // The window moved or came undone: what this read probed is kept, the rest learned again.
  if (settled !== undefined && choice.offsetSeconds !== settled) {
    v = forgetAllBut(v, before);
    choice = chooseOffset(v);
  }
  // Nothing to compare (every answer stamped at the query: an adapter's time, not a sample's): even ticks.
  if (Object.keys(answers).length === 0 && choice.offsetSeconds === undefined) return { spreadMs: arc?.spreadMs ?? 0, samples: seen.length, atMs: nowMs, visibility: v };
  const gating = gate && choice.offsetSeconds !== undefined && choice.offsetSeconds === settled && choice.windowSeconds === 1 && gate.storeMs !== undefined && gate.storeMs <= GATE_MAX_WAIT_MS;
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
    plan: { minute: minute + 1, from: base, offsets: planMinute(choice, base, ticks, minute + 1, periodSeconds, gating) },
    ...(gate ? { gate } : {}),
  };
}

/**
 * A gated tick's evidence: its first read, at the tick, against the last tick's (unless it was read after the change
 * was last seen, and had changed: delivered late, it says nothing of the second); its last read stands for the next second's.
 */
function observeGated(before: Visibility | undefined, gated: GateResult, gate: TickGate | undefined, answers: Record<string, string>, tickMs: number, periodSeconds: number): Visibility {
  const v = readAfterChange(gated, gate, tickMs) && before ? before : observeRead(before, digestAnswers(gated.first, gated.firstAtMs), tickMs, periodSeconds);
  // Timed out: the answers read after the wait are kept at a time off the seconds, compared with nothing.
  const lastMs = gated.openedAtMs === undefined ? tickMs + 1000 + GATE_MARGIN_MS + 0.5 : tickMs + 1000;
  return { ...v, last: { tickMs: lastMs, answers } };
}

/** Which namespace the gate reads (the compared pods' first), and when in the second the answers changed. */
function learnGate(prev: TickGate | undefined, gated: GateResult | undefined, seen: readonly PodAnswerSeen[], answers: Record<string, string>, tickMs: number): TickGate | undefined {
  const pod = firstComparedPod(seen, answers);
  const namespace = pod?.slice(0, pod.indexOf('/'));
  if (!namespace) return undefined;
  if (!gated) return { ...prev, namespace };
  // Timed out, or nothing to compare: the ticks go back to the settled second (its probes learn where the change went).
  if (gated.openedAtMs === undefined) return { namespace };
  if (gated.unchangedAtMs !== undefined) return { namespace, storeMs: Math.max(0, Math.round(gated.unchangedAtMs - tickMs)) };
  // Changed before a read that came before the change was last seen: it moved earlier (the evidence says where).
  if (!readAfterChange(gated, prev, tickMs)) return { namespace };
  const atOnce = (prev?.atOnce ?? 0) + 1;
  if (atOnce >= GATE_AT_ONCE_LIMIT) return { namespace };
  return { namespace, storeMs: prev!.storeMs, atOnce };
}

/** The gate's first read had changed, and came no earlier in the second than the change was last seen. */
function readAfterChange(gated: GateResult, gate: TickGate | undefined, tickMs: number): boolean {
  return gated.openedAtMs === gated.firstAtMs && gate?.storeMs !== undefined && gated.firstAtMs - tickMs >= gate.storeMs;
}

/**
 * A tick's expected wait for its pod metrics to change (lib/sync/fresh-gate.ts), in Lambda time, with metrics-server's
 * store at a random point of its second: within GATE_MAX_WAIT_MS of its start, every tick waits for it (and the poll
 * that sees it); later, one tick in PROBE_EVERY_MINUTES minutes, the probe a second early, waits for it.
 */
export function expectedGateWaitMs(periodSeconds: number): number {
  if (60 % periodSeconds !== 0) return 0;
  const gatedShare = GATE_MAX_WAIT_MS / 1000;
  const gated = GATE_MAX_WAIT_MS / 2 + POLL_MS;
  const probe = (1000 + GATE_MAX_WAIT_MS) / 2 + POLL_MS;
  return gatedShare * gated + ((1 - gatedShare) * probe) / ((60 / periodSeconds) * PROBE_EVERY_MINUTES);
}

/** The gate of a tick one second before the settled offset, from its shard's phase; undefined: the tick reads at once. */
export function gateOf(phase: TickPhase | undefined, tickMs: number, periodSeconds: number, nowMs: number): GateRequest | undefined {
  if (!phase?.gate || phase.offsetSeconds === undefined || nowMs - phase.atMs > PHASE_TTL_MS) return undefined;
  const previous = phase.visibility?.last?.answers;
  if (!previous || Object.keys(previous).length === 0 || phase.visibility?.bins.length !== periodSeconds) return undefined;
  // Delivered late, the tick reads at once: the gate is for a tick on its second.
  if (nowMs - tickMs >= 1000) return undefined;
  const second = Math.round(tickMs / 1000) % periodSeconds;
  if (second !== (phase.offsetSeconds + periodSeconds - 1) % periodSeconds) return undefined;
  return { namespace: phase.gate.namespace, previous, tickMs };
}

/** Where the next minute's sweep continues from: the current minute's last tick; a new sweep starts above the latest sample. */
function sweepBase(prev: TickPhase | undefined, minute: number, arc: TickPhase | undefined, seen: readonly PodAnswerSeen[], periodSeconds: number): number {
  // Planned earlier this minute for the next: the same base again.
  if (prev?.plan?.minute === minute + 1) return prev.plan.from;
  const current = prev?.plan?.minute === minute ? prev.plan.offsets.at(-1) : undefined;
  if (current !== undefined) return current;
  // Four seconds above the samples' end (timestamps are whole seconds, floored; metrics-server stores its loop once its
  // slowest node has answered, a second or two after the latest sample): the sweep's first probes find a clear second after the window.
  if (arc?.offsetSeconds !== undefined) return (arc.offsetSeconds + 5) % periodSeconds;
  const latest = seen.reduce((m, a) => (Number.isFinite(a.atMs) ? Math.max(m, a.atMs) : m), 0);
  return (Math.floor(latest / 1000) + 6) % periodSeconds;
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
  const { offsetSeconds, spreadMs, samples, atMs, windowSeconds, visibility, plan, gate } = p as Record<string, unknown>;
  const count = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
  if (!(typeof spreadMs === 'number' && spreadMs >= 0)) return undefined;
  if (!count(samples) || typeof atMs !== 'number' || !Number.isFinite(atMs)) return undefined;
  if (offsetSeconds !== undefined && !(count(offsetSeconds) && (offsetSeconds as number) < 900)) return undefined;
  // The learning's parts that do not read back are dropped: the shard learns again, its other fields kept.
  const seen = decodeVisibility(visibility);
  const minute = decodePlan(plan);
  const tickGate = decodeGate(gate);
  return {
    ...(offsetSeconds === undefined ? {} : { offsetSeconds: offsetSeconds as number }),
    spreadMs: spreadMs as number,
    samples: samples as number,
    atMs,
    ...(count(windowSeconds) ? { windowSeconds: windowSeconds as number } : {}),
    ...(seen ? { visibility: seen } : {}),
    ...(minute ? { plan: minute } : {}),
    ...(tickGate ? { gate: tickGate } : {}),
  };
}

function decodeGate(v: unknown): TickGate | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { namespace, storeMs, atOnce } = v as Record<string, unknown>;
  // A namespace's name (a DNS label): it goes into the gate's request path.
  if (typeof namespace !== 'string' || !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace)) return undefined;
  const ms = typeof storeMs === 'number' && Number.isInteger(storeMs) && storeMs >= 0 && storeMs < 2_000 ? { storeMs } : {};
  const n = typeof atOnce === 'number' && Number.isInteger(atOnce) && atOnce > 0 && atOnce < GATE_AT_ONCE_LIMIT ? { atOnce } : {};
  return { namespace, ...ms, ...n };
}

function decodePlan(v: unknown): TickPhase['plan'] {
  if (typeof v !== 'object' || v === null) return undefined;
  const { minute, from, offsets } = v as Record<string, unknown>;
  const second = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x < 900;
  if (!(typeof minute === 'number' && Number.isInteger(minute)) || !second(from) || !Array.isArray(offsets) || offsets.length > 60 || !offsets.every(second)) return undefined;
  return { minute, from: from as number, offsets: offsets as number[] };
}
