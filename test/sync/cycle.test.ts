// lib/sync orchestration with in-memory ports. The HPA math is replaced by a
// transparent fake planner (desired = the first External value) so these tests
// see exactly what the cycle hands to lib/hpa and what it does with the plan;
// the real math runs in the end-to-end tests.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReconcileInput, ReconcilePlan } from '../../lib/hpa/reconcile.js';
import type { HorizontalPodAutoscaler, MetricSpec } from '../../lib/hpa/types.js';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/defaults.js';
import { runCycle, type SyncOptions } from '../../lib/sync/cycle.js';
import { VersionConflictError, type AutoscalerRecord, type ClusterRecord, type MetricQuery } from '../../lib/sync/ports.js';
import { count, fixedClock, MemoryCluster, MemoryMetrics, MemoryStore, newCallLog } from './fakes.js';

const planned = vi.hoisted(() => ({ inputs: [] as ReconcileInput[] }));

vi.mock('../../lib/hpa/defaults.js', async (orig) => ({
  ...(await orig<typeof import('../../lib/hpa/defaults.js')>()),
  applyDefaults: (hpa: HorizontalPodAutoscaler) => ({
    ...hpa,
    spec: {
      ...hpa.spec,
      metrics: hpa.spec.metrics ?? [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
    },
  }),
}));

vi.mock('../../lib/hpa/reconcile.js', () => {
  const planReconcile = (input: ReconcileInput): ReconcilePlan => {
    planned.inputs.push(input);
    if (input.hpa.metadata.annotations?.['test/throw']) throw new Error('malformed spec');
    if (input.scale.error !== undefined) {
      const decision = { metrics: [], steps: [], desiredReplicas: 0, rescale: false, skipped: { reason: 'FailedGetScale', message: input.scale.error } };
      return { input, desiredReplicas: 0, rescale: false, decision, state: {} as ReconcilePlan['state'] };
    }
    const current = input.scale.value.specReplicas;
    const values = input.metrics.map((m) => (m.externalMetrics?.value ? Number(m.externalMetrics.value[0].value) : undefined));
    const valid = values.filter((v): v is number => v !== undefined);
    let desired = valid.length ? Math.max(...valid) : current;
    // Upstream rule the fake keeps: invalid metrics forbid scaling down.
    if (valid.length < values.length && desired < current) desired = current;
    const rescale = desired !== current;
    const decision = { currentReplicas: current, metrics: [], steps: [], desiredReplicas: desired, rescale };
    return { input, desiredReplicas: desired, rescale, decision, state: {} as ReconcilePlan['state'] };
  };
  const completeReconcile = (plan: ReconcilePlan, err?: string) => {
    const { input } = plan;
    if (input.hpa.metadata.annotations?.['test/throw-complete']) throw new Error('unexpected state');
    const current = input.scale.value?.specReplicas ?? 0;
    const scaled = plan.rescale && err === undefined;
    const status = {
      currentReplicas: current,
      desiredReplicas: scaled ? plan.desiredReplicas : current,
      conditions: [
        {
          type: 'AbleToScale' as const,
          status: err ? ('False' as const) : ('True' as const),
          reason: err ? 'FailedUpdateScale' : scaled ? 'SucceededRescale' : 'ReadyForNewScale',
        },
      ],
      ...(scaled ? { lastScaleTime: input.now.toISOString() } : {}),
    };
    const history = {
      recommendations: [{ timestamp: '2026-01-01T00:00:00Z', replicas: plan.desiredReplicas }],
      scaleUpEvents: scaled ? [...input.history.scaleUpEvents, { timestamp: input.now.toISOString(), change: plan.desiredReplicas - current }] : input.history.scaleUpEvents,
      scaleDownEvents: input.history.scaleDownEvents,
    };
    return {
      status,
      history,
      events: scaled ? [{ type: 'Normal' as const, reason: 'SuccessfulRescale', message: `New size: ${plan.desiredReplicas}` }] : [],
      scaled,
      statusChanged: JSON.stringify(status) !== JSON.stringify(input.hpa.status),
      conditions: status.conditions,
      decision: plan.decision,
    };
  };
  return { planReconcile, completeReconcile, reconcile: (i: ReconcileInput, e?: string) => completeReconcile(planReconcile(i), e) };
});

const external = (name: string): MetricSpec => ({ type: 'External', external: { metric: { name }, target: { type: 'Value', value: '1' } } });

function record(cluster: string, namespace: string, name: string, metrics: MetricSpec[], extra: Partial<HorizontalPodAutoscaler['metadata']> = {}): AutoscalerRecord {
  return {
    cluster,
    namespace,
    name,
    hpa: {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name, namespace, ...extra },
      spec: { scaleTargetRef: { kind: 'Deployment', name, apiVersion: 'apps/v1' }, maxReplicas: 20, metrics },
    },
    history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
    version: 1,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  };
}

