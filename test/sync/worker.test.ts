// One work message through the worker, with the real store on dynalite behind the DynamoDB
// fault proxy (endpoint down, requests that never answer) and an in-memory cluster: what the
// worker says when DynamoDB fails around the lease, what a cycle does when the previous
// one outlived its lease and its /scale write is still on its way, and what it sends again.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../lib/store/index.js';
import { shardCycleKey } from '../../lib/store/items.js';
import type { SyncOptions } from '../../lib/sync/config.js';
import type { EvaluateMessage, TickMessage } from '../../lib/sync/messages.js';
import type { Clock } from '../../lib/sync/ports/clock.js';
import type { ClusterAccess, ClusterConfig } from '../../lib/sync/ports/cluster-access.js';
import type { WorkQueue } from '../../lib/sync/ports/work-queue.js';
import { bucketOf, shardId, shardOfAutoscaler, shardOfNamespace, shardsOfNamespace } from '../../lib/sync/shards.js';
import { handleWorkMessage, type ClusterDirectory, type MessageResult, type WorkerConfig, type WorkerDeps } from '../../lib/sync/worker.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { startFaultProxy, type FaultProxy } from '../support/dynamo-faults.js';
import { FakeCluster, FakeMetrics, fixedClock } from './fakes.js';

const T = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const CLUSTER: ClusterConfig = { name: 'prod', region: TEST_REGION, shards: 1 };
const options: SyncOptions = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 300, clusterBudgetMs: 8_000, sources: { table: true, cluster: false }, decisionLogSeconds: 300 };
/** A short period where a call hangs (a second to the deadline of an evaluation); the usual 15 s otherwise. */
const SHORT: WorkerConfig = { periodSeconds: 2, options };
const USUAL: WorkerConfig = { periodSeconds: 15, options };
const SHARD_ITEM = `"${shardCycleKey('prod').pk}"`;

const web: HorizontalPodAutoscaler = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'apps' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 30,
    metrics: [{ type: 'External', external: { metric: { name: 'jobs' }, target: { type: 'AverageValue', averageValue: '10' } } }],
    // With a behavior, upstream records scale events (the rate limits read them).
    behavior: {},
  },
};

const tick = (ms: number): TickMessage => ({ kind: 'tick', shard: 'prod', tick: iso(ms), periodSeconds: 15 });
const evaluate = (ms: number): EvaluateMessage => ({ kind: 'evaluate', shard: 'prod', targets: [{ kind: 'hpa', namespace: 'apps', name: 'web' }], reason: 'test', at: iso(ms), attempt: 1 });

let db: DynamoServer;
let proxy: FaultProxy;
let store: DynamoStore;
let cluster: FakeCluster;
let table = 0;

beforeAll(async () => {
  db = await startDynalite();
  proxy = await startFaultProxy(db.endpoint);
});
afterAll(async () => {
  await proxy?.stop();
  await db?.stop();
});
beforeEach(async () => {
  store = createDynamoStore({ endpoint: proxy.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: `worker-${++table}` });
  await ensureTable(store.client, store.tableName);
  cluster = new FakeCluster();
});

/** A worker container: the cluster registry read from the table, as on a local stack. */
function worker(clock: Clock, access: ClusterAccess = cluster): WorkerDeps {
  const registry: ClusterDirectory = {
    async get(name) {
      const rec = await store.getCluster(name);
      if (!rec) return undefined;
      const { managedBy: _m, ...config } = rec;
      return config;
    },
  };
  return { store, metrics: new FakeMetrics(cluster), cluster: () => access, clusters: registry, queue: { send: async () => undefined }, clock };
}

const register = () => store.putCluster({ ...CLUSTER, managedBy: 'cli' }, new Date(T));
/** The cluster, and apps/web on a Deployment of 2 whose metric asks for 4. */
async function registerWeb(): Promise<void> {
  await register();
  await store.applySpec('prod', web, new Date(T));
  cluster.addTarget('apps', 'web', 2);
  cluster.external.set('apps/jobs', 20);
}

