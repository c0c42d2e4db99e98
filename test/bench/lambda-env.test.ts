// The benchmarks' Lambda environments (bench/support/lambda-env.ts): a host process in a CPU
// cgroup at Lambda's share, running the real worker on the local servers. No timing here:
// performance is the benchmarks' business; this checks the harness is wired and held.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketPk } from '../../lib/store/items.js';
import { bucketOf } from '../../lib/sync/shards.js';
import { cpuShare, startLambdaHost, type LambdaHost } from '../../bench/support/lambda-env.js';
import { startLambdaFleet, type LambdaFleet } from '../../bench/support/lambda-fleet.js';
import { namespaceName } from '../../bench/support/servers.js';

let fleet: LambdaFleet;
let host: LambdaHost;

beforeAll(async () => {
  fleet = await startLambdaFleet({ clusters: 1, namespacesPerCluster: 1, workloadsPerNamespace: 4, podsPerWorkload: 1, shardsPerCluster: 1, eks: false });
  host = await startLambdaHost({ memoryMb: 512 });
});

afterAll(async () => {
  await host?.stop();
  await fleet?.stop();
});

describe('a Lambda environment of the benchmarks', () => {
  it('sits in a cgroup whose CPU quota is the share for 512 MB, or says why not', () => {
    if (!host.cgroup || host.note) {
      console.log(`lambda-env.test: no CPU cgroup on this machine (${host.note}); the host runs unthrottled and its CPU is read at the share`);
      expect(host.note).toBeTruthy();
      return;
    }
    const { check, quotaUs, periodUs } = host.cgroup;
    expect(check.inCgroup).toBe(true);
    expect(check.periodUs).toBe(100_000);
    expect(check.quotaUs).toBe(Math.round(cpuShare(512) * 100_000));
    expect([quotaUs, periodUs]).toEqual([check.quotaUs, check.periodUs]);
  });

  it('runs one real tick of a tiny shard and returns its cycle line, each environment with its own adapters', async () => {
    const [a, b] = [await host.createEnvironment(fleet.environmentSpec('a')), await host.createEnvironment(fleet.environmentSpec('b'))];
    const shard = fleet.shards[0];
    await fleet.setTime(fleet.start);
    const first = await fleet.runCycle(a, shard, fleet.start, { measure: true });
    expect(first.invocation.error).toBeUndefined();
    expect(first.invocation.cold).toBe(true);
    expect(first.cycle?.counts.autoscalers).toBe(4);
    expect(first.lost).toBe(0);
    // The namespace's four Deployments in one list, as the shipped worker reads them.
    expect(first.counts?.k8s['list apps/deployments']).toBe(1);
    expect(first.counts?.k8s['get apps/deployments/scale']).toBeUndefined();
    expect(first.invocation.cpuMs).toBeGreaterThan(0);
    if (host.cgroup && !host.note) expect(first.invocation.throttling).toBeDefined();
    else expect(first.invocation.cpuAtShareMs).toBeCloseTo(first.invocation.cpuMs / host.share);

    // The first cycle stored each autoscaler's state in its namespace's partition: the meter saw the key.
    const writes = await fleet.servers.partitionWrites(first.wall.from - 1000, first.wall.to + 1000);
    expect(writes.byKey.map((k) => k.key)).toContain(bucketPk('c0', bucketOf(namespaceName(0))));

    // The next tick, in another environment of the same host: a cold start of its own.
    const next = fleet.start + 15_000;
    await fleet.setTime(next);
    const second = await fleet.runCycle(b, shard, next);
    expect(second.invocation.cold).toBe(true);
    expect(second.cycle?.counts.autoscalers).toBe(4);
    expect(second.invocation.startedAt).toBeGreaterThanOrEqual(next);
    await Promise.all([a.dispose(), b.dispose()]);
  });

  it('removes its cgroup when stopped', async () => {
    const dir = host.cgroup?.dir;
    await host.stop();
    if (dir) expect(existsSync(dir)).toBe(false);
  });
});