const options: SyncOptions = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 500 };
const NOW = '2026-03-01T12:00:00.000Z';

let log: ReturnType<typeof newCallLog>;
let store: MemoryStore;
let clusters: Map<string, MemoryCluster>;
let metricValues: Map<string, number>;
let metrics: MemoryMetrics;
let clock: ReturnType<typeof fixedClock>;

/** External metric values by name; queries for anything else answer an error. */
function answer(q: MetricQuery) {
  if (q.type === 'External' || q.type === 'CloudWatch') {
    const name = q.type === 'External' ? q.metric.name : q.source.metadata.name;
    const v = metricValues.get(`${q.type}:${name}`);
    return v === undefined
      ? { type: q.type, result: { error: `no metric ${name}` } }
      : { type: q.type, result: { value: [{ value: String(v), timestamp: NOW }] } };
  }
  if (q.type === 'PodResource') return { type: q.type, result: { value: [] } };
  if (q.type === 'Pods') return { type: q.type, result: { value: [] } };
  return { type: q.type, result: { error: 'unsupported' } };
}

function addTarget(cluster: string, namespace: string, name: string, replicas: number, selector = `app=${name}`) {
  if (!clusters.has(cluster)) clusters.set(cluster, new MemoryCluster(log));
  clusters.get(cluster)!.scales.set(`${namespace}/Deployment/${name}`, { specReplicas: replicas, statusReplicas: replicas, selector });
}

const clusterRecords = (...names: string[]): ClusterRecord[] => names.map((name) => ({ name, region: 'eu-west-1' }));

function cycle(names: string[], opts: Partial<SyncOptions> = {}, deadlineMs = 10_000) {
  return runCycle(
    {
      store,
      metrics,
      clock,
      cluster: (c) => {
        const found = clusters.get(c.name);
        if (!found) throw new Error(`no credentials for cluster ${c.name}`);
        return found;
      },
    },
    { clusters: clusterRecords(...names), deadline: new Date(clock.now().getTime() + deadlineMs), options: { ...options, ...opts } },
  );
}

beforeEach(() => {
  planned.inputs = [];
  log = newCallLog();
  store = new MemoryStore(log);
  clusters = new Map();
  metricValues = new Map();
  metrics = new MemoryMetrics(answer, log);
  clock = fixedClock(NOW);
});

