// Pause and scheduled minimums through the worker's cycle: the status and events it writes to a
// ServerlessHorizontalPodAutoscaler, the decision it reports (the line operators review), the table's
// HPA form with the schedules annotation, and the Argo CD health check on those statuses.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition } from '../../lib/hpa/types.js';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../lib/store/index.js';
import type { SyncOptions } from '../../lib/sync/config.js';
import { runShardCycle } from '../../lib/sync/cycle.js';
import type { ClusterConfig, KubernetesAutoscaler, KubernetesAutoscalerStatus } from '../../lib/sync/ports/cluster-access.js';
import type { CycleReport } from '../../lib/sync/report.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { argoHealth, LUA } from '../support/lua.js';
import { FakeCluster, FakeMetrics, fixedClock } from './fakes.js';

// A Thursday, 08:59 UTC.
const NOW = '2026-11-26T08:59:30.000Z';
const CLUSTER: ClusterConfig = { name: 'prod', region: 'eu-west-1', shards: 1 };
const options = (table: boolean): SyncOptions => ({
  settings: DEFAULT_CONTROLLER_SETTINGS,
  dryRun: false,
  concurrency: 8,
  writeBudgetMs: 300,
  clusterBudgetMs: 8_000,
  sources: { table, cluster: !table },
  decisionLogSeconds: 300,
});

type Spec = HorizontalPodAutoscaler['spec'];
const spec = (over: Partial<Spec> = {}): Spec => ({
  scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
  minReplicas: 2,
  maxReplicas: 20,
  metrics: [{ type: 'External', external: { metric: { name: 'jobs' }, target: { type: 'AverageValue', averageValue: '10' } } }],
  behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
  ...over,
});
const morning = [{ name: 'morning', minReplicas: 8, start: '0 9 * * *', end: '0 10 * * *' }];

let db: DynamoServer;
let store: DynamoStore;
let cluster: FakeCluster;
let clock: ReturnType<typeof fixedClock>;
let table = 0;

beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db?.stop();
});
beforeEach(async () => {
  store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: `pause-${++table}` });
  await ensureTable(store.client, store.tableName);
  cluster = new FakeCluster();
  clock = fixedClock(NOW);
});

async function cycle(tableSource = false): Promise<CycleReport> {
  const now = clock.now();
  const r = await runShardCycle(
    { store, cluster, metrics: new FakeMetrics(cluster), clock },
    { shard: { cluster: 'prod', index: 0, count: 1 }, cluster: CLUSTER, trigger: { kind: 'tick', tick: now }, deadline: new Date(now.getTime() + 5_000), periodSeconds: 15, options: options(tableSource) },
  );
  clock.advance(15_000);
  return r;
}

function addObject(s: Spec, annotations?: Record<string, string>): KubernetesAutoscaler {
  const o: KubernetesAutoscaler = { metadata: { name: 'web', namespace: 'apps', uid: 'uid-web', generation: 1, creationTimestamp: NOW, ...(annotations ? { annotations } : {}) }, spec: s };
  cluster.objects.push(o);
  return o;
}
const condition = (o: KubernetesAutoscaler, type: HorizontalPodAutoscalerCondition['type']) => (o.status as KubernetesAutoscalerStatus).conditions?.find((c) => c.type === type);
const eventReasons = () => cluster.events.map((e) => e.entry.reason);

describe('pause through the worker', () => {
  it('holds the paused direction, reports the held move on each cycle, and resumes when the pause expires', async () => {
    cluster.addTarget('apps', 'web', 10);
    cluster.external.set('apps/jobs', 40);
    const o = addObject(spec(), { 'shpa.dev/pause-scale-down': '2026-11-26T09:00:30Z' });
    const first = await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(10);
    expect(condition(o, 'ScalingPaused')).toMatchObject({ status: 'True', reason: 'ScaleDownPaused', message: 'scale down paused until 2026-11-26T09:00:30Z (shpa.dev/pause-scale-down); would scale to 4' });
    // The decision line: the held step, and a line on each cycle it is held.
    const line = first.autoscalers[0];
    expect(line.decision?.steps.at(-1)).toEqual({ rule: 'pauseScaleDown', from: 4, to: 10, detail: '2026-11-26T09:00:30.000Z' });
    expect(line.notable).toBe(true);
    expect((await cycle()).autoscalers[0].notable).toBe(true);
    expect(condition(o, 'Ready')).toMatchObject({ status: 'True' });
    expect(eventReasons()).toEqual(['ScalingPaused']);
    await cycle(); // 09:00:00
    await cycle(); // 09:00:15
    expect(cluster.replicas('apps', 'web')).toBe(10);
    await cycle(); // 09:00:30: expired, nobody touched the object
    expect(cluster.replicas('apps', 'web')).toBe(4);
    expect(condition(o, 'ScalingPaused')).toMatchObject({ status: 'False', reason: 'PauseExpired' });
    expect(eventReasons()).toEqual(['ScalingPaused', 'PauseExpired', 'SuccessfulRescale']);
  });

  it('a malformed value on a stored object: not paused, a condition and a Warning event, Ready False naming it', async () => {
    cluster.addTarget('apps', 'web', 10);
    cluster.external.set('apps/jobs', 40);
    const o = addObject(spec(), { 'shpa.dev/pause': 'after lunch' });
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(4);
    expect(condition(o, 'ScalingPaused')).toMatchObject({ status: 'False', reason: 'InvalidPauseAnnotation', message: expect.stringContaining('metadata.annotations[shpa.dev/pause]') });
    expect(condition(o, 'Ready')).toMatchObject({ status: 'False', reason: 'InvalidPauseAnnotation' });
    expect(cluster.events.filter((e) => e.entry.type === 'Warning').map((e) => e.entry.reason)).toEqual(['InvalidPauseAnnotation']);
  });
});

