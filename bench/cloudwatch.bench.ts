// CloudWatch cost model: metrics requested per metric per month at a 15 s sync period,
// against naive polling (one request per metric per sync). Prints the figures; no timing asserts.
import { CloudWatchClient, type GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { startLocalCloudWatch } from '../lib/local/cloudwatch/server.js';
import { cloudWatchClients, createMetricsAccess } from '#metrics';
import type { MetricQuery } from '#sync/ports';
import { queueMetric } from '../test/metrics/cloudwatch-fixtures.js';

const SYNC_SECONDS = 15;
const MONTH_SECONDS = 30 * 24 * 3600;
const T0 = Date.parse('2025-01-01T00:00:07Z');

function queriesFor(autoscalers: number, queues: number): MetricQuery[] {
  return Array.from({ length: autoscalers }, (_, i) => ({
    type: 'CloudWatch' as const,
    cluster: 'c1',
    namespace: 'workers',
    source: queueMetric(`hpa-${i}`, `queue-${i % queues}`),
  }));
}

// 1. A whole month, one metric, in process: a client that answers at once and counts.
{
  const client = {
    send: async (cmd: GetMetricDataCommand) => ({
      MetricDataResults: (cmd.input.MetricDataQueries ?? [])
        .filter((q) => q.ReturnData)
        .map((q) => ({ Id: q.Id, Timestamps: [new Date(cmd.input.EndTime!.getTime() - 60_000)], Values: [1], StatusCode: 'Complete' as const })),
    }),
  } as unknown as CloudWatchClient;
  const metrics = createMetricsAccess({ clusterMetrics: () => ({}) as never, cloudWatch: { client } });
  const queries = queriesFor(1, 1);
  const cycles = MONTH_SECONDS / SYNC_SECONDS;
  const started = performance.now();
  for (let c = 0; c < cycles; c++) await metrics.fetchAll(queries, new Date(T0 + c * SYNC_SECONDS * 1000));
  const s = metrics.stats().cloudWatch;
  console.log(`one 60 s metric, 30 days at a ${SYNC_SECONDS} s sync (${cycles} cycles, ${(performance.now() - started).toFixed(0)} ms):`);
  console.log(`  metrics requested: ${s.metricsRequested} (goal <= 43200; naive polling: ${cycles})`);
  console.log(`  GetMetricData calls: ${s.calls}; cost $${((s.metricsRequested / 1000) * 0.01).toFixed(2)} vs naive $${((cycles / 1000) * 0.01).toFixed(2)}`);
}

// 2. An hour over HTTP with the real SDK client: 1, 100 and 1,000 autoscalers, two per queue.
const server = await startLocalCloudWatch({ clock: () => now });
let now = T0;
try {
  for (const autoscalers of [1, 100, 1000]) {
    const queues = Math.max(1, autoscalers / 2);
    server.clearSeries();
    for (let q = 0; q < queues; q++) {
      server.setSeriesFunction({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: `queue-${q}` }] }, (t) => q + (t % 7), 60);
    }
    const metrics = createMetricsAccess({
      clusterMetrics: () => ({}) as never,
      cloudWatch: cloudWatchClients({ endpoint: server.url, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
    });
    const queries = queriesFor(autoscalers, queues);
    const cycles = 3600 / SYNC_SECONDS;
    const started = performance.now();
    for (let c = 0; c < cycles; c++) {
      now = T0 + c * SYNC_SECONDS * 1000;
      await metrics.fetchAll(queries, new Date(now));
    }
    const s = metrics.stats().cloudWatch;
    const perMonth = (s.metricsRequested / queues) * 24 * 30;
    console.log(
      `${autoscalers} autoscalers (${queues} distinct metrics), 1 h at ${SYNC_SECONDS} s: ${s.calls} calls, ${s.metricsRequested} metrics requested ` +
        `(naive ${autoscalers * cycles}); ${perMonth} per metric per month; ${((performance.now() - started) / cycles).toFixed(1)} ms per cycle`,
    );
  }
} finally {
  await server.close();
}