describe('one cycle', () => {
  it('reads each scale once, each namespace once, and all metrics in one de-duplicated call', async () => {
    for (const c of ['a', 'b']) {
      for (const ns of ['n1', 'n2']) {
        for (const name of ['x', 'y', 'z']) {
          store.put(record(c, ns, name, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }, external('queue')]));
          addTarget(c, ns, name, 2);
        }
      }
    }
    metricValues.set('External:queue', 2);
    const report = await cycle(['a', 'b']);
    expect(report.counts).toMatchObject({ autoscalers: 12, unchanged: 12, errors: 0 });
    expect(count(log, 'getScale')).toBe(12);
    expect(count(log, 'listPods')).toBe(4);
    expect(count(log, 'fetchAll')).toBe(1);
    // One PodResource and one External query per cluster/namespace, shared by its three autoscalers.
    expect(metrics.received[0]).toHaveLength(8);
    expect(report.calls).toMatchObject({ getScale: 12, listPods: 4, fetchAll: 1, metricQueries: 8, loadCluster: 2 });
  });

  it('resolves each metric type and aligns the data with spec.metrics', async () => {
    store.cloudWatchMetrics.push(
      { apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name: 'backlog', namespace: 'work' }, spec: { queries: [] } },
      { apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name: 'other-ns', namespace: 'elsewhere' }, spec: { queries: [] } },
    );
    store.put(
      record('a', 'work', 'w', [
        external('other-ns'),
        { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } },
        external('backlog'),
        { type: 'Object', object: { describedObject: { kind: 'Service', name: 'svc' }, metric: { name: 'hits' }, target: { type: 'Value', value: '1' } } },
      ]),
    );
    addTarget('a', 'work', 'w', 3, 'app=w,tier in (web)');
    metricValues.set('External:other-ns', 4);
    metricValues.set('CloudWatch:backlog', 7);
    await cycle(['a']);
    expect(metrics.received[0].map((q) => q.type)).toEqual(['External', 'Pods', 'CloudWatch', 'Object']);
    expect(metrics.received[0][1]).toMatchObject({ podSelector: 'app=w,tier in (web)', namespace: 'work', cluster: 'a' });
    const input = planned.inputs[0];
    expect(input.metrics[0].externalMetrics?.value?.[0].value).toBe('4');
    expect(input.metrics[1].podCustomMetrics?.value).toEqual([]);
    expect(input.metrics[2].externalMetrics?.value?.[0].value).toBe('7');
    expect(input.metrics[3].objectMetric?.error).toBe('unsupported');
  });

  it('passes the other autoscalers of the same namespace as selectors, and the namespace pods', async () => {
    for (const [ns, name] of [['n1', 'x'], ['n1', 'y'], ['n2', 'z']]) {
      store.put(record('a', ns, name, [external('q')]));
      addTarget('a', ns, name, 1);
    }
    clusters.get('a')!.pods.set('n1', [{ name: 'x-1', phase: 'Running', labels: { app: 'x' }, containers: [] }]);
    metricValues.set('External:q', 1);
    await cycle(['a']);
    const x = planned.inputs.find((i) => i.hpa.metadata.name === 'x')!;
    expect(x.otherHpaSelectors).toEqual([{ namespace: 'n1', name: 'y', selector: 'app=y' }]);
    expect(x.pods.map((p) => p.name)).toEqual(['x-1']);
    expect(planned.inputs.find((i) => i.hpa.metadata.name === 'z')!.otherHpaSelectors).toEqual([]);
  });

  it('records the state before it patches the scale, and writes nothing when nothing changed', async () => {
    store.put(record('a', 'n', 'web', [external('q')]));
    addTarget('a', 'n', 'web', 2);
    metricValues.set('External:q', 5);
    const first = await cycle(['a']);
    expect(first.autoscalers[0]).toMatchObject({ outcome: 'scaled', patched: true, stored: 'written', currentReplicas: 2, desiredReplicas: 5 });
    const writes = log.calls.filter((c) => c.op === 'saveState' || c.op === 'updateScale').map((c) => c.op);
    expect(writes).toEqual(['saveState', 'updateScale']);
    const saved = store.get('a', 'n', 'web')!;
    expect(saved.version).toBe(2);
    expect(saved.history.scaleUpEvents).toEqual([{ timestamp: NOW, change: 3 }]);
    expect(clusters.get('a')!.scales.get('n/Deployment/web')!.specReplicas).toBe(5);

    // The next cycle finds 5 replicas, decides 5 and has nothing new to store.
    log.calls.length = 0;
    await cycle(['a']);
    const again = await cycle(['a']);
    expect(again.autoscalers[0]).toMatchObject({ outcome: 'unchanged', stored: 'unchanged', patched: false });
    expect(count(log, 'saveState')).toBe(1);
    expect(count(log, 'updateScale')).toBe(0);
  });

  it('does not patch when the conditional write lost a race', async () => {
    store.put(record('a', 'n', 'web', [external('q')]));
    addTarget('a', 'n', 'web', 2);
    metricValues.set('External:q', 5);
    store.failSave.set('a/n/web', new VersionConflictError('a/n/web', 1));
    const report = await cycle(['a']);
    expect(report.autoscalers[0]).toMatchObject({ outcome: 'conflict', stored: 'conflict', patched: false });
    expect(report.autoscalers[0].errors[0]).toMatchObject({ stage: 'saveState' });
    expect(count(log, 'updateScale')).toBe(0);
    expect(clusters.get('a')!.scales.get('n/Deployment/web')!.specReplicas).toBe(2);
    expect(store.get('a', 'n', 'web')!.version).toBe(1);
  });

  it('saves the failure over the tentative state when the patch fails', async () => {
    store.put(record('a', 'n', 'web', [external('q')]));
    addTarget('a', 'n', 'web', 2);
    clusters.get('a')!.failUpdate.set('n/Deployment/web', new Error('forbidden: cannot patch deployments/scale'));
    metricValues.set('External:q', 5);
    const report = await cycle(['a']);
    expect(report.autoscalers[0]).toMatchObject({ outcome: 'failed', patched: false, stored: 'written' });
    expect(report.autoscalers[0].errors).toEqual([{ stage: 'updateScale', message: 'forbidden: cannot patch deployments/scale' }]);
    const saved = store.get('a', 'n', 'web')!;
    expect(saved.version).toBe(3);
    expect(saved.history.scaleUpEvents).toEqual([]);
    expect(saved.hpa.status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'FailedUpdateScale' });
  });

  it('dry-run (annotation or global) decides and stores, but never patches nor records a scale event', async () => {
    store.put(record('a', 'n', 'annotated', [external('q')], { annotations: { 'shpa.dev/dry-run': 'true' } }));
    store.put(record('a', 'n', 'live', [external('q')]));
    addTarget('a', 'n', 'annotated', 2);
    addTarget('a', 'n', 'live', 2);
    metricValues.set('External:q', 6);
    const report = await cycle(['a']);
    const byName = Object.fromEntries(report.autoscalers.map((r) => [r.name, r]));
    expect(byName.annotated).toMatchObject({ outcome: 'dryRun', dryRun: true, patched: false, stored: 'written', desiredReplicas: 6 });
    expect(byName.live).toMatchObject({ outcome: 'scaled', dryRun: false, patched: true });
    const stored = store.get('a', 'n', 'annotated')!;
    expect(stored.hpa.status).toMatchObject({ desiredReplicas: 6 });
    expect(stored.hpa.status?.lastScaleTime).toBeUndefined();
    expect(stored.hpa.status?.conditions?.[0]).toMatchObject({ reason: 'DryRun' });
    expect(stored.history.scaleUpEvents).toEqual([]);
    expect(log.calls.filter((c) => c.op === 'updateScale').map((c) => c.arg)).toEqual(['n/Deployment/live=6']);

    log.calls.length = 0;
    metricValues.set('External:q', 9);
    const global = await cycle(['a'], { dryRun: true });
    expect(global.counts.dryRun).toBe(2);
    expect(count(log, 'updateScale')).toBe(0);
  });
});