describe('DynamoDB failing around the lease: said by the worker and counted, never an unlogged end', () => {
  it('the endpoint down while the cluster registry is read: a failed message naming the registry', async () => {
    await register();
    await proxy.down();
    let r: MessageResult;
    try {
      r = await handleWorkMessage(worker(fixedClock(iso(T))), SHORT, evaluate(T), 'w1');
    } finally {
      await proxy.up();
    }
    expect(r).toMatchObject({ outcome: 'failed', shard: 'prod' });
    expect(r.outcome === 'failed' && r.error).toMatch(/^reading the cluster registry \(cluster prod\): .*ECONNREFUSED/);
  });

  it('the lease never answered: cancelled at the cycle deadline and said as a DynamoDB timeout', async () => {
    await register();
    const stop = proxy.add({ operation: 'UpdateItem', fault: 'hang', when: (r) => r.body.includes(SHARD_ITEM) });
    try {
      const r = await handleWorkMessage(worker(fixedClock(iso(T))), SHORT, evaluate(T), 'w1');
      expect(r).toMatchObject({ outcome: 'failed', shard: 'prod' });
      // An evaluation has half a period: 1 s (4 attempts of 3 s each without the deadline).
      expect(r.outcome === 'failed' && r.error).toMatch(/^taking the lease of shard prod: DynamoDB timed out: no success within the 1000 ms the cycle allows/);
    } finally {
      stop();
    }
  });

  it('a tick too near the next one to run is dropped as late, never run into its deadline and blamed on DynamoDB', async () => {
    await registerWeb();
    // 14.5 s after a 15 s tick: its cycle would have to end a second before the next tick, already past.
    const late = await handleWorkMessage(worker(fixedClock(iso(T + 14_500))), USUAL, tick(T), 'w1');
    expect(late).toEqual({ outcome: 'dropped', shard: 'prod', why: 'late', detail: `tick ${iso(T)} is 15 s old: less than 300 ms would be left before the next tick` });
    // 13 s after it, a second is left: it runs.
    expect((await handleWorkMessage(worker(fixedClock(iso(T + 13_000))), USUAL, tick(T), 'w1')).outcome).toBe('synced');
  });

  it('the lease throttled until the cycle deadline: the timeout names the throttling that caused it', async () => {
    await register();
    const stop = proxy.add({ operation: 'UpdateItem', fault: 'throttle', when: (r) => r.body.includes(SHARD_ITEM) });
    try {
      // A tenth of a second to the deadline: the SDK's throttling backoff (up to 1, 2, 4 s) is cancelled, with or without a last attempt.
      const r = await handleWorkMessage(worker(fixedClock(iso(T))), { periodSeconds: 0.2, options }, evaluate(T), 'w1');
      expect(r).toMatchObject({ outcome: 'failed', shard: 'prod' });
      expect(r.outcome === 'failed' && r.error).toMatch(/^taking the lease of shard prod: .*The level of configured provisioned throughput for the table was exceeded/);
    } finally {
      stop();
    }
  });

  it('the release never answered: cancelled a write budget after the deadline, and said in the cycle', async () => {
    await register();
    const stop = proxy.add({ operation: 'UpdateItem', fault: 'hang', when: (r) => r.body.includes(SHARD_ITEM) && r.body.includes('REMOVE') });
    try {
      const r = await handleWorkMessage(worker(fixedClock(iso(T))), SHORT, evaluate(T), 'w1');
      expect(r.outcome).toBe('synced');
      expect(r.outcome === 'synced' && r.report.warnings.join('\n')).toMatch(
        /releasing the lease of shard prod: DynamoDB timed out: no success within the 1300 ms the cycle allows .*\(it expires by itself\)/,
      );
    } finally {
      stop();
    }
  });
});

describe('a cluster client that cannot be made', () => {
  it('gives the lease back: the next message takes the shard at once', async () => {
    await register();
    const broken: WorkerDeps = {
      ...worker(fixedClock(iso(T))),
      cluster: () => {
        throw new Error('cannot make the cluster client');
      },
    };
    await expect(handleWorkMessage(broken, USUAL, tick(T), 'a')).rejects.toThrow('cannot make the cluster client');
    const next = await handleWorkMessage(worker(fixedClock(iso(T + 1_000))), USUAL, evaluate(T + 1_000), 'b');
    expect(next.outcome).toBe('synced');
  });
});

/** Its /scale writes wait at a gate (a worker frozen mid-cycle, a slow API server), then land. */
function holdScaleWrites(target: FakeCluster) {
  let open!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  const access = Object.assign(Object.create(target) as FakeCluster, {
    async updateScale(...args: Parameters<FakeCluster['updateScale']>): Promise<void> {
      reached();
      await gate;
      return target.updateScale(...args);
    },
  });
  return { access, atGate, open };
}

