import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeReplicasForMetric, formatLabelSelector, type MetricData, type MetricOutcome, type ReplicaCalcContext } from '../../lib/hpa/replica-calculator.js';
import type { MetricSpec, MetricTarget, PodInfo, PodMetric } from '../../lib/hpa/types.js';

// ---- builders in the spirit of upstream's replicaCalcTestCase ----

const NOW = new Date('2026-01-01T00:00:00Z');
const LONG_AGO = '2025-12-31T00:00:00Z';

interface PodOpts {
  phase?: string;
  ready?: 'True' | 'False' | 'Unknown';
  startTime?: string;
  readyTransitionTime?: string;
  deletionTimestamp?: string;
  requests?: string[];
  resource?: string;
}

function pod(name: string, o: PodOpts = {}): PodInfo {
  const resource = o.resource ?? 'cpu';
  return {
    name,
    phase: o.phase ?? 'Running',
    ready: 'ready' in o ? o.ready : 'True',
    readyTransitionTime: o.readyTransitionTime ?? LONG_AGO,
    startTime: 'startTime' in o ? o.startTime : LONG_AGO,
    deletionTimestamp: o.deletionTimestamp,
    containers: (o.requests ?? ['1']).map((r, i) => ({ name: `container${i + 1}`, requests: { [resource]: r } })),
  };
}

function usage(name: string, values: string[], o: { resource?: string; timestamp?: string; windowSeconds?: number } = {}): PodMetric {
  return {
    pod: name,
    timestamp: o.timestamp ?? NOW.toISOString(),
    windowSeconds: o.windowSeconds ?? 60,
    containers: values.map((v, i) => ({ name: `container${i + 1}`, usage: { [o.resource ?? 'cpu']: v } })),
  };
}

function ctx(pods: PodInfo[], o: Partial<ReplicaCalcContext> = {}): ReplicaCalcContext {
  return {
    currentReplicas: pods.length,
    statusReplicas: pods.length,
    pods,
    tolerances: { scaleUp: 0.1, scaleDown: 0.1 },
    cpuInitializationPeriodSeconds: 120,
    initialReadinessDelaySeconds: 10,
    now: NOW,
    ...o,
  };
}

const cpuUtilization = (target: number): MetricSpec => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } });

function ok(outcome: MetricOutcome) {
  if (!outcome.ok) throw new Error(`expected a proposal, got ${outcome.message}`);
  return outcome.proposal;
}

function failed(outcome: MetricOutcome) {
  if (outcome.ok) throw new Error(`expected a failure, got ${outcome.proposal.replicas} replicas`);
  return outcome;
}

// ---- the public conformance vectors (upstream test cases), through the same mapping the runner uses ----

interface ReplicaVector {
  name: string;
  now: string;
  currentReplicas: number;
  statusReplicas?: number;
  tolerance?: { scaleUp: number; scaleDown: number };
  cpuInitializationPeriodSeconds?: number;
  initialReadinessDelaySeconds?: number;
  metric: MetricSpec;
  pods: PodInfo[];
  podMetrics?: PodMetric[];
  podCustomMetrics?: { pod: string; value: string; timestamp: string }[];
  objectMetric?: { value: string; timestamp: string };
  externalMetrics?: { value: string; timestamp: string }[];
  metricsError?: string;
  expect: { replicas?: number; utilization?: number; averageValueMilli?: number | string; timestamp?: string; error?: string };
}

const vectorsFile = join(process.env.SHPA_CONFORMANCE_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'conformance', 'public'), 'replicas.json');
if (!existsSync(vectorsFile)) console.info(`skipped: no conformance vectors at ${vectorsFile} (set SHPA_CONFORMANCE_DIR)`);
const vectors = existsSync(vectorsFile) ? (JSON.parse(readFileSync(vectorsFile, 'utf8')) as ReplicaVector[]) : [];

