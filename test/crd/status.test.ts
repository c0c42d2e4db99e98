// A status written by our reconcile is one the status schema admits.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { reconcile, type ReconcileInput } from '../../lib/hpa/reconcile.js';
import type { MetricData } from '../../lib/hpa/replica-calculator.js';
import type { HorizontalPodAutoscalerSpec, HorizontalPodAutoscalerStatus, PodInfo } from '../../lib/hpa/types.js';
import { admitCustomResource, formatError } from '../../lib/local/kubernetes/crd/admission.js';
import { serverlessHpaCrd } from '../../lib/local/kubernetes/crd/manifests.js';

const now = new Date('2026-03-01T12:00:00Z');
const before = '2026-03-01T11:00:00Z';
const crd = serverlessHpaCrd();

const spec: HorizontalPodAutoscalerSpec = {
  scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
  minReplicas: 2,
  maxReplicas: 6,
  metrics: [
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
    { type: 'External', external: { metric: { name: 'jobs-backlog', selector: { matchLabels: { queue: 'jobs' } } }, target: { type: 'AverageValue', averageValue: '30' } } },
    { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100m' } } },
  ],
  behavior: { scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
};

function pods(n: number): PodInfo[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `web-${i}`,
    labels: { app: 'web' },
    phase: 'Running',
    ready: 'True',
    readyTransitionTime: before,
    startTime: before,
    containers: [{ name: 'app', requests: { cpu: '1' } }],
  }));
}

function metrics(replicas: number, cpuMilli: number, backlog: Fetched, rps: Fetched): MetricData[] {
  return [
    { podMetrics: { value: pods(replicas).map((p) => ({ pod: p.name, timestamp: before, windowSeconds: 30, containers: [{ name: 'app', usage: { cpu: `${cpuMilli}m` } }] })) } },
    { externalMetrics: backlog === 'error' ? { error: 'CloudWatch: throttled' } : { value: [{ value: backlog, timestamp: before }] } },
    { podCustomMetrics: rps === 'error' ? { error: 'no metrics returned from custom metrics API' } : { value: pods(replicas).map((p) => ({ pod: p.name, value: rps, timestamp: before })) } },
  ];
}
type Fetched = string | 'error';

function run(replicas: number, data: MetricData[], status?: HorizontalPodAutoscalerStatus, scaleError?: string): HorizontalPodAutoscalerStatus {
  const input: ReconcileInput = {
    hpa: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'shop', generation: 3 }, spec, status },
    scale: scaleError ? { error: scaleError } : { value: { specReplicas: replicas, statusReplicas: replicas, selector: 'app=web' } },
    pods: pods(replicas),
    metrics: data,
    history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
    settings: DEFAULT_CONTROLLER_SETTINGS,
    now,
  };
  return reconcile(input).status;
}

function admitStatus(status: HorizontalPodAutoscalerStatus) {
  const metadata = { name: 'web', namespace: 'shop', resourceVersion: '7', generation: 3 };
  const old = { apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', metadata, spec };
  // What the sync writes through /status: the reconciled status and the display strings.
  const updated = { ...old, status: { ...structuredClone(status), reference: 'Deployment/web', targets: 'cpu: 90%/60%, 15/30 (avg)' } };
  return admitCustomResource(crd, 'v1', JSON.parse(JSON.stringify(updated)), old);
}

describe('status written by reconcile', () => {
  const cases: [string, HorizontalPodAutoscalerStatus][] = [
    ['scaling up on every metric', run(3, metrics(3, 900, '90', '150m'))],
    ['with failed metrics (empty MetricStatus slots)', run(3, metrics(3, 300, 'error', 'error'))],
    ['limited by maxReplicas, then again', run(6, metrics(6, 1000, '500', '1'), run(6, metrics(6, 1000, '500', '1')))],
    ['when the scale cannot be read', run(3, metrics(3, 500, '30', '100m'), undefined, 'deployments.apps "web" not found')],
  ];

  it.each(cases)('is admitted %s', (_name, status) => {
    const r = admitStatus(status);
    expect(r.errors.map(formatError)).toEqual([]);
    expect((r.object.status as Record<string, unknown>).conditions).toEqual(status.conditions);
  });

  it('has the shapes these cases mean to cover', () => {
    const [up, failed, limited, noScale] = cases.map(([, s]) => s);
    expect(up.lastScaleTime).toBe(now.toISOString());
    expect(up.currentMetrics?.map((m) => m.type)).toEqual(['Resource', 'External', 'Pods']);
    expect(failed.currentMetrics?.map((m) => m.type)).toContain('');
    expect(limited.conditions?.find((c) => c.type === 'ScalingLimited')?.status).toBe('True');
    expect(noScale.conditions?.find((c) => c.type === 'AbleToScale')?.reason).toBe('FailedGetScale');
  });

  it('rejects a status that breaks the schema', () => {
    const r = admitStatus({ currentReplicas: 3, desiredReplicas: 2.5, lastScaleTime: 'yesterday', conditions: [
      { type: 'AbleToScale', status: 'True' },
      { type: 'AbleToScale', status: 'False' },
    ] });
    expect(r.errors.map(formatError)).toEqual([
      'status.lastScaleTime: Invalid value: "yesterday": status.lastScaleTime in body must be of type date-time: "yesterday"',
      'status.desiredReplicas: Invalid value: "number": status.desiredReplicas in body must be of type integer: "number"',
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in status.desiredReplicas',
      'status.conditions[1]: Duplicate value: {"type":"AbleToScale"}',
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });
});