describe('a cycle that outlives its lease', () => {
  it('the next owner says it took the lease over, and leaves a scale that may still land pending: none lost, none doubled', async () => {
    await register();
    await store.applySpec('prod', web, new Date(T));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 40);

    // Worker a decides 2 → 4, records it, and its /scale write hangs on its way.
    const held = holdScaleWrites(cluster);
    const a = handleWorkMessage(worker(fixedClock(iso(T)), held.access), USUAL, tick(T), 'a');
    await held.atGate;
    expect((await store.getAutoscaler('prod', 'apps', 'web'))?.pending).toMatchObject({ from: 2, to: 4, at: iso(T) });

    // Worker b, a tick two periods later, finds a's lease expired (one second ago) and the target unchanged.
    const b = await handleWorkMessage(worker(fixedClock(iso(T + 31_000))), USUAL, tick(T + 30_000), 'b');
    if (b.outcome !== 'synced') throw new Error(`b: ${JSON.stringify(b)}`);
    expect(b.report.warnings).toContain(`shard prod: lease of a expired 1 s ago (${iso(T + 30_000)}) without being released: taken over; its cycle may still be running`);
    const [seen] = b.report.autoscalers;
    expect(seen).toMatchObject({ name: 'web', outcome: 'skipped', stored: 'skipped', patched: false, currentReplicas: 2 });
    expect(seen.warnings).toEqual([
      `the rescale to 4 decided at ${iso(T)} by another cycle may still be in flight (Deployment/web still has 2, unchanged since): not evaluated until ${iso(T + 38_000)}, then settled from the target`,
    ]);
    expect(cluster.patches).toEqual([]);

    // a's write lands; the next tick confirms it, and the scale event stays in the history the rate limits read.
    held.open();
    expect((await a).outcome).toBe('synced');
    const c = await handleWorkMessage(worker(fixedClock(iso(T + 45_000))), USUAL, tick(T + 45_000), 'c');
    expect(c.outcome === 'synced' && c.report.autoscalers[0]).toMatchObject({ outcome: 'unchanged', warnings: [] });
    expect(cluster.patches).toEqual([{ target: 'apps/Deployment/web', replicas: 4, resourceVersion: '1' }]);
    const after = await store.getAutoscaler('prod', 'apps', 'web');
    expect(after?.pending).toBeUndefined();
    expect(after?.history.scaleUpEvents).toEqual([{ timestamp: iso(T), change: 2 }]);
  });
});

describe('a tick whose deadline leaves work', () => {
  it('says and counts what is left, and takes it first at the next tick', async () => {
    await register();
    // One autoscaler a namespace: each target is its own read (a namespace's several Deployments would be one list).
    const names = Array.from({ length: 10 }, (_, i) => `app-${String(i).padStart(2, '0')}`);
    for (const name of names) {
      await store.applySpec('prod', { ...web, metadata: { name, namespace: name }, spec: { ...web.spec, scaleTargetRef: { ...web.spec.scaleTargetRef, name } } }, new Date(T));
      cluster.addTarget(name, name, 2);
      cluster.external.set(`${name}/jobs`, 20);
    }
    // A slow API server: a scale read takes 150 ms, one autoscaler at a time, 1 s to the deadline (reads end 300 ms before).
    cluster.log.delay.set('getScale', 150);
    const slow: WorkerConfig = { periodSeconds: 2, options: { ...options, concurrency: 1 } };
    let left: string[] = [];
    for (let i = 0; i < 3; i++) {
      const at = T + i * 2_000;
      const before = cluster.log.calls.length;
      const r = await handleWorkMessage(worker(fixedClock(iso(at))), slow, { ...tick(at), periodSeconds: 2 }, `w${i}`);
      if (r.outcome !== 'synced') throw new Error(JSON.stringify(r));
      // The order this tick read its targets in: what the last tick left comes first, in its order.
      const read = cluster.log.calls.slice(before).filter((c) => c.op === 'getScale').map((c) => c.arg.split('/')[2]);
      expect(read.slice(0, left.length)).toEqual(left.slice(0, read.length));
      left = r.report.autoscalers.filter((a) => a.outcome === 'skipped').map((a) => a.name);
      expect(left.length).toBeGreaterThan(0);
      expect(r.report.counts.deferred).toBe(left.length);
      expect(r.report.warnings.join('\n')).toContain(`the cycle deadline left ${left.length} of 10 autoscalers unevaluated; they go first at the next tick`);
      // Deferred autoscalers are not evaluated and nothing of theirs is written.
      // (One the deadline cut off in the middle of its reads, on a loaded machine, says that too.)
      for (const a of r.report.autoscalers.filter((x) => x.outcome === 'skipped')) {
        expect(a).toMatchObject({ stored: 'skipped', patched: false });
        expect(a.errors.length).toBeGreaterThan(0);
        expect(a.errors.every((e) => e.stage === 'deadline')).toBe(true);
      }
    }
  });
});

