// What a CloudWatchMetric answers when CloudWatch fails, returns values no replica count can
// come from, or an alarm asks for a read: the real SDK client against the local endpoint,
// with the cycle's clock frozen as on a virtual clock (the deadline still runs in real time).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLocalCloudWatch, type LocalCloudWatch, type LocalMetric } from '../../lib/local/cloudwatch/server.js';
import { cloudWatchClients } from '../../lib/metrics/cloudwatch-clients.js';
import { createMetricsAccess, type CountingMetricsAccess } from '../../lib/metrics/metrics-access.js';
import type { MetricAnswer, MetricQuery } from '../../lib/sync/ports/metrics-access.js';
import { queueMetric } from './cloudwatch-fixtures.js';

const NOW = Date.parse('2025-01-01T12:00:30Z');
const QUEUE: LocalMetric = { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: 'jobs' }] };
let server: LocalCloudWatch;
let metrics: CountingMetricsAccess;

beforeAll(async () => {
  server = await startLocalCloudWatch({ clock: () => NOW });
});
afterAll(() => server.close());
/** A new access: nothing cached. */
const freshAccess = () =>
  createMetricsAccess({
    clusterMetrics: () => {
      throw new Error('no cluster metrics in this test');
    },
    cloudWatch: cloudWatchClients({ endpoint: server.url, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
    clock: { now: () => new Date(NOW) },
  });
beforeEach(() => {
  server.clearSeries();
  server.requests.length = 0;
  metrics = freshAccess();
});

const query = (extra: Parameters<typeof queueMetric>[2] = {}): MetricQuery => ({ type: 'CloudWatch', cluster: 'c1', namespace: 'workers', source: queueMetric('backlog', 'jobs', extra) });
const valueOf = (a: MetricAnswer) => (a.type === 'CloudWatch' ? a.result : undefined);

describe('CloudWatch failing until the read deadline', () => {
  it.each([
    ['Throttling', /^CloudWatchMetric workers\/backlog: GetMetricData failed after ([2-9]) attempts: Throttling: Rate exceeded$/],
    ['InternalError', /^CloudWatchMetric workers\/backlog: GetMetricData failed after ([2-9]) attempts: InternalServiceFault: Internal service error$/],
  ] as const)('%s: retried until the read deadline, then the last error is the answer, in time', async (fault, message) => {
    const stop = server.failWhile(fault);
    try {
      const started = performance.now();
      const [a] = await metrics.fetchAll([query()], new Date(NOW), undefined, { readBy: new Date(NOW + 900) });
      const tookMs = performance.now() - started;
      expect(valueOf(a)?.error).toMatch(message);
      // Answered before the readers' deadline, not after its own 10 s.
      expect(tookMs).toBeLessThan(900);
      expect(metrics.stats().cloudWatch.calls).toBe(Number(message.exec(valueOf(a)?.error ?? '')?.[1]));
    } finally {
      stop();
    }
  });

  it('an attempt that hangs is cut off at the read deadline', async () => {
    const stop = server.failWhile('Hang');
    try {
      const [a] = await metrics.fetchAll([query()], new Date(NOW), undefined, { readBy: new Date(NOW + 400) });
      expect(valueOf(a)?.error).toMatch(/^CloudWatchMetric workers\/backlog: GetMetricData failed: no answer within 3\d\d ms$/);
    } finally {
      stop();
    }
  });
});

describe('values out of the ordinary', () => {
  const answerFor = async (value: number, extra: Parameters<typeof queueMetric>[2] = {}) => {
    server.setSeriesFunction(QUEUE, () => value, 60);
    const [a] = await freshAccess().fetchAll([query(extra)], new Date(NOW));
    return valueOf(a)!;
  };

  it('a negative value is a value (metric math can go below zero, upstream uses it), and is said', async () => {
    server.setSeriesFunction(QUEUE, () => -50, 60);
    const [a] = await freshAccess().fetchAll([query()], new Date(NOW));
    expect(valueOf(a)).toEqual({ value: [{ value: '-50', timestamp: '2025-01-01T11:58:00Z' }] });
    expect(a.type === 'CloudWatch' ? a.messages : undefined).toContain('NegativeValue: the datapoint at 2025-01-01T11:58:00Z is -50, used as is (where below zero means zero, clamp the expression: IF(e < 0, 0, e))');
  });

  it('a value beyond an int64 of milli-units fails the metric, naming it', async () => {
    expect((await answerFor(1e300)).error).toBe(
      'CloudWatchMetric workers/backlog: datapoint at 2025-01-01T11:58:00Z is 1e+300, beyond what a Kubernetes quantity holds (int64 milli-units, at most ±9223372036854775.807)',
    );
    expect((await answerFor(9.3e15)).error).toMatch(/is 9300000000000000, beyond what a Kubernetes quantity holds/);
  });

  it('the largest quantity and noise that truncates to zero are values', async () => {
    expect((await answerFor(9e15)).value).toEqual([{ value: '9P', timestamp: '2025-01-01T11:58:00Z' }]);
    expect((await answerFor(-0.0004)).value).toEqual([{ value: '0', timestamp: '2025-01-01T11:58:00Z' }]);
  });

  it('a negative defaultValue is the value the user chose', async () => {
    const [a] = await metrics.fetchAll([query({ defaultValue: -1 })], new Date(NOW));
    expect(valueOf(a)?.value).toEqual([{ value: '-1', timestamp: expect.any(String) }]);
  });
});

describe("an alarm's read", () => {
  // The queue grew in the minute that just ended (11:59), which set the alarm off.
  const grew = (t: number) => (t >= Date.parse('2025-01-01T11:59:00Z') / 1000 ? 300 : 10);
  const alarmed = (extra = {}) => query({ alarmName: 'jobs-high', ...extra });

  it('reads the period the alarm evaluated, fresh, and leaves the usual cached window as it was', async () => {
    server.setSeriesFunction(QUEUE, grew, 60);
    // The usual window ends a publishing delay back: 11:58 is its latest complete minute.
    const [usual] = await metrics.fetchAll([alarmed()], new Date(NOW));
    expect(valueOf(usual)?.value).toEqual([{ value: '10', timestamp: '2025-01-01T11:58:00Z' }]);
    const alarms = new Map([['jobs-high', new Date('2025-01-01T12:00:00Z')]]);
    for (let i = 0; i < 2; i++) {
      const [a] = await metrics.fetchAll([alarmed()], new Date(NOW), undefined, { alarms });
      expect(valueOf(a)?.value).toEqual([{ value: '300', timestamp: '2025-01-01T11:59:00Z' }]);
    }
    expect(server.counts().calls).toBe(3);
    // Another alarm's read changes nothing for this metric; the usual read is still cached.
    const [again] = await metrics.fetchAll([alarmed()], new Date(NOW), undefined, { alarms: new Map([['other', new Date(NOW)]]) });
    expect(valueOf(again)?.value).toEqual([{ value: '10', timestamp: '2025-01-01T11:58:00Z' }]);
    expect(server.counts().calls).toBe(3);
  });

  it('never reads into a period that has not ended, whatever the alarm says', async () => {
    server.setSeriesFunction(QUEUE, grew, 60);
    const [a] = await metrics.fetchAll([alarmed()], new Date(NOW), undefined, { alarms: new Map([['jobs-high', new Date('2025-01-01T12:07:00Z')]]) });
    expect(valueOf(a)?.value).toEqual([{ value: '300', timestamp: '2025-01-01T11:59:00Z' }]);
    const input = server.requests[0].body as { EndTime: number };
    expect(input.EndTime).toBe(Date.parse('2025-01-01T12:00:00Z') / 1000);
  });
});
