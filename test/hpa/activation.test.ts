// The activation threshold (ours, after KEDA): table-driven, one runner, as upstream's replica calculator tests.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { reconcile, type ReconcileInput } from '../../lib/hpa/reconcile.js';
import type { MetricData } from '../../lib/hpa/replica-calculator.js';
import type { HorizontalPodAutoscalerCondition, MetricSpec, MetricStatus, MetricTarget, PodInfo } from '../../lib/hpa/types.js';
import { formatFieldError, validateHPA } from '../../lib/hpa/api/validation.js';

const now = new Date('2026-03-01T12:00:00Z');
const at = '2026-03-01T11:59:30Z';

const external = (name: string, activation?: string, target: MetricTarget = { type: 'Value', value: '10' }): MetricSpec => ({
  type: 'External',
  external: { metric: { name }, target, ...(activation === undefined ? {} : { activation: { value: activation } }) },
});
const queue = (activation?: string, target?: MetricTarget) => external('queue', activation, target);
const other = (activation?: string) => external('other', activation);
const backlog = (activation: string): MetricSpec => ({
  type: 'Object',
  object: {
    describedObject: { apiVersion: 'v1', kind: 'Service', name: 'jobs' },
    metric: { name: 'backlog' },
    target: { type: 'Value', value: '10' },
    activation: { value: activation },
  },
});
const series = (...values: string[]): MetricData => ({ externalMetrics: { value: values.map((value) => ({ value, timestamp: at })) } });
const failed: MetricData = { externalMetrics: { error: 'the CloudWatch query failed' } };
/** The metric with a fallback of `replicas` after 180 s of failures. */
const withFallback = (m: MetricSpec, replicas: number): MetricSpec => ({ ...m, external: { ...m.external!, fallback: { failureDurationSeconds: 180, replicas } } });
/** Its stored status entry: failing for `seconds` before now. */
const failingSince = (m: MetricSpec, seconds: number): MetricStatus => ({
  type: 'External',
  external: { metric: m.external!.metric, current: {}, fallbackStatus: 'Normal', firstFailureTime: new Date(now.getTime() - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
});

function readyPods(n: number): PodInfo[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `jobs-${i}`,
    labels: { app: 'jobs' },
    phase: 'Running',
    ready: 'True',
    readyTransitionTime: '2026-03-01T11:00:00Z',
    startTime: '2026-03-01T11:00:00Z',
    containers: [{ name: 'app', requests: { cpu: '1' } }],
  }));
}

interface Case {
  name: string;
  replicas: number;
  metrics: MetricSpec[];
  data: MetricData[];
  min?: number;
  conditions?: HorizontalPodAutoscalerCondition[];
  /** The stored status.currentMetrics (a fallback's first failure time is read back from it). */
  currentMetrics?: MetricStatus[];
  want: {
    desired: number;
    /** The ScalingActive reason after the sync. */
    active: string;
    /** The activation step's detail, when the thresholds hold the target at zero. */
    held?: string;
    /** decision.metrics[i].activation, by index (undefined: no activation entry). */
    activations?: (object | undefined)[];
  };
}

