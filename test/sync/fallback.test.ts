// KEP-5679 fallback through whole sync cycles (dynalite store, fake cluster, fixed clock): the
// stored status carries firstFailureTime from cycle to cycle (each cycle a fresh store client, as
// each Lambda invocation is), the fallback count scales the target, the decision line shows it,
// Ready and the Argo CD health check (infra/argocd/health.lua) say so, and recovery is announced.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';
import { createDynamoStore, ensureTable } from '../../lib/store/index.js';
import type { SyncOptions } from '../../lib/sync/config.js';
import { runShardCycle } from '../../lib/sync/cycle.js';
import type { ClusterConfig, KubernetesAutoscaler, KubernetesAutoscalerStatus } from '../../lib/sync/ports/cluster-access.js';
import type { CycleReport } from '../../lib/sync/report.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { argoHealth, LUA } from '../support/lua.js';
import { FakeCluster, FakeMetrics, fixedClock } from './fakes.js';

const NOW = '2026-03-01T12:00:00.000Z';
const CLUSTER: ClusterConfig = { name: 'prod', region: 'eu-west-1', shards: 1 };
const options: SyncOptions = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 300, clusterBudgetMs: 8_000, sources: { table: false, cluster: true }, decisionLogSeconds: 300 };

const spec: HorizontalPodAutoscaler['spec'] = {
  scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
  minReplicas: 1,
  maxReplicas: 10,
  metrics: [{ type: 'External', external: { metric: { name: 'jobs' }, target: { type: 'AverageValue', averageValue: '10' }, fallback: { replicas: 8, failureDurationSeconds: 180 } } }],
  behavior: { scaleUp: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 10, periodSeconds: 15 }] }, scaleDown: { stabilizationWindowSeconds: 0 } },
};

let db: DynamoServer;
let tableName: string;
let table = 0;
let cluster: FakeCluster;
let clock: ReturnType<typeof fixedClock>;

beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db?.stop();
});
beforeEach(async () => {
  tableName = `fallback-${++table}`;
  await ensureTable(store().client, tableName);
  cluster = new FakeCluster();
  clock = fixedClock(NOW);
});

/** A new store client each cycle: nothing but the table carries state, as between Lambda invocations. */
const store = () => createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName });

async function cycle(): Promise<CycleReport> {
  const now = clock.now();
  const r = await runShardCycle(
    { store: store(), cluster, metrics: new FakeMetrics(cluster), clock },
    { shard: { cluster: 'prod', index: 0, count: 1 }, cluster: CLUSTER, trigger: { kind: 'tick', tick: now }, deadline: new Date(now.getTime() + 5_000), periodSeconds: 15, options },
  );
  clock.advance(15_000);
  return r;
}

function addObject(): KubernetesAutoscaler {
  const o: KubernetesAutoscaler = { metadata: { name: 'web', namespace: 'apps', uid: 'uid-web', generation: 1, creationTimestamp: NOW }, spec };
  cluster.objects.push(o);
  return o;
}

const statusOf = (o: KubernetesAutoscaler) => o.status as KubernetesAutoscalerStatus;
const condition = (o: KubernetesAutoscaler, type: string) => statusOf(o).conditions?.find((c) => c.type === type);
const health = (o: KubernetesAutoscaler) => argoHealth('infra/argocd/health.lua', { apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', ...structuredClone(o) });

describe('metric fallback through the sync', () => {
  it('a metric failing for failureDurationSeconds scales the target to the fallback count; recovery resumes normal evaluation', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 20);
    const o = addObject();
    await cycle();
    expect(statusOf(o).currentMetrics?.[0].external).toMatchObject({ fallbackStatus: 'Normal' });
    expect(condition(o, 'ExternalMetricFallbackActive')).toMatchObject({ status: 'False', reason: 'NoFallbackActive' });

    // The metric source goes away at 12:00:15: 12 cycles (165 s) of failures, not yet 180 s.
    cluster.external.delete('apps/jobs');
    for (let i = 0; i < 12; i++) await cycle();
    expect(statusOf(o).currentMetrics?.[0].external).toMatchObject({ fallbackStatus: 'Normal', firstFailureTime: '2026-03-01T12:00:15Z' });
    expect(cluster.replicas('apps', 'web')).toBe(2);
    expect(condition(o, 'Ready')).toMatchObject({ status: 'False', reason: 'FailedGetExternalMetric' });

    // 12:03:15: 180 s since the first failure.
    const active = await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(8);
    expect(statusOf(o).currentMetrics?.[0].external).toMatchObject({ fallbackStatus: 'Fallback', firstFailureTime: '2026-03-01T12:00:15Z' });
    expect(condition(o, 'ExternalMetricFallbackActive')).toMatchObject({ status: 'True', reason: 'FallbackActive' });
    expect(condition(o, 'Ready')).toMatchObject({ status: 'True', reason: 'FallbackActive' });
    const line = active.autoscalers[0];
    expect(line.decision?.metrics[0]).toMatchObject({ proposal: 8, fallback: { status: 'Fallback', firstFailureTime: '2026-03-01T12:00:15Z', replicas: 8 } });
    expect(line.notable).toBe(true);
    expect(cluster.events.map((e) => e.entry.reason)).toContain('ExternalMetricFallbackActivated');
    expect(cluster.events.find((e) => e.entry.reason === 'ExternalMetricFallbackActivated')?.entry.message).toBe(
      "Fallback activated for external metric 'jobs' after 3m0s of consecutive failures, using fallback replica count: 8",
    );
    if (LUA) expect(health(o)).toMatchObject({ status: 'Degraded', message: expect.stringMatching(/^FallbackActive: /) });

    // Still failing: no second activation event.
    await cycle();
    expect(cluster.events.filter((e) => e.entry.reason === 'ExternalMetricFallbackActivated').map((e) => e.entry.count)).toEqual([1]);

    // The metric is back at 30 (3 per pod of 8 against 10): normal evaluation scales down.
    cluster.external.set('apps/jobs', 30);
    await cycle();
    expect(statusOf(o).currentMetrics?.[0].external).toEqual({ metric: { name: 'jobs' }, current: { averageValue: '3750m' }, fallbackStatus: 'Normal' });
    expect(condition(o, 'ExternalMetricFallbackActive')).toMatchObject({ status: 'False', reason: 'NoFallbackActive' });
    expect(cluster.events.map((e) => e.entry.reason)).toContain('ExternalMetricFallbackDeactivated');
    expect(cluster.replicas('apps', 'web')).toBe(3);
    if (LUA) expect(health(o).status).toBe('Healthy');
  });
});

if (!LUA) console.log('fallback.test.ts: Argo CD health check assertions skipped — no lua5.4 or lua on PATH (apt-get install lua5.4)');
