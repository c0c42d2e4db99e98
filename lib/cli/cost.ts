// `shpa cost`: what a fleet costs a month on AWS, itemised by service (lib/cost), from the
// calls the code makes, the prices of lib/cost/prices.ts and the figures the benchmarks measured.
import type { Command } from 'commander';
import { CostInputError, DEFAULT_FLEET, estimateCost, type CostEstimate, type Fleet } from '../cost/estimate.js';
import { CliError } from './context.js';
import { numberOption } from './options.js';
import { columnWidths, formatRow, parseOutput } from './output.js';

interface CostFlags {
  autoscalers: number;
  metricsPerAutoscaler: number;
  distinctQueries?: number;
  clusters: number;
  shards?: number;
  syncPeriod: number;
  fastAutoscalers: number;
  fastSyncPeriod: number;
  memory: number;
  eventsPerHour: number;
  alarmChangesPerHour: number;
  rescalesPerDay: number;
  decisionLogSeconds: number;
  logRetentionDays: number;
  monitoring: boolean;
  allAlarms: boolean;
  dashboard: boolean;
  errorHours: number;
  autoscalerMetrics: boolean;
  sqsQueues: number;
  sqsSyncPeriod?: number;
  promqlQueries: number;
  promqlSamples: number;
  promqlPeriod: number;
  predictiveAutoscalers: number;
  platformLogs: boolean;
  output?: string;
}