describe('isolation', () => {
  it('a cluster that cannot load or connect is reported; the others sync', async () => {
    store.put(record('good', 'n', 'web', [external('q')]));
    store.put(record('down', 'n', 'web', [external('q')]));
    store.put(record('nocreds', 'n', 'web', [external('q')]));
    addTarget('good', 'n', 'web', 1);
    addTarget('down', 'n', 'web', 1);
    store.failLoad.add('down');
    metricValues.set('External:q', 3);
    const report = await cycle(['good', 'down', 'nocreds']);
    expect(report.clusters).toEqual([
      { name: 'down', autoscalers: 0, error: { stage: 'load', message: 'table unreachable for down' } },
      { name: 'good', autoscalers: 1 },
      { name: 'nocreds', autoscalers: 0, error: { stage: 'load', message: 'no credentials for cluster nocreds' } },
    ]);
    expect(report.autoscalers).toHaveLength(1);
    expect(report.autoscalers[0]).toMatchObject({ cluster: 'good', outcome: 'scaled', desiredReplicas: 3 });
  });

  it('a broken record, a failed scale read or a throwing reconcile stay with their autoscaler', async () => {
    store.broken.push({ cluster: 'a', namespace: 'n', name: 'bad', error: 'spec.maxReplicas: Required value' });
    store.put(record('a', 'n', 'throws', [external('q')], { annotations: { 'test/throw': 'yes' } }));
    store.put(record('a', 'n', 'missing', [external('q')]));
    store.put(record('a', 'n', 'ok', [external('q')]));
    addTarget('a', 'n', 'throws', 1);
    addTarget('a', 'n', 'ok', 1);
    metricValues.set('External:q', 2);
    const report = await cycle(['a']);
    const byName = Object.fromEntries(report.autoscalers.map((r) => [r.name, r]));
    expect(byName.bad).toMatchObject({ outcome: 'broken', errors: [{ stage: 'load', message: 'spec.maxReplicas: Required value' }] });
    expect(byName.throws).toMatchObject({ outcome: 'failed', errors: [{ stage: 'reconcile', message: 'malformed spec' }] });
    // A failed read is the reconcile's input (FailedGetScale), as upstream.
    expect(planned.inputs.find((i) => i.hpa.metadata.name === 'missing')!.scale.error).toMatch(/not found/);
    expect(byName.missing.decision?.skipped?.reason).toBe('FailedGetScale');
    expect(byName.ok).toMatchObject({ outcome: 'scaled', desiredReplicas: 2 });
    expect(report.counts).toMatchObject({ autoscalers: 4, broken: 1, failed: 1, scaled: 1, errors: 2 });
  });

  it('an unexpected error after planning stays with its autoscaler', async () => {
    store.put(record('a', 'n', 'odd', [external('q')], { annotations: { 'test/throw-complete': 'yes' } }));
    store.put(record('b', 'n', 'ok', [external('q')]));
    addTarget('a', 'n', 'odd', 1);
    addTarget('b', 'n', 'ok', 1);
    metricValues.set('External:q', 2);
    const report = await cycle(['a', 'b']);
    const byName = Object.fromEntries(report.autoscalers.map((r) => [r.name, r]));
    expect(byName.odd).toMatchObject({ outcome: 'failed', patched: false, errors: [{ stage: 'reconcile', message: 'unexpected state' }] });
    expect(byName.ok).toMatchObject({ outcome: 'scaled', desiredReplicas: 2 });
    expect(clusters.get('a')!.scales.get('n/Deployment/odd')!.specReplicas).toBe(1);
  });

  it('a metrics outage reaches every metric as an error, so nothing scales down', async () => {
    store.put(record('a', 'n', 'web', [external('q')]));
    addTarget('a', 'n', 'web', 4);
    metrics.failure = new Error('connect ECONNREFUSED');
    const report = await cycle(['a']);
    expect(planned.inputs[0].metrics[0].externalMetrics?.error).toBe('unable to fetch metrics: connect ECONNREFUSED');
    expect(report.autoscalers[0]).toMatchObject({ outcome: 'unchanged', desiredReplicas: 4, patched: false });
  });

  it('without the pods of a namespace, pod-based metrics fail and the others still count', async () => {
    store.put(record('a', 'n', 'web', [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }, external('q')]));
    addTarget('a', 'n', 'web', 2);
    clusters.get('a')!.failPods.set('n', new Error('pods is forbidden'));
    metricValues.set('External:q', 3);
    const report = await cycle(['a']);
    expect(planned.inputs[0].metrics[0].podMetrics?.error).toBe('unable to get pods while calculating replica count: pods is forbidden');
    expect(metrics.received[0].map((q) => q.type)).toEqual(['External']);
    expect(report.autoscalers[0]).toMatchObject({ outcome: 'scaled', desiredReplicas: 3 });
  });
});

