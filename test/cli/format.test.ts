// kubectl's renderings, checked against the values upstream's printers give.
import { describe as group, expect, it } from 'vitest';
import { describe } from '../../lib/cli/inspect.js';
import { age, describeMetric } from '../../lib/cli/format.js';
import type { MetricSpec, MetricStatus } from '../../lib/hpa/types.js';
import type { AutoscalerRecord } from '../../lib/sync/ports.js';
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
    const rec: AutoscalerRecord = {
      cluster: 'prod',
      namespace: 'default',
      name: 'web',
      hpa: { ...h, status: status(3, 72) },
      history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
      version: 1,
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
    };
    const lines = describe(rec, 'prod', new Date('2025-01-01T01:00:00Z')).split('\n');
    const column = lines[0].indexOf('web');
    const at = lines.findIndex((l) => l.startsWith('Labels:'));
    expect(lines[at].slice(column)).toBe('app=web');
    expect(lines[at + 1]).toBe(`${' '.repeat(column)}tier=front`);
    expect(lines[at + 2].slice(column)).toBe('note=x');
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
