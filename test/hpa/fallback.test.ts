// KEP-5679 fallback (lib/hpa/fallback.ts) through one whole reconcile: the KEP's test plan as a table
// (keps/sig-autoscaling/5679-external-metric-fallback, "Unit tests"), plus our extension to the other types.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { goDuration, storedMetricStatus } from '../../lib/hpa/fallback.js';
import { reconcile, type ReconcileInput } from '../../lib/hpa/reconcile.js';
import type { MetricData } from '../../lib/hpa/replica-calculator.js';
import type { FeatureGates, HorizontalPodAutoscalerBehavior, MetricSpec, MetricStatus, PodInfo } from '../../lib/hpa/types.js';

const now = new Date('2026-03-01T12:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString().replace('.000Z', 'Z');
const longAgo = ago(3600);

const queue = (fallback?: { replicas: number; failureDurationSeconds?: number }, name = 'queue_depth'): MetricSpec => ({
  type: 'External',
  external: { metric: { name }, target: { type: 'Value', value: '100' }, ...(fallback ? { fallback } : {}) },
});
const cpu = (fallback?: { replicas: number; failureDurationSeconds?: number }): MetricSpec => ({
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 }, ...(fallback ? { fallback } : {}) },
});

/** Stored status entry of an external metric in a given fallback state. */
const externalStatus = (name: string, fallbackStatus: 'Normal' | 'Fallback', firstFailureTime?: string): MetricStatus => ({
  type: 'External',
  external: { metric: { name }, current: {}, fallbackStatus, ...(firstFailureTime ? { firstFailureTime } : {}) },
});

function pods(n: number): PodInfo[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `web-${i}`,
    labels: { app: 'web' },
    phase: 'Running',
    ready: 'True',
    readyTransitionTime: longAgo,
    startTime: longAgo,
    containers: [{ name: 'app', requests: { cpu: '1' } }],
  }));
}

/** A metric's data: a number is its value (External) or each pod's cpu in milli (Resource), a string an error. */
type Reading = number | string;
function data(spec: MetricSpec, reading: Reading, replicas: number): MetricData {
  if (spec.type === 'External') {
    return { externalMetrics: typeof reading === 'string' ? { error: reading } : { value: [{ value: String(reading), timestamp: ago(30) }] } };
  }
  if (typeof reading === 'string') return { podMetrics: { error: reading } };
  return {
    podMetrics: {
      value: pods(replicas).map((p) => ({ pod: p.name, timestamp: ago(30), windowSeconds: 30, containers: [{ name: 'app', usage: { cpu: `${reading}m` } }] })),
    },
  };
}

/** The object, the stored status and the metrics' readings of one sync. */
interface Setup {
  metrics: MetricSpec[];
  readings: Reading[];
  stored?: MetricStatus[];
  replicas?: number;
  min?: number;
  max?: number;
  behavior?: HorizontalPodAutoscalerBehavior;
  gates?: Partial<FeatureGates>;
  storedConditionTrue?: boolean;
}

interface Case extends Setup {
  name: string;
  want: {
    desired: number;
    /** ExternalMetricFallbackActive's status and reason; null: the condition must be absent. */
    condition: [string, string] | null | 'unchanged';
    scalingActive?: string;
    events: string[];
    activationMessage?: string;
    /** Per metric index: the fallback fields of its new status entry (null: none). */
    fields?: ({ fallbackStatus?: string; firstFailureTime?: string } | null)[];
  };
}

function inputFor(c: Setup, at = now): ReconcileInput {
  const replicas = c.replicas ?? 3;
  return {
    hpa: {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: c.min ?? 1,
        maxReplicas: c.max ?? 20,
        metrics: c.metrics,
        behavior: c.behavior,
      },
      status: {
        currentReplicas: replicas,
        desiredReplicas: replicas,
        currentMetrics: c.stored,
        conditions: c.storedConditionTrue ? [{ type: 'ExternalMetricFallbackActive', status: 'True', reason: 'FallbackActive', message: 'x' }] : undefined,
      },
    },
    scale: { value: { specReplicas: replicas, statusReplicas: replicas, selector: 'app=web' } },
    pods: pods(replicas),
    metrics: c.metrics.map((m, i) => data(m, c.readings[i], replicas)),
    history: { recommendations: [], scaleUpEvents: [], scaleDownEvents: [] },
    settings: { ...DEFAULT_CONTROLLER_SETTINGS, featureGates: { ...DEFAULT_CONTROLLER_SETTINGS.featureGates, ...c.gates } },
    now: at,
  };
}

