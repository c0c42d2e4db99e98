// The same suite against dynalite and AWS's DynamoDB Local, over HTTP with the real SDK.
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScalingHistory, TimestampedRecommendation } from '../../lib/hpa/types.js';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';
import { createDynamoStore, DynamoStore, ensureTable, KIND_CLOUDWATCH, KIND_HPA } from '../../lib/store/index.js';
import { bucketPk, shardCycleKey } from '../../lib/store/items.js';
import { type AutoscalerRecord, type AutoscalerStateUpdate, VersionConflictError } from '../../lib/sync/ports/autoscaler-store.js';
import { bucketOf, ownsAutoscaler, type ShardRef } from '../../lib/sync/shards.js';
import { dynamoDbLocalUnavailable, startDynalite, startDynamoDbLocal, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { startFaultProxy, type FaultProxy } from '../support/dynamo-faults.js';
import { hpa, status } from './fixtures.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000);
const whole = (cluster: string): ShardRef => ({ cluster, index: 0, count: 1 });

const servers: { name: string; start: () => Promise<DynamoServer>; unavailable?: string }[] = [
  { name: 'dynalite', start: startDynalite },
  { name: 'DynamoDB Local', start: startDynamoDbLocal, unavailable: dynamoDbLocalUnavailable() },
];

for (const server of servers) {
  if (server.unavailable) console.warn(`skipping the store suite on ${server.name}: ${server.unavailable}`);

  describe.skipIf(server.unavailable !== undefined)(`DynamoStore on ${server.name}`, () => {
    let db: DynamoServer;
    let proxy: FaultProxy;
    let store: DynamoStore;
    let n = 0;
    const cluster = () => `c${++n}`;
    const storeVia = (endpoint: string, maxAttempts = 4) =>
      createDynamoStore({ endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: 'shpa-test', maxAttempts });

    beforeAll(async () => {
      db = await server.start();
      proxy = await startFaultProxy(db.endpoint);
      store = storeVia(db.endpoint);
      expect(await ensureTable(store.client, 'shpa-test')).toBe('created');
    });
    afterAll(async () => {
      await proxy?.stop();
      await db?.stop();
    });

    async function load(c: string, now: Date, s = store, markerMs?: number): Promise<AutoscalerRecord[]> {
      return (await s.loadShard(whole(c), { now, markerMs })).autoscalers;
    }

    async function created(c: string, name = 'web'): Promise<AutoscalerRecord> {
      expect(await store.applySpec(c, hpa(name), at(0))).toBe('created');
      return (await load(c, at(0))).find((a) => a.name === name)!;
    }

    const save = (s: DynamoStore, rec: AutoscalerRecord, update: Omit<AutoscalerStateUpdate, 'log'>, now: Date, force = false) =>
      s.saveState(rec, { log: [], ...update }, now, { markerMs: now.getTime(), force });

    /** One tick of a shard as the worker runs it: lease (marker of the last cycle), load, save, release with this cycle's marker. */
    async function tick(c: string, now: Date, body: (recs: AutoscalerRecord[]) => Promise<void>): Promise<void> {
      const lease = await store.acquireShard(c, { owner: 'test', now, leaseMs: 30_000, tick: now });
      expect(lease.outcome).toBe('acquired');
      const markerMs = lease.outcome === 'acquired' ? lease.markerMs : undefined;
      await body(await load(c, now, store, markerMs));
      await store.releaseShard(c, 'test', { markerMs: now.getTime() });
    }

    it('ensureTable is idempotent', async () => {
      expect(await ensureTable(store.client, 'shpa-test')).toBe('exists');
    });

    it('apply: created, unchanged, configured; never touches state', async () => {
      const c = cluster();
      const rec = await created(c);
      expect(rec.version).toBe(0);
      expect(rec.source).toBe('table');
      expect(rec.history.recommendations).toBeNull();
      const v1 = await save(store, rec, { status: status(3, 55), history: hist([[3, 15]]) }, at(15));
      expect(v1).toBe(1);
      expect(await store.applySpec(c, hpa('web'), at(20))).toBe('unchanged');
      expect(await store.applySpec(c, hpa('web', 'default', 20), at(30))).toBe('configured');
      const after = (await store.loadCluster(c)).autoscalers[0];
      expect(after.hpa.spec.maxReplicas).toBe(20);
      expect(after.hpa.metadata.generation).toBe(2);
      expect(after.specVersion).toBe('2');
      expect(after.hpa.metadata.uid).toBe(rec.hpa.metadata.uid);
      expect(after.hpa.status?.currentReplicas).toBe(3);
      expect(after.version).toBe(1);
      expect(after.history.recommendations?.map((r) => r.replicas)).toEqual([3]);
      expect(await store.getAutoscaler(c, 'default', 'web')).toEqual(after);
    });

    it('generation grows only when the spec changes, as upstream HPAGeneration', async () => {
      const c = cluster();
      await created(c);
      const labelled = hpa('web');
      labelled.metadata.labels = { team: 'a' };
      expect(await store.applySpec(c, labelled, at(10))).toBe('configured');
      expect((await store.getSpec(c, KIND_HPA, 'default', 'web'))?.metadata).toMatchObject({ generation: 1, labels: { team: 'a' } });
      expect(await store.applySpec(c, { ...labelled, spec: { ...labelled.spec, maxReplicas: 20 } }, at(20))).toBe('configured');
      expect((await store.getSpec(c, KIND_HPA, 'default', 'web'))?.metadata.generation).toBe(2);
    });

    it('apply that lost a race to another apply is a VersionConflictError and overwrites nothing', async () => {
      const c = cluster();
      await created(c);
      const racing = storeVia(db.endpoint);
      let raced = false;
      racing.doc.middlewareStack.add(
        (next, context) => async (args) => {
          // Another writer lands between this apply's read and its conditional put.
          if (context.commandName === 'PutItemCommand' && !raced) {
            raced = true;
            expect(await store.applySpec(c, hpa('web', 'default', 30), at(5))).toBe('configured');
          }
          return next(args);
        },
        { step: 'initialize' },
      );
      await expect(racing.applySpec(c, hpa('web', 'default', 40), at(6))).rejects.toBeInstanceOf(VersionConflictError);
      expect((await store.getSpec(c, KIND_HPA, 'default', 'web'))?.spec).toMatchObject({ maxReplicas: 30 });
    });

    it('specVersion reads the spec as it is now: an apply since the load is seen', async () => {
      const c = cluster();
      const rec = await created(c);
      const version = async (name: string) => (await store.specVersions(c, [{ namespace: 'default', name }])).get(`default/${name}`);
      expect(await version('web')).toBe(rec.specVersion);
      await store.applySpec(c, hpa('web', 'default', 25), at(5));
      expect(await version('web')).not.toBe(rec.specVersion);
      expect(await version('nothing')).toBeUndefined();
    });

    it('loads a shard with one index read and one Query per non-empty bucket it owns', async () => {
      const c = cluster();
      const metric: CloudWatchMetric = {
        apiVersion: 'shpa.dev/v1',
        kind: 'CloudWatchMetric',
        metadata: { name: 'queue', namespace: 'default' },
        spec: { queries: [{ id: 'q', metricStat: { metric: { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' }, period: 60, stat: 'Sum' } }] },
      };
      // Two namespaces in different buckets.
      const other = ['apps', 'jobs', 'web', 'batch', 'tools'].find((ns) => bucketOf(ns) % 2 !== bucketOf('default') % 2)!;
      const viaProxy = storeVia(proxy.endpoint);
      for (const name of ['a', 'b', 'c']) await viaProxy.applySpec(c, hpa(name), at(0));
      await viaProxy.applySpec(c, hpa('d', other), at(0));
      await viaProxy.applySpec(c, metric, at(0));
      await viaProxy.applySpec(cluster(), hpa('elsewhere'), at(0));
      const before = { ...proxy.calls };
      const snap = await viaProxy.loadShard(whole(c), { now: at(1) });
      expect((proxy.calls.Query ?? 0) - (before.Query ?? 0)).toBe(2);
      expect((proxy.calls.GetItem ?? 0) - (before.GetItem ?? 0)).toBe(1);
      expect(snap.autoscalers.map((a) => a.name).sort()).toEqual(['a', 'b', 'c', 'd']);
      expect(snap.cloudWatchMetrics.map((m) => m.metadata.name)).toEqual(['queue']);
      expect(snap.broken).toEqual([]);
      // Cut in two, the cluster's shards see one namespace each, and each bucket once.
      const halves = await Promise.all([0, 1].map((index) => store.loadShard({ cluster: c, index, count: 2 }, { now: at(1) })));
      expect(halves.map((h) => h.autoscalers.length).sort()).toEqual([1, 3]);
      expect(halves[0].buckets.some((b) => halves[1].buckets.includes(b))).toBe(false);
    });

    it('a part of a bucket (past 16 shards) decodes the states of its own autoscalers only, and sees the others as peers', async () => {
      const c = cluster();
      const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
      for (const name of names) {
        const rec = await created(c, name);
        expect(await save(store, rec, { status: status(3, 60), history: rec.history }, at(1))).toBeGreaterThan(0);
      }
      const part = (index: number): ShardRef => ({ cluster: c, index, count: 32 });
      const mine = (ref: ShardRef, name: string) => ownsAutoscaler(ref, 'default', name);
      const ref = [...Array(32).keys()].map(part).find((r) => names.some((n) => mine(r, n)) && names.some((n) => !mine(r, n)))!;
      const snap = await store.loadShard(ref, { now: at(2) });
      expect(snap.autoscalers.map((a) => a.name).sort()).toEqual(names);
      for (const a of snap.autoscalers) expect([a.name, a.version > 0]).toEqual([a.name, mine(ref, a.name)]);
    });

    it("keeps a shard's metric answers in pages under DynamoDB's item limit, whatever their number; a smaller set empties the pages past it", async () => {
      const c = cluster();
      await store.applySpec(c, hpa('web'), at(0));
      const answer = (i: number) => ({ end: 1_700_000_000 + i, samples: [{ value: String(i), timestamp: '2026-11-26T11:58:00Z' }], learn: { learnedDelaySeconds: 90, settledDelaysSeconds: [88, 91], watched: [], probingUntilMs: 1_700_000_000_000 } });
      const many = new Map(Array.from({ length: 3_000 }, (_, i) => [`cloudwatch|${c}|ns-${i % 7}|queue-${i}|${'k'.repeat(120)}`, answer(i)]));
      const [b] = (await store.readIndex(c)).buckets;
      await store.saveSharedAnswers(whole(c), b, many);
      const loaded = await store.loadShard(whole(c), { now: at(1) });
      expect(loaded.sharedAnswers.size).toBe(3_000);
      expect(loaded.sharedAnswers.get([...many.keys()][2_999])?.end).toBe(1_700_002_999);
      await store.saveSharedAnswers(whole(c), b, new Map([...many].slice(0, 10)));
      expect((await store.loadShard(whole(c), { now: at(2) })).sharedAnswers.size).toBe(10);
      // A bucket cut in parts: each part keeps and reads its own pages.
      const part = { cluster: c, index: 16 + b, count: 32 };
      await store.saveSharedAnswers(part, b, new Map([...many].slice(20, 25)));
      expect((await store.loadShard(part, { now: at(3) })).sharedAnswers.size).toBe(5);
    });

    it('pages through a bucket larger than one Query page', async () => {
      const c = cluster();
      const big = 'x'.repeat(20_000);
      for (let i = 0; i < 60; i++) {
        const h = hpa(`w${i}`);
        h.metadata.annotations = { note: big };
        await store.applySpec(c, h, at(0));
      }
      expect(await load(c, at(1))).toHaveLength(60);
    });

    it('reports an undecodable spec as broken and still loads the rest', async () => {
      const c = cluster();
      await store.applySpec(c, hpa('good'), at(0));
      const pk = bucketPk(c, bucketOf('default'));
      await store.doc.send(new PutCommand({ TableName: 'shpa-test', Item: { pk, sk: 'hpa#default#bad', kind: KIND_HPA, doc: '{not json', v: 1, ct: 'x', ut: 'x' } }));
      const snap = await store.loadCluster(c);
      expect(snap.autoscalers.map((a) => a.name)).toEqual(['good']);
      expect(snap.broken).toHaveLength(1);
      expect(snap.broken[0]).toMatchObject({ cluster: c, namespace: 'default', name: 'bad' });
      expect(snap.broken[0].error).toMatch(/^stored HorizontalPodAutoscaler default\/bad cannot be read: /);
      // Apply does not guess over it; delete removes it.
      await expect(store.applySpec(c, hpa('bad'), at(1))).rejects.toThrow(/stored HorizontalPodAutoscaler default\/bad cannot be read/);
      expect(await store.deleteSpec(c, KIND_HPA, 'default', 'bad')).toBe(true);
      expect(await store.applySpec(c, hpa('bad'), at(2))).toBe('created');
    });

    /** Sets attributes of the state item of default/web as another tool or a hand edit would. */
    async function corrupt(c: string, attrs: Record<string, unknown>): Promise<void> {
      const names = Object.fromEntries(Object.keys(attrs).map((k, i) => [`#a${i}`, k]));
      const values = Object.fromEntries(Object.values(attrs).map((v, i) => [`:v${i}`, v]));
      await store.doc.send(
        new UpdateCommand({
          TableName: 'shpa-test',
          Key: { pk: bucketPk(c, bucketOf('default')), sk: 'st#default#web' },
          UpdateExpression: `SET ${Object.keys(names).map((k, i) => `${k} = :v${i}`).join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    }

    describe('a history entry that cannot be trusted is dropped, its part named, the valid ones kept; the next write repairs it', () => {
      const corruptions: [string, Record<string, unknown>, 'up' | 'down' | 'recommendations', RegExp][] = [
        ['a scale event of 2e9 replicas', { up: JSON.stringify([[T0, 2], [T0, 2e9]]) }, 'up', /^up\[1\] change must be an integer from 0 to 200000/],
        ['negative replicas', { rec: JSON.stringify([[3, T0], [-3, T0]]) }, 'recommendations', /^rec\[1\] replicas must be an integer/],
        ['NaN (not JSON)', { rec: '[[NaN, 1]]' }, 'recommendations', /^rec is not JSON/],
        ['a list of the wrong type', { dn: JSON.stringify({ a: 1 }) }, 'down', /^dn is not a list/],
        ['an event from the future', { up: JSON.stringify([[T0, 2], [T0 + 86_400_000 * 3650, 2]]) }, 'up', /^up\[1\] time .* is in the future/],
      ];
      it.each(corruptions)('%s', async (_what, attrs, part, problem) => {
        const c = cluster();
        const rec = await created(c);
        await save(store, rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0));
        await corrupt(c, attrs);
        const [bad] = await load(c, at(15));
        expect(bad.stateProblem).toBeUndefined();
        expect(Object.keys(bad.untrustedHistory ?? {})).toEqual([part]);
        expect(bad.untrustedHistory?.[part]).toMatch(problem);
        if (part === 'up') expect(bad.history.scaleUpEvents).toEqual([{ timestamp: new Date(T0).toISOString(), change: 2 }]);
        expect(bad.hpa.status?.desiredReplicas).toBe(3);
        expect((await store.getAutoscaler(c, 'default', 'web'))?.untrustedHistory).toEqual(bad.untrustedHistory);
        // Written over conditionally on the item's own version, with the holds the sync chose: repaired, and the holds kept.
        expect(await save(store, bad, { status: status(3, 60), history: hist([[3, 15]]), holds: { up: at(75).getTime() } }, at(15), true)).toBe(bad.version + 1);
        const [good] = await load(c, at(30));
        expect(good.untrustedHistory).toBeUndefined();
        expect(good.holds).toEqual({ up: at(75).getTime() });
        expect(good.history.recommendations).toEqual([{ replicas: 3, timestamp: at(15).toISOString() }]);
      });
    });

    it('a state that cannot be trusted at all starts an empty history, and the next write repairs it', async () => {
      const c = cluster();
      const rec = await created(c);
      await save(store, rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0));
      await corrupt(c, { st: JSON.stringify({ currentReplicas: 'three', desiredReplicas: 3 }) });
      const [bad] = await load(c, at(15));
      expect(bad.stateProblem).toMatch(/^stored state of default\/web cannot be trusted: st\.currentReplicas must be an integer/);
      expect(bad.history).toEqual({ recommendations: null, scaleUpEvents: [], scaleDownEvents: [] });
      expect((await store.getAutoscaler(c, 'default', 'web'))?.stateProblem).toBe(bad.stateProblem);
      expect(await save(store, bad, { status: status(3, 60), history: hist([[3, 15]]) }, at(15), true)).toBe(bad.version + 1);
      const [good] = await load(c, at(30));
      expect(good.stateProblem).toBeUndefined();
      expect(good.history.recommendations).toEqual([{ replicas: 3, timestamp: at(15).toISOString() }]);
    });

    it('a stale version is a VersionConflictError and overwrites nothing', async () => {
      const c = cluster();
      const rec = await created(c);
      expect(await save(store, rec, { status: status(2, 50), history: hist([[2, 15]]) }, at(15))).toBe(1);
      // A second writer still holding version 0.
      const other = storeVia(db.endpoint);
      const [stale] = await load(c, at(15), other);
      await save(store, stale, { status: status(4, 90), history: hist([[2, 15], [4, 30]]) }, at(30));
      await expect(save(other, stale, { status: status(9, 99), history: hist([[9, 30]]) }, at(30))).rejects.toBeInstanceOf(VersionConflictError);
      await expect(save(other, rec, { status: status(9, 99), history: hist([[9, 30]]) }, at(30))).rejects.toBeInstanceOf(VersionConflictError);
      const [now] = await load(c, at(31));
      expect(now.version).toBe(2);
      expect(now.hpa.status?.desiredReplicas).toBe(4);
    });

    it('a cycle with nothing material writes nothing; the unchanged recommendation stays in the window', async () => {
      const c = cluster();
      await created(c);
      await tick(c, at(0), async ([rec]) => void (await save(store, rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0))));
      const writes = store.writes;
      for (let i = 1; i <= 3; i++) {
        await tick(c, at(15 * i), async ([rec]) => {
          const h = structuredClone(rec.history);
          h.recommendations!.push({ replicas: 3, timestamp: at(15 * i).toISOString() });
          // Utilization drifts by a point: not significant, not old enough.
          expect(await save(store, rec, { status: status(3, 60 + (i % 2)), history: h }, at(15 * i))).toBe(rec.version);
        });
      }
      expect(store.writes).toBe(writes);
      const lease = await store.acquireShard(c, { owner: 'check', now: at(50), leaseMs: 1000 });
      const markerMs = lease.outcome === 'acquired' ? lease.markerMs : undefined;
      const [rec] = await load(c, at(50), store, markerMs);
      expect(rec.history.recommendations).toEqual([{ replicas: 3, timestamp: at(45).toISOString() }]);
    });

    it('keeps stabilization exact to an every-cycle history at a steady cadence', async () => {
      const c = cluster();
      await created(c);
      const window = 300;
      const values = [5, 5, 5, 7, 7, 4, 4, 4, 4, 6, 3, 3, 3];
      const reference: TimestampedRecommendation[] = [];
      const before = store.writes;
      for (let i = 0; i < 120; i++) {
        const now = at(15 * i);
        await tick(c, now, async ([rec]) => {
          const cutoff = now.getTime() - window * 1000;
          // What upstream's max over (now - window, now] sees, from every cycle's entry.
          const want = Math.max(0, ...reference.filter((r) => Date.parse(r.timestamp) > cutoff).map((r) => r.replicas));
          const got = Math.max(0, ...(rec.history.recommendations ?? []).filter((r) => Date.parse(r.timestamp) > cutoff).map((r) => r.replicas));
          expect(got, `cycle ${i}`).toBe(want);
          expect(rec.history.recommendations?.length ?? 0).toBeLessThanOrEqual(values.length);
          const value = values[Math.floor(i / 9) % values.length];
          reference.push({ replicas: value, timestamp: now.toISOString() });
          const h = structuredClone(rec.history);
          h.recommendations = [...(h.recommendations ?? []), { replicas: value, timestamp: now.toISOString() }];
          await save(store, rec, { status: status(3, 60), history: h }, now);
        });
      }
      // One write per change of value (plus the first), not one per cycle.
      expect(store.writes - before).toBeLessThan(20);
    });

    describe("the shard's cycle item", () => {
      it('one owner at a time, taken over after expiry; a tick not newer than the last one is a duplicate', async () => {
        const s = `lease-${cluster()}`;
        expect(await store.acquireShard(s, { owner: 'a', now: at(0), leaseMs: 30_000, tick: at(0) })).toMatchObject({ outcome: 'acquired' });
        expect(await store.acquireShard(s, { owner: 'b', now: at(5), leaseMs: 30_000 })).toMatchObject({ outcome: 'held', owner: 'a' });
        // Redelivered or out of order: a tick not newer than the one started.
        expect(await store.acquireShard(s, { owner: 'c', now: at(40), leaseMs: 30_000, tick: at(0) })).toEqual({ outcome: 'duplicate', lastTick: at(0).toISOString() });
        expect(await store.acquireShard(s, { owner: 'b', now: at(31), leaseMs: 30_000, tick: at(30) })).toMatchObject({ outcome: 'acquired' });
        await store.releaseShard(s, 'a', { markerMs: at(31).getTime() }); // no longer a's: nothing released
        expect(await store.acquireShard(s, { owner: 'c', now: at(32), leaseMs: 30_000 })).toMatchObject({ outcome: 'held', owner: 'b' });
        await store.releaseShard(s, 'b', { markerMs: at(30).getTime() });
        expect(await store.acquireShard(s, { owner: 'c', now: at(33), leaseMs: 30_000 })).toEqual({ outcome: 'acquired', markerMs: at(30).getTime(), warnings: [] });
        expect(await store.clearShardLease(s)).toBe(true);
        expect(await store.acquireShard(s, { owner: 'd', now: at(34), leaseMs: 30_000 })).toMatchObject({ outcome: 'acquired' });
      });

      it.each([
        ['an absurd expiry', { exp: 9e15 }, /expiry that is in the future .*: taken over/],
        ['an expiry of the wrong type', { exp: 'tomorrow' }, /expiry that is not a time \("tomorrow"\): taken over/],
        ['a marker from the future', { exp: 0, at: 9e15 }, /cycle marker is in the future \(9000000000000000\): ignored/],
        ['a marker of the wrong type', { exp: 0, at: 'x' }, /cycle marker is not a time/],
        ['a tick from the future', { exp: 0, tick: 9e15 }, /last tick is in the future .*: replaced/],
      ])('%s is repaired with a warning, never obeyed', async (_what, attrs, warning) => {
        const s = `bad-${cluster()}`;
        await store.doc.send(new PutCommand({ TableName: 'shpa-test', Item: { ...shardCycleKey(s), owner: 'ghost', ...attrs } }));
        const got = await store.acquireShard(s, { owner: 'me', now: at(100), leaseMs: 30_000, tick: at(100) });
        expect(got.outcome).toBe('acquired');
        expect(got.outcome === 'acquired' && got.markerMs).toBeFalsy();
        expect(got.outcome === 'acquired' && got.warnings.join('\n')).toMatch(warning);
        await store.releaseShard(s, 'me', { markerMs: at(100).getTime() });
        expect((await store.readShardCycle(s))?.at).toBe(at(100).getTime());
      });
    });

    it('Kubernetes-object autoscalers: state only, with the spec kept for display; apply refuses their name; expired when gone', async () => {
      const c = cluster();
      const record: AutoscalerRecord = {
        cluster: c,
        namespace: 'apps',
        name: 'api',
        source: 'cluster',
        hpa: { ...hpa('api', 'apps'), metadata: { name: 'api', namespace: 'apps', uid: 'uid-1', generation: 3, creationTimestamp: '2026-01-02T03:04:05Z' } },
        specVersion: '3',
        history: hist([]),
        version: 0,
        createdAt: '',
        updatedAt: '',
      };
      expect(await save(store, record, { status: status(2, 40), history: hist([[2, 0]]) }, at(0))).toBe(1);
      const snap = await store.loadShard(whole(c), { now: at(1) });
      expect(snap.autoscalers).toEqual([]);
      expect(snap.clusterStates).toHaveLength(1);
      expect(snap.clusterStates[0]).toMatchObject({ namespace: 'apps', name: 'api', uid: 'uid-1', version: 1, lastSpec: record.hpa.spec });
      expect((await store.loadCluster(c)).autoscalers.map((a) => [a.name, a.source])).toEqual([['api', 'cluster']]);
      // AGE and CreationTimestamp are the object's, not the last state write's.
      expect((await store.loadCluster(c)).autoscalers[0].hpa.metadata.creationTimestamp).toBe('2026-01-02T03:04:05Z');
      await expect(store.applySpec(c, hpa('api', 'apps'), at(2))).rejects.toThrow(/apps\/api is a ServerlessHorizontalPodAutoscaler object in cluster .*: change it there/);
      await store.expireState(c, snap.clusterStates[0], at(3));
      expect((await store.loadShard(whole(c), { now: at(3 + 3600) })).clusterStates).toEqual([]);
      expect(await store.applySpec(c, hpa('api', 'apps'), at(3 + 3600))).toBe('created');
    });

    it('delete removes spec and state; a re-created autoscaler starts afresh', async () => {
      const c = cluster();
      const rec = await created(c);
      const version = await save(store, rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0));
      expect(await store.deleteSpec(c, KIND_HPA, 'default', 'web')).toBe(true);
      expect(await store.deleteSpec(c, KIND_HPA, 'default', 'web')).toBe(false);
      expect(await store.getAutoscaler(c, 'default', 'web')).toBeUndefined();
      await expect(save(store, { ...rec, version }, { status: status(4, 60), history: hist([[4, 15]]) }, at(15))).rejects.toBeInstanceOf(VersionConflictError);
      const again = await created(c);
      expect(again.hpa.status).toBeUndefined();
      expect(again.history.recommendations).toBeNull();
      expect(await store.deleteSpec(c, KIND_CLOUDWATCH, 'default', 'nothing')).toBe(false);
    });

    it('clusters: add, list, configure, remove', async () => {
      const name = cluster();
      expect(await store.putCluster({ name, region: 'eu-west-1', shards: 1, managedBy: 'cli' }, at(0))).toBe('created');
      expect(await store.putCluster({ name, region: 'eu-west-1', shards: 1, managedBy: 'cli' }, at(1))).toBe('unchanged');
      expect(await store.putCluster({ name, region: 'eu-west-1', shards: 4, roleArn: 'arn:aws:iam::123456789012:role/x', managedBy: 'stack' }, at(2))).toBe('configured');
      expect(await store.getCluster(name)).toEqual({ name, region: 'eu-west-1', shards: 4, roleArn: 'arn:aws:iam::123456789012:role/x', managedBy: 'stack' });
      expect((await store.listClusters()).map((x) => x.name)).toContain(name);
      expect(await store.removeCluster(name)).toBe(true);
      expect(await store.removeCluster(name)).toBe(false);
    });

    describe('faults', () => {
      it('throttling is retried with backoff', async () => {
        const c = cluster();
        const s = storeVia(proxy.endpoint);
        await created(c);
        const [rec] = await load(c, at(0), s);
        const before = proxy.calls.UpdateItem ?? 0;
        proxy.inject('UpdateItem', 'throttle', 2);
        const started = Date.now();
        expect(await save(s, rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0))).toBe(1);
        expect((proxy.calls.UpdateItem ?? 0) - before).toBe(3);
        expect(Date.now() - started).toBeGreaterThan(50);
      });

      it('a write lost on the way leaves the previous state intact', async () => {
        const c = cluster();
        const s = storeVia(proxy.endpoint, 1);
        const rec = await created(c);
        expect(await save(store, rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0))).toBe(1);
        const [v1] = await load(c, at(1));
        await load(c, at(1), s);
        proxy.inject('UpdateItem', 'dropRequest', 2);
        await expect(save(s, v1, { status: status(8, 99), history: hist([[3, 0], [8, 15]]) }, at(15))).rejects.toThrow();
        const [still] = await load(c, at(16));
        expect(still.version).toBe(1);
        expect(still.hpa.status).toEqual(v1.hpa.status);
        expect(still.history).toEqual(v1.history);
      });

      it('a write whose answer was lost is recognized on retry, not reported as a conflict', async () => {
        const c = cluster();
        const s = storeVia(proxy.endpoint);
        await created(c);
        const [rec] = await load(c, at(0), s);
        await save(s, rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0));
        const [v1] = await load(c, at(1), s);
        proxy.inject('UpdateItem', 'dropResponse', 1);
        expect(await save(s, v1, { status: status(5, 90), history: hist([[3, 0], [5, 15]]) }, at(15))).toBe(2);
        const [now] = await load(c, at(16));
        expect(now.version).toBe(2);
        expect(now.hpa.status?.desiredReplicas).toBe(5);
      });
    });
  });
}

function hist(pairs: [number, number][]): ScalingHistory {
  return { recommendations: pairs.length ? pairs.map(([replicas, s]) => ({ replicas, timestamp: at(s).toISOString() })) : null, scaleUpEvents: [], scaleDownEvents: [] };
}
