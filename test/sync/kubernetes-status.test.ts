// What a ServerlessHorizontalPodAutoscaler's status tells kubectl and GitOps tools, as the sync writes it:
// observedGeneration on the status and on each condition (upstream 1.37), ScaledToZero, the Ready
// condition (docs/kubernetes.md, "Health"), and the Argo CD health check (infra/argocd/health.lua) read
// by a real Lua interpreter from those very statuses.
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

const NOW = '2026-03-01T12:00:00.000Z';
const CLUSTER: ClusterConfig = { name: 'prod', region: 'eu-west-1', shards: 1 };
const options: SyncOptions = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 300, clusterBudgetMs: 8_000, sources: { table: false, cluster: true }, decisionLogSeconds: 300 };
const HEALTH = 'infra/argocd/health.lua';

type Spec = HorizontalPodAutoscaler['spec'];
const spec = (over: Partial<Spec> = {}): Spec => ({
  scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
  minReplicas: 1,
  maxReplicas: 10,
  metrics: [{ type: 'External', external: { metric: { name: 'jobs' }, target: { type: 'AverageValue', averageValue: '10' } } }],
  ...over,
});

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
  store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: `kstatus-${++table}` });
  await ensureTable(store.client, store.tableName);
  cluster = new FakeCluster();
  clock = fixedClock(NOW);
});

async function cycle(): Promise<CycleReport> {
  const now = clock.now();
  const r = await runShardCycle(
    { store, cluster, metrics: new FakeMetrics(cluster), clock },
    { shard: { cluster: 'prod', index: 0, count: 1 }, cluster: CLUSTER, trigger: { kind: 'tick', tick: now }, deadline: new Date(now.getTime() + 5_000), periodSeconds: 15, options },
  );
  clock.advance(15_000);
  return r;
}

function addObject(s: Spec, annotations?: Record<string, string>): KubernetesAutoscaler {
  const o: KubernetesAutoscaler = { metadata: { name: 'web', namespace: 'apps', uid: 'uid-web', generation: 1, creationTimestamp: NOW, ...(annotations ? { annotations } : {}) }, spec: s };
  cluster.objects.push(o);
  return o;
}

/** An edit, as the API server does it: a new spec raises metadata.generation. */
function edit(o: KubernetesAutoscaler, s: Spec): void {
  o.spec = s;
  o.metadata.generation = (o.metadata.generation ?? 0) + 1;
}

/** Scales down at once (no stabilization window), so zero is reached in one cycle. */
const toZero = (over: Partial<Spec> = {}) => spec({ minReplicas: 0, behavior: { scaleDown: { stabilizationWindowSeconds: 0 } }, ...over });

const statusOf = (o: KubernetesAutoscaler) => o.status as KubernetesAutoscalerStatus;
const condition = (o: KubernetesAutoscaler, type: HorizontalPodAutoscalerCondition['type']) => statusOf(o).conditions?.find((c) => c.type === type);

describe('generations', () => {
  it('status.observedGeneration and every condition follow metadata.generation once the edit is evaluated', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 20);
    const o = addObject(spec());
    await cycle();
    expect(statusOf(o).observedGeneration).toBe(1);
    expect(statusOf(o).conditions?.map((c) => [c.type, c.observedGeneration])).toEqual([
      ['AbleToScale', 1],
      ['ScalingActive', 1],
      ['ScalingLimited', 1],
      ['Ready', 1],
    ]);
    edit(o, spec({ maxReplicas: 12 }));
    // Nothing but the spec changed: the status is written all the same, so the edit is seen to be seen.
    const writes = cluster.statusWrites.length;
    await cycle();
    expect(cluster.statusWrites.length).toBe(writes + 1);
    expect(statusOf(o).observedGeneration).toBe(2);
    expect(new Set(statusOf(o).conditions?.map((c) => c.observedGeneration))).toEqual(new Set([2]));
  });

  it('an invalid edit is observed too: ScalingActive and Ready False, InvalidSpec, of the new generation', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 20);
    const o = addObject(spec());
    await cycle();
    edit(o, spec({ minReplicas: 5, maxReplicas: 3 }));
    await cycle();
    expect(statusOf(o).observedGeneration).toBe(2);
    expect(condition(o, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'InvalidSpec', observedGeneration: 2 });
    expect(condition(o, 'Ready')).toMatchObject({ status: 'False', reason: 'InvalidSpec', observedGeneration: 2, message: expect.stringMatching(/spec.maxReplicas/) });
  });
});

