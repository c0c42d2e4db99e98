// The dispatcher's plan: for every shard, one tick message per tick of the coming minute,
// delayed to its exact second (SQS DelaySeconds), so that each shard's cycles are one sync
// period apart. Pure: the handler sends what this returns.
import type { TickMessage } from './messages.js';
import type { ClusterConfig } from './ports.js';
import { shardId, shardsOf } from './shards.js';

/** A scheduled event older than this is not acted on: its ticks are past (a throttled, retried event). */
export const MAX_SCHEDULE_AGE_MS = 60_000;

export interface TickPlan {
  messages: { body: string; delaySeconds: number; groupId: string }[];
  /** Ticks of this minute too late to send (more than half a period ago). */
  late: number;
  /** The whole event was too old. */
  tooOld: boolean;
}

/**
 * scheduledAt: the schedule's own time for this invocation (EventBridge's `time`), the minute
 * the ticks belong to. A period that divides 60 gives 60/P ticks a minute; a multiple of 60
 * gives one tick on the minutes that are multiples of it.
 */
export function planTicks(clusters: ClusterConfig[], scheduledAt: Date, now: Date, periodSeconds: number): TickPlan {
  const plan: TickPlan = { messages: [], late: 0, tooOld: false };
  if (now.getTime() - scheduledAt.getTime() > MAX_SCHEDULE_AGE_MS) return { ...plan, tooOld: true };
  const minute = Math.floor(scheduledAt.getTime() / 60_000) * 60_000;
  const periodMs = periodSeconds * 1000;
  const ticks: number[] = [];
  if (periodSeconds <= 60) for (let t = minute; t < minute + 60_000; t += periodMs) ticks.push(t);
  else if (minute % periodMs === 0) ticks.push(minute);
  for (const tick of ticks) {
    const delayMs = tick - now.getTime();
    // A tick already past by half a period would run too close to the next one.
    if (delayMs < -periodMs / 2) {
      plan.late += clusters.reduce((n, c) => n + c.shards, 0);
      continue;
    }
    const delaySeconds = Math.min(900, Math.max(0, Math.round(delayMs / 1000)));
    for (const c of clusters) {
      for (const s of shardsOf(c.name, c.shards)) {
        const msg: TickMessage = { kind: 'tick', shard: shardId(s), tick: new Date(tick).toISOString().replace(/\.\d{3}Z$/, 'Z'), periodSeconds };
        plan.messages.push({ body: JSON.stringify(msg), delaySeconds, groupId: c.name });
      }
    }
  }
  return plan;
}