function dataOf(v: ReplicaVector): MetricData {
  const pick = <T>(value: T | undefined) => (v.metricsError !== undefined ? { error: v.metricsError } : value === undefined ? undefined : { value });
  switch (v.metric.type) {
    case 'Resource':
    case 'ContainerResource':
      return { podMetrics: pick(v.podMetrics) };
    case 'Pods':
      return { podCustomMetrics: pick(v.podCustomMetrics) };
    case 'Object':
      return { objectMetric: pick(v.objectMetric) };
    default:
      return { externalMetrics: pick(v.externalMetrics) };
  }
}

describe.skipIf(vectors.length === 0)('public replicas vectors', () => {
  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const outcome = computeReplicasForMetric(
      v.metric,
      {
        currentReplicas: v.currentReplicas,
        statusReplicas: v.statusReplicas ?? v.currentReplicas,
        pods: v.pods,
        tolerances: v.tolerance ?? { scaleUp: 0.1, scaleDown: 0.1 },
        cpuInitializationPeriodSeconds: v.cpuInitializationPeriodSeconds ?? 300,
        initialReadinessDelaySeconds: v.initialReadinessDelaySeconds ?? 30,
        now: new Date(v.now),
      },
      dataOf(v),
    );
    if (v.expect.error !== undefined) {
      expect(failed(outcome).message).toContain(v.expect.error);
      return;
    }
    const p = ok(outcome);
    if (v.expect.replicas !== undefined) expect(p.replicas).toBe(v.expect.replicas);
    if (v.expect.utilization !== undefined) expect(p.utilization).toBe(v.expect.utilization);
    if (v.expect.averageValueMilli !== undefined) expect(p.rawMilli).toBe(BigInt(v.expect.averageValueMilli));
    if (v.expect.timestamp !== undefined) expect(Date.parse(p.timestamp)).toBe(Date.parse(v.expect.timestamp));
  });
});

// ---- ported upstream cases (replica_calculator_test.go), written against our builders ----