describe('deadline', () => {
  it('skips an autoscaler whose read outlives the deadline and leaves it untouched', async () => {
    store.put(record('a', 'n', 'slow', [external('q')]));
    store.put(record('a', 'n', 'fast', [external('q')]));
    addTarget('a', 'n', 'slow', 1);
    addTarget('a', 'n', 'fast', 1);
    clusters.get('a')!.hangScale.add('n/Deployment/slow');
    metricValues.set('External:q', 2);
    const realClock = { now: () => new Date() };
    const report = await runCycle(
      { store, metrics, clock: realClock, cluster: (c) => clusters.get(c.name)! },
      { clusters: clusterRecords('a'), deadline: new Date(Date.now() + 200), options: { ...options, writeBudgetMs: 0 } },
    );
    const byName = Object.fromEntries(report.autoscalers.map((r) => [r.name, r]));
    expect(byName.slow).toMatchObject({ outcome: 'skipped', stored: 'unchanged', patched: false });
    expect(byName.slow.errors[0]).toMatchObject({ stage: 'deadline' });
    expect(store.get('a', 'n', 'slow')!.version).toBe(1);
    // The other one's scale came in time, but the cycle reached the deadline before metrics: skipped too, nothing written.
    expect(byName.fast.outcome).toBe('skipped');
    expect(count(log, 'saveState') + count(log, 'updateScale')).toBe(0);
  });

  it('does not start a rescale without the write budget left', async () => {
    store.put(record('a', 'n', 'web', [external('q')]));
    addTarget('a', 'n', 'web', 1);
    metricValues.set('External:q', 2);
    const report = await cycle(['a'], { writeBudgetMs: 5_000 }, 1_000);
    expect(report.autoscalers[0]).toMatchObject({ outcome: 'skipped', patched: false, stored: 'unchanged' });
    expect(report.autoscalers[0].errors[0].message).toMatch(/before writing the scale/);
    expect(count(log, 'saveState') + count(log, 'updateScale')).toBe(0);
  });
});
