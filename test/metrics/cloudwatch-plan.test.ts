import { describe, expect, it } from 'vitest';
import { planRequests, specKey, windowFor, type PlannedUnit } from '../../lib/metrics/cloudwatch-plan.js';
import { mathMetric, queueMetric, stat } from './cloudwatch-fixtures.js';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';

const NOW = Date.parse('2025-01-01T12:00:30Z');
const unit = (m: CloudWatchMetric): PlannedUnit => ({ key: specKey(m.spec, 'us-east-1'), spec: m.spec, region: 'us-east-1', window: windowFor(m.spec, NOW, 0, 5) });

describe('planRequests', () => {
  it('packs distinct metrics into requests of at most 500 queries', () => {
    const units = Array.from({ length: 1200 }, (_, i) => unit(queueMetric(`m${i}`, `queue-${i}`)));
    const reqs = planRequests(units);
    expect(reqs.map((r) => r.queries.length)).toEqual([500, 500, 200]);
    expect(reqs.flatMap((r) => r.units.map((u) => u.key)).sort()).toEqual(units.map((u) => u.key).sort());
    for (const r of reqs) expect(new Set(r.queries.map((q) => q.Id)).size).toBe(r.queries.length);
  });

  it('keeps an object whole in one request, repeating shared inputs when it must', () => {
    const shared = stat('total', 'Requests', 'api');
    const units = Array.from({ length: 300 }, (_, i) =>
      unit(mathMetric(`r${i}`, [shared, stat('part', 'Errors', `svc-${i}`), { id: 'e', expression: 'part / total' }])),
    );
    const reqs = planRequests(units);
    expect(reqs.every((r) => r.queries.length <= 500)).toBe(true);
    for (const r of reqs) {
      const ids = new Set(r.queries.map((q) => q.Id));
      for (const u of r.units) for (const id of u.ids) expect(ids.has(id)).toBe(true);
    }
    // 1 shared + 2 per object, 300 objects, ≤500 per request.
    expect(reqs.reduce((n, r) => n + r.queries.length, 0)).toBe(601 + reqs.length - 1);
  });

  it('separates windows, regions and roles; isolates METRICS() objects with their own ids', () => {
    const five = queueMetric('five', 'q', { region: 'us-east-1' });
    five.spec.queries[0].metricStat!.period = 300;
    const role = queueMetric('role', 'q', { roleArn: 'arn:aws:iam::123456789012:role/r' });
    const all = mathMetric('all', [stat('a', 'A', 'x'), stat('b', 'B', 'y'), { id: 'total', expression: 'SUM(METRICS())' }]);
    const reqs = planRequests([unit(queueMetric('one', 'q')), unit(five), unit(role), unit(all)]);
    expect(reqs).toHaveLength(4);
    const isolated = reqs.find((r) => r.units[0].key === unit(all).key)!;
    expect(isolated.queries.map((q) => [q.Id, q.ReturnData])).toEqual([
      ['a', false],
      ['b', false],
      ['total', true],
    ]);
    const fiveReq = reqs.find((r) => r.units[0].key === unit(five).key)!;
    expect([fiveReq.startTime, fiveReq.endTime].map((s) => new Date(s * 1000).toISOString())).toEqual([
      '2025-01-01T11:35:00.000Z',
      '2025-01-01T12:00:00.000Z',
    ]);
  });

  it('the same spec gives the same key whatever the dimension order', () => {
    const a = queueMetric('a', 'q');
    const b = structuredClone(a);
    a.spec.queries[0].metricStat!.metric.dimensions = [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }];
    b.spec.queries[0].metricStat!.metric.dimensions = [{ name: 'Y', value: '2' }, { name: 'X', value: '1' }];
    expect(specKey(a.spec, 'us-east-1')).toBe(specKey(b.spec, 'us-east-1'));
    expect(specKey(a.spec, 'us-east-1')).not.toBe(specKey(a.spec, 'eu-west-1'));
  });
});