const run = (c: Setup) => reconcile(inputFor(c));

const entryOf = (s: MetricStatus | undefined) => s?.external ?? s?.resource ?? s?.containerResource ?? s?.pods ?? s?.object;

const down = 'the server is currently unable to handle the request';
const cases: Case[] = [
  {
    name: 'no fallback configured: upstream behaviour, no condition, no status fields',
    metrics: [queue()],
    readings: [down],
    want: { desired: 3, condition: null, scalingActive: 'False', events: ['FailedGetExternalMetric', 'FailedComputeMetricsReplicas'], fields: [null] },
  },
  {
    name: 'first failure: firstFailureTime set to now, still Normal, the metric invalid',
    metrics: [queue({ replicas: 10 })],
    readings: [down],
    want: { desired: 3, condition: ['False', 'NoFallbackActive'], scalingActive: 'False', events: ['FailedGetExternalMetric', 'FailedComputeMetricsReplicas'], fields: [{ fallbackStatus: 'Normal', firstFailureTime: ago(0) }] },
  },
  {
    name: 'failing for 179 s: firstFailureTime kept, not yet active',
    metrics: [queue({ replicas: 10 })],
    readings: [down],
    stored: [externalStatus('queue_depth', 'Normal', ago(179))],
    want: { desired: 3, condition: ['False', 'NoFallbackActive'], scalingActive: 'False', events: ['FailedGetExternalMetric', 'FailedComputeMetricsReplicas'], fields: [{ fallbackStatus: 'Normal', firstFailureTime: ago(179) }] },
  },
  {
    name: 'failing for exactly 180 s (the default): fallback active, its count is the proposal',
    metrics: [queue({ replicas: 10 })],
    readings: [down],
    stored: [externalStatus('queue_depth', 'Normal', ago(180))],
    want: {
      desired: 6, // the default scale-up limit: max(2 × 3, 4)
      condition: ['True', 'FallbackActive'],
      scalingActive: 'True',
      events: ['FailedGetExternalMetric', 'ExternalMetricFallbackActivated', 'SuccessfulRescale'],
      activationMessage: "Fallback activated for external metric 'queue_depth' after 3m0s of consecutive failures, using fallback replica count: 10",
      fields: [{ fallbackStatus: 'Fallback', firstFailureTime: ago(180) }],
    },
  },
  {
    name: 'already in fallback: no second activation event',
    metrics: [queue({ replicas: 10 })],
    readings: [down],
    replicas: 6,
    stored: [externalStatus('queue_depth', 'Fallback', ago(600))],
    storedConditionTrue: true,
    want: { desired: 10, condition: ['True', 'FallbackActive'], events: ['FailedGetExternalMetric', 'SuccessfulRescale'], fields: [{ fallbackStatus: 'Fallback', firstFailureTime: ago(600) }] },
  },
  {
    name: 'recovery: firstFailureTime cleared, Normal, a recovery event, normal evaluation',
    metrics: [queue({ replicas: 10 })],
    readings: [100], // at its target: stays at 10
    replicas: 10,
    stored: [externalStatus('queue_depth', 'Fallback', ago(600))],
    storedConditionTrue: true,
    want: { desired: 10, condition: ['False', 'NoFallbackActive'], events: ['ExternalMetricFallbackDeactivated'], fields: [{ fallbackStatus: 'Normal' }] },
  },
  {
    name: 'a longer failureDurationSeconds: 300 s of failures are not enough for 600',
    metrics: [queue({ replicas: 10, failureDurationSeconds: 600 })],
    readings: [down],
    stored: [externalStatus('queue_depth', 'Normal', ago(300))],
    want: { desired: 3, condition: ['False', 'NoFallbackActive'], events: ['FailedGetExternalMetric', 'FailedComputeMetricsReplicas'], fields: [{ fallbackStatus: 'Normal', firstFailureTime: ago(300) }] },
  },
  {
    name: 'max over metrics: a healthy metric above the fallback count wins',
    metrics: [cpu(), queue({ replicas: 4 })],
    readings: [1000, down], // 100% against 50%: 6
    stored: [externalStatus('queue_depth', 'Fallback', ago(600))],
    storedConditionTrue: true,
    want: { desired: 6, condition: ['True', 'FallbackActive'], events: ['FailedGetExternalMetric', 'SuccessfulRescale'] },
  },
  {
    name: 'some metrics invalid: a metric in fallback is valid, so a lower healthy proposal does not stop scaling',
    metrics: [cpu(), queue({ replicas: 4 })],
    readings: [100, down], // 10% against 50%: 1
    replicas: 6,
    stored: [externalStatus('queue_depth', 'Fallback', ago(600))],
    storedConditionTrue: true,
    behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
    want: { desired: 4, condition: ['True', 'FallbackActive'], scalingActive: 'True', events: ['FailedGetExternalMetric', 'SuccessfulRescale'] },
  },
  {
    name: 'some metrics invalid: a failing metric not yet in fallback still stops a scale-down',
    metrics: [cpu(), queue({ replicas: 4 })],
    readings: [100, down],
    replicas: 6,
    stored: [externalStatus('queue_depth', 'Normal', ago(60))],
    behavior: { scaleDown: { stabilizationWindowSeconds: 0 } },
    want: { desired: 6, condition: ['False', 'NoFallbackActive'], scalingActive: 'False', events: ['FailedGetExternalMetric', 'FailedComputeMetricsReplicas'] },
  },
  {
    name: 'maxReplicas still applies to the fallback count',
    metrics: [queue({ replicas: 50 })],
    readings: [down],
    replicas: 12,
    stored: [externalStatus('queue_depth', 'Fallback', ago(600))],
    storedConditionTrue: true,
    want: { desired: 20, condition: ['True', 'FallbackActive'], events: ['FailedGetExternalMetric', 'SuccessfulRescale'] },
  },
  {
    name: 'behavior still applies: 2 pods per minute on the way up',
    metrics: [queue({ replicas: 10 })],
    readings: [down],
    stored: [externalStatus('queue_depth', 'Fallback', ago(600))],
    storedConditionTrue: true,
    behavior: { scaleUp: { policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } },
    want: { desired: 5, condition: ['True', 'FallbackActive'], events: ['FailedGetExternalMetric', 'SuccessfulRescale'] },
  },
  {
    name: 'two external metrics in fallback: the larger fallback count',
    metrics: [queue({ replicas: 4 }, 'a'), queue({ replicas: 5 }, 'b')],
    readings: [down, down],
    stored: [externalStatus('a', 'Fallback', ago(600)), externalStatus('b', 'Fallback', ago(600))],
    storedConditionTrue: true,
    want: { desired: 5, condition: ['True', 'FallbackActive'], events: ['FailedGetExternalMetric', 'FailedGetExternalMetric', 'SuccessfulRescale'] },
  },
  {
    name: 'independent failure tracking, matched by identity: reordered status entries keep their own times',
    metrics: [queue({ replicas: 4 }, 'a'), queue({ replicas: 5 }, 'b')],
    readings: [down, down],
    stored: [externalStatus('b', 'Normal', ago(100)), externalStatus('a', 'Normal', ago(200))],
    want: {
      desired: 4,
      condition: ['True', 'FallbackActive'],
      events: ['FailedGetExternalMetric', 'ExternalMetricFallbackActivated', 'FailedGetExternalMetric', 'SuccessfulRescale'],
      fields: [{ fallbackStatus: 'Fallback', firstFailureTime: ago(200) }, { fallbackStatus: 'Normal', firstFailureTime: ago(100) }],
    },
  },
  {
    name: 'our extension: a Resource metric (cpu) falls back too, its event named apart',
    metrics: [cpu({ replicas: 4 })],
    readings: ['unable to fetch metrics from resource metrics API: the server is currently unable to handle the request'],
    stored: [{ type: 'Resource', resource: { name: 'cpu', current: {}, fallbackStatus: 'Normal', firstFailureTime: ago(200) } }],
    want: {
      desired: 4,
      condition: ['True', 'FallbackActive'],
      events: ['FailedGetResourceMetric', 'MetricFallbackActivated', 'SuccessfulRescale'],
      activationMessage: "Fallback activated for resource metric 'cpu' after 3m0s of consecutive failures, using fallback replica count: 4",
      fields: [{ fallbackStatus: 'Fallback', firstFailureTime: ago(200) }],
    },
  },
  {
    name: 'gate off: fallback ignored, stored fields and condition left as they were',
    metrics: [queue({ replicas: 10 })],
    readings: [down],
    stored: [externalStatus('queue_depth', 'Normal', ago(600))],
    gates: { HPAExternalMetricFallback: false },
    want: { desired: 3, condition: null, scalingActive: 'False', events: ['FailedGetExternalMetric', 'FailedComputeMetricsReplicas'], fields: [{ fallbackStatus: 'Normal', firstFailureTime: ago(600) }] },
  },
  {
    name: 'gate off while in fallback: the condition stays as stored, the target keeps its size',
    metrics: [queue({ replicas: 10 })],
    readings: [down],
    replicas: 10,
    stored: [externalStatus('queue_depth', 'Fallback', ago(600))],
    storedConditionTrue: true,
    gates: { HPAExternalMetricFallback: false },
    want: { desired: 10, condition: 'unchanged', scalingActive: 'False', events: ['FailedGetExternalMetric', 'FailedComputeMetricsReplicas'], fields: [{ fallbackStatus: 'Fallback', firstFailureTime: ago(600) }] },
  },
];

