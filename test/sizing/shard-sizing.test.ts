// Shard sizing (lib/sizing/shard-sizing.cjs): the one function the dispatcher, `shpa cost` and
// the deploy's checks call. Table-driven, on a fixed cost model so the cases do not move when
// the measured figures are refreshed.
import { describe, expect, it } from 'vitest';
import { allChangeCycleMs, evenBuckets, largestShard, POLICY, shardCapacity, shardCountFor, vcpuOf, type CycleCost } from '../../lib/sizing/shard-sizing.cjs';
import { chooseShards } from '../../lib/sync/dispatch.js';
import type { ClusterIndex } from '../../lib/sync/ports/autoscaler-store.js';

// 1,769 MB is one vCPU: a cycle of n costs 500 + 10n ms there, 500 + (5 / 0.2894 + 5)n at 512 MB.
const COST: CycleCost = { source: 'test', fixedMs: 500, cpuMsPerAutoscaler: 5, waitMsPerAutoscaler: 5 };
const at = (memoryMb: number, periodSeconds = 15) => ({ memoryMb, periodSeconds, measured: COST });

describe("capacity: the autoscalers whose all-change cycle fits the policy's share of half the period", () => {
  const budget = (periodSeconds: number) => POLICY.halfPeriodShare * periodSeconds * 500 - COST.fixedMs;
  it.each([
    [1769, 15, Math.floor(budget(15) / 10)],
    [512, 15, Math.floor(budget(15) / (5 / (512 / 1769) + 5))],
    [1024, 15, Math.floor(budget(15) / (5 / (1024 / 1769) + 5))],
    [512, 60, Math.floor(budget(60) / (5 / (512 / 1769) + 5))],
  ])('%i MB, %i s: %i', (memoryMb, periodSeconds, expected) => {
    expect(shardCapacity(memoryMb, periodSeconds, COST)).toBe(expected);
    // the cycle of that many fits; one more does not
    const limit = POLICY.halfPeriodShare * periodSeconds * 500;
    expect(allChangeCycleMs(expected, memoryMb, COST)).toBeLessThanOrEqual(limit);
    expect(allChangeCycleMs(expected + 1, memoryMb, COST)).toBeGreaterThan(limit);
  });

  it('the CPU share is the memory over 1,769 MB, at most one vCPU (the worker runs one thread)', () => {
    expect([128, 1769, 3538].map(vcpuOf)).toEqual([128 / 1769, 1, 1]);
  });
});

describe('shard count', () => {
  const cap = shardCapacity(1769, 15, COST);
  const buckets = (...counts: number[]) => [...counts, ...new Array(16 - counts.length).fill(0)];
  it.each([
    ['an empty cluster', buckets(), {}, 1],
    ['a cluster that fits one shard', evenBuckets(cap), {}, 1],
    ['one more than a shard', evenBuckets(cap + 1), {}, 2],
    ['the operator\'s floor', evenBuckets(10), { floor: 4 }, 4],
    ['buckets 0 and 8 together are too big for 8 shards: 16', buckets(400, 0, 0, 0, 0, 0, 0, 0, 400), {}, 16],
    ['kept while it still needs it', evenBuckets(2 * cap), { current: 4 }, 4],
    ['not fewer until the smaller count would be at most 70 % full', evenBuckets(Math.floor(0.75 * cap)), { current: 2 }, 2],
    ['fewer once there is room', evenBuckets(Math.floor(0.6 * cap)), { current: 4 }, 1],
  ] as const)('%s', (_, counts, o, expected) => {
    expect(shardCountFor(counts, { ...at(1769), ...o }).shards).toBe(expected);
  });

  it('cuts a bucket too big for one shard by autoscaler name (32 shards and more); says when even 256 leave one over capacity', () => {
    expect(shardCountFor(buckets(cap + 1), at(1769))).toMatchObject({ shards: 32, capacity: cap, over: false });
    expect(shardCountFor(buckets(4 * cap), at(1769)).shards).toBe(128);
    expect(shardCountFor(buckets(20 * cap), at(1769))).toMatchObject({ shards: 256, over: true });
    // Past 16, a part holds its share of the bucket and a margin for the hash's unevenness.
    expect(largestShard(buckets(2_000), 128)).toBe(250 + Math.ceil(3 * Math.sqrt((2_000 * 7) / 64)));
  });

  it('counts a shard\'s load as the buckets it owns (b mod K)', () => {
    expect(largestShard(buckets(1, 2, 3, 4), 2)).toBe(6);
    expect(largestShard(buckets(1, 2, 3, 4), 1)).toBe(10);
    expect(evenBuckets(35)).toEqual([3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
  });
});

describe('the dispatcher\'s choice for the coming minute', () => {
  const minute = Date.parse('2026-03-01T12:01:00Z');
  const clusters = [
    { name: 'prod', region: 'eu-west-1', shards: 1 },
    { name: 'batch', region: 'eu-west-1', shards: 2 },
  ];
  it('records a change from the minute\'s first tick, with the count before it; an unchanged one only marks the minute planned', () => {
    const big: ClusterIndex = { buckets: [0, 1], counts: evenBuckets(5_000) };
    const small: ClusterIndex = { buckets: [0], counts: evenBuckets(10), shards: { k: 2, since: minute - 60_000 } };
    const choices = chooseShards(clusters, new Map([['prod', big], ['batch', small]]), minute, { memoryMb: 512, periodSeconds: 15 });
    expect(choices.map((c) => [c.cluster, c.shards, c.changed, c.record])).toEqual([
      ['prod', choices[0].shards, true, { k: choices[0].shards, since: minute, previous: 1, planned: minute }],
      ['batch', 2, undefined, { k: 2, since: minute - 60_000, planned: minute }],
    ]);
    expect(choices[0].shards).toBeGreaterThan(1);
  });

  it('a duplicate invocation for a minute already planned keeps its count, whatever the counts say since', () => {
    const grown: ClusterIndex = { buckets: [0, 1], counts: evenBuckets(5_000), shards: { k: 1, since: minute - 60_000, planned: minute } };
    const [prod] = chooseShards(clusters, new Map([['prod', grown]]), minute, { memoryMb: 512, periodSeconds: 15 });
    expect(prod).toMatchObject({ shards: 1 });
    expect(prod.record).toBeUndefined();
    // The next minute is planned afresh.
    expect(chooseShards(clusters, new Map([['prod', grown]]), minute + 60_000, { memoryMb: 512, periodSeconds: 15 })[0].shards).toBeGreaterThan(1);
  });

  it('keeps every cluster within the shard budget (the queue\'s concurrency): the largest counts give way, never below a floor', () => {
    const big: ClusterIndex = { buckets: [0], counts: evenBuckets(20_000) };
    const choices = chooseShards(clusters, new Map([['prod', big], ['batch', big]]), minute, { memoryMb: 512, periodSeconds: 15, budget: 10 });
    expect(choices.map((c) => c.shards)).toEqual([4, 4]);
    expect(choices.map((c) => c.capped)).toEqual([true, true]);
    expect(choices[0].sizing.shards).toBe(128);
    expect(chooseShards(clusters, new Map([['prod', big]]), minute, { memoryMb: 512, periodSeconds: 15, budget: 3 }).map((c) => c.shards)).toEqual([1, 2]);
  });
});