describe('Resource utilization (GetResourceReplicas)', () => {
  it('scales up from the average utilization over ready pods', () => {
    const pods = [pod('a'), pod('b'), pod('c')];
    const p = ok(computeReplicasForMetric(cpuUtilization(30), ctx(pods), { podMetrics: { value: [usage('a', ['300m']), usage('b', ['500m']), usage('c', ['700m'])] } }));
    expect(p).toMatchObject({ replicas: 5, utilization: 50, rawMilli: 500n, metricName: 'cpu resource utilization (percentage of request)' });
    expect(p.status).toEqual({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 50, averageValue: '500m' } } });
    expect(p.timestamp).toBe(NOW.toISOString());
  });

  it('sums requests and usage over containers', () => {
    const pods = [pod('a', { requests: ['1', '1'] }), pod('b', { requests: ['1', '1'] })];
    const data = { podMetrics: { value: [usage('a', ['1', '1']), usage('b', ['1', '1'])] } };
    expect(ok(computeReplicasForMetric(cpuUtilization(50), ctx(pods), data))).toMatchObject({ replicas: 4, utilization: 100, rawMilli: 2000n });
  });

  it('a ContainerResource metric uses only the named container', () => {
    const pods = [pod('a', { requests: ['1', '4'] }), pod('b', { requests: ['1', '4'] })];
    const metric: MetricSpec = { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'container1', target: { type: 'Utilization', averageUtilization: 50 } } };
    const p = ok(computeReplicasForMetric(metric, ctx(pods), { podMetrics: { value: [usage('a', ['1', '0']), usage('b', ['1', '0'])] } }));
    expect(p).toMatchObject({ replicas: 4, utilization: 100, rawMilli: 1000n, metricName: 'cpu container resource utilization (percentage of request)' });
    expect(p.status).toEqual({ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'container1', current: { averageUtilization: 100, averageValue: '1' } } });
  });

  it('unready pods count at 0 on scale up and are excluded on scale down', () => {
    const pods = [pod('a', { ready: 'False' }), pod('b'), pod('c')];
    const hot = { podMetrics: { value: [usage('a', ['100m']), usage('b', ['1500m']), usage('c', ['1500m'])] } };
    // 150% over ready pods; rebalanced: (0+1.5+1.5)/3 = 100%, within tolerance of 100 -> keep 3
    expect(ok(computeReplicasForMetric(cpuUtilization(100), ctx(pods), hot)).replicas).toBe(3);
    const cold = { podMetrics: { value: [usage('a', ['100m']), usage('b', ['300m']), usage('c', ['300m'])] } };
    expect(ok(computeReplicasForMetric(cpuUtilization(100), ctx(pods), cold))).toMatchObject({ replicas: 1, utilization: 30 });
  });

  it('missing pods count at the request on scale down and 0 on scale up', () => {
    const pods = [pod('a'), pod('b'), pod('c'), pod('d')];
    const down = { podMetrics: { value: [usage('a', ['100m']), usage('b', ['100m'])] } };
    // 10% -> with missing at 100%: (0.1+0.1+1+1)/4 = 55% -> ceil(0.55*4)=3
    expect(ok(computeReplicasForMetric(cpuUtilization(100), ctx(pods), down))).toMatchObject({ replicas: 3, utilization: 10 });
    const up = { podMetrics: { value: [usage('a', ['4']), usage('b', ['4'])] } };
    // 400% -> with missing at 0: 200% -> 8
    expect(ok(computeReplicasForMetric(cpuUtilization(100), ctx(pods), up))).toMatchObject({ replicas: 8, utilization: 400 });
  });

  it('a missing pod on scale down counts at the target when it is above 100%', () => {
    const pods = [pod('a'), pod('b')];
    // 50% of a 200% target; the missing pod counts at 200%: (0.5+2)/2=125% -> 0.625 ratio -> ceil(1.25)=2 = current
    const p = ok(computeReplicasForMetric(cpuUtilization(200), ctx(pods), { podMetrics: { value: [usage('a', ['500m'])] } }));
    expect(p).toMatchObject({ replicas: 2, utilization: 50 });
  });

  it('ignores deleted and failed pods, even with metrics', () => {
    const pods = [pod('a'), pod('b', { phase: 'Failed' }), pod('c', { deletionTimestamp: LONG_AGO })];
    const data = { podMetrics: { value: [usage('a', ['2']), usage('b', ['10']), usage('c', ['10'])] } };
    expect(ok(computeReplicasForMetric(cpuUtilization(100), ctx(pods, { currentReplicas: 1 }), data))).toMatchObject({ replicas: 2, utilization: 200 });
  });

  it('treats pending pods as unready and a pod with phase "" like any other', () => {
    const pods = [pod('a', { phase: '' }), pod('b', { phase: 'Pending' })];
    const data = { podMetrics: { value: [usage('a', ['3']), usage('b', ['10'])] } };
    // 300% over a; b unready at 0 -> 150% -> ceil(1.5*2)=3
    expect(ok(computeReplicasForMetric(cpuUtilization(100), ctx(pods), data))).toMatchObject({ replicas: 3, utilization: 300 });
  });

  describe('CPU readiness during initialization (groupPods)', () => {
    const metrics = (ts: string) => ({ podMetrics: { value: [usage('w', ['1500m']), usage('x', ['3'], { timestamp: ts, windowSeconds: 30 })] } });
    const run = (x: PodInfo, ts = NOW.toISOString()) => ok(computeReplicasForMetric(cpuUtilization(100), ctx([pod('w'), x], { currentReplicas: 2 }), metrics(ts)));

    it('counts a ready pod with a full window since it became ready', () => {
      const x = pod('x', { startTime: '2025-12-31T23:59:00Z', readyTransitionTime: '2025-12-31T23:59:00Z' });
      expect(run(x).utilization).toBe(225);
    });
    it('treats a ready pod without a full window since the transition as unready', () => {
      const x = pod('x', { startTime: '2025-12-31T23:59:00Z', readyTransitionTime: '2025-12-31T23:59:50Z' });
      expect(run(x).utilization).toBe(150);
    });
    it('the window bound is exclusive: a sample exactly one window after the transition counts', () => {
      const x = pod('x', { startTime: '2025-12-31T23:59:00Z', readyTransitionTime: '2025-12-31T23:59:30Z' });
      expect(run(x).utilization).toBe(225);
      const y = pod('x', { startTime: '2025-12-31T23:59:00Z', readyTransitionTime: '2025-12-31T23:59:30.000000001Z' });
      expect(run(y).utilization).toBe(150);
    });
    it('treats a pod without a Ready condition or a start time as unready', () => {
      expect(run(pod('x', { ready: undefined })).utilization).toBe(150);
      expect(run(pod('x', { startTime: undefined })).utilization).toBe(150);
    });
    it('after initialization counts an unready pod that was ready once, not one that never was', () => {
      const once = pod('x', { ready: 'False', startTime: '2025-12-31T23:50:00Z', readyTransitionTime: '2025-12-31T23:55:00Z' });
      expect(run(once).utilization).toBe(225);
      const never = pod('x', { ready: 'False', startTime: '2025-12-31T23:50:00Z', readyTransitionTime: '2025-12-31T23:50:05Z' });
      expect(run(never).utilization).toBe(150);
    });
    it("Go's zero time is a real start time (long before now)", () => {
      const x = pod('x', { startTime: '0001-01-01T00:00:00Z', readyTransitionTime: '0001-01-01T00:00:00Z' });
      expect(run(x).utilization).toBe(225);
    });
    it('the readiness rules apply to cpu only', () => {
      const pods = [pod('w', { resource: 'memory' }), pod('x', { resource: 'memory', ready: undefined })];
      const data = { podMetrics: { value: [usage('w', ['1500m'], { resource: 'memory' }), usage('x', ['3'], { resource: 'memory' })] } };
      const metric: MetricSpec = { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 100 } } };
      expect(ok(computeReplicasForMetric(metric, ctx(pods), data)).utilization).toBe(225);
    });
  });

  it.each([
    [{ podMetrics: { value: [] } }, 'unable to get metrics for resource cpu: no metrics returned from resource metrics API'],
    [{}, 'unable to get metrics for resource cpu: no metrics returned from resource metrics API'],
    [{ podMetrics: { error: 'boom' } }, 'unable to get metrics for resource cpu: boom'],
  ])('fails when the resource metrics API gives nothing (%#)', (data, text) => {
    const f = failed(computeReplicasForMetric(cpuUtilization(50), ctx([pod('a')]), data as MetricData));
    expect(f.reason).toBe('FailedGetResourceMetric');
    expect(f.message).toBe(`the HPA was unable to compute the replica count: failed to get cpu utilization: ${text}`);
    expect(f.eventMessage).toBe(`failed to get cpu utilization: ${text}`);
    expect(f.error).toBe(`failed to get cpu resource metric value: failed to get cpu utilization: ${text}`);
  });

  it('fails without pods, without ready metrics, or with a container missing its request', () => {
    const data = { podMetrics: { value: [usage('a', ['1'])] } };
    expect(failed(computeReplicasForMetric(cpuUtilization(50), ctx([]), data)).message).toContain('no pods returned by selector while calculating replica count');
    expect(failed(computeReplicasForMetric(cpuUtilization(50), ctx([pod('a', { phase: 'Pending' })]), data)).message).toContain(
      'did not receive metrics for targeted pods (pods might be unready)',
    );
    const noRequest: PodInfo = { ...pod('a'), containers: [{ name: 'app', requests: {} }] };
    expect(failed(computeReplicasForMetric(cpuUtilization(50), ctx([noRequest]), data)).message).toContain('missing request for cpu in container app of Pod a');
  });

  it('a failed pod missing its request still fails the calculation, as upstream computes requests for every pod', () => {
    const broken: PodInfo = { ...pod('b', { phase: 'Failed' }), containers: [{ name: 'app', requests: {} }] };
    const f = failed(computeReplicasForMetric(cpuUtilization(50), ctx([pod('a'), broken]), { podMetrics: { value: [usage('a', ['1'])] } }));
    expect(f.message).toContain('missing request for cpu in container app of Pod b');
  });

  it('a pod metric lacking the resource in one container counts as missing', () => {
    const pods = [pod('a', { requests: ['1', '1'] }), pod('b', { requests: ['1', '1'] })];
    const partial: PodMetric = { pod: 'b', timestamp: NOW.toISOString(), windowSeconds: 60, containers: [{ name: 'container1', usage: { cpu: '5' } }, { name: 'container2', usage: {} }] };
    // b is missing; a at 10% -> scale down with b at 100%: (0.2+2)/4 = 55% of 50 target... ratio 1.1 reverses direction -> keep
    const p = ok(computeReplicasForMetric(cpuUtilization(50), ctx(pods), { podMetrics: { value: [usage('a', ['100m', '100m']), partial] } }));
    expect(p).toMatchObject({ replicas: 2, utilization: 10 });
  });

  it('uses the first metric item timestamp', () => {
    const pods = [pod('a'), pod('b')];
    const data = { podMetrics: { value: [usage('zz', ['1'], { timestamp: '2025-12-31T23:59:01Z' }), usage('a', ['500m']), usage('b', ['500m'])] } };
    expect(ok(computeReplicasForMetric(cpuUtilization(50), ctx(pods), data)).timestamp).toBe('2025-12-31T23:59:01Z');
  });
});

