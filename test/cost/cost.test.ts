// `shpa cost` as a user runs it (the command line, through tsx), and the cost model's rules:
// quantities follow from the calls the code makes, the fixed items are the stack's own.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { line, shpa } from './cli.js';
import { estimateCost, steadyWritesPerTick, DEFAULT_FLEET, type CostEstimate, type Fleet } from '../../lib/cost/estimate.js';
import { ASSUMED, MEASURED } from '../../lib/cost/inputs.js';
import { PRICES } from '../../lib/cost/prices.js';
import { DEFAULT_WRITE_POLICY } from '../../lib/store/history.js';
import { evenBuckets, shardCountFor } from '../../lib/sizing/shard-sizing.cjs';

const require = createRequire(import.meta.url);
const MONTH = 30 * 86_400;


describe('shpa cost', () => {
  it('prints the monthly cost of a fleet as JSON: lines that add up, quantities from the calls the code makes', async () => {
    const r = await shpa(['cost', '--autoscalers', '100', '--clusters', '2', '--shards', '1', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout) as CostEstimate;
    expect(e.fleet).toMatchObject({ autoscalers: 100, clusters: 2, shards: 1, distinctQueries: 100, syncPeriodSeconds: 15 });
    expect(e.totalUsd).toBeCloseTo(e.lines.reduce((s, l) => s + l.usd, 0), 9);
    expect(e.perAutoscalerUsd).toBeCloseTo(e.totalUsd / 100, 9);
    // Each line's price comes from lib/cost/prices.ts, with its source.
    for (const l of e.lines) expect(l.price.source).toMatch(/^https:\/\/aws\.amazon\.com\//);
    // Every distinct 60 s query once a minute, not every 15 s tick.
    expect(line(e, 'GetMetricData').quantity).toBe((100 * MONTH) / 60);
    expect(line(e, 'GetMetricData').usd).toBeCloseTo(((100 * MONTH) / 60 / 1000) * PRICES.cloudWatch.getMetricData.usd, 9);
    // Two shards (one per cluster), a lease taken and released per tick: 2 WRU each.
    expect(line(e, 'writes: lease').quantity).toBe(2 * (2 * (MONTH / 15) + e.fleet.eventsPerHour * 720));
    expect(e.prices.takenOn).toBe(PRICES.takenOn);
  });

  it('prints an itemised table by service, with the cost per autoscaler-month', async () => {
    const r = await shpa(['cost', '--autoscalers', '1']);
    expect(r.code).toBe(0);
    for (const s of ['Lambda', 'SQS', 'DynamoDB', 'CloudWatch', 'CloudWatch Logs', 'Monitoring', 'TOTAL']) expect(r.stdout).toMatch(new RegExp(`^${s}\\s`, 'm'));
    expect(r.stdout).toMatch(/^per autoscaler-month: \$\d+\.\d{4} \(\$\d+\.\d{4} without the fixed alarms\)$/m);
    expect(r.stdout).toContain(`taken ${PRICES.takenOn}`);
  });

  it('counts the alarms, not the dashboard, by default: --no-monitoring leaves out the alarms, --dashboard adds the dashboard', async () => {
    const runs = await Promise.all([['cost'], ['cost', '--no-monitoring'], ['cost', '--dashboard']].map((args) => shpa([...args, '-o', 'json'])));
    const [usual, bare, dashboard] = runs.map((r) => JSON.parse(r.stdout) as CostEstimate);
    expect(usual.lines.filter((l) => l.service === 'Monitoring').map((l) => l.item)).toEqual(['alarms (fixed)']);
    expect(bare.lines.some((l) => l.service === 'Monitoring')).toBe(false);
    // The default alarms read Lambda's own metrics: no Cycles heartbeat either way, the alarms are the difference.
    expect(usual.totalUsd - bare.totalUsd).toBeCloseTo(ASSUMED.essentialAlarmMetrics * PRICES.cloudWatch.alarms.usd, 9);
    expect(line(usual, 'custom metrics').quantity - line(bare, 'custom metrics').quantity).toBe(0);
    expect(dashboard.totalUsd - usual.totalUsd).toBeCloseTo(PRICES.cloudWatch.dashboards.usd, 9);
    expect(dashboard.totalUsd - dashboard.byService.Monitoring!).toBeCloseTo(usual.totalUsd - usual.byService.Monitoring!, 9);
  });

  it('names the option and the rule when a value is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['--sync-period', '7'], /^error: --sync-period must divide 60 .*got 7$/m],
      [['--shards', '3'], /^error: --shards must be one of 1, 2, 4, 8, 16, 32, 64, 128, 256 .*got 3$/m],
      [['--autoscalers', '10', '--distinct-queries', '11'], /^error: --distinct-queries \(11\) cannot exceed .*\(10\)$/m],
      [['--memory', '64'], /--memory must be an integer ≥ 128, got "64"/],
      [['--error-hours', '721'], /^error: --error-hours must be at most the 720 hours of a month, got 721$/m],
      [['-o', 'yaml'], /^error: unknown output format "yaml": use json$/m],
    ];
    const runs = await Promise.all(cases.map(([args]) => shpa(['cost', ...args])));
    runs.forEach((r, i) => {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(cases[i][1]);
    });
  });
});

