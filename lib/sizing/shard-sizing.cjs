// How many shards a cluster is cut into, from how many autoscalers each of its namespace
// buckets holds and what the worst cycle costs: the one where every autoscaler of a shard
// changes at once (a fleet-wide load step), which must fit in 45 % of a sync period at the
// worker's CPU share on a loaded machine. One function for the dispatcher (every minute, from the counts the
// workers record), `shpa cost` and the deploy's checks (from an expected count), so the three
// agree. CommonJS with its types beside it (shard-sizing.d.cts): the deploy's parameter checks
// (infra/*.cjs) run under plain Node at package time.
'use strict';

/** A cluster's namespaces fall into this many buckets (FNV-1a of the name); a bucket is one DynamoDB partition. */
const NAMESPACE_BUCKETS = 16;
/**
 * K: a cluster is cut into this many shards; shard i owns the buckets b with b mod K = i. Past 16, a
 * bucket is cut by autoscaler name: shard i owns bucket i mod 16, the names of part ⌊i / 16⌋ of K / 16.
 */
const SHARD_COUNTS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/**
 * The all-change cycle of one shard, measured by `npm run bench -- fleet` (bench/fleet.bench.ts) with the
 * worker held to Lambda's CPU share, against local servers on the same 2 cores: its wall time fitted as
 * fixedMs + n × (cpuMsPerAutoscaler / vCPU + waitMsPerAutoscaler), a part per autoscaler that shrinks with
 * the CPU share and a part that does not (the servers' answers). On a machine shared with other work, as
 * Lambda's hosts are: all-change walls of 7.5–8.5 s at 263 autoscalers at 512 MB (29.7 ms an autoscaler
 * past the fixed part, 1.87 times the 15.9 of an idle machine), both parts scaled alike. Sizing on the
 * loaded figure is the margin: on an idle machine the same shard takes about half of it.
 */
const MEASURED = {
  source: 'bench/fleet.bench.ts, 2026-11-26/28, 2-core x86_64, Node 20, a machine shared with other work: all-change cycles at 512 MB, idle fit ×1.87',
  fixedMs: 700,
  cpuMsPerAutoscaler: 3.9,
  waitMsPerAutoscaler: 16.1,
};

const POLICY = {
  /** Lambda gives one vCPU at 1,769 MB, in proportion below; the worker runs on one thread. */
  mbPerVcpu: 1769,
  /**
   * A shard's all-change cycle on a loaded machine may fill this share of half the period (the cycle's deadline):
   * 45 % of the period, under the 60 % it must stay below. The rest is margin for noise, a slow API server.
   */
  halfPeriodShare: 0.9,
  /** Fewer shards only when the larger ones would be this full at most: the count does not flap around a threshold. */
  shrinkBelow: 0.7,
};

/** The worker's CPU share at its memory (vCPU). */
function vcpuOf(memoryMb) {
  return Math.min(1, memoryMb / POLICY.mbPerVcpu);
}

/** The all-change cycle's wall time (ms) of a shard of n autoscalers. */
function allChangeCycleMs(n, memoryMb, measured = MEASURED) {
  return measured.fixedMs + n * (measured.cpuMsPerAutoscaler / vcpuOf(memoryMb) + measured.waitMsPerAutoscaler);
}

/** Autoscalers one shard holds with its all-change cycle inside its share of half the period. */
function shardCapacity(memoryMb, periodSeconds, measured = MEASURED) {
  const budget = POLICY.halfPeriodShare * (periodSeconds * 1000) / 2 - measured.fixedMs;
  const per = measured.cpuMsPerAutoscaler / vcpuOf(memoryMb) + measured.waitMsPerAutoscaler;
  return Math.max(1, Math.floor(budget / per));
}

/**
 * The largest shard's autoscalers when the buckets are cut into k shards. Past 16 shards a bucket's
 * names split by their hash: a share of it and three standard deviations of a binomial draw.
 */
function largestShard(bucketCounts, k) {
  if (k > NAMESPACE_BUCKETS) {
    const parts = k / NAMESPACE_BUCKETS;
    return Math.max(0, ...bucketCounts.map((n) => Math.min(n, Math.ceil(n / parts + 3 * Math.sqrt((n * (parts - 1)) / parts ** 2)))));
  }
  const loads = new Array(k).fill(0);
  bucketCounts.forEach((n, b) => (loads[b % k] += n));
  return Math.max(...loads);
}

/**
 * The shard count for a cluster: the fewest shards (at least `floor`) whose largest fits the
 * capacity; fewer than `current` only when they would be at most `shrinkBelow` full. `over` is
 * true when even 256 shards leave one over capacity (more memory is the remedy; meanwhile what a
 * deadline leaves goes first at the next tick).
 */
function shardCountFor(bucketCounts, o) {
  const capacity = shardCapacity(o.memoryMb, o.periodSeconds, o.measured);
  const floor = o.floor ?? 1;
  const fits = (k, share) => largestShard(bucketCounts, k) <= share * capacity;
  let shards = SHARD_COUNTS.find((k) => k >= floor && fits(k, 1)) ?? SHARD_COUNTS[SHARD_COUNTS.length - 1];
  if (o.current !== undefined && o.current > shards && SHARD_COUNTS.includes(o.current)) {
    // Shrink only as far as the smaller count leaves room.
    shards = SHARD_COUNTS.find((k) => k >= Math.max(floor, shards) && (k >= o.current || fits(k, POLICY.shrinkBelow))) ?? o.current;
  }
  return { shards, capacity, largest: largestShard(bucketCounts, shards), over: largestShard(bucketCounts, shards) > capacity };
}

/** Shards that tick at count k: past 16, the parts but the first of an empty bucket have nothing to do (the first sees the whole bucket and counts it). */
function tickingShards(bucketCounts, k) {
  if (k <= NAMESPACE_BUCKETS) return k;
  return NAMESPACE_BUCKETS + (k / NAMESPACE_BUCKETS - 1) * bucketCounts.filter((n) => n > 0).length;
}

/** A cluster's autoscalers spread evenly over its buckets: what an estimate assumes. */
function evenBuckets(autoscalers) {
  return Array.from({ length: NAMESPACE_BUCKETS }, (_, b) => Math.floor(autoscalers / NAMESPACE_BUCKETS) + (b < autoscalers % NAMESPACE_BUCKETS ? 1 : 0));
}

module.exports = { NAMESPACE_BUCKETS, SHARD_COUNTS, MEASURED, POLICY, vcpuOf, allChangeCycleMs, shardCapacity, largestShard, shardCountFor, tickingShards, evenBuckets };
