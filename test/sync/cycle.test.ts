// One shard cycle with the real lib/hpa and the real store (dynalite over HTTP), and an
// in-memory cluster whose calls can hang or fail: what is read, what is written in which
// order, and what is never acted on (issue: stale, invalid or half-known data).
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler, MetricSpec } from '../../lib/hpa/types.js';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../lib/store/index.js';
import { bucketPk } from '../../lib/store/items.js';
import type { SyncOptions } from '../../lib/sync/config.js';
import { runShardCycle, type CycleTrigger } from '../../lib/sync/cycle.js';
import { ClusterApiError, type ClusterConfig } from '../../lib/sync/ports/cluster-access.js';
import type { AutoscalerStore } from '../../lib/sync/ports/autoscaler-store.js';
import type { CycleReport } from '../../lib/sync/report.js';
import { bucketOf } from '../../lib/sync/shards.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { FakeCluster, FakeMetrics, fixedClock } from './fakes.js';

const NOW = '2026-03-01T12:00:00.000Z';
const CLUSTER: ClusterConfig = { name: 'prod', region: 'eu-west-1', shards: 1 };
const options: SyncOptions = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 300, clusterBudgetMs: 8_000, sources: { table: true, cluster: true }, decisionLogSeconds: 300 };

const jobs = (name = 'jobs', averageValue = '10'): MetricSpec => ({ type: 'External', external: { metric: { name }, target: { type: 'AverageValue', averageValue } } });
const cpu: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } };

function hpa(name: string, namespace = 'apps', spec: Partial<HorizontalPodAutoscaler['spec']> = {}, annotations?: Record<string, string>): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: 1, maxReplicas: 30, metrics: [jobs()], ...spec },
  };
}

const cwm = (name: string, namespace = 'apps', alarmName?: string): CloudWatchMetric => ({
  apiVersion: 'shpa.dev/v1',
  kind: 'CloudWatchMetric',
  metadata: { name, namespace },
  spec: {
    queries: [{ id: 'q', metricStat: { metric: { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' }, period: 60, stat: 'Average' }, returnData: true }],
    ...(alarmName ? { alarmName } : {}),
  },
});

let db: DynamoServer;
let store: DynamoStore;
let cluster: FakeCluster;
let metrics: FakeMetrics;
let clock: ReturnType<typeof fixedClock>;
let table = 0;
let markerMs: number | undefined;

beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db?.stop();
});
beforeEach(async () => {
  store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: `cycle-${++table}` });
  await ensureTable(store.client, store.tableName);
  cluster = new FakeCluster();
  metrics = new FakeMetrics(cluster);
  clock = fixedClock(NOW);
  markerMs = undefined;
});

/** One cycle as the worker runs it (the marker carried from one tick to the next). */
async function cycle(opts: { trigger?: CycleTrigger; options?: Partial<SyncOptions>; deadlineMs?: number; store?: AutoscalerStore; config?: ClusterConfig; first?: string[] } = {}): Promise<CycleReport> {
  const now = clock.now();
  const trigger = opts.trigger ?? { kind: 'tick', tick: now };
  const report = await runShardCycle(
    { store: opts.store ?? store, cluster, metrics, clock },
    {
      shard: { cluster: 'prod', index: 0, count: 1 },
      cluster: opts.config ?? CLUSTER,
      trigger,
      deadline: new Date(now.getTime() + (opts.deadlineMs ?? 5_000)),
      markerMs,
      ...(opts.first ? { first: opts.first } : {}),
      periodSeconds: 15,
      options: { ...options, ...opts.options },
    },
  );
  if (trigger.kind === 'tick') markerMs = now.getTime();
  return report;
}

const one = (r: CycleReport, name: string) => r.autoscalers.find((a) => a.name === name)!;
const stored = async (name: string, namespace = 'apps') => (await store.getAutoscaler('prod', namespace, name))!;

async function applyAll(...objects: (HorizontalPodAutoscaler | CloudWatchMetric)[]) {
  for (const o of objects) await store.applySpec('prod', o, clock.now());
}