describe('ScaledToZero (upstream HPAScaleToZero, kubernetes/kubernetes#135118)', () => {
  it('is True once the autoscaler scales its target to zero, False (NotScaledToZero) once it scales it back, as after any other rescale', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 0);
    const o = addObject(toZero());
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(0);
    expect(condition(o, 'ScaledToZero')).toMatchObject({ status: 'True', reason: 'ScaledToZero', observedGeneration: 1 });
    await cycle();
    cluster.external.set('apps/jobs', 30);
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(3);
    expect(condition(o, 'ScaledToZero')).toMatchObject({ status: 'False', reason: 'NotScaledToZero' });
  });

  it('any other rescale sets it False, NotScaledToZero, as upstream does after every scale it writes', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 30);
    const o = addObject(toZero());
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(3);
    expect(condition(o, 'ScaledToZero')).toMatchObject({ status: 'False', reason: 'NotScaledToZero', message: 'the HPA controller did not scale the workload to zero' });
  });

  it('a target the autoscaler scaled to zero is scaled up to a raised minReplicas; one scaled to zero by hand disables scaling', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 0);
    const o = addObject(toZero());
    await cycle();
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(0);
    edit(o, toZero({ minReplicas: 1 }));
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(1);
    expect(condition(o, 'ScaledToZero')).toMatchObject({ status: 'False', reason: 'NotScaledToZero' });
    await cycle();
    cluster.scaleByHand('apps', 'web', 0);
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(0);
    expect(condition(o, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'ScalingDisabled' });
    expect(condition(o, 'Ready')).toMatchObject({ status: 'False', reason: 'ScalingDisabled' });
  });
});

describe('activation threshold (ours, lib/hpa/activation.ts)', () => {
  const withActivation = (value: string) =>
    toZero({ metrics: [{ type: 'External', external: { metric: { name: 'jobs' }, target: { type: 'AverageValue', averageValue: '10' }, activation: { value } } }] });

  it('at zero below the threshold: ScalingActive and Ready True (BelowActivationThreshold), and the decision line shows the hold', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 0);
    const o = addObject(withActivation('5'));
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(0);
    cluster.external.set('apps/jobs', 4);
    const r = await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(0);
    expect(condition(o, 'ScalingActive')).toMatchObject({ status: 'True', reason: 'BelowActivationThreshold', message: expect.stringContaining('jobs: 4 (activation 5)') });
    expect(condition(o, 'Ready')).toMatchObject({ status: 'True', reason: 'BelowActivationThreshold' });
    expect(condition(o, 'ScaledToZero')).toMatchObject({ status: 'True' });
    const line = r.autoscalers[0];
    expect(line.notable).toBe(true);
    expect(line.decision?.metrics[0].activation).toEqual({ threshold: '5', value: '4', active: false });
    expect(line.decision?.steps).toContainEqual(expect.objectContaining({ rule: 'activation', to: 0 }));
    cluster.external.set('apps/jobs', 6);
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(1);
    expect(condition(o, 'ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound' });
    expect(condition(o, 'ScaledToZero')).toMatchObject({ status: 'False', reason: 'NotScaledToZero' });
  });
});

describe('Ready', () => {
  it('is True with the valid metric, False with the reason when metrics fail, and keeps its transition time while unchanged', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 20);
    const o = addObject(spec());
    await cycle();
    const ready = condition(o, 'Ready');
    expect(ready).toMatchObject({ status: 'True', reason: 'ValidMetricFound', lastTransitionTime: '2026-03-01T12:00:00Z' });
    cluster.external.set('apps/jobs', 40);
    await cycle();
    expect(condition(o, 'Ready')?.lastTransitionTime).toBe('2026-03-01T12:00:00Z');
    cluster.external.delete('apps/jobs');
    await cycle();
    expect(condition(o, 'Ready')).toMatchObject({ status: 'False', reason: 'FailedGetExternalMetric', lastTransitionTime: '2026-03-01T12:00:30Z' });
  });
});