const cases: Case[] = [
  {
    name: 'at zero, a value below the threshold keeps the target at zero',
    replicas: 0,
    metrics: [queue('5')],
    data: [series('3')],
    want: { desired: 0, active: 'BelowActivationThreshold', held: 'queue: 3 (activation 5)', activations: [{ threshold: '5', value: '3', active: false }] },
  },
  {
    name: 'at zero, a value equal to the threshold is not above it (KEDA: value > threshold)',
    replicas: 0,
    metrics: [queue('5')],
    data: [series('5')],
    want: { desired: 0, active: 'BelowActivationThreshold', held: 'queue: 5 (activation 5)' },
  },
  {
    name: 'at zero, a value above the threshold scales up by the ordinary algorithm (ceil(6/10) = 1)',
    replicas: 0,
    metrics: [queue('5')],
    data: [series('6')],
    want: { desired: 1, active: 'ValidMetricFound', activations: [{ threshold: '5', value: '6', active: true }] },
  },
  {
    name: 'at zero, above the threshold the ordinary limits still apply (0 → 4, the legacy scale-up limit, not 0 → 1)',
    replicas: 0,
    metrics: [queue('5')],
    data: [series('95')],
    want: { desired: 4, active: 'ValidMetricFound' },
  },
  {
    name: 'at zero, a fractional threshold compares exactly (501m > 500m)',
    replicas: 0,
    metrics: [queue('500m')],
    data: [series('501m')],
    want: { desired: 1, active: 'ValidMetricFound', activations: [{ threshold: '500m', value: '501m', active: true }] },
  },
  {
    name: 'at zero, an External metric is compared by its total over its series, whatever its target type',
    replicas: 0,
    metrics: [queue('5', { type: 'AverageValue', averageValue: '2' })],
    data: [series('3', '3')],
    want: { desired: 3, active: 'ValidMetricFound', activations: [{ threshold: '5', value: '6', active: true }] },
  },
  {
    name: 'at zero, an Object metric below its threshold keeps the target at zero',
    replicas: 0,
    metrics: [backlog('20')],
    data: [{ objectMetric: { value: { value: '15', timestamp: at } } }],
    want: { desired: 0, active: 'BelowActivationThreshold', held: 'backlog: 15 (activation 20)' },
  },
  {
    name: 'at zero, a metric without a threshold wakes the target as it would alone (KEDA default threshold 0)',
    replicas: 0,
    metrics: [queue('5'), other()],
    data: [series('3'), series('2')],
    want: { desired: 1, active: 'ValidMetricFound', activations: [{ threshold: '5', value: '3', active: false }, undefined] },
  },
  {
    name: 'at zero, a metric without a threshold at zero does not wake it',
    replicas: 0,
    metrics: [queue('5'), other()],
    data: [series('3'), series('0')],
    want: { desired: 0, active: 'BelowActivationThreshold', held: 'queue: 3 (activation 5)' },
  },
  {
    name: 'at zero, one metric above its threshold is enough',
    replicas: 0,
    metrics: [queue('50'), other('1')],
    data: [series('30'), series('2')],
    want: { desired: 3, active: 'ValidMetricFound' },
  },
  {
    name: 'at zero, a metric that cannot be read is not above its threshold',
    replicas: 0,
    metrics: [queue('5'), other('1')],
    data: [series('3'), failed],
    want: { desired: 0, active: 'BelowActivationThreshold', held: 'queue: 3 (activation 5); other: unavailable (activation 1)' },
  },
  {
    name: 'at zero, a metric that cannot be read but is on its fallback count wakes the target (fallback from zero, KEDA #7239)',
    replicas: 0,
    metrics: [withFallback(queue('5'), 4)],
    data: [failed],
    currentMetrics: [failingSince(queue('5'), 181)],
    want: { desired: 4, active: 'ValidMetricFound', activations: [{ threshold: '5', active: true, fallback: true }] },
  },
  {
    name: 'at zero, the same before its failure duration: not yet on its fallback, not active',
    replicas: 0,
    metrics: [withFallback(queue('5'), 4), other()],
    data: [failed, series('0')],
    currentMetrics: [failingSince(queue('5'), 179)],
    want: { desired: 0, active: 'BelowActivationThreshold', held: 'queue: unavailable (activation 5)' },
  },
  {
    name: 'above zero the threshold has no effect: a value below it still scales up',
    replicas: 2,
    metrics: [queue('50')],
    data: [series('30')],
    want: { desired: 6, active: 'ValidMetricFound', activations: [undefined] },
  },
  {
    name: 'above zero the way down is the ordinary algorithm (1 → 0 on an empty queue)',
    replicas: 1,
    metrics: [queue('5')],
    data: [series('0')],
    want: { desired: 0, active: 'ValidMetricFound' },
  },
  {
    name: 'without a threshold nothing changes at zero: any value above zero scales up',
    replicas: 0,
    metrics: [queue()],
    data: [series('1')],
    want: { desired: 1, active: 'ValidMetricFound', activations: [undefined] },
  },
  {
    name: 'minReplicas raised while the autoscaler held the target at zero: minReplicas wins',
    replicas: 0,
    min: 1,
    metrics: [queue('5')],
    data: [series('0')],
    conditions: [{ type: 'ScaledToZero', status: 'True', reason: 'ScaledToZero' }],
    want: { desired: 1, active: 'none' },
  },
];

function input(c: Case): ReconcileInput {
  return {
    hpa: {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'jobs', namespace: 'work' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'jobs' },
        minReplicas: c.min ?? 0,
        maxReplicas: 10,
        metrics: c.metrics,
        behavior: c.replicas > 0 ? { scaleDown: { stabilizationWindowSeconds: 0 } } : undefined,
      },
      status: { currentReplicas: c.replicas, desiredReplicas: c.replicas, conditions: c.conditions, ...(c.currentMetrics ? { currentMetrics: c.currentMetrics } : {}) },
    },
    scale: { value: { specReplicas: c.replicas, statusReplicas: c.replicas, selector: 'app=jobs' } },
    pods: readyPods(c.replicas),
    metrics: c.data,
    history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
    settings: DEFAULT_CONTROLLER_SETTINGS,
    now,
  };
}

