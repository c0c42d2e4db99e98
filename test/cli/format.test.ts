// kubectl's renderings, checked against the values upstream's printers give.
import { describe as group, expect, it } from 'vitest';
import { describe, eventAge, eventMessage, type DescribedAutoscaler } from '../../lib/cli/describe.js';
import { age, describeMetric } from '../../lib/cli/format.js';
import type { MetricSpec, MetricStatus } from '../../lib/hpa/types.js';
import type { DecisionLogEntry } from '../../lib/sync/event-log.js';
import { hpa, status } from '../store/fixtures.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

group('age (apimachinery duration.HumanDuration)', () => {
  it.each([
    [-2 * S, '<invalid>'],
    [-1.5 * S, '0s'],
    [Number.NaN, '<invalid>'],
    [45 * S, '45s'],
    [119 * S, '119s'],
    [5 * M + 3 * S, '5m3s'],
    [5 * M, '5m'],
    [42 * M, '42m'],
    [5 * H + 3 * M, '5h3m'],
    [20 * H, '20h'],
    [3 * D + 4 * H, '3d4h'],
    [12 * D, '12d'],
    [2 * 365 * D + 45 * D, '2y45d'],
    [3 * 365 * D, '3y'],
    [9 * 365 * D + 45 * D, '9y'],
  ])('%d ms is %s', (ms, want) => expect(age(ms)).toBe(want));
});

group('describe', () => {
  it('continues labels and annotations in the value column, sorted by key', () => {
    const h = hpa('web');
    h.metadata.labels = { tier: 'front', app: 'web' };
    h.metadata.annotations = { note: 'x' };
    const rec: DescribedAutoscaler = {
      namespace: 'default',
      name: 'web',
      hpa: { ...h, status: status(3, 72) },
      history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
      createdAt: '2025-01-01T00:00:00.000Z',
    };
    const lines = describe(rec, 'prod', new Date('2025-01-01T01:00:00Z')).split('\n');
    const column = lines[0].indexOf('web');
    const at = lines.findIndex((l) => l.startsWith('Labels:'));
    expect(lines[at].slice(column)).toBe('app=web');
    expect(lines[at + 1]).toBe(`${' '.repeat(column)}tier=front`);
    expect(lines[at + 2].slice(column)).toBe('note=x');
  });
});

group('describe, at zero replicas with an activation threshold', () => {
  it('names the threshold under its metric, and the conditions that say the target is held at zero', () => {
    const h = hpa('jobs');
    h.spec.minReplicas = 0;
    h.spec.metrics = [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '10' }, activation: { value: '5' } } }];
    const held = 'the target stays at zero replicas: no metric is above its activation threshold (queue: 3 (activation 5))';
    h.status = {
      currentReplicas: 0,
      desiredReplicas: 0,
      conditions: [
        { type: 'ScalingActive', status: 'True', reason: 'BelowActivationThreshold', message: held },
        { type: 'ScaledToZero', status: 'True', reason: 'ScaledToZero', message: 'the HPA controller scaled the workload to zero' },
      ],
    };
    const rec: DescribedAutoscaler = { namespace: 'default', name: 'jobs', hpa: h, history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] }, createdAt: '2025-01-01T00:00:00.000Z' };
    const text = describe(rec, 'prod', new Date('2025-01-01T01:00:00Z'));
    expect(text).toMatch(/\n {2}"queue" \(target average value\): +<unknown> \/ 10\n {4}activation: +above 5 to scale up from zero \(no effect above zero\)\n/);
    expect(text).toContain(`  ScalingActive   True     BelowActivationThreshold   ${held}\n`);
    expect(text).toMatch(/ScaledToZero +True +ScaledToZero/);
    expect(text).toMatch(/Min replicas: +0\n/);
  });
});

group('events (kubectl describe: Age, and the message with what the log adds)', () => {
  const now = Date.parse('2025-01-01T01:00:00Z');
  const entry = (over: Partial<DecisionLogEntry>): DecisionLogEntry => ({
    type: 'Normal',
    reason: 'SuccessfulRescale',
    message: 'New size: 4; reason: cpu resource utilization (percentage of request) above target',
    firstTimestamp: '2025-01-01T00:50:00Z',
    lastTimestamp: '2025-01-01T00:50:00Z',
    count: 1,
    ...over,
  });
  it('Age: the first time for one event, "last (xN over first)" for repeats', () => {
    expect(eventAge(entry({}), now)).toBe('10m');
    expect(eventAge(entry({ firstTimestamp: '2025-01-01T00:30:00Z', lastTimestamp: '2025-01-01T00:59:30Z', count: 7 }), now)).toBe('30s (x7 over 30m)');
  });
  it('message: old → new and the limit, when the log has them', () => {
    expect(eventMessage(entry({}))).toBe('New size: 4; reason: cpu resource utilization (percentage of request) above target');
    expect(eventMessage(entry({ from: 2, to: 4 }))).toBe('New size: 4; reason: cpu resource utilization (percentage of request) above target (2 → 4)');
    expect(eventMessage(entry({ from: 16, to: 20, limit: 'TooManyReplicas' }))).toMatch(/\(16 → 20, limited by TooManyReplicas\)$/);
  });
  it('describe lists them oldest first, and says <none> without any', () => {
    const base: DescribedAutoscaler = { namespace: 'default', name: 'web', hpa: hpa('web'), history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] }, createdAt: '2025-01-01T00:00:00.000Z' };
    expect(describe(base, 'prod', new Date(now))).toMatch(/\nEvents:\s+<none>\n$/);
    const log = [entry({ lastTimestamp: '2025-01-01T00:55:00Z', firstTimestamp: '2025-01-01T00:55:00Z', message: 'New size: 2; reason: All metrics below target' }), entry({})];
    const text = describe({ ...base, log }, 'prod', new Date(now));
    expect(text.indexOf('New size: 4')).toBeLessThan(text.indexOf('New size: 2'));
  });
});

group('describeMetric (kubectl describe hpa, autoscaling/v2)', () => {
  const statuses: MetricStatus[] = [
    { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 72, averageValue: '360m' } } },
    { type: 'Resource', resource: { name: 'memory', current: { averageValue: '300Mi' } } },
    { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', current: { averageUtilization: 40, averageValue: '200m' } } },
    { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '12' } } },
    { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main' }, metric: { name: 'hits' }, current: { value: '2k' } } },
    { type: 'External', external: { metric: { name: 'queue' }, current: { averageValue: '30' } } },
  ];
  it.each<[MetricSpec, [string, string]]>([
    [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }, ['resource cpu on pods  (as a percentage of request)', '72% (360m) / 60%']],
    [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '256Mi' } } }, ['resource memory on pods', '300Mi / 256Mi']],
    [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } } }, ['resource cpu of container "app" on pods  (as a percentage of request)', '40% (200m) / 50%']],
    [{ type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } }, ['"rps" on pods', '12 / 10']],
    [{ type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main' }, metric: { name: 'hits' }, target: { type: 'Value', value: '1k' } } }, ['"hits" on Ingress/main (target value)', '2k / 1k']],
    [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '25' } } }, ['"queue" (target average value)', '30 / 25']],
    [{ type: 'External', external: { metric: { name: 'other' }, target: { type: 'Value', value: '5' } } }, ['"other" (target value)', '<unknown> / 5']],
  ])('%j', (spec, want) => expect(describeMetric(spec, statuses)).toEqual(want));
});