describe('Resource average value (GetRawResourceReplicas)', () => {
  it('scales on the average raw usage and names the metric "<res> resource"', () => {
    const metric: MetricSpec = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } };
    const pods = [pod('a', { resource: 'memory' }), pod('b', { resource: 'memory' })];
    const data = { podMetrics: { value: [usage('a', ['2Gi'], { resource: 'memory' }), usage('b', ['2Gi'], { resource: 'memory' })] } };
    const p = ok(computeReplicasForMetric(metric, ctx(pods), data));
    expect(p).toMatchObject({ replicas: 4, rawMilli: 2147483648000n, metricName: 'memory resource' });
    expect(p.status).toEqual({ type: 'Resource', resource: { name: 'memory', current: { averageValue: '2147483648' } } });
    expect(p.utilization).toBeUndefined();
  });

  it('fails with "failed to get <res> usage" and names invalid targets', () => {
    const metric: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '1' } } };
    expect(failed(computeReplicasForMetric(metric, ctx([pod('a')]), {})).eventMessage).toBe(
      'failed to get cpu usage: unable to get metrics for resource cpu: no metrics returned from resource metrics API',
    );
    const neither: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } };
    expect(failed(computeReplicasForMetric(neither, ctx([pod('a')]), {})).eventMessage).toBe(
      'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set',
    );
  });
});

