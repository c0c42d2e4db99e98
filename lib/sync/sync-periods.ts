// spec.syncPeriodSeconds (KEP-6003's proposed field, ours now): a shard ticks at the shortest
// period its autoscalers ask for, and a tick evaluates an autoscaler only when it crosses a
// multiple of the autoscaler's own period (the deploy's for one that sets none). Behavior rules, stabilization windows and history
// are in seconds, not ticks, so they stay exact whatever the period.
import { MAX_SYNC_PERIOD_SECONDS, MIN_SYNC_PERIOD_SECONDS } from '#hpa/api';

/** The periods a shard can tick at: divisors of 60 from 5 s, so that ticks fall on the same seconds every minute. */
export const TICK_PERIODS = [5, 6, 10, 12, 15, 20, 30, 60];

/** An autoscaler's own period from its (not yet validated) spec; undefined when it sets none or an invalid one. */
export function ownPeriod(spec: { syncPeriodSeconds?: unknown } | undefined): number | undefined {
  const p = spec?.syncPeriodSeconds;
  return typeof p === 'number' && Number.isInteger(p) && p >= MIN_SYNC_PERIOD_SECONDS && p <= MAX_SYNC_PERIOD_SECONDS ? p : undefined;
}

/** The tick period a shard needs: the largest tick period not above its fastest autoscaler's, when faster than the deploy's; else undefined. */
export function shardTickPeriod(periods: readonly (number | undefined)[], deploySeconds: number): number | undefined {
  const fastest = Math.min(...periods.filter((p): p is number => p !== undefined));
  if (!(fastest < deploySeconds)) return undefined;
  return [...TICK_PERIODS].reverse().find((t) => t <= fastest && t < deploySeconds);
}

/** Whether the tick at `tickMs` (of a shard ticking every `tickSeconds`) evaluates an autoscaler of period `ownSeconds` (undefined: every tick). */
export function isDue(tickMs: number, tickSeconds: number, ownSeconds: number | undefined): boolean {
  const tickPeriodMs = tickSeconds * 1000;
  if (ownSeconds === undefined || ownSeconds * 1000 <= tickPeriodMs) return true;
  const ownMs = ownSeconds * 1000;
  // On the period's grid (a shard's phase shifts all its ticks alike): due when this tick crosses a multiple of its own period.
  const grid = tickMs - (((tickMs % tickPeriodMs) + tickPeriodMs) % tickPeriodMs);
  return Math.floor(grid / ownMs) !== Math.floor((grid - tickPeriodMs) / ownMs);
}