describe('one tick', () => {
  it('reads each scale once, each namespace pods once, and CloudWatch in one fetch for the whole shard', async () => {
    await applyAll(cwm('queue'), hpa('a', 'apps', { metrics: [cpu] }), hpa('b', 'apps', { metrics: [cpu, jobs('queue')] }), hpa('c', 'jobs', { metrics: [jobs('queue', '5')] }));
    for (const [ns, n] of [['apps', 'a'], ['apps', 'b'], ['jobs', 'c']]) cluster.addTarget(ns, n, 2);
    cluster.external.set('jobs/queue', 10);
    metrics.cloudWatch.set('queue', 40);
    const r = await cycle();
    expect(r.counts.autoscalers).toBe(3);
    // apps' two Deployments in one list, jobs' one on its own
    expect(cluster.log.count('listScales', 'apps/Deployment')).toBe(1);
    expect(cluster.log.count('getScale')).toBe(1);
    expect(cluster.log.count('listPods')).toBe(1);
    expect(cluster.log.count('listPodMetrics')).toBe(1);
    // One CloudWatch fetch carried b's query (apps/queue); c reads jobs/queue, which is no CloudWatchMetric there: the external metrics API.
    expect(metrics.received.filter((q) => q.some((x) => x.type === 'CloudWatch'))).toHaveLength(1);
    expect(cluster.log.count('getExternalMetric', 'jobs/queue')).toBe(1);
    expect(one(r, 'c').desiredReplicas).toBe(2);
    expect(r.calls).toMatchObject({ loadShard: 1, listAutoscalerObjects: 1, listScales: 1, getScale: 1, listPods: 1 });
  });

  it('records the scale as pending before it writes /scale with the resourceVersion read, and confirms it next cycle', async () => {
    await applyAll(hpa('web'));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 40);
    const r = await cycle();
    expect(one(r, 'web')).toMatchObject({ outcome: 'scaled', patched: true, currentReplicas: 2, desiredReplicas: 4, stored: 'written' });
    expect(cluster.patches).toEqual([{ target: 'apps/Deployment/web', replicas: 4, resourceVersion: '1' }]);
    const after = await stored('web');
    expect(after.pending).toMatchObject({ from: 2, to: 4, resourceVersion: '1' });
    expect(after.hpa.status?.lastScaleTime).toBe(NOW);
    expect(after.log?.map((e) => [e.reason, e.message, e.from, e.to])).toEqual([['SuccessfulRescale', 'New size: 4; reason: external metric jobs(nil) above target', 2, 4]]);
    clock.advance(15_000);
    const next = await cycle();
    expect(one(next, 'web').warnings).toEqual([]);
    const settled = await stored('web');
    expect(settled.pending).toBeUndefined();
    expect(settled.hpa.status?.lastScaleTime).toBe(NOW);
  });

  it('writes nothing when nothing changed, and logs no line for a quiet autoscaler', async () => {
    await applyAll(hpa('web'));
    cluster.addTarget('apps', 'web', 3);
    cluster.external.set('apps/jobs', 30);
    await cycle();
    clock.advance(15_000);
    await cycle();
    const writes = store.writes;
    clock.advance(15_000);
    const r = await cycle();
    expect(store.writes).toBe(writes);
    expect(one(r, 'web')).toMatchObject({ outcome: 'unchanged', stored: 'unchanged', notable: false });
  });

  it('dry-run (annotation or global) decides and stores, never writes /scale nor records a scale event', async () => {
    await applyAll(hpa('web', 'apps', {}, { 'shpa.dev/dry-run': 'true' }), hpa('api'));
    cluster.addTarget('apps', 'web', 2);
    cluster.addTarget('apps', 'api', 2);
    cluster.external.set('apps/jobs', 80);
    const r = await cycle();
    // No behavior: upstream's legacy limit, max(2 × 2, 4).
    expect(one(r, 'web')).toMatchObject({ outcome: 'dryRun', patched: false, desiredReplicas: 4 });
    expect(one(r, 'api')).toMatchObject({ outcome: 'scaled', patched: true });
    expect((await stored('web')).history.scaleUpEvents).toEqual([]);
    expect((await stored('web')).hpa.status?.conditions?.find((c) => c.type === 'AbleToScale')?.reason).toBe('DryRun');
    clock.advance(15_000);
    const global = await cycle({ options: { dryRun: true } });
    expect(global.autoscalers.every((a) => !a.patched)).toBe(true);
  });
});