describe('Pods metrics (GetMetricReplicas / calcPlainMetricReplicas)', () => {
  const qps = (target: string): MetricSpec => ({ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: target } } });
  const samples = (values: Record<string, string>) => ({ podCustomMetrics: { value: Object.entries(values).map(([p, value]) => ({ pod: p, value, timestamp: '2025-12-31T23:59:59Z' })) } });

  it('scales up on the average value', () => {
    const p = ok(computeReplicasForMetric(qps('15'), ctx([pod('a'), pod('b'), pod('c')]), samples({ a: '20', b: '10', c: '30' })));
    expect(p).toMatchObject({ replicas: 4, rawMilli: 20000n, metricName: 'pods metric qps', timestamp: '2025-12-31T23:59:59Z' });
    expect(p.status).toEqual({ type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '20' } } });
  });

  it('counts superfluous samples (pods outside the selector) in the average', () => {
    expect(ok(computeReplicasForMetric(qps('10'), ctx([pod('a')]), samples({ a: '10', ghost: '30' }))).rawMilli).toBe(20000n);
  });

  it('missing pods count at the target on scale down', () => {
    // a at 5 of target 10 -> 0.5; missing b at 10 -> 0.75 -> ceil(1.5) = 2 = keep
    expect(ok(computeReplicasForMetric(qps('10'), ctx([pod('a'), pod('b')]), samples({ a: '5' }))).replicas).toBe(2);
  });

  it('errors name the metric', () => {
    const f = failed(computeReplicasForMetric(qps('10'), ctx([pod('a')]), { podCustomMetrics: { error: 'down' } }));
    expect(f).toMatchObject({ reason: 'FailedGetPodsMetric', eventMessage: 'unable to get metric qps: down', error: 'failed to get pods metric value: unable to get metric qps: down' });
    expect(failed(computeReplicasForMetric(qps('10'), ctx([pod('a')]), { podCustomMetrics: { value: [] } })).message).toContain(
      'unable to get metric qps: no metrics returned from custom metrics API',
    );
  });
});