describe('a cluster the dispatcher cut into more shards', () => {
  it('ticks carry the count in use at their time; an evaluation of an older count is sent on to the shards in use', async () => {
    await registerWeb();
    expect(await store.recordShardCount('prod', { k: 2, since: T, previous: 1, planned: T })).toBe(true);
    // A duplicate dispatcher invocation for the same minute, the counts grown since: refused, the first count stands.
    expect(await store.recordShardCount('prod', { k: 4, since: T, previous: 1, planned: T })).toBe(false);
    expect((await store.readIndex('prod')).shards).toEqual({ k: 2, since: T, previous: 1, planned: T });
    const sent: { body: string; delaySeconds: number }[] = [];
    const deps = { ...worker(fixedClock(iso(T + 1_000))), queue: { send: async (m: { body: string; delaySeconds: number }[]) => void sent.push(...m) } };

    // A tick of this minute under the old count names a shard that no longer exists.
    expect(await handleWorkMessage(deps, USUAL, tick(T), 'a')).toMatchObject({ outcome: 'dropped', why: 'staleShard', detail: 'cluster prod is cut into 2 shards at this tick' });
    // One of the minute before still runs under the count it was sent with.
    expect((await handleWorkMessage({ ...deps, clock: fixedClock(iso(T - 14_000)) }, USUAL, tick(T - 15_000), 'b')).outcome).toBe('synced');
    // The shard of the count in use runs its tick.
    const mine = `prod/${bucketOf('apps') % 2}of2`;
    const r = await handleWorkMessage(deps, USUAL, { ...tick(T), shard: mine }, 'c');
    expect(r.outcome === 'synced' && r.report.autoscalers.map((a) => a.name)).toEqual(['web']);

    // The stream and events functions send with the deploy's count: the worker sends it on.
    const e = await handleWorkMessage(deps, USUAL, evaluate(T), 'd');
    expect(e).toMatchObject({ outcome: 'rerouted', shard: 'prod', to: [mine] });
    expect(sent.map((m) => JSON.parse(m.body))).toEqual([{ ...evaluate(T), shard: mine }]);
  });

  it('cut below the namespace (32 shards), each part evaluates its own autoscalers of the bucket, and counts the whole bucket', async () => {
    await registerWeb();
    const names = ['web', 'api', 'db', 'mq', 'ui'];
    for (const name of names.slice(1)) await store.applySpec('prod', { ...web, metadata: { name, namespace: 'apps' } }, new Date(T));
    await store.recordShardCount('prod', { k: 32, since: T, previous: 1 });
    const parts = shardsOfNamespace('prod', 32, 'apps');
    const seen: string[] = [];
    for (const part of parts) {
      const r = await handleWorkMessage(worker(fixedClock(iso(T))), USUAL, { ...tick(T), shard: shardId(part) }, 'a');
      if (r.outcome === 'synced') seen.push(...r.report.autoscalers.map((a) => a.name));
    }
    expect(seen.sort()).toEqual([...names].sort());
    expect((await store.readIndex('prod')).counts[bucketOf('apps')]).toBe(5);
  });

  it("a part of a namespace reads its own targets (GET /scale) and only their pods and pod metrics, by one list selector covering their selectors", async () => {
    await register();
    // Two autoscalers of the same part (32 shards), and a neighbour of another part.
    const candidates = Array.from({ length: 200 }, (_, i) => `c${i}`);
    const part = shardOfAutoscaler('prod', 32, 'apps', 'c0');
    const [a, b] = candidates.filter((n) => shardId(shardOfAutoscaler('prod', 32, 'apps', n)) === shardId(part));
    const other = candidates.find((n) => shardId(shardOfAutoscaler('prod', 32, 'apps', n)) !== shardId(part))!;
    const long = iso(T - 3_600_000);
    for (const name of [a, b, other]) {
      const cpu = { ...web, metadata: { name, namespace: 'apps' }, spec: { ...web.spec, scaleTargetRef: { ...web.spec.scaleTargetRef, name }, metrics: [{ type: 'Resource' as const, resource: { name: 'cpu', target: { type: 'Utilization' as const, averageUtilization: 50 } } }] } };
      await store.applySpec('prod', cpu, new Date(T));
      cluster.addTarget('apps', name, 1);
      cluster.pods.set('apps', [...(cluster.pods.get('apps') ?? []), { name: `${name}-0`, labels: { app: name }, phase: 'Running', ready: 'True', readyTransitionTime: long, startTime: long, containers: [{ name: 'app', requests: { cpu: '1' } }] }]);
      cluster.podMetrics.set('apps', [...(cluster.podMetrics.get('apps') ?? []), { pod: `${name}-0`, timestamp: iso(T - 30_000), windowSeconds: 30, containers: [{ name: 'app', usage: { cpu: '900m' } }] }]);
    }
    await store.recordShardCount('prod', { k: 32, since: T, previous: 1 });
    const r = await handleWorkMessage(worker(fixedClock(iso(T))), USUAL, { ...tick(T), shard: shardId(part) }, 'a');
    expect(r.outcome === 'synced' && r.report.autoscalers.map((x) => [x.name, x.desiredReplicas]).sort()).toEqual([[a, 2], [b, 2]]);
    const selector = `apps?app in (${[a, b].sort().join(',')})`;
    expect(cluster.log.calls.filter((c) => c.op === 'listPods').map((c) => c.arg)).toEqual([selector]);
    expect(cluster.log.calls.filter((c) => c.op === 'listPodMetrics').map((c) => c.arg)).toEqual([selector]);
    expect(cluster.log.count('listScales')).toBe(0);
  });

  it('knows how many autoscalers each bucket holds from the writes, and a tick corrects the count from its load, only when it changed', async () => {
    await register();
    await store.applySpec('prod', web, new Date(T));
    await store.applySpec('prod', { ...web, metadata: { name: 'api', namespace: 'apps' } }, new Date(T));
    // Known before any tick: the dispatcher plans the first one with the right count.
    expect((await store.readIndex('prod')).counts[bucketOf('apps')]).toBe(2);
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 20);
    await store.recordBucketCounts('prod', new Map([[bucketOf('apps'), 7]]));
    const recorded = vi.spyOn(store, 'recordBucketCounts');
    await handleWorkMessage(worker(fixedClock(iso(T))), USUAL, tick(T), 'a');
    expect((await store.readIndex('prod')).counts).toEqual(Array.from({ length: 16 }, (_, b) => (b === bucketOf('apps') ? 2 : 0)));
    expect(recorded).toHaveBeenCalledTimes(1);
    await handleWorkMessage(worker(fixedClock(iso(T + 15_000))), USUAL, tick(T + 15_000), 'b');
    expect(recorded).toHaveBeenCalledTimes(1);
    await store.deleteSpec('prod', 'HorizontalPodAutoscaler', 'apps', 'api');
    expect((await store.readIndex('prod')).counts[bucketOf('apps')]).toBe(1);
  });

  it('records the counts of a tick whose deadline passed before any evaluation: a shard too big for its worker still gets split', async () => {
    await registerWeb();
    await store.recordBucketCounts('prod', new Map([[bucketOf('apps'), 0]]));
    // The lease and the load take the whole cycle: nothing is evaluated, the count is still written.
    const slow = { ...worker(fixedClock(iso(T))), clock: { now: () => new Date(Date.now() - wallStart + T) } };
    const wallStart = Date.now();
    const loadShard = store.loadShard.bind(store);
    vi.spyOn(store, 'loadShard').mockImplementation(async (...a) => {
      const r = await loadShard(...a);
      await new Promise((res) => setTimeout(res, 800));
      return r;
    });
    const r = await handleWorkMessage(slow, SHORT, { ...tick(T), periodSeconds: 2 }, 'a');
    expect(r.outcome === 'synced' && r.report.counts).toMatchObject({ skipped: 1, deferred: 1 });
    expect((await store.readIndex('prod')).counts[bucketOf('apps')]).toBe(1);
  });
});