describe('the cost model', () => {
  const base = { ...DEFAULT_FLEET, monitoring: false };

  it('reads identical CloudWatch queries once: the cost of GetMetricData follows the distinct queries', () => {
    const all = estimateCost({ ...base, autoscalers: 100 });
    const shared = estimateCost({ ...base, autoscalers: 100, distinctQueries: 1 });
    expect(line(shared, 'GetMetricData').usd * 100).toBeCloseTo(line(all, 'GetMetricData').usd, 9);
  });

  it('counts the stored demand history of spec.predictive: a state write a 5-minute bucket with it, its reads and storage', () => {
    const none = estimateCost({ ...base, autoscalers: 100 });
    const some = estimateCost({ ...base, autoscalers: 100, predictiveAutoscalers: 10 });
    expect(none.lines.some((l) => l.item.includes('predictive'))).toBe(false);
    const writes = line(some, 'writes: predictive demand');
    expect(writes.quantity).toBeCloseTo(10 * (MONTH / 300) * (MEASURED.stateWriteUnits + 2), 6);
    expect(line(some, 'reads: predictive demand').quantity).toBeGreaterThan(0);
    expect(some.totalUsd).toBeGreaterThan(none.totalUsd);
    expect(() => estimateCost({ ...base, autoscalers: 100, predictiveAutoscalers: 101 })).toThrow(/predictiveAutoscalers/);
  });

  it('reads a 60 s metric once per minute at a 15 s sync, once per tick at a longer one', () => {
    const fast = estimateCost({ ...base, syncPeriodSeconds: 15 });
    const minute = estimateCost({ ...base, syncPeriodSeconds: 60 });
    const slow = estimateCost({ ...base, syncPeriodSeconds: 300 });
    expect(line(fast, 'GetMetricData').quantity).toBe(line(minute, 'GetMetricData').quantity);
    expect(line(slow, 'GetMetricData').quantity * 5).toBe(line(minute, 'GetMetricData').quantity);
    // Whichever environment runs a tick, the answers kept in the table serve it: one write of them a period per shard.
    expect(line(fast, 'writes: CloudWatch answers').quantity).toBe(line(minute, 'writes: CloudWatch answers').quantity);
    expect(line(fast, 'GetMetricData').quantity).toBe(100 * 43_200);
    // No CloudWatch or PromQL metric: nothing to keep, and the cycle writes no page (lib/sync/cycle.ts keepSharedAnswers).
    const cpuOnly = estimateCost({ ...base, metricsPerAutoscaler: 0 });
    expect([line(cpuOnly, 'writes: CloudWatch answers').quantity, line(cpuOnly, 'reads: CloudWatch answers').quantity]).toEqual([0, 0]);
    expect(line(fast, 'writes: CloudWatch answers').quantity).toBeGreaterThan(0);
    // Four times fewer ticks: four times fewer lease writes.
    expect(line(minute, 'writes: lease').quantity).toBeLessThan(line(fast, 'writes: lease').quantity / 3.9);
  });

  it('prices autoscalers with a faster spec.syncPeriodSeconds: their shard ticks at their period, their state is written more often', () => {
    const usual = estimateCost({ ...base, autoscalers: 100 });
    const fast = estimateCost({ ...base, autoscalers: 100, fastAutoscalers: 10, fastSyncPeriodSeconds: 5 });
    // one shard holds the 100: it ticks every 5 s instead of 15 s, three times the requests of its ticks
    expect(line(fast, 'requests').quantity - line(usual, 'requests').quantity).toBeCloseTo(2 * (30 * 24 * 3600) / 15, 0);
    expect(line(fast, 'writes: state').quantity).toBeGreaterThan(line(usual, 'writes: state').quantity);
    expect(fast.totalUsd).toBeGreaterThan(usual.totalUsd);
    expect(() => estimateCost({ ...base, fastAutoscalers: 1, fastSyncPeriodSeconds: 7 })).toThrow(/must be a period a shard can tick at/);
  });

  it('spreads the fixed costs: the cost per autoscaler falls as the fleet grows, and more shards cost more invocations', () => {
    const per = [1, 100, 10_000].map((autoscalers) => estimateCost({ ...base, autoscalers }).perAutoscalerUsd);
    expect(per[0]).toBeGreaterThan(per[1]);
    expect(per[1]).toBeGreaterThan(per[2]);
    const one = estimateCost({ ...base, autoscalers: 100, shards: 1 });
    const four = estimateCost({ ...base, autoscalers: 100, shards: 4 });
    expect(line(four, 'requests').quantity).toBeGreaterThan(line(one, 'requests').quantity * 3);
    expect(four.cycle.autoscalersPerShard).toBe(25);
  });

  it('cuts each cluster as the dispatcher would (lib/sizing), never below the floor, and says when even 16 shards are too few', () => {
    const e = estimateCost({ ...base, autoscalers: 20_000, clusters: 8 });
    expect(e.fleet.shards).toBe(shardCountFor(evenBuckets(2_500), { memoryMb: 512, periodSeconds: 15 }).shards);
    expect(e.fleet.shards).toBeGreaterThan(1);
    expect(e.cycle.fits).toBe(true);
    expect(e.cycle.allChangeMs).toBeLessThanOrEqual(e.cycle.halfPeriodMs);
    expect(estimateCost({ ...base, autoscalers: 100, shards: 4 }).fleet.shards).toBe(4);
    expect(estimateCost({ ...base, autoscalers: 2_000_000, memoryMb: 128 }).cycle.fits).toBe(false);
  });

  it("writes a steady autoscaler's state at the write policy's staggered maximum age", () => {
    const maxTicks = DEFAULT_WRITE_POLICY.metricsMaxAgeMs / 1000 / 15;
    const f = steadyWritesPerTick(15);
    // Every autoscaler refreshes after between half and all of the maximum age.
    expect(f).toBeGreaterThan(1 / maxTicks);
    expect(f).toBeLessThan(2 / maxTicks);
    expect(steadyWritesPerTick(DEFAULT_WRITE_POLICY.metricsMaxAgeMs / 1000)).toBe(1);
    const more = estimateCost({ ...base, rescalesPerDay: 0, eventsPerHour: 0 });
    expect(line(more, 'writes: state').quantity).toBeCloseTo(base.autoscalers * (MONTH / 15) * f * MEASURED.stateWriteUnits, 3);
  });

  it('bills the Cycles heartbeat all month only with param monitoring full, and the Errors metric only for the hours with errors: it is sent only then', () => {
    expect(line(estimateCost({ ...base, errorHoursPerMonth: 0, monitoring: false }), 'custom metrics').quantity).toBe(0);
    // monitoring true: the alarms read the worker's Invocations and Errors (AWS/Lambda), no custom metric
    expect(line(estimateCost({ ...base, errorHoursPerMonth: 0, monitoring: true }), 'custom metrics').quantity).toBe(0);
    const full = { ...base, monitoring: true, allAlarms: true };
    const quiet = estimateCost({ ...full, errorHoursPerMonth: 0 });
    const allMonth = estimateCost({ ...full, errorHoursPerMonth: 720 });
    expect(line(quiet, 'custom metrics').usd).toBeCloseTo(PRICES.cloudWatch.customMetrics.usd, 9);
    expect(line(allMonth, 'custom metrics').usd).toBeCloseTo(2 * PRICES.cloudWatch.customMetrics.usd, 9);
    expect(line(estimateCost({ ...full, errorHoursPerMonth: 72 }), 'custom metrics').quantity).toBeCloseTo(1.1, 9);
    // An EMF document goes to the logs from every tick's cycle (Cycles), and from the others only with errors.
    expect(line(allMonth, 'ingestion').quantity).toBeGreaterThan(line(quiet, 'ingestion').quantity);
    expect(line(quiet, 'ingestion').quantity).toBeGreaterThan(line(estimateCost({ ...base, monitoring: true, errorHoursPerMonth: 0 }), 'ingestion').quantity);
    // Per-autoscaler metrics come with every decision line: billed all month.
    expect(line(estimateCost({ ...full, errorHoursPerMonth: 0, autoscalerMetrics: true }), 'custom metrics').quantity).toBe(1 + 2 * base.autoscalers);
  });

  it('logs a quiet shard’s cycle line and a quiet dispatcher minute once per SHPA_DECISION_LOG_SECONDS, and no START or REPORT line at logLevel INFO', () => {
    const one = { ...base, autoscalers: 1, metricsPerAutoscaler: 0, errorHoursPerMonth: 0, rescalesPerDay: 0, eventsPerHour: 0 };
    const bytes = (f: Fleet) => line(estimateCost(f), 'ingestion').quantity * 1e9;
    const month = 30 * 86_400;
    // Every line every tick (0) against one per 300 s: the difference is the cycle and dispatch lines of the quiet ticks.
    const decisionsAt = (s: number) => (month / Math.max(s, 15)) * MEASURED.decisionLineBytes;
    const quietCycles = month / 15 - month / 300;
    const quietMinutes = month / 60 - month / 300;
    expect(bytes({ ...one, decisionLogSeconds: 0 }) - decisionsAt(0) - (bytes({ ...one, decisionLogSeconds: 300 }) - decisionsAt(300))).toBeCloseTo(quietCycles * MEASURED.cycleLineBytes + quietMinutes * MEASURED.dispatchLineBytes, 0);
    // Lambda's own lines, when kept (any other logLevel), are 290 bytes an invocation of every function.
    const e = estimateCost(one);
    const invocations = line(e, 'requests').quantity;
    expect(bytes({ ...one, platformLogs: true }) - bytes(one)).toBeCloseTo(invocations * ASSUMED.platformLogBytesPerInvocation, 0);
  });

  it("counts the stack's alarms as infra/alarms.cjs creates them, a metric-math alarm per metric", () => {
    const { alarmResources } = require('../../infra/alarms.cjs') as { alarmResources(c: Record<string, unknown>): { resources: Record<string, { Type: string; Properties: { Metrics?: { MetricStat?: unknown }[] } }> } };
    const metricsOf = (allAlarms: boolean) => {
      const { resources } = alarmResources({ service: 'serverless-hpa', stage: 'test', tableName: 't', syncPeriodSeconds: 15, shards: 1, workerTimeout: 15, alarmTopicArn: '', allAlarms });
      const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
      return alarms.reduce((n, a) => n + (a.Properties.Metrics ? a.Properties.Metrics.filter((m) => m.MetricStat).length : 1), 0);
    };
    expect(metricsOf(true)).toBe(ASSUMED.alarmMetrics);
    expect(metricsOf(false)).toBe(ASSUMED.essentialAlarmMetrics);
    expect(line(estimateCost({ ...base, monitoring: true }), 'alarms').quantity).toBe(ASSUMED.essentialAlarmMetrics);
    expect(line(estimateCost({ ...base, monitoring: true, allAlarms: true }), 'alarms').quantity).toBe(ASSUMED.alarmMetrics);
  });

  it('counts AMP PromQL queries by the samples they process, each distinct query once per its period, and keeps their answers with the others', () => {
    const none = estimateCost({ ...base, autoscalers: 100 });
    expect(none.lines.some((l) => l.service === 'AMP')).toBe(false);
    const amp = estimateCost({ ...base, autoscalers: 100, promQLQueries: 50, promQLSamplesPerQuery: 2_000 });
    const samples = line(amp, 'PromQL query samples processed');
    expect(samples.quantity).toBe(50 * 2_000 * (MONTH / 15));
    expect(samples.usd).toBeCloseTo((samples.quantity / 1e9) * PRICES.amp.querySamples.usd, 10);
    // A longer period: fewer queries.
    expect(line(estimateCost({ ...base, autoscalers: 100, promQLQueries: 50, promQLSamplesPerQuery: 2_000, promQLPeriodSeconds: 60 }), 'PromQL').quantity).toBe(samples.quantity / 4);
    // Their answers travel in the shard's kept-answers item too.
    expect(line(amp, 'reads: CloudWatch answers kept').quantity).toBeGreaterThan(line(none, 'reads: CloudWatch answers kept').quantity);
    expect(() => estimateCost({ ...base, promQLPeriodSeconds: 1 })).toThrow(/^promQLPeriodSeconds must be an integer from 5 to 3600/);
  });

  it('sends evaluations to the evaluator, not through SQS: events add Lambda requests, no SQS request; one event source long-polls', () => {
    const sqs = (e: CostEstimate) => e.lines.filter((l) => l.service === 'SQS').reduce((n, l) => n + l.quantity, 0);
    const quiet = estimateCost({ ...base, eventsPerHour: 0, alarmChangesPerHour: 0 });
    const busy = estimateCost({ ...base, eventsPerHour: 100, alarmChangesPerHour: 10 });
    expect(sqs(busy)).toBe(sqs(quiet));
    const S = quiet.fleet.clusters * quiet.fleet.shards;
    expect(line(busy, 'requests (worker, evaluator').quantity - line(quiet, 'requests (worker, evaluator').quantity).toBeCloseTo((100 + 10 * S) * 720 + (100 + 10) * 720, 6);
    expect(ASSUMED.sqsEventSources).toBe(1);
    expect(line(quiet, 'idle long polls').quantity).toBe(ASSUMED.sqsIdleReceivesPerMinute * 60 * 24 * 30);
  });

  it('refuses a fleet it cannot price, naming the field', () => {
    expect(() => estimateCost({ ...base, autoscalers: 0 })).toThrow(/^autoscalers must be an integer from 1/);
    expect(() => estimateCost({ ...base, syncPeriodSeconds: 45 })).toThrow(/^syncPeriodSeconds must divide 60/);
  });
});
