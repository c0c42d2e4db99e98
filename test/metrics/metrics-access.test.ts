import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { CloudWatchClient, GetMetricDataCommand, type GetMetricDataCommandInput, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { createMetricsAccess } from '../../lib/metrics/metrics-access.js';
import type { ClusterMetricsApi } from '../../lib/sync/ports/cluster-metrics-api.js';
import type { MetricQuery } from '../../lib/sync/ports/metrics-access.js';
import { mathMetric, queueMetric, stat } from './cloudwatch-fixtures.js';

const cw = mockClient(CloudWatchClient);
const client = new CloudWatchClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const NOW = new Date('2025-01-01T12:00:30Z');
const at = (iso: string) => new Date(iso);

/** Answers every returned query with the given points (epoch-second timestamps as Dates). */
function answerWith(points: (q: MetricDataQuery) => [string, number][]) {
  cw.on(GetMetricDataCommand).callsFake((input: GetMetricDataCommandInput) => ({
    MetricDataResults: (input.MetricDataQueries ?? [])
      .filter((q) => q.ReturnData)
      .map((q) => ({ Id: q.Id, Label: q.Id, Timestamps: points(q).map(([t]) => at(t)), Values: points(q).map(([, v]) => v), StatusCode: 'Complete' })),
  }));
}

function fakeCluster(calls: string[]): ClusterMetricsApi {
  return {
    async listPodMetrics(ns) {
      calls.push(`pods:${ns}`);
      if (ns === 'broken') throw new Error('metrics.k8s.io unavailable');
      return [{ pod: 'p1', timestamp: '2025-01-01T12:00:00Z', windowSeconds: 30, containers: [{ name: 'c', usage: { cpu: '100m' } }] }];
    },
    async getPodsMetric(ns, metric) {
      calls.push(`podsmetric:${ns}:${metric.name}`);
      return [{ pod: 'p1', value: '5', timestamp: '2025-01-01T12:00:00Z' }];
    },
    async getObjectMetric(ns, obj, metric) {
      calls.push(`object:${ns}:${obj.name}:${metric.name}`);
      return { value: '3', timestamp: '2025-01-01T12:00:00Z' };
    },
    async getExternalMetric(ns, metric) {
      calls.push(`external:${ns}:${metric.name}`);
      return [{ value: '9', timestamp: '2025-01-01T12:00:00Z' }];
    },
  };
}

function access(extra: Partial<Parameters<typeof createMetricsAccess>[0]> = {}, calls: string[] = []) {
  return createMetricsAccess({ clusterMetrics: () => fakeCluster(calls), cloudWatch: { client }, sleep: async () => {}, ...extra });
}

const cwQuery = (source: ReturnType<typeof queueMetric>): MetricQuery => ({ type: 'CloudWatch', cluster: 'c1', namespace: 'workers', source });

beforeEach(() => cw.reset());

describe('createMetricsAccess: cluster metrics', () => {
  it('routes each query type, fetches identical queries once and keeps failures per query', async () => {
    const calls: string[] = [];
    const m = access({}, calls);
    const queries: MetricQuery[] = [
      { type: 'PodResource', cluster: 'c1', namespace: 'web' },
      { type: 'PodResource', cluster: 'c1', namespace: 'web' },
      { type: 'PodResource', cluster: 'c1', namespace: 'broken' },
      { type: 'Pods', cluster: 'c1', namespace: 'web', metric: { name: 'rps' }, podSelector: 'app=web' },
      { type: 'Object', cluster: 'c1', namespace: 'web', describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metric: { name: 'hits' } },
      { type: 'External', cluster: 'c1', namespace: 'web', metric: { name: 'queue' } },
    ];
    const answers = await m.fetchAll(queries, NOW);
    expect(calls.sort()).toEqual(['external:web:queue', 'object:web:main:hits', 'pods:broken', 'pods:web', 'podsmetric:web:rps']);
    expect(answers.map((a) => a.type)).toEqual(['PodResource', 'PodResource', 'PodResource', 'Pods', 'Object', 'External']);
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).not.toBe(answers[1]);
    expect(answers[2].result).toEqual({ error: 'metrics.k8s.io unavailable' });
    expect(answers[4].result).toEqual({ value: { value: '3', timestamp: '2025-01-01T12:00:00Z' } });
    expect(m.stats().clusterCalls).toBe(5);
  });
});