describe('metric fallback (KEP-5679) in reconcile', () => {
  it.each(cases)('$name', (c) => {
    const r = run(c);
    expect(r.status.desiredReplicas).toBe(c.want.desired);
    const cond = r.conditions.find((x) => x.type === 'ExternalMetricFallbackActive');
    if (c.want.condition === null) expect(cond).toBeUndefined();
    else if (c.want.condition === 'unchanged') expect(cond).toMatchObject({ status: 'True', reason: 'FallbackActive', message: 'x' });
    else expect([cond?.status, cond?.reason]).toEqual(c.want.condition);
    if (c.want.scalingActive) expect(r.conditions.find((x) => x.type === 'ScalingActive')?.status).toBe(c.want.scalingActive);
    expect(r.events.map((e) => e.reason)).toEqual(c.want.events);
    if (c.want.activationMessage) expect(r.events.find((e) => e.reason.endsWith('FallbackActivated'))?.message).toBe(c.want.activationMessage);
    c.want.fields?.forEach((want, i) => {
      const entry = entryOf(r.status.currentMetrics?.[i]);
      if (want === null) {
        expect(entry?.fallbackStatus).toBeUndefined();
        expect(entry?.firstFailureTime).toBeUndefined();
      } else {
        expect({ fallbackStatus: entry?.fallbackStatus, firstFailureTime: entry?.firstFailureTime }).toEqual({ firstFailureTime: undefined, ...want });
      }
    });
  });

  it('a failing metric keeps its type and identity in its status slot, so it can be read back', () => {
    const r = run({ metrics: [queue({ replicas: 10 })], readings: [down] });
    expect(r.status.currentMetrics).toEqual([externalStatus('queue_depth', 'Normal', ago(0))]);
  });

  it('the decision line shows the metric in fallback and its proposal', () => {
    const r = run({ metrics: [queue({ replicas: 10 })], readings: [down], stored: [externalStatus('queue_depth', 'Normal', ago(200))] });
    expect(r.decision.metrics[0]).toMatchObject({ proposal: 10, fallback: { status: 'Fallback', firstFailureTime: ago(200), replicas: 10 } });
    expect(r.decision.winner).toBe("fallback for external metric 'queue_depth'");
    expect(r.decision.rescaleReason).toBe("fallback for external metric 'queue_depth' above target");
  });

  it('syncs every 15 s from the first failure: active at 180 s exactly, status read back each time (a restart changes nothing)', () => {
    const metrics = [queue({ replicas: 10 })];
    let stored: MetricStatus[] | undefined;
    const start = now.getTime();
    const activeAt: number[] = [];
    for (let t = 0; t <= 240; t += 15) {
      const input = inputFor({ metrics, readings: [down], stored }, new Date(start + t * 1000));
      const r = reconcile(input);
      if (r.decision.metrics[0].fallback?.status === 'Fallback') activeAt.push(t);
      expect(r.status.currentMetrics?.[0].external?.firstFailureTime).toBe(ago(0));
      stored = r.status.currentMetrics;
    }
    expect(activeAt).toEqual([180, 195, 210, 225, 240]);
  });
});