const usd = (x: number, digits = 2) => (x > 0 && x < 10 ** -digits ? `<${(10 ** -digits).toFixed(digits)}` : x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const amount = (x: number) => (x >= 100 || Number.isInteger(x) ? Math.round(x).toLocaleString('en-US') : x.toPrecision(3));

function costTable(e: CostEstimate): string {
  const f = e.fleet;
  const out: string[] = [];
  out.push(
    `${f.autoscalers.toLocaleString('en-US')} autoscalers, ${f.metricsPerAutoscaler} CloudWatch metric(s) each (${f.distinctQueries.toLocaleString('en-US')} distinct), ` +
      (f.promQLQueries > 0 ? `${f.promQLQueries.toLocaleString('en-US')} AMP PromQL queries, ` : '') +
      (f.sqsQueues > 0 ? `${f.sqsQueues.toLocaleString('en-US')} SQS queue(s) read every ${f.sqsSyncPeriodSeconds} s, ` : '') +
      `${f.clusters} cluster(s) × ${f.shards} shard(s), ${f.syncPeriodSeconds} s sync, worker ${f.memoryMb} MB`,
  );
  out.push(`prices: ${e.prices.region}, ${e.prices.architecture}, taken ${e.prices.takenOn} (lib/cost/prices.ts); no free tier`);
  out.push('');
  const rows = [['SERVICE', 'ITEM', 'USAGE/MONTH', 'USD/MONTH'], ...e.lines.map((l) => [l.service, l.item, `${amount(l.quantity)} ${l.unit}`, usd(l.usd)])];
  const widths = columnWidths(rows);
  for (const r of rows) out.push(formatRow(r, widths));
  out.push('');
  const subtotal = Object.entries(e.byService).map(([service, x]) => [service, usd(x)]);
  const sw = columnWidths([['TOTAL'], ...subtotal]);
  for (const r of subtotal) out.push(formatRow(r, sw));
  out.push(formatRow(['TOTAL', usd(e.totalUsd)], sw));
  out.push('');
  const fixed = [f.monitoring && 'alarms', f.dashboard && 'dashboard'].filter(Boolean).join(' and ');
  out.push(`per autoscaler-month: $${usd(e.perAutoscalerUsd, 4)}${fixed ? ` ($${usd(e.perAutoscalerWithoutMonitoringUsd, 4)} without the fixed ${fixed})` : ''}`);
  const c = e.cycle;
  out.push(
    `a shard's tick: ${c.autoscalersPerShard} autoscalers, ${Math.round(c.cpuMs)} ms CPU, about ${Math.round(c.durationMs)} ms at ${f.memoryMb} MB; ` +
      `when all of them change about ${Math.round(c.allChangeMs)} ms, ${c.capacity} autoscalers a shard at most` +
      (c.fits ? ` (fits in half the period, ${c.halfPeriodMs} ms)` : ` — MORE than half the period (${c.halfPeriodMs} ms) even at 16 shards: give the worker more memory`),
  );
  out.push(
    `assumed: ${f.eventsPerHour} spec change(s) or evaluate-now an hour, ${f.alarmChangesPerHour} alarm change(s) an hour, ${f.rescalesPerDay} rescales per autoscaler a day, ` +
      `a quiet decision line every ${f.decisionLogSeconds} s, logs kept ${f.logRetentionDays} days, errors in ${f.errorHoursPerMonth} hour(s) of the month; -o json gives how each line was computed`,
  );
  out.push(`measured inputs: ${e.measuredSource}`);
  return `${out.join('\n')}\n`;
}

export function registerCost(program: Command): void {
  const d = DEFAULT_FLEET;
  program
    .command('cost')
    .description('the monthly AWS cost of a fleet of autoscalers, itemised by service')
    .option('--autoscalers <n>', 'autoscalers', numberOption('--autoscalers', 1, true), d.autoscalers)
    .option('--metrics-per-autoscaler <n>', 'CloudWatch metrics each autoscaler reads', numberOption('--metrics-per-autoscaler', 0, true), d.metricsPerAutoscaler)
    .option('--distinct-queries <n>', 'distinct CloudWatch queries over the fleet (default: autoscalers × metrics)', numberOption('--distinct-queries', 0, true))
    .option('--clusters <n>', 'EKS clusters', numberOption('--clusters', 1, true), d.clusters)
    .option('--shards <k>', "the floor of shards per cluster: 1, 2, 4, 8, 16, 32, 64, 128 or 256 (the count is the dispatcher's choice above it: the fewest whose all-change cycle fits)", numberOption('--shards', 1, true))
    .option('--sync-period <seconds>', 'seconds between ticks (SHPA_SYNC_PERIOD_SECONDS)', numberOption('--sync-period', 1, true), d.syncPeriodSeconds)
    .option('--fast-autoscalers <n>', 'autoscalers with a faster spec.syncPeriodSeconds (priced as if each made its shard tick faster)', numberOption('--fast-autoscalers', 0, true), 0)
    .option('--fast-sync-period <seconds>', 'their spec.syncPeriodSeconds (a tick period: 5, 6, 10, 12, 15, 20, 30, 60)', numberOption('--fast-sync-period', 5, true), 5)
    .option('--memory <mb>', "the worker's memory (MB)", numberOption('--memory', 128, true), d.memoryMb)
    .option('--events-per-hour <n>', 'spec changes and evaluate-now events an hour', numberOption('--events-per-hour', 0), d.eventsPerHour)
    .option('--alarm-changes-per-hour <n>', 'CloudWatch alarm state changes an hour (each evaluates in every shard)', numberOption('--alarm-changes-per-hour', 0), d.alarmChangesPerHour)
    .option('--rescales-per-day <n>', 'rescales per autoscaler per day', numberOption('--rescales-per-day', 0), d.rescalesPerDay)
    .option('--decision-log-seconds <s>', "a quiet autoscaler's decision line at most this often (SHPA_DECISION_LOG_SECONDS)", numberOption('--decision-log-seconds', 0, true), d.decisionLogSeconds)
    .option('--log-retention-days <d>', 'days CloudWatch Logs keeps the lines', numberOption('--log-retention-days', 1, true), d.logRetentionDays)
    .option('--no-monitoring', 'leave out the stack’s alarms (deploy param monitoring=false)')
    .option('--all-alarms', 'all seven alarms and the Cycles heartbeat, not the four on AWS’s own metrics that catch a stopped autoscaler or lost work (deploy param monitoring=full)', false)
    .option('--dashboard', 'add the operators’ dashboard (deploy param dashboard=true)', false)
    .option('--error-hours <h>', 'hours a month in which some cycle reports an error: the EMF Errors metric is sent (and billed) only then', numberOption('--error-hours', 0), d.errorHoursPerMonth)
    .option('--autoscaler-metrics', 'per-autoscaler EMF metrics (SHPA_AUTOSCALER_METRICS)', false)
    .option('--predictive-autoscalers <n>', 'autoscalers with spec.predictive (their demand history is stored with the state)', numberOption('--predictive-autoscalers', 0, true), 0)
    .option('--sqs-queues <n>', 'SQS queues read by SQSQueueMetric objects, once per shard reading them (one GetQueueAttributes per queue per tick)', numberOption('--sqs-queues', 0, true), 0)
    .option('--sqs-sync-period <seconds>', 'the tick period of the shards reading them, when a spec.syncPeriodSeconds makes it shorter (default: --sync-period)', numberOption('--sqs-sync-period', 5, true))
    .option('--promql-queries <n>', 'distinct PromQL queries to AMP over the fleet (PrometheusMetric objects with spec.amp)', numberOption('--promql-queries', 0, true), 0)
    .option('--promql-samples <n>', 'query samples one PromQL query processes (the worker counts them: PromQLSamplesProcessed)', numberOption('--promql-samples', 0), 1_000)
    .option('--promql-period <seconds>', "seconds a PromQL answer stands (spec.periodSeconds)", numberOption('--promql-period', 5, true), 15)
    .option('--platform-logs', 'Lambda’s START and REPORT lines of every invocation (deploy param logLevel other than INFO)', false)
    .option('-o, --output <format>', 'json')
    .action((flags: CostFlags) => {
      const output = parseOutput(flags.output, ['json']);
      const fleet: Fleet = {
        autoscalers: flags.autoscalers,
        metricsPerAutoscaler: flags.metricsPerAutoscaler,
        ...(flags.distinctQueries !== undefined ? { distinctQueries: flags.distinctQueries } : {}),
        clusters: flags.clusters,
        ...(flags.shards !== undefined ? { shards: flags.shards } : {}),
        syncPeriodSeconds: flags.syncPeriod,
        memoryMb: flags.memory,
        eventsPerHour: flags.eventsPerHour,
        alarmChangesPerHour: flags.alarmChangesPerHour,
        rescalesPerDay: flags.rescalesPerDay,
        decisionLogSeconds: flags.decisionLogSeconds,
        logRetentionDays: flags.logRetentionDays,
        monitoring: flags.monitoring,
        ...(flags.allAlarms ? { allAlarms: true } : {}),
        dashboard: flags.dashboard,
        errorHoursPerMonth: flags.errorHours,
        autoscalerMetrics: flags.autoscalerMetrics,
        fastAutoscalers: flags.fastAutoscalers,
        fastSyncPeriodSeconds: flags.fastSyncPeriod,
        sqsQueues: flags.sqsQueues,
        ...(flags.sqsSyncPeriod !== undefined ? { sqsSyncPeriodSeconds: flags.sqsSyncPeriod } : {}),
        promQLQueries: flags.promqlQueries,
        promQLSamplesPerQuery: flags.promqlSamples,
        promQLPeriodSeconds: flags.promqlPeriod,
        predictiveAutoscalers: flags.predictiveAutoscalers,
        platformLogs: flags.platformLogs,
      };
      let estimate: CostEstimate;
      try {
        estimate = estimateCost(fleet);
      } catch (e) {
        if (e instanceof CostInputError) throw new CliError(`${FLAGS[e.field]} ${e.detail}`);
        throw e;
      }
      process.stdout.write(output.format === 'json' ? `${JSON.stringify(estimate, null, 2)}\n` : costTable(estimate));
    });
}

/** The option that sets each field of the fleet. */
const FLAGS: Record<keyof Fleet, string> = {
  autoscalers: '--autoscalers',
  metricsPerAutoscaler: '--metrics-per-autoscaler',
  distinctQueries: '--distinct-queries',
  clusters: '--clusters',
  shards: '--shards',
  syncPeriodSeconds: '--sync-period',
  fastAutoscalers: '--fast-autoscalers',
  fastSyncPeriodSeconds: '--fast-sync-period',
  sqsQueues: '--sqs-queues',
  sqsSyncPeriodSeconds: '--sqs-sync-period',
  memoryMb: '--memory',
  eventsPerHour: '--events-per-hour',
  alarmChangesPerHour: '--alarm-changes-per-hour',
  rescalesPerDay: '--rescales-per-day',
  decisionLogSeconds: '--decision-log-seconds',
  logRetentionDays: '--log-retention-days',
  monitoring: '--no-monitoring',
  allAlarms: '--all-alarms',
  dashboard: '--dashboard',
  errorHoursPerMonth: '--error-hours',
  autoscalerMetrics: '--autoscaler-metrics',
  promQLQueries: '--promql-queries',
  promQLSamplesPerQuery: '--promql-samples',
  promQLPeriodSeconds: '--promql-period',
  predictiveAutoscalers: '--predictive-autoscalers',
  platformLogs: '--platform-logs',
};