describe('a storm of evaluations of one autoscaler coalesces (issue 22)', () => {
  it('costs about two cycles a second, not one each: covered ones are dropped, those in a burst wait for the next cycle', async () => {
    await registerWeb();
    const sent: { body: string; delaySeconds: number }[] = [];
    const at = (ms: number) => ({ ...worker(fixedClock(iso(ms))), queue: { send: async (m: { body: string; delaySeconds: number }[]) => void sent.push(...m) } });
    const outcomes: string[] = [];
    const handle = async (nowMs: number, eventMs: number) => {
      const r = await handleWorkMessage(at(nowMs), USUAL, evaluate(eventMs), 'w1');
      outcomes.push(r.outcome === 'coalesced' ? `coalesced${r.requeued === undefined ? '' : ' (sent again)'}` : r.outcome);
      return r;
    };
    // 20 events in 2 s, each handled 100 ms after it happened.
    for (let i = 0; i < 20; i++) await handle(T + 100 + i * 100, T + i * 100);
    // The waiting ones come back a second later, and then the next tick's worth of stragglers.
    const again = sent.splice(0).map((m) => JSON.parse(m.body) as EvaluateMessage);
    for (const [i, m] of again.entries()) await handle(T + 3_000 + i * 50, Date.parse(m.at));
    const cycles = outcomes.filter((o) => o === 'synced').length;
    expect(outcomes.length).toBe(20 + again.length);
    // Two at the start of each second of the burst (two in a row are not a burst), one for what came after.
    expect(cycles).toBeLessThanOrEqual(5);
    expect(cycles).toBeGreaterThanOrEqual(3);
    expect(outcomes.filter((o) => o === 'coalesced')).not.toHaveLength(0);
    // Nothing is lost: the last event of the storm was evaluated by a cycle that started after it.
    const last = await handleWorkMessage(at(T + 10_000), USUAL, evaluate(T + 1_900), 'w1');
    expect(last).toMatchObject({ outcome: 'coalesced', detail: expect.stringContaining('evaluated by a cycle that started after this test') });
    expect(sent).toEqual([]);
  });

  it('an evaluation right after a tick, or a second one, runs at once: only a burst waits', async () => {
    await registerWeb();
    const run = (nowMs: number, eventMs: number) => handleWorkMessage({ ...worker(fixedClock(iso(nowMs))), queue: { send: async () => undefined } }, USUAL, evaluate(eventMs), 'w1');
    expect((await handleWorkMessage(worker(fixedClock(iso(T))), USUAL, tick(T), 'w1')).outcome).toBe('synced');
    // Whole-second event times: the tick that started 500 ms before this event did not cover it.
    expect((await run(T + 600, T + 500)).outcome).toBe('synced');
    expect((await run(T + 700, T + 600)).outcome).toBe('synced');
    // The third in a second is a burst: it waits a second.
    expect(await run(T + 800, T + 700)).toMatchObject({ outcome: 'coalesced', requeued: true, detail: 'apps/web: evaluated twice in the last second; this one runs a second later, for the whole burst' });
    expect((await run(T + 2_000, T + 700)).outcome).toBe('synced');
  });
});

