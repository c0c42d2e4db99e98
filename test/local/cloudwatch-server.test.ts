import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch/server.js';

const T0 = Date.parse('2025-01-01T12:00:00Z') / 1000;
let now = T0 * 1000;
let server: LocalCloudWatch;
let client: CloudWatchClient;
const metric = (name: string) => ({ namespace: 'App', metricName: name, dimensions: [{ name: 'Service', value: 'api' }] });
const statQuery = (id: string, name: string, stat: string, returnData = true): MetricDataQuery => ({
  Id: id,
  MetricStat: { Metric: { Namespace: 'App', MetricName: name, Dimensions: [{ Name: 'Service', Value: 'api' }] }, Period: 60, Stat: stat },
  ReturnData: returnData,
});
const get = (queries: MetricDataQuery[], extra: Partial<{ ScanBy: 'TimestampAscending'; MaxDatapoints: number; NextToken: string }> = {}) =>
  client.send(new GetMetricDataCommand({ StartTime: new Date((T0 - 300) * 1000), EndTime: new Date(T0 * 1000), MetricDataQueries: queries, ...extra }));
const seconds = (d: Date[] | undefined) => (d ?? []).map((x) => x.getTime() / 1000 - T0);

beforeAll(async () => {
  server = await startLocalCloudWatch({ clock: () => now });
  client = new CloudWatchClient({ endpoint: server.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.clearSeries();
  server.requests.length = 0;
  server.latencyMs = 0;
  now = T0 * 1000;
});

describe('local CloudWatch endpoint, through the real SDK client', () => {
  it('aggregates raw points per period with each statistic, newest first, omitting empty periods', async () => {
    // Two points in the minute starting at -120 s, one at -60 s, none at -180 s.
    server.putSeries(metric('Latency'), [
      { timestamp: (T0 - 120) * 1000, value: 10 },
      { timestamp: (T0 - 90) * 1000, value: 30 },
      { timestamp: new Date((T0 - 60) * 1000), value: 5 },
      { timestamp: (T0 - 290) * 1000, value: 1 },
    ]);
    const out = await get(['Average', 'Sum', 'Minimum', 'Maximum', 'SampleCount', 'p50'].map((s, i) => statQuery(`s${i}`, 'Latency', s)));
    const r = out.MetricDataResults!;
    expect(seconds(r[0].Timestamps)).toEqual([-60, -120, -300]);
    expect(r.map((x) => x.Values)).toEqual([
      [5, 20, 1],
      [5, 40, 1],
      [5, 10, 1],
      [5, 30, 1],
      [1, 2, 1],
      [5, 10, 1],
    ]);
    expect(r[0]).toMatchObject({ Id: 's0', Label: 'Latency', StatusCode: 'Complete' });
    const asc = await get([statQuery('m', 'Latency', 'Sum')], { ScanBy: 'TimestampAscending' });
    expect(seconds(asc.MetricDataResults![0].Timestamps)).toEqual([-300, -120, -60]);
  });

  it('evaluates metric math over ids and constants, and SUM(METRICS())', async () => {
    server.setSeriesFunction(metric('Errors'), (t) => ((t - T0) / 60 + 10) % 5, 60);
    server.setSeriesFunction(metric('Requests'), () => 4, 60);
    const out = await get([
      statQuery('errors', 'Errors', 'Sum', false),
      statQuery('total', 'Requests', 'Sum', false),
      { Id: 'rate', Expression: '100 * errors / total' },
      { Id: 'all', Expression: 'SUM(METRICS())', Label: 'both' },
      { Id: 'neg', Expression: '-(errors - 1) * 2' },
    ]);
    const [rate, all, neg] = out.MetricDataResults!;
    // errors at -300..-60 s: minutes 5,6,7,8,9 → 0,1,2,3,4; a 0/… stays, x/0 would be dropped.
    expect(seconds(rate.Timestamps)).toEqual([-60, -120, -180, -240, -300]);
    expect(rate.Values).toEqual([100, 75, 50, 25, 0]);
    expect(all).toMatchObject({ Id: 'all', Label: 'both', Values: [8, 7, 6, 5, 4] });
    expect(neg.Values).toEqual([-6, -4, -2, 0, 2]);
  });

  it('drops datapoints that divide by zero and rejects unknown ids', async () => {
    server.setSeriesFunction(metric('A'), () => 1, 60);
    server.setSeriesFunction(metric('B'), (t) => (t === T0 - 60 ? 0 : 2), 60);
    const out = await get([statQuery('a', 'A', 'Sum', false), statQuery('b', 'B', 'Sum', false), { Id: 'q', Expression: 'a / b' }]);
    expect(seconds(out.MetricDataResults![0].Timestamps)).toEqual([-120, -180, -240, -300]);
    await expect(get([{ Id: 'q', Expression: 'a + 1' }])).rejects.toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
  });

  it('pages by MaxDatapoints with NextToken and PartialData', async () => {
    server.setSeriesFunction(metric('A'), (t) => t - T0, 60);
    server.setSeriesFunction(metric('B'), (t) => T0 - t, 60);
    const queries = [statQuery('a', 'A', 'Sum'), statQuery('b', 'B', 'Sum')];
    const first = await get(queries, { MaxDatapoints: 4 });
    expect(first.MetricDataResults!.map((r) => [r.Id, r.Values!.length, r.StatusCode])).toEqual([['a', 4, 'PartialData']]);
    const second = await get(queries, { MaxDatapoints: 4, NextToken: first.NextToken });
    expect(second.MetricDataResults!.map((r) => [r.Id, r.Values!.length, r.StatusCode])).toEqual([
      ['a', 1, 'Complete'],
      ['b', 3, 'PartialData'],
    ]);
    const third = await get(queries, { MaxDatapoints: 4, NextToken: second.NextToken });
    expect(third.NextToken).toBeUndefined();
    expect(third.MetricDataResults!.map((r) => [r.Id, r.Values])).toEqual([['b', [240, 300]]]);
  });

  it('hides points not yet ingested', async () => {
    const delayed = await startLocalCloudWatch({ clock: () => now, ingestDelaySeconds: 100 });
    try {
      delayed.setSeriesFunction(metric('A'), () => 1, 30);
      const c = new CloudWatchClient({ endpoint: delayed.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
      const out = await c.send(
        new GetMetricDataCommand({ StartTime: new Date((T0 - 300) * 1000), EndTime: new Date(T0 * 1000), MetricDataQueries: [statQuery('a', 'A', 'SampleCount')] }),
      );
      expect(out.MetricDataResults![0].Values).toEqual([1, 2, 2, 2]); // visible until -100 s: the -120 s period has one point, -60 s none
    } finally {
      await delayed.close();
    }
  });

  it('injects throttling, limit and server errors with the shapes the SDK recognizes, and latency', async () => {
    server.failNext('Throttling', 'LimitExceeded', 'InternalError', 'AccessDenied');
    const errors = [];
    for (let i = 0; i < 4; i++) errors.push(await get([{ Id: 'x', Expression: '1 + 1' }]).catch((e: Error & { $metadata: { httpStatusCode: number } }) => e));
    expect(errors.map((e) => [(e as Error).name, (e as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode])).toEqual([
      ['Throttling', 400],
      ['LimitExceededFault', 400],
      ['InternalServiceFault', 500],
      ['AccessDenied', 403],
    ]);
    server.latencyMs = 150;
    const started = Date.now();
    await expect(get([{ Id: 'x', Expression: '1 + 1' }])).rejects.toMatchObject({ name: 'ValidationException' }); // a constant is no time series
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(server.requests.map((r) => r.status)).toEqual([400, 400, 500, 403, 400]);
    expect(server.counts()).toEqual({ calls: 5, metricStats: 0 });
  });

  it('rejects requests that are not signed JSON 1.0 GetMetricData calls', async () => {
    const post = (headers: Record<string, string>) => fetch(server.url, { method: 'POST', headers, body: '{}' });
    const unsigned = await post({ 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'GraniteServiceVersion20100801.GetMetricData' });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('x-amzn-query-error')).toBe('MissingAuthenticationToken;Sender');
    const query = await post({ 'content-type': 'application/x-www-form-urlencoded', authorization: 'AWS4-HMAC-SHA256 x' });
    expect(query.status).toBe(400);
    const other = await post({ 'content-type': 'application/x-amz-json-1.0', authorization: 'AWS4-HMAC-SHA256 x', 'x-amz-target': 'GraniteServiceVersion20100801.ListMetrics' });
    expect(await other.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });
});
