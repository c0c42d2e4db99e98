// KEP-5679 fallback through the CRD (infra/crds, evaluated by the local API server's admission):
// the CEL rules say what validateHPA says, the default is 180 s, and a status with fallback fields
// (written by reconcile) is admitted without losing them to pruning.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { reconcile } from '../../lib/hpa/reconcile.js';
import type { HorizontalPodAutoscalerSpec, MetricSpec } from '../../lib/hpa/types.js';
import { admitCustomResource, formatError } from '../../lib/local/kubernetes/crd/admission.js';
import { serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';

type Obj = Record<string, unknown>;
const crd = serverlessHpaCrd();
const target = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
const shpa = (spec: Obj, status?: Obj): Obj => ({ apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'shop' }, spec, ...(status ? { status } : {}) });
const external = (fallback: unknown): Obj => ({ type: 'External', external: { metric: { name: 'queue_depth' }, target: { type: 'Value', value: '100' }, fallback } });
const BLOCKED = '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
const cpu = (fallback: unknown): Obj => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 }, fallback } });

describe('the CRD: metric fallback', () => {
  it.each([
    [external({ replicas: 10 }), []],
    [external({ replicas: 10, failureDurationSeconds: 179 }), ['spec.metrics[0].external.fallback.failureDurationSeconds: Invalid value: 179: must be at least 180']],
    [external({ replicas: 0 }), ['spec.metrics[0].external.fallback.replicas: Invalid value: 0: must be greater than 0']],
    [external({ replicas: 20 }), []],
    [external({ replicas: 21 }), ["spec.metrics: Invalid value: each metric's fallback.replicas must be less than or equal to `maxReplicas`"]],
    [cpu({ replicas: 21 }), ["spec.metrics: Invalid value: each metric's fallback.replicas must be less than or equal to `maxReplicas`"]],
    // int32, as the sync reads it (one range everywhere)
    [external({ replicas: 10, failureDurationSeconds: 2 ** 31 }), ['<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.metrics[0].external.fallback.failureDurationSeconds']],
    [external({ failureDurationSeconds: 300 }), ['spec.metrics[0].external.fallback.replicas: Required value', BLOCKED]],
    [cpu({ replicas: 0, failureDurationSeconds: 60 }), [
      'spec.metrics[0].resource.fallback.failureDurationSeconds: Invalid value: 60: must be at least 180',
      'spec.metrics[0].resource.fallback.replicas: Invalid value: 0: must be greater than 0',
    ]],
  ])('%j', (metric, expected) => {
    const r = admitCustomResource(crd, 'v1', shpa({ scaleTargetRef: target, maxReplicas: 20, metrics: [metric] }));
    expect(r.errors.map(formatError).sort()).toEqual([...expected].sort());
  });

  it('defaults failureDurationSeconds to 180, as KEP-5679', () => {
    const r = admitCustomResource(crd, 'v1', shpa({ scaleTargetRef: target, maxReplicas: 20, metrics: [external({ replicas: 10 })] }));
    expect(((r.object.spec as Obj).metrics as Obj[])[0]).toMatchObject({ external: { fallback: { replicas: 10, failureDurationSeconds: 180 } } });
  });

  it('admits and keeps the fallback status fields reconcile writes, for every type', () => {
    const metrics = [external({ replicas: 10 }), cpu({ replicas: 4 })] as unknown as MetricSpec[];
    const spec: HorizontalPodAutoscalerSpec = { scaleTargetRef: target, maxReplicas: 20, metrics };
    const r = reconcile({
      hpa: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'shop' }, spec, status: { currentReplicas: 3, desiredReplicas: 3 } },
      scale: { value: { specReplicas: 3, statusReplicas: 3, selector: 'app=web' } },
      pods: [],
      metrics: [{ externalMetrics: { error: 'throttled' } }, { podMetrics: { error: 'metrics API unavailable' } }],
      history: { recommendations: [], scaleUpEvents: [], scaleDownEvents: [] },
      settings: DEFAULT_CONTROLLER_SETTINGS,
      now: new Date('2026-03-01T12:00:00Z'),
    });
    expect(r.conditions.map((c) => c.type)).toContain('ExternalMetricFallbackActive');
    const status = JSON.parse(JSON.stringify(r.status)) as Obj;
    const admitted = admitCustomResource(crd, 'v1', shpa({ scaleTargetRef: target, maxReplicas: 20, metrics }, status));
    expect(admitted.errors.map(formatError)).toEqual([]);
    expect((admitted.object.status as Obj).currentMetrics).toEqual([
      { type: 'External', external: { metric: { name: 'queue_depth' }, current: {}, fallbackStatus: 'Normal', firstFailureTime: '2026-03-01T12:00:00Z' } },
      { type: 'Resource', resource: { name: 'cpu', current: {}, fallbackStatus: 'Normal', firstFailureTime: '2026-03-01T12:00:00Z' } },
    ]);
  });
});
