// `shpa cost` of SQSQueueMetric queues (docs/sqs.md, "Cost"): one GetQueueAttributes per queue per
// tick of the shard reading it, at SQS's request price, beside the same queue read through
// CloudWatch, priced by the same model as the GetMetricData lines.
import { describe, expect, it } from 'vitest';
import { line, shpa } from './cli.js';
import { cloudWatchQueueMonth, DEFAULT_FLEET, estimateCost, sqsQueueMonth, type CostEstimate } from '../../lib/cost/estimate.js';
import { PRICES } from '../../lib/cost/prices.js';

const MONTH = 30 * 86_400;


describe('shpa cost: SQSQueueMetric queues', () => {
  const base = { ...DEFAULT_FLEET, monitoring: false };
  it('prices SQSQueueMetric queues: one GetQueueAttributes per queue per tick at $0.40 a million, under $0.10 a queue-month at 15 s where CloudWatch costs $0.86', async () => {
    const r = await shpa(['cost', '--sqs-queues', '1', '--metrics-per-autoscaler', '0', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const e = JSON.parse(r.stdout) as CostEstimate;
    const sqs = line(e, 'GetQueueAttributes');
    expect(sqs).toMatchObject({ service: 'SQS', quantity: MONTH / 15, unit: 'requests', price: PRICES.sqs.requests });
    expect(sqs.usd).toBeCloseTo((MONTH / 15 / 1e6) * 0.4, 9);
    expect(sqs.usd).toBeLessThanOrEqual(0.1);
    // -o json explains the line, with the CloudWatch route priced by the same model (two AWS/SQS metrics a minute).
    const cw = cloudWatchQueueMonth(15);
    expect(cw.usd).toBeCloseTo((2 * (MONTH / 60) / 1000) * PRICES.cloudWatch.getMetricData.usd, 9);
    expect(cw.usd).toBeCloseTo(0.864, 9);
    expect(sqs.basis).toBe(
      `1 queue(s) × one call per tick of the shard reading it (every 15 s): $0.069 a queue-month; through CloudWatch instead (AWS/SQS visible + in flight, two metrics a minute) $0.864 + $${cw.probeUsd.toFixed(3)} of sample counts a queue-month, and a minute or more behind`,
    );
    // The CloudWatch route's sample counts are what the GetMetricData line counts for two queries at a 15 s tick.
    const twoQueries = estimateCost({ ...base, autoscalers: 2, metricsPerAutoscaler: 1 });
    expect(line(twoQueries, 'GetMetricData sample counts').usd).toBeCloseTo(cw.probeUsd, 9);
    expect(line(twoQueries, 'GetMetricData metrics requested').usd).toBeCloseTo(cw.usd, 9);
  });

  it('reads each queue at the tick period of its shard, and again at each alarm change; nothing without queues', () => {
    const none = estimateCost({ ...base });
    expect(none.lines.some((l) => l.item.startsWith('GetQueueAttributes'))).toBe(false);
    const fast = estimateCost({ ...base, sqsQueues: 3, sqsSyncPeriodSeconds: 5, alarmChangesPerHour: 2 });
    expect(line(fast, 'GetQueueAttributes').quantity).toBe(3 * (MONTH / 5 + 2 * 720));
    expect(sqsQueueMonth(5).usd).toBeCloseTo(((MONTH / 5) / 1e6) * PRICES.sqs.requests.usd, 9);
    expect(fast.totalUsd - estimateCost({ ...base, alarmChangesPerHour: 2 }).totalUsd).toBeCloseTo(line(fast, 'GetQueueAttributes').usd, 9);
    // A shard ticks at the sync period or at a shorter tick period, never at another.
    expect(() => estimateCost({ ...base, sqsQueues: 1, sqsSyncPeriodSeconds: 7 })).toThrow('sqsSyncPeriodSeconds must be the sync period (15) or a shorter tick period (5, 6, 10, 12), got 7');
    expect(() => estimateCost({ ...base, sqsQueues: 1, sqsSyncPeriodSeconds: 30 })).toThrow(/got 30$/);
  });
});