describe('a failure that repeats', () => {
  it('a metric naming a missing CloudWatchMetric says so in the conditions, and in one event per reason whose count grows', async () => {
    cluster.addTarget('apps', 'web', 2);
    const o = addObject(spec({ metrics: [{ type: 'External', external: { metric: { name: 'nope' }, target: { type: 'AverageValue', averageValue: '10' } } }] }));
    for (let i = 0; i < 25; i++) await cycle();
    const named = /no CloudWatchMetric, PrometheusMetric or SQSQueueMetric "nope" in namespace apps, so the cluster's external metrics API was asked: the server could not find the requested resource/;
    expect(condition(o, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetExternalMetric', message: expect.stringMatching(named) });
    expect(condition(o, 'Ready')).toMatchObject({ status: 'False', reason: 'FailedGetExternalMetric', message: expect.stringMatching(named) });
    const byReason = new Map<string, Set<string>>();
    for (const e of cluster.events) byReason.set(e.entry.reason, (byReason.get(e.entry.reason) ?? new Set()).add(e.entry.message));
    expect([...byReason.keys()].sort()).toEqual(['FailedComputeMetricsReplicas', 'FailedGetExternalMetric']);
    expect([...byReason.values()].map((m) => m.size)).toEqual([1, 1]);
    expect([...byReason.get('FailedGetExternalMetric')!][0]).toMatch(named);
    // 6 minutes of ticks: a handful of writes of the one event, its count following the 25 evaluations.
    const counts = cluster.events.filter((e) => e.entry.reason === 'FailedGetExternalMetric').map((e) => e.entry.count);
    expect(counts.length).toBeLessThanOrEqual(3);
    expect(counts.at(-1)).toBeGreaterThanOrEqual(20);
  });
});

describe.skipIf(!LUA)('the Argo CD health check (infra/argocd/health.lua) on the statuses the sync writes', () => {
  const health = (o: KubernetesAutoscaler) => argoHealth(HEALTH, { apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', ...structuredClone(o) });

  it('Progressing until evaluated, Healthy, Progressing again after an edit, Degraded on an invalid spec or failing metrics', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 20);
    const o = addObject(spec());
    expect(health(o)).toEqual({ status: 'Progressing', message: 'waiting for the autoscaler to evaluate generation 1' });
    await cycle();
    expect(health(o)).toMatchObject({ status: 'Healthy', message: expect.stringMatching(/^ValidMetricFound: the HPA was able to successfully calculate a replica count from external metric jobs/) });
    edit(o, spec({ maxReplicas: 12 }));
    expect(health(o)).toEqual({ status: 'Progressing', message: 'waiting for the autoscaler to evaluate generation 2' });
    await cycle();
    expect(health(o).status).toBe('Healthy');
    edit(o, spec({ minReplicas: 5, maxReplicas: 3 }));
    await cycle();
    expect(health(o)).toMatchObject({ status: 'Degraded', message: expect.stringMatching(/^InvalidSpec: the spec is invalid/) });
    edit(o, spec());
    cluster.external.delete('apps/jobs');
    await cycle();
    expect(health(o)).toMatchObject({ status: 'Degraded', message: expect.stringMatching(/^FailedGetExternalMetric: /) });
  });

  it('Healthy while held at zero below an activation threshold: waiting for work is not a fault', async () => {
    cluster.addTarget('apps', 'web', 1);
    cluster.external.set('apps/jobs', 0);
    const o = addObject(toZero({ metrics: [{ type: 'External', external: { metric: { name: 'jobs' }, target: { type: 'AverageValue', averageValue: '10' }, activation: { value: '5' } } }] }));
    await cycle();
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(0);
    expect(health(o)).toMatchObject({ status: 'Healthy', message: expect.stringMatching(/^BelowActivationThreshold: the target stays at zero replicas/) });
  });

  it('Suspended when paused with shpa.dev/dry-run, or when scaling is disabled', async () => {
    cluster.addTarget('apps', 'web', 2);
    cluster.external.set('apps/jobs', 90);
    const o = addObject(spec(), { 'shpa.dev/dry-run': 'true' });
    await cycle();
    expect(cluster.replicas('apps', 'web')).toBe(2);
    expect(health(o)).toMatchObject({ status: 'Suspended', message: expect.stringMatching(/paused/) });
    expect(cluster.events.map((e) => [e.entry.reason, e.entry.message])).toEqual([
      ['DryRun', 'New size: 4; reason: external metric jobs(nil) above target; not written: dry-run (the shpa.dev/dry-run annotation or the deploy\'s dryRun)'],
    ]);
    delete o.metadata.annotations;
    cluster.scaleByHand('apps', 'web', 0);
    await cycle();
    expect(health(o)).toMatchObject({ status: 'Suspended', message: expect.stringMatching(/^ScalingDisabled: /) });
  });
});
if (!LUA) console.log('kubernetes-status.test.ts: Argo CD health check tests skipped — no lua5.4 or lua on PATH (apt-get install lua5.4)');
