import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { completeReconcile, planReconcile, reconcile, type ReconcileInput } from '../../lib/hpa/reconcile.js';
import type { HorizontalPodAutoscalerBehavior, MetricSpec, PodInfo, PodMetric } from '../../lib/hpa/types.js';

const now = new Date('2026-03-01T12:00:00Z');
const longAgo = '2026-03-01T11:00:00Z';

function pods(n: number, labels = { app: 'web' }): PodInfo[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `web-${i}`,
    labels,
    phase: 'Running',
    ready: 'True',
    readyTransitionTime: longAgo,
    startTime: longAgo,
    containers: [{ name: 'app', requests: { cpu: '1' } }],
  }));
}

function cpuMetrics(usageMilli: number[]): PodMetric[] {
  return usageMilli.map((u, i) => ({
    pod: `web-${i}`,
    timestamp: '2026-03-01T11:59:30Z',
    windowSeconds: 30,
    containers: [{ name: 'app', usage: { cpu: `${u}m` } }],
  }));
}

const cpu60: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } };

function input(opts: {
  replicas: number;
  usage: number[];
  behavior?: HorizontalPodAutoscalerBehavior;
  min?: number;
  max?: number;
  history?: ReconcileInput['history'];
  metrics?: MetricSpec[];
}): ReconcileInput {
  const metrics = opts.metrics ?? [cpu60];
  return {
    hpa: {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: opts.min ?? 1,
        maxReplicas: opts.max ?? 20,
        metrics,
        behavior: opts.behavior,
      },
      status: { currentReplicas: opts.replicas, desiredReplicas: opts.replicas },
    },
    scale: { value: { specReplicas: opts.replicas, statusReplicas: opts.replicas, selector: 'app=web' } },
    pods: pods(opts.usage.length),
    metrics: metrics.map(() => ({ podMetrics: { value: cpuMetrics(opts.usage) } })),
    history: opts.history ?? { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
    settings: DEFAULT_CONTROLLER_SETTINGS,
    now,
  };
}

