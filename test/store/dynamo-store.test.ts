// The same suite against dynalite and AWS's DynamoDB Local, over HTTP with the real SDK.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScalingHistory, TimestampedRecommendation } from '../../lib/hpa/types.js';
import type { CloudWatchMetric } from '../../lib/metrics/cloudwatch-types.js';
import { createDynamoStore, DynamoStore, ensureTable, KIND_CLOUDWATCH, KIND_HPA } from '../../lib/store/index.js';
import { VersionConflictError, type AutoscalerRecord } from '../../lib/sync/ports.js';
import { dynamoDbLocalUnavailable, startDynalite, startDynamoDbLocal, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { startFaultProxy, type FaultProxy } from '../support/dynamo-faults.js';
import { hpa, status } from './fixtures.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000);

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
    const storeVia = (endpoint: string, maxAttempts = 6) =>
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

    async function created(c: string, name = 'web'): Promise<AutoscalerRecord> {
      expect(await store.applySpec(c, hpa(name), at(0))).toBe('created');
      return (await store.loadCluster(c)).autoscalers.find((a) => a.name === name)!;
    }

    it('ensureTable is idempotent', async () => {
      expect(await ensureTable(store.client, 'shpa-test')).toBe('exists');
    });

    it('apply: created, unchanged, configured; never touches state', async () => {
      const c = cluster();
      const rec = await created(c);
      expect(rec.version).toBe(0);
      expect(rec.history.recommendations).toBeNull();
      const v1 = await store.saveState(rec, { status: status(3, 55), history: { recommendations: [{ replicas: 3, timestamp: at(15).toISOString() }], scaleUpEvents: [], scaleDownEvents: [] } }, at(15));
      expect(v1).toBe(1);
      expect(await store.applySpec(c, hpa('web'), at(20))).toBe('unchanged');
      expect(await store.applySpec(c, hpa('web', 'default', 20), at(30))).toBe('configured');
      const after = (await store.loadCluster(c)).autoscalers[0];
      expect(after.hpa.spec.maxReplicas).toBe(20);
      expect(after.hpa.metadata.generation).toBe(2);
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

    it('loads specs, states and CloudWatchMetric objects of a cluster in one Query', async () => {
      const c = cluster();
      const metric: CloudWatchMetric = {
        apiVersion: 'shpa.dev/v1',
        kind: 'CloudWatchMetric',
        metadata: { name: 'queue', namespace: 'default' },
        spec: { queries: [{ id: 'q', metricStat: { metric: { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' }, period: 60, stat: 'Sum' } }] },
      };
      const viaProxy = storeVia(proxy.endpoint);
      for (const name of ['a', 'b', 'c']) await viaProxy.applySpec(c, hpa(name), at(0));
      await viaProxy.applySpec(c, metric, at(0));
      await viaProxy.applySpec(cluster(), hpa('elsewhere'), at(0));
      const before = { ...proxy.calls };
      const snap = await viaProxy.loadCluster(c);
      expect((proxy.calls.Query ?? 0) - (before.Query ?? 0)).toBe(1);
      expect(proxy.calls.GetItem ?? 0).toBe(before.GetItem ?? 0);
      expect(snap.autoscalers.map((a) => a.name).sort()).toEqual(['a', 'b', 'c']);
      expect(snap.cloudWatchMetrics.map((m) => m.metadata.name)).toEqual(['queue']);
      expect(snap.broken).toEqual([]);
    });

    it('pages through a cluster larger than one Query page', async () => {
      const c = cluster();
      const big = 'x'.repeat(20_000);
      for (let i = 0; i < 60; i++) {
        const h = hpa(`w${i}`);
        h.metadata.annotations = { note: big };
        await store.applySpec(c, h, at(0));
      }
      const snap = await store.loadCluster(c);
      expect(snap.autoscalers).toHaveLength(60);
    });

    it('reports an undecodable item as broken and still loads the rest', async () => {
      const c = cluster();
      await store.applySpec(c, hpa('good'), at(0));
      await store.doc.send(new PutCommand({ TableName: 'shpa-test', Item: { pk: `c#${c}`, sk: 'hpa#default#bad', kind: KIND_HPA, doc: '{not json', v: 1, ct: 'x', ut: 'x' } }));
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

    it('an undecodable state is named, from the Query and from a single read alike', async () => {
      const c = cluster();
      const rec = await created(c);
      await store.doc.send(new PutCommand({ TableName: 'shpa-test', Item: { pk: `c#${c}`, sk: 'st#default#web', uid: rec.hpa.metadata.uid, v: 3, st: '{oops' } }));
      const snap = await store.loadCluster(c);
      expect(snap.autoscalers).toEqual([]);
      expect(snap.broken).toEqual([{ cluster: c, namespace: 'default', name: 'web', error: expect.stringMatching(/^stored state of default\/web cannot be read: /) }]);
      await expect(store.getAutoscaler(c, 'default', 'web')).rejects.toThrow(/^stored state of default\/web cannot be read: /);
    });

    it('a stale version is a VersionConflictError and overwrites nothing', async () => {
      const c = cluster();
      const rec = await created(c);
      const first = { status: status(2, 50), history: hist([[2, 15]]) };
      expect(await store.saveState(rec, first, at(15))).toBe(1);
      // A second writer still holding version 0.
      const other = storeVia(db.endpoint);
      const stale = (await other.loadCluster(c)).autoscalers[0];
      await store.saveState(stale, { status: status(4, 90), history: hist([[2, 15], [4, 30]]) }, at(30));
      await expect(other.saveState(stale, { status: status(9, 99), history: hist([[9, 30]]) }, at(30))).rejects.toBeInstanceOf(VersionConflictError);
      await expect(other.saveState(rec, { status: status(9, 99), history: hist([[9, 30]]) }, at(30))).rejects.toBeInstanceOf(VersionConflictError);
      const now = (await store.loadCluster(c)).autoscalers[0];
      expect(now.version).toBe(2);
      expect(now.hpa.status?.desiredReplicas).toBe(4);
    });

    it('a cycle with nothing material writes nothing; the unchanged recommendation stays in the window', async () => {
      const c = cluster();
      let rec = await created(c);
      await store.saveState(rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0));
      const writes = store.writes;
      for (let i = 1; i <= 3; i++) {
        rec = (await store.loadCluster(c)).autoscalers[0];
        const h = structuredClone(rec.history);
        h.recommendations!.push({ replicas: 3, timestamp: at(15 * i).toISOString() });
        // Utilization drifts by a point: not significant, not old enough.
        expect(await store.saveState(rec, { status: status(3, 60 + (i % 2)), history: h }, at(15 * i))).toBe(rec.version);
      }
      // Only the per-cycle cluster marker was written.
      expect(store.writes - writes).toBe(3);
      rec = (await store.loadCluster(c)).autoscalers[0];
      expect(rec.history.recommendations).toEqual([{ replicas: 3, timestamp: at(45).toISOString() }]);
    });

    it('keeps stabilization exact to an every-cycle history at a steady cadence', async () => {
      const c = cluster();
      let rec = await created(c);
      const window = 300;
      const values = [5, 5, 5, 7, 7, 4, 4, 4, 4, 6, 3, 3, 3];
      const reference: TimestampedRecommendation[] = [];
      let writes = 0;
      for (let i = 0; i < 120; i++) {
        const now = at(15 * i);
        const cutoff = now.getTime() - window * 1000;
        // What upstream's max over (now - window, now] sees, from every cycle's entry.
        const want = Math.max(0, ...reference.filter((r) => Date.parse(r.timestamp) > cutoff).map((r) => r.replicas));
        const got = Math.max(0, ...(rec.history.recommendations ?? []).filter((r) => Date.parse(r.timestamp) > cutoff).map((r) => r.replicas));
        expect(got, `cycle ${i}`).toBe(want);
        const value = values[Math.floor(i / 9) % values.length];
        reference.push({ replicas: value, timestamp: now.toISOString() });
        const h = structuredClone(rec.history);
        h.recommendations = [...(h.recommendations ?? []), { replicas: value, timestamp: now.toISOString() }];
        const before = store.writes;
        await store.saveState(rec, { status: status(3, 60), history: h }, now);
        writes += store.writes - before - 1;
        rec = (await store.loadCluster(c)).autoscalers[0];
        expect(rec.history.recommendations!.length).toBeLessThanOrEqual(values.length);
      }
      // One write per change of value (plus the first), not one per cycle.
      expect(writes).toBeLessThan(20);
    });

    it('leases: one owner at a time, taken over after expiry', async () => {
      const name = `sync-${cluster()}`;
      expect(await store.acquireLease(name, 'a', at(0), 60)).toBe(true);
      expect(await store.acquireLease(name, 'b', at(30), 60)).toBe(false);
      expect(await store.acquireLease(name, 'a', at(30), 60)).toBe(true);
      expect(await store.acquireLease(name, 'b', at(91), 60)).toBe(true);
      await store.releaseLease(name, 'a');
      expect(await store.acquireLease(name, 'a', at(100), 60)).toBe(false);
      await store.releaseLease(name, 'b');
      expect(await store.acquireLease(name, 'a', at(100), 60)).toBe(true);
    });

    it('delete removes spec and state; a re-created autoscaler starts afresh', async () => {
      const c = cluster();
      const rec = await created(c);
      const version = await store.saveState(rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0));
      expect(await store.deleteSpec(c, KIND_HPA, 'default', 'web')).toBe(true);
      expect(await store.deleteSpec(c, KIND_HPA, 'default', 'web')).toBe(false);
      expect(await store.getAutoscaler(c, 'default', 'web')).toBeUndefined();
      await expect(store.saveState({ ...rec, version }, { status: status(4, 60), history: hist([[4, 15]]) }, at(15))).rejects.toBeInstanceOf(VersionConflictError);
      const again = await created(c);
      expect(again.hpa.status).toBeUndefined();
      expect(again.history.recommendations).toBeNull();
      expect(await store.deleteSpec(c, KIND_CLOUDWATCH, 'default', 'nothing')).toBe(false);
    });

    it('clusters: add, list, configure, remove', async () => {
      const name = cluster();
      expect(await store.putCluster({ name, region: 'eu-west-1' }, at(0))).toBe('created');
      expect(await store.putCluster({ name, region: 'eu-west-1' }, at(1))).toBe('unchanged');
      expect(await store.putCluster({ name, region: 'eu-west-1', roleArn: 'arn:aws:iam::123456789012:role/x' }, at(2))).toBe('configured');
      expect(await store.getCluster(name)).toEqual({ name, region: 'eu-west-1', roleArn: 'arn:aws:iam::123456789012:role/x' });
      expect((await store.listClusters()).map((x) => x.name)).toContain(name);
      expect(await store.removeCluster(name)).toBe(true);
      expect(await store.removeCluster(name)).toBe(false);
    });

    it('parallel saves of one cycle write the cycle marker once', async () => {
      const c = cluster();
      const names = ['a', 'b', 'c', 'd', 'e'];
      for (const name of names) await created(c, name);
      const counting = storeVia(db.endpoint);
      let markerPuts = 0;
      counting.doc.middlewareStack.add(
        (next, context) => async (args) => {
          // the document client's put, with its plain (unmarshalled) item
          const item = (args.input as { Item?: { sk?: unknown } }).Item;
          if (context.commandName === 'PutItemCommand' && item?.sk === 'cycle') markerPuts++;
          return next(args);
        },
        { step: 'initialize' },
      );
      const { autoscalers } = await counting.loadCluster(c);
      const history = { recommendations: [{ replicas: 3, timestamp: at(15).toISOString() }], scaleUpEvents: [], scaleDownEvents: [] };
      const versions = await Promise.all(autoscalers.map((rec) => counting.saveState(rec, { status: status(3, 55), history }, at(15))));
      expect(versions).toEqual(names.map(() => 1));
      expect(markerPuts).toBe(1);
    });

    describe('faults', () => {
      it('throttling is retried with backoff', async () => {
        const c = cluster();
        const s = storeVia(proxy.endpoint);
        const rec = await created(c);
        const before = proxy.calls.PutItem ?? 0;
        proxy.inject('PutItem', 'throttle', 3);
        const started = Date.now();
        // 3 throttled marker puts, then the marker and the state.
        expect(await s.saveState(rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0))).toBe(1);
        expect((proxy.calls.PutItem ?? 0) - before).toBe(5);
        expect(Date.now() - started).toBeGreaterThan(50);
      });

      it('a write lost on the way leaves the previous state intact', async () => {
        const c = cluster();
        const s = storeVia(proxy.endpoint, 1);
        const rec = await created(c);
        expect(await store.saveState(rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0))).toBe(1);
        const v1 = (await store.loadCluster(c)).autoscalers[0];
        await s.loadCluster(c);
        proxy.inject('PutItem', 'dropRequest', 2);
        await expect(s.saveState(v1, { status: status(8, 99), history: hist([[3, 0], [8, 15]]) }, at(15))).rejects.toThrow();
        const still = (await store.loadCluster(c)).autoscalers[0];
        expect(still.version).toBe(1);
        expect(still.hpa.status).toEqual(v1.hpa.status);
        expect(still.history).toEqual(v1.history);
      });

      it('a write whose answer was lost is recognized on retry, not reported as a conflict', async () => {
        const c = cluster();
        const s = storeVia(proxy.endpoint);
        const rec = await created(c);
        await s.loadCluster(c);
        await s.saveState(rec, { status: status(3, 60), history: hist([[3, 0]]) }, at(0));
        const v1 = (await s.loadCluster(c)).autoscalers[0];
        proxy.inject('PutItem', 'dropResponse', 1);
        expect(await s.saveState(v1, { status: status(5, 90), history: hist([[3, 0], [5, 15]]) }, at(15))).toBe(2);
        const now = (await store.loadCluster(c)).autoscalers[0];
        expect(now.version).toBe(2);
        expect(now.hpa.status?.desiredReplicas).toBe(5);
      });
    });
  });
}

function hist(pairs: [number, number][]): ScalingHistory {
  return { recommendations: pairs.map(([replicas, s]) => ({ replicas, timestamp: at(s).toISOString() })), scaleUpEvents: [], scaleDownEvents: [] };
}