describe('messages the worker sends again', () => {
  // prod cut into 4: a shard id is not its cluster's name, the message group is.
  const SHARD = shardId(shardOfNamespace('prod', 4, 'apps'));
  const sent: Parameters<WorkQueue['send']>[0] = [];
  const recording = (clock: Clock): WorkerDeps => ({ ...worker(clock), queue: { send: async (messages) => void sent.push(...messages) } });
  beforeEach(async () => {
    sent.length = 0;
    await store.putCluster({ ...CLUSTER, shards: 4, managedBy: 'cli' }, new Date(T));
  });

  it("a busy shard: the evaluation, and a tick behind an evaluation, are sent again a second later in the cluster's message group", async () => {
    expect((await store.acquireShard(SHARD, { owner: 'other', now: new Date(T), leaseMs: 30_000 })).outcome).toBe('acquired');
    const busy = await handleWorkMessage(recording(fixedClock(iso(T))), USUAL, { ...evaluate(T), shard: SHARD }, 'w1');
    expect(busy).toMatchObject({ outcome: 'busy', requeued: true });
    const behind = await handleWorkMessage(recording(fixedClock(iso(T))), USUAL, { ...tick(T), shard: SHARD }, 'w2');
    expect(behind).toMatchObject({ outcome: 'busy', requeued: true });
    expect(sent.map((m) => ({ ...m, body: JSON.parse(m.body) as unknown }))).toEqual([
      { kind: 'evaluate', body: { ...evaluate(T), shard: SHARD, attempt: 2 }, delaySeconds: 1, groupId: 'prod' },
      { kind: 'tick', body: { ...tick(T), shard: SHARD }, delaySeconds: 1, groupId: 'prod' },
    ]);
  });

  it("a conflict on the target's scale: the re-evaluation goes in the cluster's message group", async () => {
    await store.applySpec('prod', web, new Date(T));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 40);
    // Someone scales by hand between our read and our write.
    cluster.afterGetScale = () => {
      cluster.afterGetScale = undefined;
      cluster.scaleByHand('apps', 'web', 3);
    };
    const r = await handleWorkMessage(recording(fixedClock(iso(T))), USUAL, { ...tick(T), shard: SHARD }, 'w1');
    expect(r).toMatchObject({ outcome: 'synced', requeued: 1 });
    expect(sent).toEqual([{ kind: 'evaluate', body: expect.stringContaining('"reason":"retry after a conflict on the target scale"'), delaySeconds: 1, groupId: 'prod' }]);
    expect(JSON.parse(sent[0].body)).toMatchObject({ kind: 'evaluate', shard: SHARD, targets: [{ kind: 'hpa', namespace: 'apps', name: 'web' }], attempt: 1 });
  });
});