describe('an Object metric with an AverageValue target', () => {
  it('names its describedObject in the status (upstream leaves it empty), so a later failure finds its entry', () => {
    const metric: MetricSpec = {
      type: 'Object',
      object: { describedObject: { apiVersion: 'v1', kind: 'Service', name: 'web' }, metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' }, fallback: { replicas: 4 } },
    };
    const input = inputFor({ metrics: [metric], readings: [0] });
    const ok = reconcile({ ...input, metrics: [{ objectMetric: { value: { value: '30', timestamp: ago(30) } } }] });
    expect(ok.status.currentMetrics?.[0].object?.describedObject).toEqual({ apiVersion: 'v1', kind: 'Service', name: 'web' });
    expect(storedMetricStatus([metric], 0, ok.status.currentMetrics)).toBe(ok.status.currentMetrics?.[0]);
  });
});

describe('storedMetricStatus', () => {
  const table: { name: string; metrics: MetricSpec[]; index: number; stored: MetricStatus[]; want: number | undefined }[] = [
    { name: 'by name, whatever the order', metrics: [queue(undefined, 'a'), queue(undefined, 'b')], index: 1, stored: [externalStatus('b', 'Normal'), externalStatus('a', 'Normal')], want: 0 },
    { name: 'none for a metric not stored', metrics: [queue(undefined, 'c')], index: 0, stored: [externalStatus('a', 'Normal')], want: undefined },
    { name: 'the n-th of equal identities takes the n-th entry', metrics: [queue(undefined, 'a'), queue(undefined, 'a')], index: 1, stored: [externalStatus('a', 'Normal'), externalStatus('a', 'Fallback')], want: 1 },
    { name: 'an empty slot (upstream failed metric) matches nothing', metrics: [queue(undefined, 'a')], index: 0, stored: [{ type: '' }], want: undefined },
    { name: 'a different type with the same name does not match', metrics: [cpu()], index: 0, stored: [externalStatus('cpu', 'Normal')], want: undefined },
    {
      name: 'an empty selector is no selector',
      metrics: [{ type: 'External', external: { metric: { name: 'a', selector: {} }, target: { type: 'Value', value: '1' } } }],
      index: 0,
      stored: [externalStatus('a', 'Normal')],
      want: 0,
    },
  ];
  it.each(table)('$name', ({ metrics, index, stored, want }) => {
    expect(storedMetricStatus(metrics, index, stored)).toBe(want === undefined ? undefined : stored[want]);
  });
});

describe('goDuration', () => {
  it.each([
    [45, '45s'],
    [180, '3m0s'],
    [600, '10m0s'],
    [3600, '1h0m0s'],
    [3725, '1h2m5s'],
  ])('%i s is %s', (s, text) => expect(goDuration(s)).toBe(text));
});