describe('races with people (issue item 7)', () => {
  it('a kubectl scale between our read and our write is a conflict: not overwritten, evaluated again at once', async () => {
    await applyAll(hpa('web'));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 60);
    cluster.afterGetScale = () => {
      cluster.afterGetScale = undefined;
      cluster.scaleByHand('apps', 'web', 4);
    };
    const r = await cycle();
    expect(one(r, 'web')).toMatchObject({ outcome: 'failed', patched: false, retrySoon: true });
    expect(one(r, 'web').errors[0]).toMatchObject({ stage: 'updateScale', message: expect.stringMatching(/the object has been modified/) });
    expect(cluster.replicas('apps', 'web')).toBe(4);
    const after = await stored('web');
    expect(after.history.scaleUpEvents).toEqual([]);
    expect(after.pending).toBeUndefined();
    expect(after.hpa.status?.conditions?.find((c) => c.type === 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedUpdateScale' });
    expect(after.log?.map((e) => e.reason)).toEqual(['FailedRescale']);
  });

  it('an apply between the load and the write is detected: the old spec is not acted on', async () => {
    await applyAll(hpa('web'));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 60);
    const racing: AutoscalerStore = {
      ...bind(store),
      specVersions: async (c, list, signal) => {
        await store.applySpec('prod', hpa('web', 'apps', { maxReplicas: 3 }), clock.now());
        return store.specVersions(c, list, signal);
      },
    };
    const r = await cycle({ store: racing });
    expect(one(r, 'web')).toMatchObject({ outcome: 'conflict', patched: false, retrySoon: true });
    expect(one(r, 'web').errors[0].message).toMatch(/the spec changed since it was read \(version 1, now 2\)/);
    expect(cluster.patches).toEqual([]);
    expect((await stored('web')).version).toBe(0);
  });

  it('a state write that lost a race: nothing written to the target', async () => {
    await applyAll(hpa('web'));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 60);
    const racing: AutoscalerStore = {
      ...bind(store),
      saveState: async (record, update, now, opts) => {
        const [rival] = (await store.loadShard({ cluster: 'prod', index: 0, count: 1 }, { now })).autoscalers;
        await store.saveState(rival, update, now, opts);
        return store.saveState(record, update, now, opts);
      },
    };
    const r = await cycle({ store: racing });
    expect(one(r, 'web')).toMatchObject({ outcome: 'conflict', stored: 'conflict', patched: false });
    expect(cluster.patches).toEqual([]);
  });
});

describe('lost answers (issue item 6)', () => {
  it("a /scale write whose answer was lost stays pending, and the next cycle finds that it happened", async () => {
    // With a behavior, upstream records scale events (the rate limits read them).
    await applyAll(hpa('web', 'apps', { behavior: {} }));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 60);
    cluster.loseNextPatchAnswer = true;
    const r = await cycle();
    expect(one(r, 'web').warnings[0]).toMatch(/the answer to the scale write was lost/);
    expect(cluster.replicas('apps', 'web')).toBe(6);
    expect((await stored('web')).pending).toMatchObject({ to: 6 });
    clock.advance(15_000);
    await cycle();
    const after = await stored('web');
    expect(after.pending).toBeUndefined();
    expect(after.history.scaleUpEvents).toHaveLength(1);
    expect(after.hpa.status?.lastScaleTime).toBeDefined();
  });

  it('a state write whose answer was lost: the target was never written, and the next cycle takes the scale event out', async () => {
    await applyAll(hpa('web', 'apps', { behavior: {} }));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 60);
    let lose = true;
    const losing: AutoscalerStore = {
      ...bind(store),
      saveState: async (record, update, now, opts) => {
        const v = await store.saveState(record, update, now, opts);
        if (lose) {
          lose = false;
          throw new Error('TimeoutError: socket hang up');
        }
        return v;
      },
    };
    const r = await cycle({ store: losing });
    expect(one(r, 'web')).toMatchObject({ outcome: 'failed', patched: false });
    expect((await stored('web')).history.scaleUpEvents).toHaveLength(1);
    expect((await stored('web')).hpa.status?.desiredReplicas).toBe(6); // the table says "scaled"...
    expect(cluster.replicas('apps', 'web')).toBe(2); // ...the workload does not
    cluster.external.set('apps/jobs', 20);
    // Too early to tell: a cycle that outlived its lease could still be writing it (lease, then the Kubernetes time budget).
    clock.advance(15_000);
    const early = await cycle();
    expect(one(early, 'web')).toMatchObject({ outcome: 'skipped', stored: 'skipped', patched: false });
    expect(one(early, 'web').warnings.join()).toMatch(/the rescale to 6 decided at .* may still be in flight/);
    expect((await stored('web')).pending).toMatchObject({ to: 6 });
    clock.advance(30_000);
    const next = await cycle();
    expect(one(next, 'web').warnings.join()).toMatch(/the rescale to 6 decided at .* never reached Deployment\/web/);
    const after = await stored('web');
    expect(after.history.scaleUpEvents).toEqual([]);
    expect(after.hpa.status?.lastScaleTime).toBeUndefined();
    expect(after.log?.map((e) => e.reason)).toContain('ScaleNotApplied');
  });
});