describe('scheduled minimums through the worker', () => {
  it('the window opens at 09:00 (a schedule step, the condition names it), and closes at 10:00', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 10);
    const o = addObject(spec({ minReplicaSchedules: morning }));
    await cycle(); // 08:59:30
    expect(condition(o, 'ScheduledMinimum')).toMatchObject({ status: 'False', reason: 'NoWindowOpen', message: 'no window open: minimum spec.minReplicas 2; next: morning at 2026-11-26T09:00:00Z' });
    await cycle(); // 08:59:45
    const open = await cycle(); // 09:00:00
    expect(cluster.replicas('apps', 'web')).toBe(8);
    expect(open.autoscalers[0].decision?.steps).toEqual([{ rule: 'schedule', from: 2, to: 8, detail: 'morning' }]);
    expect(condition(o, 'ScheduledMinimum')).toMatchObject({ status: 'True', reason: 'WindowOpen' });
    expect(condition(o, 'Ready')).toMatchObject({ status: 'True' });
    clock.advance(3600_000 - 15_000);
    await cycle(); // 10:00:00
    expect(cluster.replicas('apps', 'web')).toBe(2);
    expect(eventReasons()).toEqual(['ScheduleWindowOpen', 'SuccessfulRescale', 'ScheduleWindowClosed', 'SuccessfulRescale']);
  });

  it('the HPA form in the table reads the shpa.dev/min-replica-schedules annotation', async () => {
    const hpa: HorizontalPodAutoscaler = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'apps', annotations: { 'shpa.dev/min-replica-schedules': JSON.stringify(morning) } },
      spec: spec(),
    };
    await store.applySpec('prod', hpa, clock.now());
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 10);
    await cycle(true);
    await cycle(true);
    await cycle(true); // 09:00:00
    expect(cluster.replicas('apps', 'web')).toBe(8);
    const stored = await store.getAutoscaler('prod', 'apps', 'web');
    expect(stored?.hpa.status?.conditions?.find((c) => c.type === 'ScheduledMinimum')).toMatchObject({ status: 'True', reason: 'WindowOpen' });
  });
});

describe.skipIf(!LUA)('Argo CD health with a pause and a window', () => {
  const health = (o: KubernetesAutoscaler) => argoHealth('infra/argocd/health.lua', { apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', ...structuredClone(o) });
  it('Suspended while a pause is in force, Healthy once it expired; an open window is Healthy; a malformed annotation Degraded', async () => {
    cluster.addTarget('apps', 'web', 10);
    cluster.external.set('apps/jobs', 40);
    const o = addObject(spec({ minReplicaSchedules: morning }), { 'shpa.dev/pause-scale-up': '2026-11-26T09:00:00Z' });
    await cycle();
    expect(health(o)).toMatchObject({ status: 'Suspended', message: expect.stringMatching(/^ScaleUpPaused: scale up paused until 2026-11-26T09:00:00Z/) });
    await cycle();
    await cycle(); // 09:00:00: expired, and the window is open
    expect(health(o)).toMatchObject({ status: 'Healthy' });
    o.metadata.annotations = { 'shpa.dev/pause-scale-up': 'yes' };
    await cycle();
    expect(health(o)).toMatchObject({ status: 'Degraded', message: expect.stringMatching(/^InvalidPauseAnnotation: /) });
  });
});
if (!LUA) console.log('pause-schedules.test.ts: Argo CD health check tests skipped — no lua5.4 or lua on PATH (apt-get install lua5.4)');