describe('Object metrics', () => {
  const object = (target: MetricTarget): MetricSpec => ({
    type: 'Object',
    object: { describedObject: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'web' }, metric: { name: 'qps' }, target },
  });
  const sample = (value: string) => ({ objectMetric: { value: { value, timestamp: '2025-12-31T23:59:59Z' } } });

  it('Value target: ratio times ready pods, zero timestamp (upstream drops it)', () => {
    const pods = [pod('a'), pod('b'), pod('c', { ready: 'False' })];
    const p = ok(computeReplicasForMetric(object({ type: 'Value', value: '10' }), ctx(pods), sample('50')));
    expect(p).toMatchObject({ replicas: 10, rawMilli: 50000n, metricName: 'Deployment metric qps', timestamp: '0001-01-01T00:00:00Z' });
    expect(p.status).toEqual({ type: 'Object', object: { describedObject: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'web' }, metric: { name: 'qps' }, current: { value: '50' } } });
  });

  it('Value target: scales to zero when usage is 0, and from zero by ceil(ratio)', () => {
    expect(ok(computeReplicasForMetric(object({ type: 'Value', value: '10' }), ctx([pod('a')]), sample('0'))).replicas).toBe(0);
    expect(ok(computeReplicasForMetric(object({ type: 'Value', value: '10' }), ctx([], { currentReplicas: 0 }), sample('25'))).replicas).toBe(3);
    expect(ok(computeReplicasForMetric(object({ type: 'Value', value: '10' }), ctx([], { currentReplicas: 0 }), sample('0'))).replicas).toBe(0);
  });

  it('Value target outside tolerance without pods fails', () => {
    expect(failed(computeReplicasForMetric(object({ type: 'Value', value: '10' }), ctx([], { currentReplicas: 2 }), sample('50'))).message).toContain(
      'unable to calculate ready pods: no pods returned by selector while calculating replica count',
    );
  });

  it('AverageValue target uses status replicas, with upstream quirks in name and status', () => {
    const p = ok(computeReplicasForMetric(object({ type: 'AverageValue', averageValue: '10' }), ctx([pod('a')], { currentReplicas: 3, statusReplicas: 4 }), sample('80')));
    expect(p).toMatchObject({ replicas: 8, rawMilli: 20000n, metricName: 'external metric qps(nil)', timestamp: '2025-12-31T23:59:59Z' });
    expect(p.status).toEqual({ type: 'Object', object: { describedObject: { kind: '', name: '' }, metric: { name: 'qps' }, current: { averageValue: '20' } } });
    // within tolerance of status replicas: keep them
    expect(ok(computeReplicasForMetric(object({ type: 'AverageValue', averageValue: '10' }), ctx([], { currentReplicas: 3, statusReplicas: 4 }), sample('41'))).replicas).toBe(4);
  });

  it('errors follow upstream wording', () => {
    const f = failed(computeReplicasForMetric(object({ type: 'Value', value: '10' }), ctx([pod('a')], { namespace: 'prod' }), { objectMetric: { error: 'nope' } }));
    expect(f.reason).toBe('FailedGetObjectMetric');
    expect(f.eventMessage).toBe('unable to get metric qps: Deployment on prod web/nope');
    expect(f.error).toBe('failed to get object metric value: unable to get metric qps: Deployment on prod web/nope');
    const g = failed(computeReplicasForMetric(object({ type: 'AverageValue', averageValue: '10' }), ctx([pod('a')]), { objectMetric: { error: 'nope' } }));
    expect(g.error).toBe('failed to get object metric value: failed to get qps object metric: unable to get metric qps: Deployment on  web/nope');
  });
});

