// Batching, de-duplication and caching, counted over simulated minutes with the real
// SDK client against the local endpoint (virtual clock on both sides).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch/server.js';
import { cloudWatchClients } from '../../lib/metrics/cloudwatch-clients.js';
import { createMetricsAccess } from '../../lib/metrics/metrics-access.js';
import type { MetricQuery } from '../../lib/sync/ports/metrics-access.js';
import { queueMetric } from './cloudwatch-fixtures.js';

const T0 = Date.parse('2025-01-01T12:00:07Z');
let now = T0;
let server: LocalCloudWatch;

beforeAll(async () => {
  server = await startLocalCloudWatch({ clock: () => now });
});
afterAll(() => server.close());

/** Queue i holds i + (minute of the hour) messages. */
const depth = (queue: number, t: number) => queue + ((t / 60) % 60);

describe.each([1, 100, 1000])('%i autoscalers over 60 simulated minutes at a 15 s sync period', (autoscalers) => {
  it('requests each distinct metric once a minute, in as few calls as the 500-query limit allows', async () => {
    // Two autoscalers per queue (different CloudWatchMetric names, same query) when there are several.
    const queues = Math.max(1, autoscalers / 2);
    server.clearSeries();
    server.requests.length = 0;
    for (let q = 0; q < queues; q++) {
      server.setSeriesFunction(
        { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: `queue-${q}` }] },
        (t) => depth(q, t),
        60,
      );
    }
    const queries: MetricQuery[] = Array.from({ length: autoscalers }, (_, i) => ({
      type: 'CloudWatch',
      cluster: 'c1',
      namespace: 'workers',
      source: queueMetric(`hpa-${i}`, `queue-${i % queues}`),
    }));
    const metrics = createMetricsAccess({
      clusterMetrics: () => {
        throw new Error('no cluster metrics in this test');
      },
      cloudWatch: { ...cloudWatchClients({ endpoint: server.url, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }) },
      publishDelaySeconds: 60,
    });
    const cycles = 240;
    let last: Awaited<ReturnType<typeof metrics.fetchAll>> = [];
    for (let c = 0; c < cycles; c++) {
      now = T0 + c * 15_000;
      last = await metrics.fetchAll(queries, new Date(now));
    }
    const stats = metrics.stats().cloudWatch;
    const callsPerMinute = Math.ceil(queues / 500);
    expect(stats.metricsRequested).toBe(queues * 60);
    expect(stats.calls).toBe(callsPerMinute * 60);
    expect(server.counts()).toEqual({ calls: stats.calls, metricStats: stats.metricsRequested });
    expect(stats.cacheHits).toBe(queues * (cycles - 60));
    // Naive polling would request autoscalers × cycles metrics.
    expect(stats.metricsRequested / (autoscalers * cycles)).toBeLessThanOrEqual(0.25);
    // The last cycle (12:59:52) reads the minute 12:57:00, the newest that ended 60 s before.
    const minute = Date.parse('2025-01-01T12:57:00Z') / 1000;
    last.forEach((a, i) => {
      expect(a.result).toEqual({ value: [{ value: String(depth(i % queues, minute)), timestamp: '2025-01-01T12:57:00Z' }] });
    });
  });
});

describe('a GetMetricData call that does not answer', () => {
  it('fails the objects when the deadline passes instead of holding up the cycle', async () => {
    server.clearSeries();
    server.latencyMs = 5_000;
    try {
      const metrics = createMetricsAccess({
        clusterMetrics: () => {
          throw new Error('no cluster metrics in this test');
        },
        cloudWatch: cloudWatchClients({ endpoint: server.url, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
        retry: { deadlineMs: 300 },
      });
      const started = Date.now();
      const [a] = await metrics.fetchAll([{ type: 'CloudWatch', cluster: 'c1', namespace: 'workers', source: queueMetric('slow', 'queue-0') }], new Date(now));
      expect(Date.now() - started).toBeLessThan(2_000);
      // the attempt gets what is left of the 300 ms deadline (a millisecond may already be gone)
      expect(a.result.error).toMatch(/^CloudWatchMetric workers\/slow: GetMetricData failed: no answer within (\d+) ms$/);
      const waited = Number(/within (\d+) ms/.exec(a.result.error ?? '')?.[1]);
      expect(waited).toBeGreaterThan(200);
      expect(waited).toBeLessThanOrEqual(300);
      expect(metrics.stats().cloudWatch).toMatchObject({ calls: 1, failedCalls: 1, metricsRequested: 0 });
    } finally {
      server.latencyMs = 0;
    }
  });
});