describe("each autoscaler at its own period (spec.syncPeriodSeconds), the shard at the fastest", () => {
  it('a 60 s autoscaler is evaluated by the tick crossing each minute only; a 5 s one makes its shard ask for 5 s ticks', async () => {
    await registerWeb();
    await store.applySpec('prod', { ...web, metadata: { name: 'slow', namespace: 'apps' }, spec: { ...web.spec, scaleTargetRef: { ...web.spec.scaleTargetRef, name: 'slow' }, syncPeriodSeconds: 60 } }, new Date(T));
    cluster.addTarget('apps', 'slow', 2);
    const evaluated = async (ms: number) => {
      const r = await handleWorkMessage(worker(fixedClock(iso(ms))), USUAL, tick(ms), 'w1');
      return r.outcome === 'synced' ? r.report.autoscalers.map((a) => a.name).sort() : r.outcome;
    };
    expect(await evaluated(T)).toEqual(['slow', 'web']);
    expect(await evaluated(T + 15_000)).toEqual(['web']);
    expect(await evaluated(T + 45_000)).toEqual(['web']);
    expect(await evaluated(T + 60_000)).toEqual(['slow', 'web']);
    expect((await store.shardRecords(['prod'])).get('prod')?.tickPeriodSeconds).toBeUndefined();
    await store.applySpec('prod', { ...web, spec: { ...web.spec, syncPeriodSeconds: 5 } }, new Date(T + 61_000));
    await evaluated(T + 75_000);
    expect((await store.shardRecords(['prod'])).get('prod')?.tickPeriodSeconds).toBe(5);
    // Beside the 5 s one, an autoscaler that sets no period keeps the deploy's 15 s, and the 60 s one its own.
    await store.applySpec('prod', { ...web, metadata: { name: 'plain', namespace: 'apps' }, spec: { ...web.spec, scaleTargetRef: { ...web.spec.scaleTargetRef, name: 'plain' } } }, new Date(T + 76_000));
    cluster.addTarget('apps', 'plain', 2);
    const fast = async (ms: number) => {
      const r = await handleWorkMessage(worker(fixedClock(iso(ms))), USUAL, { ...tick(ms), periodSeconds: 5 }, 'w1');
      return r.outcome === 'synced' ? r.report.autoscalers.map((a) => a.name).sort() : r.outcome;
    };
    const seen = [];
    for (let ms = T + 80_000; ms <= T + 120_000; ms += 5_000) seen.push(await fast(ms));
    expect(seen).toEqual([['web'], ['web'], ['plain', 'web'], ['web'], ['web'], ['plain', 'web'], ['web'], ['web'], ['plain', 'slow', 'web']]);
  });
});