describe('External metrics', () => {
  const selector = { matchLabels: { queue: 'jobs', app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'In' as const, values: ['a', 'b'] }] };
  const external = (target: { type: 'Value' | 'AverageValue'; value?: string; averageValue?: string }): MetricSpec => ({
    type: 'External',
    external: { metric: { name: 'depth', selector }, target },
  });
  const series = (...values: string[]) => ({ externalMetrics: { value: values.map((value) => ({ value, timestamp: '2025-12-31T23:59:58Z' })) } });
  const selectorText = '&LabelSelector{MatchLabels:map[string]string{app: x,queue: jobs,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},},}';

  it('formats label selectors as Go prints *metav1.LabelSelector', () => {
    expect(formatLabelSelector(selector)).toBe(selectorText);
    expect(formatLabelSelector(undefined)).toBe('nil');
    expect(formatLabelSelector({})).toBe('&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}');
  });

  it('Value target sums series and drops the timestamp', () => {
    const p = ok(computeReplicasForMetric(external({ type: 'Value', value: '10' }), ctx([pod('a'), pod('b')]), series('15', '15')));
    expect(p).toMatchObject({ replicas: 6, rawMilli: 30000n, timestamp: '0001-01-01T00:00:00Z', metricName: `external metric depth(${selectorText})` });
    expect(p.status).toEqual({ type: 'External', external: { metric: { name: 'depth', selector }, current: { value: '30' } } });
  });

  it('AverageValue target divides by status replicas and keeps the timestamp', () => {
    const p = ok(computeReplicasForMetric(external({ type: 'AverageValue', averageValue: '10' }), ctx([pod('a')], { statusReplicas: 2 }), series('35')));
    expect(p).toMatchObject({ replicas: 4, rawMilli: 17500n, timestamp: '2025-12-31T23:59:58Z' });
    expect(p.status.external?.current).toEqual({ averageValue: '17500m' });
  });

  it('Value target scales to zero on zero usage', () => {
    expect(ok(computeReplicasForMetric(external({ type: 'Value', value: '10' }), ctx([pod('a'), pod('b')]), series('0'))).replicas).toBe(0);
  });

  it('errors follow upstream wording', () => {
    const f = failed(computeReplicasForMetric(external({ type: 'Value', value: '1' }), ctx([pod('a')], { namespace: 'ns' }), { externalMetrics: { value: [] } }));
    expect(f.reason).toBe('FailedGetExternalMetric');
    expect(f.eventMessage).toBe(`unable to get external metric ns/depth/${selectorText}: no metrics returned from external metrics API`);
    expect(f.error).toBe(`failed to get depth external metric value: failed to get external metric depth: ${f.eventMessage}`);
  });
});