describe('reconcile', () => {
  it('scales up by the usage ratio and explains the decision', () => {
    // 4 pods at 900m of 1 cpu = 90% against 60%: ceil(4 × 1.5) = 6
    const r = reconcile(input({ replicas: 4, usage: [900, 900, 900, 900] }));
    expect(r.scaled).toBe(true);
    expect(r.status.desiredReplicas).toBe(6);
    expect(r.status.lastScaleTime).toBe(now.toISOString());
    expect(r.status.currentMetrics?.[0].resource?.current.averageUtilization).toBe(90);
    expect(r.decision).toMatchObject({
      currentReplicas: 4,
      recommendation: 6,
      desiredReplicas: 6,
      rescale: true,
      rescaleReason: 'cpu resource utilization (percentage of request) above target',
    });
    expect(r.decision.metrics).toEqual([expect.objectContaining({ index: 0, type: 'Resource', name: 'cpu', proposal: 6 })]);
    expect(r.events).toEqual([{ type: 'Normal', reason: 'SuccessfulRescale', message: expect.stringContaining('New size: 6') }]);
  });

  it('seeds the recommendation history with the current size, then records this recommendation', () => {
    const r = reconcile(input({ replicas: 4, usage: [900, 900, 900, 900] }));
    expect(r.history.recommendations?.map((x) => x.replicas).sort()).toEqual([4, 6]);
  });

  it('holds a scale down inside the stabilization window, from stored history', () => {
    const history = {
      recommendations: [{ timestamp: '2026-03-01T11:58:00Z', replicas: 8 }],
      scaleUpEvents: [],
      scaleDownEvents: [],
    };
    const r = reconcile(input({ replicas: 8, usage: Array(8).fill(150), history }));
    expect(r.scaled).toBe(false);
    expect(r.status.desiredReplicas).toBe(8);
    expect(r.conditions.find((c) => c.type === 'AbleToScale')?.reason).toBe('ScaleDownStabilized');
    expect(r.decision.steps.length).toBeGreaterThan(0);
  });

  it('on a failed scale write keeps the old desired replicas, records no scale event and says why', () => {
    const behavior = { scaleUp: { stabilizationWindowSeconds: 0 } };
    const plan = planReconcile(input({ replicas: 4, usage: [900, 900, 900, 900], behavior }));
    expect(plan.rescale).toBe(true);
    const failed = completeReconcile(plan, 'conflict on /scale');
    expect(failed.scaled).toBe(false);
    expect(failed.status.desiredReplicas).toBe(4);
    expect(failed.status.lastScaleTime).toBeUndefined();
    expect(failed.history.scaleUpEvents).toEqual([]);
    expect(failed.conditions.find((c) => c.type === 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedUpdateScale' });
    expect(failed.events.map((e) => e.reason)).toEqual(['FailedRescale']);

    const ok = completeReconcile(planReconcile(input({ replicas: 4, usage: [900, 900, 900, 900], behavior })));
    expect(ok.history.scaleUpEvents).toEqual([{ timestamp: now.toISOString(), change: 2 }]);
  });

  it('reports a failed scale read as AbleToScale False and leaves the rest of the status alone', () => {
    const r = reconcile({ ...input({ replicas: 3, usage: [100, 100, 100] }), scale: { error: 'deployments.apps "web" not found' } });
    expect(r.scaled).toBe(false);
    expect(r.status.currentReplicas).toBe(3);
    expect(r.conditions).toEqual([expect.objectContaining({ type: 'AbleToScale', status: 'False', reason: 'FailedGetScale' })]);
    expect(r.decision.skipped?.reason).toBe('FailedGetScale');
    expect(r.history.recommendations).toBeNull();
  });

  it('does not scale down when one metric fails and the others would scale down', () => {
    const external: MetricSpec = { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '10' } } };
    const base = input({ replicas: 5, usage: [100, 100, 100, 100, 100], metrics: [cpu60, external] });
    const r = reconcile({ ...base, metrics: [base.metrics[0], { externalMetrics: { error: 'CloudWatch unavailable' } }] });
    expect(r.scaled).toBe(false);
    expect(r.status.desiredReplicas).toBe(5);
    expect(r.conditions.find((c) => c.type === 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetExternalMetric' });
    // the failed metric keeps an empty slot in currentMetrics, as upstream
    expect(r.status.currentMetrics?.map((m) => m.type)).toEqual(['Resource', '']);
  });

  it('treats pods selected by another HPA as an ambiguous selector', () => {
    const r = reconcile({ ...input({ replicas: 2, usage: [900, 900] }), otherHpaSelectors: [{ namespace: 'shop', name: 'other', selector: 'app' }] });
    expect(r.conditions.find((c) => c.type === 'ScalingActive')?.reason).toBe('AmbiguousSelector');
    expect(r.scaled).toBe(false);
  });

  it('keeps the lastTransitionTime of a condition whose status did not change', () => {
    const first = reconcile(input({ replicas: 4, usage: [600, 600, 600, 600] }));
    const again = reconcile({
      ...input({ replicas: 4, usage: [600, 600, 600, 600] }),
      hpa: { ...input({ replicas: 4, usage: [] }).hpa, status: first.status },
      history: first.history,
      now: new Date(now.getTime() + 15_000),
    });
    expect(again.conditions.map((c) => c.lastTransitionTime)).toEqual(first.conditions.map((c) => c.lastTransitionTime));
    expect(again.statusChanged).toBe(false);
  });

  it('always lands within [minReplicas, maxReplicas] when it scales', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 30 }),
        (replicas, min, extra, usage) => {
          const max = min + extra;
          const r = reconcile(input({ replicas, usage, min, max }));
          if (r.scaled) {
            expect(r.status.desiredReplicas).toBeGreaterThanOrEqual(min);
            expect(r.status.desiredReplicas).toBeLessThanOrEqual(max);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('reconcile on bad input', () => {
  it('throws a ReconcileInputError naming the HPA and the field, not a deep exception', async () => {
    const { ReconcileInputError } = await import('../../lib/hpa/reconcile.js');
    const corrupt = { recommendations: [{ timestamp: 'yesterday', replicas: 3 }], scaleUpEvents: [], scaleDownEvents: [] };
    expect(() => reconcile(input({ replicas: 3, usage: [100, 100, 100], history: corrupt }))).toThrow(ReconcileInputError);
    expect(() => reconcile(input({ replicas: 3, usage: [100, 100, 100], history: corrupt }))).toThrow(/shop\/web: recommendations\[0\]\.timestamp/);
    expect(() => reconcile(input({ replicas: 3, usage: [100, 100, 100], behavior: { scaleUp: { tolerance: 'lots' } } }))).toThrow(
      /spec\.behavior\.scaleUp\.tolerance/,
    );
  });

  it('turns a malformed metric target into a metric error, as a failed metric', () => {
    const bad: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: 'many' } } };
    const r = reconcile(input({ replicas: 3, usage: [100, 100, 100], metrics: [bad] }));
    expect(r.conditions.find((c) => c.type === 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetResourceMetric' });
    expect(r.conditions.find((c) => c.type === 'ScalingActive')?.message).toContain('averageValue');
  });
});

describe('completeReconcile', () => {
  it('leaves the plan unchanged, so one plan can be completed as success and as failure', () => {
    const plan = planReconcile(input({ replicas: 4, usage: [900, 900, 900, 900] }));
    const before = structuredClone(plan);
    const ok = completeReconcile(plan);
    const failed = completeReconcile(plan, 'boom');
    expect(plan).toEqual(before);
    expect(ok.conditions.find((c) => c.type === 'AbleToScale')?.reason).toBe('SucceededRescale');
    expect(failed.conditions.find((c) => c.type === 'AbleToScale')?.reason).toBe('FailedUpdateScale');
    expect(ok.decision.desiredReplicas).toBe(6);
    expect(failed.decision.desiredReplicas).toBe(4);
  });
});