describe('activation threshold (reconcile)', () => {
  it.each(cases)('$name', (c) => {
    const r = reconcile(input(c));
    expect(r.status.desiredReplicas).toBe(c.want.desired);
    expect(r.scaled).toBe(c.want.desired !== c.replicas);
    const active = r.conditions.find((x) => x.type === 'ScalingActive');
    expect(active?.reason ?? 'none').toBe(c.want.active);
    const step = r.decision.steps.find((s) => s.rule === 'activation');
    if (c.want.held === undefined) {
      expect(step).toBeUndefined();
    } else {
      expect(step).toMatchObject({ to: 0 });
      expect(step?.detail).toContain(c.want.held);
      expect(active).toMatchObject({ status: 'True', message: step?.detail });
    }
    c.want.activations?.forEach((a, i) => expect(r.decision.metrics[i].activation).toEqual(a));
  });

  it('leaves zero once the value passes the threshold, and says so in ScalingActive again', () => {
    const c = cases[0];
    const held = reconcile(input(c));
    const next = input({ ...c, data: [series('7')] });
    next.hpa.status = held.status;
    const woke = reconcile(next);
    expect(woke.status.desiredReplicas).toBe(1);
    expect(woke.conditions.find((x) => x.type === 'ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound' });
  });
});

describe('activation threshold (validation)', () => {
  const hpa = (metric: unknown) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'jobs' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'jobs' }, minReplicas: 0, maxReplicas: 5, metrics: [queue(), metric] },
  });
  const target = { type: 'AverageValue', averageValue: '1' };
  const cases: { name: string; metric: unknown; field?: string; message?: string }[] = [
    { name: 'External with a threshold', metric: queue('5') },
    { name: 'Object with a threshold of zero', metric: backlog('0') },
    { name: 'a JSON number is a quantity', metric: { type: 'External', external: { metric: { name: 'q' }, target, activation: { value: 5 } } } },
    {
      name: 'Resource metric',
      metric: { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 }, activation: { value: '5' } } },
      field: 'spec.metrics[1].resource.activation',
      message: 'Object and External metrics only',
    },
    {
      name: 'ContainerResource metric',
      metric: { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 }, activation: { value: '5' } } },
      field: 'spec.metrics[1].containerResource.activation',
      message: 'Object and External metrics only',
    },
    {
      name: 'Pods metric',
      metric: { type: 'Pods', pods: { metric: { name: 'rps' }, target, activation: { value: '5' } } },
      field: 'spec.metrics[1].pods.activation',
      message: 'Object and External metrics only',
    },
    { name: 'malformed quantity', metric: { type: 'External', external: { metric: { name: 'q' }, target, activation: { value: '5 msgs' } } }, field: 'spec.metrics[1].external.activation.value', message: 'quantities must match' },
    { name: 'negative value', metric: { type: 'External', external: { metric: { name: 'q' }, target, activation: { value: '-1' } } }, field: 'spec.metrics[1].external.activation.value', message: 'zero or more' },
    { name: 'no value', metric: { type: 'External', external: { metric: { name: 'q' }, target, activation: {} } }, field: 'spec.metrics[1].external.activation.value', message: 'must set the value' },
    { name: 'a misspelt field', metric: { type: 'External', external: { metric: { name: 'q' }, target, activation: { value: '1', treshold: '2' } } }, field: 'spec.metrics[1].external.activation.treshold', message: 'unknown field' },
    { name: 'not an object', metric: { type: 'External', external: { metric: { name: 'q' }, target, activation: '5' } }, field: 'spec.metrics[1].external.activation', message: 'must be an object' },
  ];
  it.each(cases)('$name', (c) => {
    const r = validateHPA(hpa(c.metric));
    if (c.field === undefined) {
      expect(r.errors).toEqual([]);
      return;
    }
    expect(r.valid).toBe(false);
    const e = r.errors.find((x) => x.field === c.field);
    expect(e, JSON.stringify(r.errors)).toBeDefined();
    expect(formatFieldError(e!)).toContain(c.message);
  });

  it('stores a numeric threshold as a quantity string', () => {
    const r = validateHPA(hpa({ type: 'External', external: { metric: { name: 'q' }, target, activation: { value: 5 } } }));
    expect(r.valid && r.hpa.spec.metrics?.[1].external?.activation).toEqual({ value: '5' });
  });
});