describe('never act on invalid or untrusted data (issue items 2, 3, 4)', () => {
  /** A spec item written by another tool or by hand: not validated by apply. */
  async function putRawSpec(name: string, spec: Record<string, unknown>) {
    const doc = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name, namespace: 'apps', uid: `uid-${name}`, generation: 1 }, spec };
    await store.applySpec('prod', hpa(name), clock.now()); // registers the bucket
    await store.doc.send(
      new PutCommand({ TableName: store.tableName, Item: { pk: bucketPk('prod', bucketOf('apps')), sk: `hpa#apps#${name}`, kind: 'HorizontalPodAutoscaler', doc: JSON.stringify(doc), v: 7, ct: NOW, ut: NOW } }),
    );
  }
  const base = { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10, metrics: [jobs()] };

  it.each([
    ['maxReplicas: 0', { ...base, maxReplicas: 0 }, /spec\.maxReplicas: Invalid value: 0: must be greater than 0/],
    ['minReplicas 10 > maxReplicas 3', { ...base, minReplicas: 10, maxReplicas: 3 }, /spec\.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`/],
    ['averageUtilization: 0', { ...base, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } }] }, /averageUtilization: Invalid value: 0: must be greater than 0/],
    ['maxReplicas: "10"', { ...base, maxReplicas: '10' }, /spec\.maxReplicas/],
  ])('%s is never acted on, and its status says why until fixed', async (_what, spec, message) => {
    await putRawSpec('web', spec);
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 60);
    const r = await cycle();
    expect(one(r, 'web').outcome).toBe('invalid');
    expect(one(r, 'web').errors[0].message).toMatch(message);
    expect(cluster.patches).toEqual([]);
    expect(cluster.log.count('getScale')).toBe(0);
    const after = await stored('web');
    expect(after.hpa.status?.conditions?.find((c) => c.type === 'ScalingActive')).toMatchObject({ status: 'False', reason: 'InvalidSpec', message: expect.stringMatching(message) });
    expect(after.log?.[0]).toMatchObject({ type: 'Warning', reason: 'InvalidSpec' });
    // Fixed: acted on.
    await store.applySpec('prod', hpa('web'), clock.now());
    clock.advance(15_000);
    expect(one(await cycle(), 'web').outcome).toBe('scaled');
  });

  it('a negative metric value (from a source that passes one) is a value, not an overflow: it asks for fewer replicas, never for maxReplicas', async () => {
    await applyAll(cwm('queue'), hpa('web', 'apps', { metrics: [jobs('queue')] }));
    cluster.addTarget('apps', 'web', 2);
    metrics.cloudWatch.set('queue', -50);
    for (let i = 0; i < 4; i++) {
      const r = await cycle();
      expect(one(r, 'web').decision?.metrics[0].proposal).toBeLessThan(1);
      // Held at 2 by the downscale stabilization window, never raised.
      expect(one(r, 'web').desiredReplicas).toBe(2);
      clock.advance(15_000);
    }
    expect(cluster.patches).toEqual([]);
  });

  it('a state that cannot be trusted: reported, the history starts empty, and what it held is held still, with conditions saying so', async () => {
    await applyAll(hpa('web'));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 20);
    await cycle();
    await store.doc.send(new PutCommand({ TableName: store.tableName, Item: { ...(await rawState('web')), st: JSON.stringify({ currentReplicas: 'two' }) } }));
    clock.advance(15_000);
    cluster.external.set('apps/jobs', 60);
    const r = await cycle();
    expect(one(r, 'web').warnings.join()).toMatch(/cannot be trusted: st\.currentReplicas must be an integer.*continuing from an empty history/);
    // Without a behavior the lost recommendations held scale-down (the 300 s window); scale-up reads no history.
    expect(one(r, 'web').warnings.join()).toMatch(/scale down held until 2026-03-01T12:05:15\.000Z/);
    expect(one(r, 'web').outcome).toBe('scaled');
    const after = await stored('web');
    expect(after.stateProblem).toBeUndefined();
    expect(after.holds).toEqual({ down: Date.parse('2026-03-01T12:05:15.000Z') });
    expect(after.hpa.status?.conditions?.find((c) => c.type === 'HistoryIntact')).toMatchObject({ status: 'False', reason: 'StateReset' });
    expect(after.log?.map((e) => e.reason)).toEqual(expect.arrayContaining(['HistoryReset', 'HistoryUntrusted']));
  });
});

describe('a history that cannot be trusted never loosens a limit (issue 22)', () => {
  // Scale up by at most 2 pods a minute.
  const limited = () => hpa('web', 'apps', { behavior: { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } } });
  const T = Date.parse(NOW);
  it.each([
    ['a negative change added', (up: unknown[]) => JSON.stringify([...up, [T, -3]])],
    ['an event from the future added', (up: unknown[]) => JSON.stringify([...up, [T + 86_400_000, 1]])],
    ['a change that is not a number added', (up: unknown[]) => JSON.stringify([...up, [T, 'two']])],
    ['NaN: the list is not JSON', () => '[[NaN, 2]]'],
    ['the list is not a list', () => JSON.stringify({ t: T, change: 2 })],
  ])('%s: no more than the policy allows within its period, then scaling resumes', async (_what, corrupt) => {
    await applyAll(limited());
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 200);
    expect(one(await cycle(), 'web')).toMatchObject({ outcome: 'scaled', desiredReplicas: 4 });
    const raw = await rawState('web');
    await store.doc.send(new PutCommand({ TableName: store.tableName, Item: { ...raw, up: corrupt(JSON.parse(String(raw.up)) as unknown[]) } }));
    const reports = [];
    for (let t = 15; t <= 60; t += 15) {
      clock.advance(15_000);
      reports.push(one(await cycle(), 'web'));
    }
    // 4 pods since the 2 → 4 at 0 s, held for the policy's 60 s from when the loss was found (15 s).
    expect(cluster.patches.map((p) => p.replicas)).toEqual([4]);
    expect(reports[0].warnings.join()).toMatch(/^the stored history could not all be trusted \(scale-up events dropped \(.+\)\): scale up held until 2026-03-01T12:01:15\.000Z/);
    expect(reports.slice(1).every((r) => r.warnings.length === 0)).toBe(true);
    const held = await stored('web');
    expect(held.hpa.status?.conditions?.find((c) => c.type === 'ScalingLimited')).toMatchObject({ status: 'True', reason: 'HistoryUntrusted', message: expect.stringMatching(/^scale up held until 2026-03-01T12:01:15\.000Z/) });
    expect(held.hpa.status?.conditions?.find((c) => c.type === 'HistoryIntact')).toMatchObject({ status: 'False', reason: 'HistoryUntrusted' });
    expect(held.log?.filter((e) => e.reason === 'HistoryUntrusted')).toHaveLength(1);
    clock.advance(15_000);
    expect(one(await cycle(), 'web')).toMatchObject({ outcome: 'scaled', desiredReplicas: 6 });
  });
});

describe('one slow dependency holds up only what depends on it (issue items 8, 9)', () => {
  it('a hung pod-metrics list in one namespace skips only the autoscaler that needs it, naming what it waited for', async () => {
    await applyAll(cwm('queue'), hpa('cpu-bound', 'apps', { metrics: [cpu] }), hpa('queue-bound', 'apps', { metrics: [jobs('queue')] }), hpa('elsewhere', 'jobs'));
    for (const [ns, n] of [['apps', 'cpu-bound'], ['apps', 'queue-bound'], ['jobs', 'elsewhere']]) cluster.addTarget(ns, n, 2);
    metrics.cloudWatch.set('queue', 40);
    cluster.external.set('jobs/jobs', 40);
    cluster.log.hang.add('listPodMetrics apps');
    const r = await cycle({ deadlineMs: 1_000 });
    expect(one(r, 'cpu-bound')).toMatchObject({ outcome: 'skipped', patched: false });
    expect(one(r, 'cpu-bound').errors[0]).toMatchObject({ stage: 'deadline', message: expect.stringMatching(/the PodResource metric answered \(still waiting\)/) });
    expect(one(r, 'queue-bound')).toMatchObject({ outcome: 'scaled', desiredReplicas: 4 });
    expect(one(r, 'elsewhere')).toMatchObject({ outcome: 'scaled', desiredReplicas: 4 });
  });

  it("a failed read reaches the reconcile as upstream's error, and it is counted (a deleted target: FailedGetScale)", async () => {
    await applyAll(hpa('gone'));
    const r = await cycle();
    expect(one(r, 'gone').errors[0]).toMatchObject({ stage: 'reconcile', message: expect.stringMatching(/^FailedGetScale: .*deployments.apps "gone" not found/) });
    expect(r.counts.errors).toBe(1);
    expect((await stored('gone')).hpa.status?.conditions?.find((c) => c.type === 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedGetScale' });
  });
});

describe('evaluations between ticks', () => {
  it('evaluate only what the event names: an autoscaler, the readers of a CloudWatchMetric, of an alarm', async () => {
    await applyAll(cwm('queue', 'apps', 'queue-high'), hpa('a'), hpa('b', 'apps', { metrics: [jobs('queue')] }), hpa('c'));
    for (const n of ['a', 'b', 'c']) cluster.addTarget('apps', n, 2);
    cluster.external.set('apps/jobs', 20);
    metrics.cloudWatch.set('queue', 20);
    const names = (r: CycleReport) => r.autoscalers.map((a) => a.name);
    expect(names(await cycle({ trigger: { kind: 'evaluate', targets: [{ kind: 'hpa', namespace: 'apps', name: 'c' }], reason: 'evaluate-now' } }))).toEqual(['c']);
    expect(names(await cycle({ trigger: { kind: 'evaluate', targets: [{ kind: 'cwm', namespace: 'apps', name: 'queue' }], reason: 'spec change' } }))).toEqual(['b']);
    expect(names(await cycle({ trigger: { kind: 'evaluate', targets: [{ kind: 'alarm', alarmName: 'queue-high' }], reason: 'alarm queue-high ALARM' } }))).toEqual(['b']);
    expect(names(await cycle({ trigger: { kind: 'evaluate', targets: [{ kind: 'alarm', alarmName: 'other' }], reason: 'alarm other ALARM' } }))).toEqual([]);
  });
});

describe('autoscalers defined as Kubernetes objects', () => {
  const object = (name: string, generation = 1, namespace = 'apps') => ({
    metadata: { name, namespace, uid: `uid-${name}`, generation, creationTimestamp: NOW },
    spec: hpa(name, namespace).spec,
  });

  it('are evaluated, their state kept in the table, status and events written back only when they change', async () => {
    cluster.objects.push(object('api'));
    cluster.addTarget('apps', 'api', 2);
    cluster.external.set('apps/jobs', 40);
    const r = await cycle();
    expect(one(r, 'api')).toMatchObject({ source: 'cluster', outcome: 'scaled', patched: true, desiredReplicas: 4 });
    expect(cluster.statusWrites).toHaveLength(1);
    expect(cluster.statusWrites[0].status).toMatchObject({ currentReplicas: 2, desiredReplicas: 4, reference: 'Deployment/api', targets: 'jobs: 20/10 (avg)' });
    expect(cluster.events.map((e) => [e.involved.kind, e.entry.reason, e.entry.message])).toEqual([
      ['ServerlessHorizontalPodAutoscaler', 'SuccessfulRescale', 'New size: 4; reason: external metric jobs(nil) above target'],
    ]);
    expect(cluster.log.count('autoscalerGeneration')).toBe(1);
    clock.advance(15_000);
    const second = await cycle();
    clock.advance(15_000);
    const third = await cycle();
    expect(second.autoscalers[0].stored).toBe('written');
    expect(third.autoscalers[0].stored).toBe('unchanged');
    // The pending scale settled in the second cycle (one write); nothing changed in the third.
    expect(cluster.statusWrites).toHaveLength(2);
    expect(cluster.events).toHaveLength(1);
  });

  it('one source of truth: the object in the cluster wins over a table spec of the same name, which is refused', async () => {
    await applyAll(hpa('api'));
    cluster.objects.push(object('api'));
    cluster.addTarget('apps', 'api', 2);
    cluster.external.set('apps/jobs', 20);
    const r = await cycle();
    const both = r.autoscalers.filter((a) => a.name === 'api');
    expect(both.map((a) => [a.source, a.outcome])).toEqual(expect.arrayContaining([['table', 'failed'], ['cluster', 'unchanged']]));
    expect(both.find((a) => a.source === 'table')!.errors[0].message).toMatch(/defined twice.*the object in the cluster wins: remove the table's copy with "shpa delete hpa api -n apps --cluster prod"/);
  });

  it('the state of an object that is gone is left to expire', async () => {
    cluster.objects.push(object('api'));
    cluster.addTarget('apps', 'api', 2);
    cluster.external.set('apps/jobs', 30);
    await cycle();
    cluster.objects.length = 0;
    clock.advance(15_000);
    await cycle();
    const states = (await store.loadShard({ cluster: 'prod', index: 0, count: 1 }, { now: new Date(clock.now().getTime() + 3_700_000) })).clusterStates;
    expect(states).toEqual([]);
  });
});

it('an autoscaler outside the namespace allowlist is not acted on, and says why', async () => {
  await applyAll(hpa('coredns', 'kube-system'), hpa('web'));
  cluster.addTarget('kube-system', 'coredns', 2);
  cluster.addTarget('apps', 'web', 2);
  cluster.external.set('kube-system/jobs', 90);
  cluster.external.set('apps/jobs', 90);
  const r = await cycle({ config: { ...CLUSTER, namespaces: ['apps'] } });
  expect(one(r, 'coredns')).toMatchObject({ outcome: 'notAllowed', patched: false });
  expect(one(r, 'coredns').errors[0].message).toMatch(/namespace kube-system is not in the namespaces allowed for cluster prod \(apps\)/);
  expect(cluster.replicas('kube-system', 'coredns')).toBe(2);
  expect(one(r, 'web').outcome).toBe('scaled');
});

function bind(s: DynamoStore): AutoscalerStore {
  return {
    readIndex: s.readIndex.bind(s),
    recordBucketCounts: s.recordBucketCounts.bind(s),
    loadShard: s.loadShard.bind(s),
    saveState: s.saveState.bind(s),
    specVersions: s.specVersions.bind(s),
    expireState: s.expireState.bind(s),
    saveSharedAnswers: s.saveSharedAnswers.bind(s),
    acquireShard: s.acquireShard.bind(s),
    releaseShard: s.releaseShard.bind(s),
  };
}

async function rawState(name: string): Promise<Record<string, unknown>> {
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const r = await store.doc.send(new GetCommand({ TableName: store.tableName, Key: { pk: bucketPk('prod', bucketOf('apps')), sk: `st#apps#${name}` }, ConsistentRead: true }));
  return r.Item!;
}



describe('bulk scale reads', () => {
  it('reads a namespace\'s Deployments with one LIST when two or more autoscalers target them, and a lone target with GET /scale', async () => {
    await applyAll(hpa('web'), hpa('api'), hpa('cron', 'batch'));
    for (const [ns, name] of [['apps', 'web'], ['apps', 'api'], ['batch', 'cron']]) cluster.addTarget(ns, name, 2);
    cluster.external.set('apps/jobs', 90);
    cluster.external.set('batch/jobs', 90);
    const r = await cycle();
    expect(r.autoscalers.map((a) => [a.namespace, a.name, a.outcome])).toEqual([
      ['apps', 'api', 'scaled'],
      ['apps', 'web', 'scaled'],
      ['batch', 'cron', 'scaled'],
    ]);
    expect(cluster.log.count('listScales')).toBe(1);
    expect(cluster.log.count('listScales', 'apps/Deployment')).toBe(1);
    expect(cluster.log.calls.filter((c) => c.op === 'getScale').map((c) => c.arg)).toEqual(['batch/Deployment/cron']);
    expect(r.calls).toMatchObject({ listScales: 1, getScale: 1 });
    // The listed resourceVersion guards the write as GET /scale's does.
    expect(cluster.patches.filter((p) => p.target.startsWith('apps/'))).toEqual([
      { target: 'apps/Deployment/api', replicas: 4, resourceVersion: '1' },
      { target: 'apps/Deployment/web', replicas: 4, resourceVersion: '1' },
    ]);
  });

  it('a target missing from the list is read on its own, and says what GET /scale says', async () => {
    await applyAll(hpa('web'), hpa('gone'));
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 20);
    const r = await cycle();
    expect(cluster.log.count('listScales')).toBe(1);
    expect(cluster.log.calls.filter((c) => c.op === 'getScale').map((c) => c.arg)).toEqual(['apps/Deployment/gone']);
    expect(one(r, 'gone').conditions?.find((c) => c.type === 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedGetScale' });
    expect(one(r, 'gone').errors[0].message).toMatch(/deployments.apps "gone" not found/);
  });

  it('without RBAC list on workloads, reads each target with GET /scale, and does not ask to list again for a while', async () => {
    await applyAll(hpa('web'), hpa('api'));
    cluster.addTarget('apps', 'web', 2);
    cluster.addTarget('apps', 'api', 2);
    cluster.external.set('apps/jobs', 20);
    cluster.log.fail.set('listScales apps/Deployment', new ClusterApiError('deployments.apps is forbidden; missing RBAC permission: verb "list" on resource "deployments" in API group "apps" in namespace "apps" (see infra/rbac.yaml)', 403));
    const first = await cycle();
    expect(first.autoscalers.map((a) => a.outcome)).toEqual(['unchanged', 'unchanged']);
    expect(cluster.log.count('listScales')).toBe(1);
    expect(cluster.log.count('getScale')).toBe(2);
    clock.advance(15_000);
    await cycle();
    expect(cluster.log.count('listScales')).toBe(1);
    expect(cluster.log.count('getScale')).toBe(4);
  });
});

describe('what a deadline leaves', () => {
  it('goes first; left again, it is an error of its own', async () => {
    await applyAll(hpa('a', 'one'), hpa('b', 'two'), hpa('c', 'three'));
    for (const ns of ['one', 'two', 'three']) cluster.external.set(`${ns}/jobs`, 20);
    cluster.addTarget('one', 'a', 2);
    cluster.addTarget('two', 'b', 2);
    cluster.addTarget('three', 'c', 2);
    // c, left by the last tick, goes first and its scale read never answers until the deadline; a and b wait behind it (one at a time).
    cluster.log.hang.add('getScale three/Deployment/c');
    const r = await cycle({ first: ['three/c'], deadlineMs: 1_000, options: { concurrency: 1 } });
    expect(cluster.log.calls.filter((c) => c.op === 'getScale').map((c) => c.arg)[0]).toBe('three/Deployment/c');
    expect(r.autoscalers.map((a) => [a.name, a.outcome, a.deferredAgain ?? false])).toEqual([
      ['a', 'unchanged', false],
      ['c', 'skipped', true],
      ['b', 'unchanged', false],
    ]);
    expect(r.counts).toMatchObject({ deferred: 1, deferredAgain: 1, skipped: 1 });
    expect(one(r, 'c').errors.map((e) => e.message).join('\n')).toMatch(/not evaluated at two ticks in a row: the deadline came first both times/);

  });
});

describe('who may read which metric (param metricAccess, issue 22)', () => {
  const ROLE = 'arn:aws:iam::210987654321:role/metrics';
  const withRole = (): CloudWatchMetric => ({ ...cwm('queue'), spec: { ...cwm('queue').spec, roleArn: ROLE } });
  const cloudWatchReads = () => metrics.received.filter((q) => q.some((x) => x.type === 'CloudWatch')).length;

  it('refuses an object naming a role its namespace may not assume, or reading a CloudWatch namespace it may not, without reading it, saying why', async () => {
    await applyAll(withRole(), hpa('web', 'apps', { metrics: [jobs('queue')] }));
    cluster.addTarget('apps', 'web', 2);
    metrics.cloudWatch.set('queue', 40);
    // No allowlist: no namespace may assume a role.
    const refused = one(await cycle(), 'web');
    expect(refused.outcome).not.toBe('scaled');
    expect(cloudWatchReads()).toBe(0);
    const status = (await stored('web')).hpa.status;
    expect(status?.conditions?.find((c) => c.type === 'ScalingActive')).toMatchObject({
      status: 'False',
      message: expect.stringContaining(`CloudWatchMetric apps/queue is refused: spec.roleArn ${ROLE} is not one the deploy allows CloudWatchMetric objects of namespace apps to assume (param metricAccess)`),
    });
    expect((await stored('web')).log?.some((e) => e.type === 'Warning' && e.message.includes('is refused'))).toBe(true);
    // The role granted to another namespace only: still refused; a CloudWatch namespace not listed: refused too.
    clock.advance(15_000);
    expect(one(await cycle({ options: { metricAccess: { jobs: { roles: [ROLE] } } } }), 'web').outcome).not.toBe('scaled');
    clock.advance(15_000);
    const wrongNs = one(await cycle({ options: { metricAccess: { '*': { roles: [ROLE], metricNamespaces: ['AWS/EC2'] } } } }), 'web');
    expect(wrongNs.metricMessages?.join() ?? JSON.stringify(wrongNs.decision)).toMatch(/query q reads CloudWatch namespace AWS\/SQS, which namespace apps may not read \(param metricAccess allows AWS\/EC2\)/);
    expect(cloudWatchReads()).toBe(0);
    // Granted to apps (or to every namespace): read and acted on.
    clock.advance(15_000);
    expect(one(await cycle({ options: { metricAccess: { apps: { roles: [ROLE], metricNamespaces: ['AWS/SQS'] } } } }), 'web')).toMatchObject({ outcome: 'scaled', desiredReplicas: 4 });
    expect(cloudWatchReads()).toBe(1);
  });
});
