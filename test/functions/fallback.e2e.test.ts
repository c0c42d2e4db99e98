// KEP-5679 fallback end to end on the local stack (harness.ts): the worker reads the backlog
// from the local CloudWatch endpoint, which fails with AccessDenied for five minutes; once the
// metric has failed for failureDurationSeconds the fallback count scales the Deployment on the
// local API server, the decision line shows the metric in fallback, and when CloudWatch answers
// again normal evaluation resumes. A CloudWatchMetric's defaultValue comes first: no datapoint
// with a defaultValue is a value, not a failure, so no fallback.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MetricDecision } from '../../lib/hpa/reconcile.js';
import type { DynamoServer } from '../support/dynamo.js';
import { BACKLOG_METRIC, backlogObject, CLUSTER, hpa, MIN, START, startDynamo, startHarness, type Harness } from './harness.js';

const withFallback = {
  type: 'External' as const,
  external: { metric: { name: 'jobs-backlog' }, target: { type: 'AverageValue' as const, averageValue: '10' }, fallback: { replicas: 9, failureDurationSeconds: 180 } },
};

let server: DynamoServer;
let harnesses: Harness[] = [];
beforeAll(async () => {
  server = await startDynamo('dynalite');
});
afterAll(() => server?.stop());
afterEach(async () => {
  await Promise.all(harnesses.map((h) => h.stop()));
  harnesses = [];
});

async function arrange(metricObject = backlogObject): Promise<Harness> {
  const h = await startHarness({ server, kind: 'dynalite' });
  harnesses.push(h);
  h.model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'apps', name: 'web', replicas: 2, selector: { app: 'web' }, containers: [{ name: 'app', requests: { cpu: '500m' } }] });
  await h.fns.admin.applySpec(CLUSTER, metricObject, h.clock.now());
  await h.fns.admin.applySpec(CLUSTER, hpa('web', { metrics: [withFallback], behavior: { scaleUp: { policies: [{ type: 'Pods', value: 10, periodSeconds: 15 }] } } }), h.clock.now());
  h.cloudWatch.setSeriesFunction(BACKLOG_METRIC, () => 20, 60); // 2 pods × 10: at target
  await h.fns.drain();
  return h;
}

const fallbackOf = (line: Record<string, unknown>) => ((line.decision as { metrics: MetricDecision[] } | undefined)?.metrics ?? [])[0]?.fallback;

describe('metric fallback on the local stack', () => {
  it('CloudWatch failing for failureDurationSeconds: the fallback count scales the target; recovery resumes normal scaling', async () => {
    const h = await arrange();
    await h.run(4); // one minute, healthy
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(2);
    const failedFrom = h.clock.t;
    const recover = h.cloudWatch.failWhile('AccessDenied');
    // 12 periods of 15 s: 165 s of failures at the last one, not yet 180.
    await h.run(12);
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(2);
    let stored = await h.fns.admin.getAutoscaler(CLUSTER, 'apps', 'web');
    expect(stored?.hpa.status?.currentMetrics?.[0].external).toMatchObject({ fallbackStatus: 'Normal', firstFailureTime: new Date(failedFrom).toISOString().replace('.000Z', 'Z') });
    // The 13th: 180 s since the first failure.
    await h.run(1);
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(9);
    stored = await h.fns.admin.getAutoscaler(CLUSTER, 'apps', 'web');
    expect(stored?.hpa.status?.currentMetrics?.[0].external).toMatchObject({ fallbackStatus: 'Fallback' });
    expect(stored?.hpa.status?.conditions).toContainEqual(expect.objectContaining({ type: 'ExternalMetricFallbackActive', status: 'True', reason: 'FallbackActive' }));
    const line = h.decisions('web').at(-1)!;
    expect(line).toMatchObject({ desiredReplicas: 9, level: 'WARN' });
    expect(fallbackOf(line)).toMatchObject({ status: 'Fallback', replicas: 9 });
    expect(stored?.log?.map((e) => e.reason)).toContain('ExternalMetricFallbackActivated');

    recover();
    await h.run(4);
    stored = await h.fns.admin.getAutoscaler(CLUSTER, 'apps', 'web');
    expect(stored?.hpa.status?.currentMetrics?.[0].external).toEqual({ metric: { name: 'jobs-backlog' }, current: expect.any(Object), fallbackStatus: 'Normal' });
    expect(stored?.hpa.status?.conditions).toContainEqual(expect.objectContaining({ type: 'ExternalMetricFallbackActive', status: 'False' }));
    expect(stored?.log?.map((e) => e.reason)).toContain('ExternalMetricFallbackDeactivated');
    // Normal evaluation again: 20 messages want 2 pods, after the 300 s scale-down window.
    await h.run(24);
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(2);
    expect(h.clock.t - START).toBeGreaterThan(10 * MIN);
  });

  it('a CloudWatchMetric defaultValue applies first: no datapoint is a value, the fallback never starts', async () => {
    const h = await arrange({ ...backlogObject, spec: { ...backlogObject.spec, defaultValue: 20 } });
    h.cloudWatch.setSeriesFunction(BACKLOG_METRIC, () => undefined, 60);
    await h.run(16);
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(2);
    const stored = await h.fns.admin.getAutoscaler(CLUSTER, 'apps', 'web');
    expect(stored?.hpa.status?.currentMetrics?.[0].external).toMatchObject({ fallbackStatus: 'Normal' });
    expect(stored?.hpa.status?.currentMetrics?.[0].external?.firstFailureTime).toBeUndefined();
  });
});
