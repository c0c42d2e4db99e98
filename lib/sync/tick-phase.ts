// When a shard's ticks fall within its sync period: just after metrics-server's answer changes.
// A PodMetrics answer becomes visible at the scrape of its node, which follows every sample it
// carries; kubelets stamp each container from cAdvisor's housekeeping loop (10 s + jitter,
// kubernetes#55863) and metrics-server keeps the earliest (metrics-server#119), so a pod's
// timestamp lies up to ~10 s before the scrape. The samples of a scrape loop thus pile up on an
// arc that ends at the scrape: its end (the latest sample) is the phase at which new answers
// become visible, and a tick placed just after it reads each as soon as it exists (upstream's
// sync runs at a phase unrelated to it). Only when no stretch of the period is clearly free of
// samples (the visibility phase itself is scattered) does the shard stay on the even ticks.
import type { TickPhase } from './ports/tick-phase.js';

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
  const { offsetSeconds, spreadMs, samples, atMs } = p as Record<string, unknown>;
  const count = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
  if (!(typeof spreadMs === 'number' && spreadMs >= 0)) return undefined;
  if (!count(samples) || typeof atMs !== 'number' || !Number.isFinite(atMs)) return undefined;
  if (offsetSeconds !== undefined && !(count(offsetSeconds) && (offsetSeconds as number) < 900)) return undefined;
  return { ...(offsetSeconds === undefined ? {} : { offsetSeconds: offsetSeconds as number }), spreadMs: spreadMs as number, samples: samples as number, atMs };
}