describe('tolerances (Tolerances.isWithin, inclusive bounds)', () => {
  const pods = [pod('a'), pod('b'), pod('c'), pod('d')];
  const at = (milli: string) => ({ podMetrics: { value: pods.map((p) => usage(p.name, [milli])) } });
  const run = (milli: string, scaleUp: number, scaleDown: number) =>
    ok(computeReplicasForMetric(cpuUtilization(100), ctx(pods, { tolerances: { scaleUp, scaleDown } }), at(milli))).replicas;

  it('keeps the count at exactly 1 + scaleUp and 1 - scaleDown', () => {
    expect(run('1500m', 0.5, 0)).toBe(4);
    expect(run('1510m', 0.5, 0)).toBe(7);
    expect(run('500m', 0, 0.5)).toBe(4);
    expect(run('490m', 0, 0.5)).toBe(2);
  });

  it('a zero tolerance moves on any change', () => {
    expect(run('1010m', 0, 0)).toBe(5);
    expect(run('1000m', 0, 0)).toBe(4);
  });
});

describe('bad input', () => {
  it('reports a malformed quantity with its field, never throws', () => {
    const f = failed(computeReplicasForMetric(cpuUtilization(50), ctx([pod('a')]), { podMetrics: { value: [usage('a', ['lots'])] } }));
    expect(f.reason).toBe('FailedGetResourceMetric');
    expect(f.message).toContain('podMetrics[0].containers[0].usage.cpu: invalid quantity "lots"');
    const g = failed(computeReplicasForMetric(cpuUtilization(50), ctx([pod('a', { requests: ['1 core'] })]), { podMetrics: { value: [usage('a', ['1'])] } }));
    expect(g.message).toContain('pods[0].containers[0].requests.cpu: invalid quantity "1 core"');
  });

  it('reports a malformed timestamp with its field', () => {
    const f = failed(computeReplicasForMetric(cpuUtilization(50), ctx([pod('a', { startTime: 'yesterday' })]), { podMetrics: { value: [usage('a', ['1'])] } }));
    expect(f.message).toContain('pods[0].startTime: invalid RFC 3339 time "yesterday"');
  });

  it('an unknown metric type fails with InvalidMetricSourceType', () => {
    const f = failed(computeReplicasForMetric({ type: 'Bogus' } as unknown as MetricSpec, ctx([pod('a')]), {}));
    expect(f).toMatchObject({ reason: 'InvalidMetricSourceType', message: 'the HPA was unable to compute the replica count: unknown metric source type "Bogus"' });
  });
});

describe('properties', () => {
  const podsArb = fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 1, maxLength: 30 });

  it('usage exactly at the target keeps the current count', () => {
    fc.assert(
      fc.property(podsArb, fc.integer({ min: 1, max: 300 }), (requests, target) => {
        const pods = requests.map((r, i) => pod(`p${i}`, { requests: [`${r * 100}m`] }));
        const data = { podMetrics: { value: requests.map((r, i) => usage(`p${i}`, [`${r * target}m`])) } };
        const p = ok(computeReplicasForMetric(cpuUtilization(target), ctx(pods, { tolerances: { scaleUp: 0, scaleDown: 0 } }), data));
        expect(p.replicas).toBe(pods.length);
        expect(p.utilization).toBe(target);
      }),
    );
  });

  it('the proposal is never negative and moves in the direction of the usage', () => {
    fc.assert(
      fc.property(podsArb, fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 200 }), (requests, used, target) => {
        const pods = requests.map((r, i) => pod(`p${i}`, { requests: [`${r}m`] }));
        const data = { podMetrics: { value: used.slice(0, pods.length).map((u, i) => usage(`p${i}`, [`${u}m`])) } };
        const outcome = computeReplicasForMetric(cpuUtilization(target), ctx(pods), data);
        if (!outcome.ok) return;
        const p = outcome.proposal;
        expect(p.replicas).toBeGreaterThanOrEqual(0);
        if (p.utilization! > target) expect(p.replicas).toBeGreaterThanOrEqual(pods.length);
        if (p.utilization! < target) expect(p.replicas).toBeLessThanOrEqual(pods.length);
      }),
    );
  });
});