describe('createMetricsAccess: CloudWatch', () => {
  it('reads the latest complete datapoint as a milli quantity, one call for all objects', async () => {
    answerWith(() => [
      ['2025-01-01T11:59:00Z', 99], // its period ends at 12:00:00, after the window's end (11:59:00 = 12:00:30 - 60 s delay, floored)
      ['2025-01-01T11:58:00Z', 7.25],
      ['2025-01-01T11:57:00Z', 6],
    ]);
    const m = access();
    const a = await m.fetchAll([cwQuery(queueMetric('a', 'qa')), cwQuery(queueMetric('b', 'qb')), cwQuery(queueMetric('a-copy', 'qa'))], NOW);
    expect(a.map((x) => x.result)).toEqual([
      { value: [{ value: '7250m', timestamp: '2025-01-01T11:58:00Z' }] },
      { value: [{ value: '7250m', timestamp: '2025-01-01T11:58:00Z' }] },
      { value: [{ value: '7250m', timestamp: '2025-01-01T11:58:00Z' }] },
    ]);
    expect(cw).toHaveReceivedCommandTimes(GetMetricDataCommand, 1);
    const input = cw.commandCalls(GetMetricDataCommand)[0].args[0].input;
    expect(input.MetricDataQueries).toHaveLength(2); // qa requested once for two objects
    expect(input.StartTime).toEqual(at('2025-01-01T11:54:00Z'));
    expect(input.EndTime).toEqual(at('2025-01-01T11:59:00Z'));
    expect(m.stats().cloudWatch).toMatchObject({ calls: 1, metricsRequested: 2, objectsFetched: 2 });
  });

  it('truncates toward zero at milli precision, as external metrics adapters do', async () => {
    // -0.0009 is -0.9 milli-units, truncated to 0: metric-math noise below zero is zero, not negative.
    const values: Record<string, number> = { q1: 1.0009, q2: 0.0019, q3: -0.0009 };
    answerWith((q) => [['2025-01-01T11:58:00Z', values[q.MetricStat!.Metric!.Dimensions![0].Value!]]]);
    const a = await access().fetchAll(['q1', 'q2', 'q3'].map((q) => cwQuery(queueMetric(q, q))), NOW);
    expect(a.map((x) => (x.type === 'CloudWatch' ? x.result.value?.[0].value : undefined))).toEqual(['1', '1m', '0']);
  });

  it('renames ids per object and rewrites expressions with them; shared metrics are requested once', async () => {
    answerWith(() => [['2025-01-01T11:58:00Z', 1]]);
    const one = mathMetric('one', [stat('m1', 'Errors', 'api'), stat('m2', 'Requests', 'api'), { id: 'e1', expression: 'm1 / m2' }]);
    const two = mathMetric('two', [stat('m1', 'Errors', 'web'), stat('m2', 'Requests', 'api'), { id: 'e1', expression: 'm1/m2 * 100' }]);
    await access().fetchAll([cwQuery(one), cwQuery(two)], NOW);
    const sent = cw.commandCalls(GetMetricDataCommand)[0].args[0].input.MetricDataQueries!;
    const byId = new Map(sent.map((q) => [q.Id!, q]));
    expect(sent).toHaveLength(5); // Errors/api, Requests/api (shared), e(one), Errors/web, e(two)
    const name = (id: string) => byId.get(id)!.MetricStat!.Metric!.Dimensions![0].Value + '/' + byId.get(id)!.MetricStat!.Metric!.MetricName;
    const exprs = sent.filter((q) => q.Expression);
    expect(exprs.map((q) => q.ReturnData)).toEqual([true, true]);
    expect(sent.filter((q) => q.MetricStat).every((q) => q.ReturnData === false)).toBe(true);
    const [a, b] = exprs.map((q) => /^(\w+)\/(\w+)(\*100)?$/.exec(q.Expression!)!);
    expect([name(a[1]), name(a[2]), a[3]]).toEqual(['api/Errors', 'api/Requests', undefined]);
    expect([name(b[1]), name(b[2]), b[3]]).toEqual(['web/Errors', 'api/Requests', '*100']);
  });

  it('an empty result is an error naming the CloudWatchMetric, unless it sets defaultValue', async () => {
    answerWith(() => []);
    const a = await access().fetchAll([cwQuery(queueMetric('empty', 'q')), cwQuery(queueMetric('dflt', 'q', { defaultValue: 0.5 }))], NOW);
    expect(a[0].result.error).toBe(
      'CloudWatchMetric workers/empty: no datapoint in the last 5 periods of 60 s (set spec.defaultValue to use a value instead)',
    );
    expect(a[1].result).toEqual({ value: [{ value: '500m', timestamp: '2025-01-01T11:59:00Z' }] });
    expect(a[1].type === 'CloudWatch' && a[1].messages).toEqual(['no datapoint in the last 5 periods of 60 s: using defaultValue 0.5']);
  });

  it('says "no datapoint" in the same words every minute, so that its event aggregates (count + 1) instead of piling up', async () => {
    answerWith(() => []);
    const metrics = access();
    const texts = [];
    for (const minutes of [0, 1, 7]) texts.push((await metrics.fetchAll([cwQuery(queueMetric('empty', 'q'))], new Date(NOW.getTime() + minutes * 60_000)))[0].result.error);
    expect(new Set(texts).size).toBe(1);
    expect(cw.commandCalls(GetMetricDataCommand)).toHaveLength(3);
  });

  it('surfaces Messages and PartialData in the answer', async () => {
    cw.on(GetMetricDataCommand).callsFake((input: GetMetricDataCommandInput) => ({
      Messages: [{ Code: 'MaxQueryTimeRangeExceed', Value: 'time range too long' }],
      MetricDataResults: input.MetricDataQueries!.map((q) => ({
        Id: q.Id,
        Timestamps: [at('2025-01-01T11:58:00Z')],
        Values: [4],
        StatusCode: 'PartialData',
        Messages: [{ Code: 'ArithmeticError', Value: 'division by zero' }],
      })),
    }));
    const [a] = await access().fetchAll([cwQuery(queueMetric('x', 'q'))], NOW);
    expect(a.result).toEqual({ value: [{ value: '4', timestamp: '2025-01-01T11:58:00Z' }] });
    expect(a.type === 'CloudWatch' && a.messages).toEqual([
      'MaxQueryTimeRangeExceed: time range too long',
      'ArithmeticError: division by zero',
      'PartialData: CloudWatch returned part of the data',
    ]);
  });

  it('retries throttling with backoff and gives up at the attempt limit', async () => {
    const throttle = Object.assign(new Error('Rate exceeded'), { name: 'Throttling', $metadata: { httpStatusCode: 400 } });
    const waits: number[] = [];
    cw.on(GetMetricDataCommand)
      .rejectsOnce(throttle)
      .rejectsOnce(throttle)
      .resolves({ MetricDataResults: [{ Id: 'g0_0', Timestamps: [at('2025-01-01T11:58:00Z')], Values: [2], StatusCode: 'Complete' }] });
    const m = access({ sleep: async (ms) => void waits.push(ms), retry: { baseDelayMs: 100 } });
    const [a] = await m.fetchAll([cwQuery(queueMetric('x', 'q'))], NOW);
    expect(a.result).toEqual({ value: [{ value: '2', timestamp: '2025-01-01T11:58:00Z' }] });
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[1]).toBeGreaterThanOrEqual(100); // doubled
    expect(m.stats().cloudWatch).toMatchObject({ calls: 3, throttled: 2, metricsRequested: 1 });

    cw.reset();
    cw.on(GetMetricDataCommand).rejects(throttle);
    const m2 = access({ retry: { maxAttempts: 3 } });
    const [b] = await m2.fetchAll([cwQuery(queueMetric('y', 'q'))], NOW);
    expect(b.result.error).toBe('CloudWatchMetric workers/y: GetMetricData failed after 3 attempts: Throttling: Rate exceeded');
    expect(cw).toHaveReceivedCommandTimes(GetMetricDataCommand, 3);
  });

  it('stops retrying at the deadline', async () => {
    let t = 0;
    const throttle = Object.assign(new Error('Rate exceeded'), { name: 'LimitExceededFault' });
    cw.on(GetMetricDataCommand).rejects(throttle);
    const m = access({
      timer: () => t,
      sleep: async (ms) => void (t += ms),
      retry: { maxAttempts: 100, baseDelayMs: 1000, maxDelayMs: 1000, deadlineMs: 2_000 },
    });
    const [a] = await m.fetchAll([cwQuery(queueMetric('x', 'q'))], NOW);
    expect(a.result.error).toMatch(/GetMetricData failed after \d attempts?: LimitExceededFault: Rate exceeded$/);
    expect(t).toBeLessThanOrEqual(2_000);
    expect(m.stats().cloudWatch.calls).toBeLessThanOrEqual(5);
  });

  it('other errors are not retried nor cached, and name the object', async () => {
    const denied = Object.assign(new Error('not authorized'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    cw.on(GetMetricDataCommand).rejects(denied);
    const m = access();
    const [a] = await m.fetchAll([cwQuery(queueMetric('x', 'q'))], NOW);
    expect(a.result.error).toBe('CloudWatchMetric workers/x: GetMetricData failed: AccessDenied: not authorized');
    await m.fetchAll([cwQuery(queueMetric('x', 'q'))], new Date(NOW.getTime() + 15_000));
    expect(cw).toHaveReceivedCommandTimes(GetMetricDataCommand, 2);
  });

  it('caches a value until a newer datapoint can exist', async () => {
    answerWith(() => [['2025-01-01T11:58:00Z', 1]]);
    const m = access();
    const q = [cwQuery(queueMetric('x', 'q'))];
    const t0 = Date.parse('2025-01-01T12:00:00Z'); // window end 11:59:00 until 12:01:00
    for (const dt of [0, 15, 30, 45]) await m.fetchAll(q, new Date(t0 + dt * 1000));
    expect(cw).toHaveReceivedCommandTimes(GetMetricDataCommand, 1);
    await m.fetchAll(q, new Date(t0 + 60_000));
    expect(cw).toHaveReceivedCommandTimes(GetMetricDataCommand, 2);
    expect(m.stats().cloudWatch.cacheHits).toBe(3);
    m.resetStats();
    expect(m.stats().cloudWatch.calls).toBe(0);
  });

  it('uses one client per region and role, and reports objects without a region', async () => {
    answerWith(() => [['2025-01-01T11:58:00Z', 1]]);
    const asked: string[] = [];
    const m = access({ cloudWatch: { clientFor: (region, role) => (asked.push(`${region} ${role ?? '-'}`), client) } });
    const noRegion = queueMetric('n', 'q');
    delete noRegion.spec.region;
    const role = 'arn:aws:iam::123456789012:role/reader';
    const a = await m.fetchAll(
      [cwQuery(queueMetric('a', 'q')), cwQuery(queueMetric('b', 'q', { region: 'eu-west-1' })), cwQuery(queueMetric('c', 'q', { roleArn: role })), cwQuery(noRegion)],
      NOW,
    );
    expect(asked.sort()).toEqual(['eu-west-1 -', 'us-east-1 -', `us-east-1 ${role}`]);
    expect(a[3].result.error).toBe('CloudWatchMetric workers/n: no region: set spec.region or configure a default region');
  });
});
