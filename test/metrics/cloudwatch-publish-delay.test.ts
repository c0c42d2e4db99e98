// Learning when CloudWatch datapoints are complete: the real SDK client against the local endpoint,
// whose samples (every 10 s) become visible some seconds after they were taken, so a period's
// Average is partial for a while after the period ends. Read every 15 s on a virtual clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCloudWatch, type LocalCloudWatch, type LocalCloudWatchOptions } from '../../lib/local/cloudwatch/server.js';
import { cloudWatchClients } from '../../lib/metrics/cloudwatch-clients.js';
import { createMetricsAccess, type CountingMetricsAccess } from '../../lib/metrics/metrics-access.js';
import type { DelayReset } from '../../lib/metrics/cloudwatch-source.js';
import type { MetricAnswer, MetricQuery } from '../../lib/sync/ports/metrics-access.js';
import type { SharedMetricAnswer } from '../../lib/sync/ports/autoscaler-store.js';
import { queueMetric } from './cloudwatch-fixtures.js';

const T0 = Date.parse('2026-11-26T12:00:00Z');
let now = T0;
const serverOptions: LocalCloudWatchOptions = { clock: () => now, ingestDelaySeconds: 25 };
let server: LocalCloudWatch;

beforeAll(async () => {
  server = await startLocalCloudWatch(serverOptions);
  // Six samples a period whose values rise through it: a partial period's Average is below the complete one's 25.
  server.setSeriesFunction({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: 'jobs' }] }, (t) => t % 60, 10);
});
afterAll(() => server.close());

const resets: DelayReset[] = [];
const access = (learn = true) =>
  createMetricsAccess({
    onDelayReset: (r) => resets.push(r),
    clusterMetrics: () => {
      throw new Error('no cluster metrics in this test');
    },
    cloudWatch: cloudWatchClients({ endpoint: server.url, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
    clock: { now: () => new Date(now) },
    learnPublishDelay: learn,
  });
const query: MetricQuery = { type: 'CloudWatch', cluster: 'c1', namespace: 'workers', source: queueMetric('backlog', 'jobs') };
type CloudWatchAnswer = Extract<MetricAnswer, { type: 'CloudWatch' | 'Prometheus' | 'SQS' }>;

interface Read {
  at: number;
  /** Seconds from the end of the period read to the read. */
  lag?: number;
  value?: string;
  answer: CloudWatchAnswer;
}

/** Reads every 15 s for `minutes`, keeping the answers for the next read as the table would. */
async function readFor(metrics: CountingMetricsAccess, minutes: number, kept = new Map<string, SharedMetricAnswer>()): Promise<{ reads: Read[]; kept: Map<string, SharedMetricAnswer> }> {
  const reads: Read[] = [];
  for (const end = now + minutes * 60_000; now < end; now += 15_000) {
    const [a] = (await metrics.fetchAll([query], new Date(now), undefined, { shared: kept, observedAt: new Date(now) })) as CloudWatchAnswer[];
    if (a.shared) kept.set(a.shared.key, a.shared.answer);
    const sample = a.result.value?.[0];
    reads.push({ at: now, answer: a, ...(sample ? { value: sample.value, lag: (now - Date.parse(sample.timestamp) - 60_000) / 1000 } : {}) });
  }
  return { reads, kept };
}

/** The reads at which each period was first used. */
const firstReads = (reads: Read[]) => reads.filter((r, i) => i > 0 && r.lag !== undefined && r.lag < reads[i - 1].lag!);

describe('a CloudWatch publication delay learned from sample counts', () => {
  it('learns that periods are complete 15 s after they end, reads them then, and never reads a partial period', async () => {
    now = T0;
    const metrics = access();
    const { reads, kept } = await readFor(metrics, 12);
    // every value read is a complete period's
    expect(reads.every((r) => r.value === '25')).toBe(true);
    // when each period was first read, seconds after it ended: the default first, then 15 s
    const first = firstReads(reads);
    expect(first.slice(0, 3).every((r) => r.lag! >= 60)).toBe(true);
    expect(first.slice(-4).map((r) => r.lag)).toEqual([15, 15, 15, 15]);
    expect([...kept.values()][0].learn?.learnedDelaySeconds).toBe(15);
    const stats = metrics.stats().cloudWatch;
    expect(stats.probeMetrics).toBeGreaterThan(0);
    // probing stopped once learned: the last minutes cost one value read a period
    expect(stats.learnedDelays).toBeGreaterThan(0);
  });

  it('a new container reads the learned delay from the table (the kept answers), probes nothing and reads at 15 s', async () => {
    now = T0;
    const { kept } = await readFor(access(), 10);
    const fresh = access();
    const { reads } = await readFor(fresh, 3, kept);
    expect(fresh.stats().cloudWatch.probeMetrics).toBe(0);
    expect(firstReads(reads).map((r) => r.lag)).toEqual([15, 15, 15]);
  });

  it('without learning (a fixed grid), periods are read 60 s after they end', async () => {
    now = T0;
    const metrics = access(false);
    const { reads } = await readFor(metrics, 5);
    expect(Math.min(...reads.map((r) => r.lag!))).toBeGreaterThanOrEqual(60);
    expect(metrics.stats().cloudWatch.probeMetrics).toBe(0);
  });

  it('a value that changes after it was read at the learned delay: said, forgotten, and 60 s again until learned again', async () => {
    now = T0;
    const metrics = access();
    const { kept } = await readFor(metrics, 10);
    expect([...kept.values()][0].learn?.learnedDelaySeconds).toBe(15);
    // CloudWatch slows down: samples now 45 s late, so 15 s after a period it is partial
    serverOptions.ingestDelaySeconds = 45;
    resets.length = 0;
    try {
      const { reads } = await readFor(metrics, 4, kept);
      // told once, with the values and the period (the deploy logs it at WARN)
      expect(resets).toHaveLength(1);
      expect(resets[0]).toMatchObject({ objects: ['workers/backlog'], periodSeconds: 60, new: 25, learnedDelaySeconds: 15, delaySeconds: 60 });
      expect(resets[0].old).not.toBe(25);
      expect(resets[0].period).toMatch(/^2026-11-26T12:\d\d:00Z$/);
      // the period read never moves backwards (no 6 -> 8 -> 6 flapping)
      const periods = reads.filter((r) => r.lag !== undefined).map((r) => r.at - r.lag! * 1000);
      expect(periods.every((p, i) => i === 0 || p >= periods[i - 1])).toBe(true);
      const said = reads.flatMap((r) => r.answer.messages ?? []).filter((m) => m.startsWith('PublicationDelay'));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/^PublicationDelay: the datapoint at 2026-11-26T12:\d\d:00Z changed from \S+ to 25 after it was read 15 s after its period: read 60 s after each period again/);
      const after = reads.slice(reads.findIndex((r) => r.answer.messages?.some((m) => m.startsWith('PublicationDelay'))) + 1);
      expect(after.length).toBeGreaterThan(4);
      // the held period is read again each tick: complete once CloudWatch has it, and every read at 60 s is
      expect(after.filter((r) => r.lag! >= 45).every((r) => r.value === '25')).toBe(true);
      expect(after.filter((r) => r.lag! >= 60).length).toBeGreaterThan(4);
      expect(firstReads(after).every((r) => r.lag! >= 60)).toBe(true);
      // the reset held the newest period already read until 60 s after the next one: one period, not two, behind
      expect(Math.max(...after.map((r) => r.lag!))).toBeLessThan(60 + 60 + 15);
    } finally {
      serverOptions.ingestDelaySeconds = 25;
    }
  });
});
