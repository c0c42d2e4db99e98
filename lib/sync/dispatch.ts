// The dispatcher's plan: for every shard, one tick message per tick of the coming minute,
// delayed to its exact second (SQS DelaySeconds), so that each shard's cycles are one sync
// period apart. Pure: the handler sends what this returns.
import { shardCountFor, tickingShards, type Sizing } from '../sizing/shard-sizing.cjs';
import type { TickMessage } from './messages.js';
import type { ClusterConfig } from './ports/cluster-access.js';
import type { ClusterIndex, ShardCountRecord } from './ports/autoscaler-store.js';
import type { WorkMessageEntry } from './ports/work-queue.js';
import { bucketsOf, partOf, shardCountAt, shardId, shardsOf } from './shards.js';

/** A scheduled event older than this is not acted on: its ticks are past (a throttled, retried event). */
export const MAX_SCHEDULE_AGE_MS = 60_000;

export interface TickPlan {
  messages: (WorkMessageEntry & { groupId: string })[];
  /** Ticks of this minute too late to send (more than half a period ago). */
  late: number;
  /** The whole event was too old. */
  tooOld: boolean;
}

/**
 * scheduledAt: the schedule's own time for this invocation (EventBridge's `time`), the minute
 * the ticks belong to. A period that divides 60 gives 60/P ticks a minute; a multiple of 60
 * gives one tick on the minutes that are multiples of it. timing: by shard, a faster period its
 * autoscalers ask for (spec.syncPeriodSeconds) and the seconds after each multiple of the period
 * at which it ticks (its data's phase, lib/sync/tick-phase.ts); absent, the deploy's period at 0.
 */
export function planTicks(
  clusters: ClusterConfig[],
  scheduledAt: Date,
  now: Date,
  deployPeriodSeconds: number,
  timing?: ReadonlyMap<string, ShardTiming>,
  indexes?: ReadonlyMap<string, ClusterIndex>,
): TickPlan {
  const plan: TickPlan = { messages: [], late: 0, tooOld: false };
  if (now.getTime() - scheduledAt.getTime() > MAX_SCHEDULE_AGE_MS) return { ...plan, tooOld: true };
  const minute = Math.floor(scheduledAt.getTime() / 60_000) * 60_000;
  for (const c of clusters) {
    for (const s of tickingShardsOf(c, indexes?.get(c.name))) {
      const shard = shardId(s);
      const { periodSeconds = deployPeriodSeconds, offsetSeconds = 0, offsetsSeconds } = timing?.get(shard) ?? {};
      const periodMs = periodSeconds * 1000;
      const ticks: number[] = [];
      if (periodSeconds <= 60) for (let t = minute; t < minute + 60_000; t += periodMs) ticks.push(t);
      else if (minute % periodMs === 0) ticks.push(minute);
      for (const [i, t] of ticks.entries()) {
        const tick = t + ((offsetsSeconds?.[i] ?? offsetSeconds) % periodSeconds) * 1000;
        const delayMs = tick - now.getTime();
        // A tick already past by half a period would run too close to the next one.
        if (delayMs < -periodMs / 2) {
          plan.late++;
          continue;
        }
        const msg: TickMessage = { kind: 'tick', shard, tick: new Date(tick).toISOString().replace(/\.\d{3}Z$/, 'Z'), periodSeconds };
        plan.messages.push({ kind: 'tick', body: JSON.stringify(msg), delaySeconds: Math.min(900, Math.max(0, Math.round(delayMs / 1000))), groupId: c.name });
      }
    }
  }
  return plan;
}

/** The shards of a cluster that tick: past 16, not the parts but the first of a bucket that holds no autoscaler (lib/sizing tickingShards). */
export function tickingShardsOf(c: ClusterConfig, index: ClusterIndex | undefined): ReturnType<typeof shardsOf> {
  return shardsOf(c.name, c.shards).filter((s) => partOf(s).part === 0 || (index?.counts[bucketsOf(s)[0]] ?? 1) > 0);
}

/** When a shard ticks: its period (default the deploy's) and its offset within it (default 0). */
export interface ShardTiming {
  periodSeconds?: number;
  offsetSeconds?: number;
  /** One offset per tick of the minute (the shard learning or probing when its data changes); absent: offsetSeconds for each. */
  offsetsSeconds?: number[];
}

/** One cluster's shard count for the coming minute. */
export interface ShardChoice {
  cluster: string;
  /** What the ticks of the minute carry. */
  shards: number;
  /** The minute's count to record in the cluster's index before the ticks are sent; absent when the minute was already planned. */
  record?: ShardCountRecord;
  /** The count changed this minute. */
  changed?: boolean;
  sizing: Sizing;
  /** Fewer shards than sizing asked for: the shard budget (the queue's concurrency) was spent. */
  capped?: boolean;
}

/**
 * The shard count of each cluster for the minute starting at `minuteMs`, from the autoscalers its
 * buckets held at their last ticks (lib/sizing), never below the deploy's `shards`. A change
 * applies from the minute's first tick; the ticks of the minute before keep the count they had.
 * A minute already planned (a duplicate invocation) keeps its count: its ticks may already run.
 */
export function chooseShards(
  clusters: ClusterConfig[],
  indexes: ReadonlyMap<string, ClusterIndex>,
  minuteMs: number,
  o: { memoryMb: number; periodSeconds: number; budget?: number },
): ShardChoice[] {
  const currents: number[] = [];
  const choices = clusters.map((c) => {
    const index = indexes.get(c.name) ?? { buckets: [], counts: [] };
    const current = shardCountAt(index, c.shards, minuteMs);
    currents.push(current);
    if ((index.shards?.planned ?? -Infinity) >= minuteMs) {
      const planned: ShardChoice & { planned?: boolean; index?: ClusterIndex } = { cluster: c.name, shards: current, sizing: shardCountFor(index.counts, { memoryMb: o.memoryMb, periodSeconds: o.periodSeconds, floor: current, current }), planned: true, index };
      return planned;
    }
    const sizing = shardCountFor(index.counts, { memoryMb: o.memoryMb, periodSeconds: o.periodSeconds, floor: c.shards, current });
    const choice: ShardChoice & { planned?: boolean; index?: ClusterIndex } = { cluster: c.name, shards: sizing.shards, sizing, index };
    return choice;
  });
  // More shards than can tick at once would queue behind each other and arrive late: the largest counts give way, never below a floor.
  const ticking = (c: (typeof choices)[number]) => tickingShards(c.index?.counts ?? [], c.shards);
  for (let total = choices.reduce((n, c) => n + ticking(c), 0); o.budget !== undefined && total > o.budget; ) {
    const i = choices.reduce((best, c, j) => (!c.planned && c.shards > clusters[j].shards && (best < 0 || ticking(c) > ticking(choices[best])) ? j : best), -1);
    if (i < 0) break;
    total -= ticking(choices[i]);
    choices[i].shards /= 2;
    choices[i].capped = true;
    total += ticking(choices[i]);
  }
  return choices.map(({ planned, index, ...c }, i) => {
    if (planned) return c;
    if (c.shards !== currents[i]) return { ...c, changed: true, record: { k: c.shards, since: minuteMs, previous: currents[i], planned: minuteMs } };
    return { ...c, record: index?.shards ? { ...index.shards, planned: minuteMs } : { k: c.shards, since: minuteMs, planned: minuteMs } };
  });
}
