// The monthly AWS cost of a fleet, from the calls the code makes (docs/architecture.md): per
// shard per tick, the dispatcher's ticks through SQS, one worker invocation with its lease
// (two DynamoDB updates), the bucket index and one Query per non-empty bucket, the state
// writes the store's write policy lets through, GetMetricData once per metric period,
// GetQueueAttributes once per SQS queue per tick, a summary log line and a decision line when
// something happened; plus what events add.
// Pure: prices, measurements and assumptions come in (prices.ts, inputs.ts).
import { expectedGateWaitMs, isSyncPeriod, NAMESPACE_BUCKETS, SHARD_COUNTS, TICK_PERIODS } from '#sync/messaging';
import { PROBE_MS, RELEARN_MS } from '#metrics';
import { LEARNED_BYTES } from '../store/publish-delay-codec.js';
import { DEFAULT_WRITE_POLICY, type WritePolicy } from '../store/history.js';
import { allChangeCycleMs, evenBuckets, shardCountFor } from '../sizing/shard-sizing.cjs';
import { DEFAULT_PROMETHEUS_PERIOD_SECONDS } from '#api';
import { SHARED_PAGE_BYTES } from '../store/shared-answers.js';
import { ASSUMED, MEASURED, type Measured } from './inputs.js';

/** A page's key and expiry beside its answers (pk, sk, ttl): bytes billed with each write and read. */
const SHARED_PAGE_OVERHEAD_BYTES = 70;
import { PRICES, type Price, type Prices } from './prices.js';

export interface Fleet {
  autoscalers: number;
  /** CloudWatch metrics each autoscaler reads. */
  metricsPerAutoscaler: number;
  /** Distinct CloudWatch queries over the fleet (identical ones are read once); default: autoscalers × metrics. */
  distinctQueries?: number;
  clusters: number;
  /** The operator's floor of shards per cluster (1, 2, 4, … 256); the count is lib/sizing's choice above it, as the dispatcher makes it. */
  shards?: number;
  syncPeriodSeconds: number;
  /** The worker's memory (MB). */
  memoryMb: number;
  /** Spec changes and evaluate-now events an hour, over the fleet (each evaluates in one shard). */
  eventsPerHour: number;
  /** CloudWatch alarm state changes an hour (each evaluates in every shard). */
  alarmChangesPerHour: number;
  /** Rescales per autoscaler per day. */
  rescalesPerDay: number;
  decisionLogSeconds: number;
  logRetentionDays: number;
  /** The stack's alarms (param monitoring true: the four of a silent stop or lost work). */
  monitoring: boolean;
  /** All seven alarms (param monitoring full). */
  allAlarms?: boolean;
  /** The operators' dashboard (deploy param `dashboard`, off by default). */
  dashboard: boolean;
  /** Hours a month in which some cycle reports an error: the EMF Errors metric is sent, and billed, only in those. */
  errorHoursPerMonth: number;
  /** SHPA_AUTOSCALER_METRICS: two custom metrics per autoscaler. */
  autoscalerMetrics: boolean;
  /** Autoscalers with a faster spec.syncPeriodSeconds (each may make its shard tick at that period: counted so, the worst case). */
  fastAutoscalers?: number;
  /** Their period (a tick period: 5, 6, 10, 12, 15, 20, 30, 60). */
  fastSyncPeriodSeconds?: number;
  /** Distinct PromQL queries to AMP over the fleet (PrometheusMetric objects with spec.amp); default 0. */
  promQLQueries?: number;
  /** Query samples one of them processes (what `stats=all` reports, the decision's metrics count): default 1,000. */
  promQLSamplesPerQuery?: number;
  /** Seconds an answer stands (spec.periodSeconds); default 15. */
  promQLPeriodSeconds?: number;
  /** SQS queues SQSQueueMetric objects read, counted once per shard reading them (autoscalers in two shards on one queue: two); default 0. */
  sqsQueues?: number;
  /** The tick period of the shards that read them (shorter where a spec.syncPeriodSeconds makes them tick faster); default syncPeriodSeconds. */
  sqsSyncPeriodSeconds?: number;
  /** Autoscalers with spec.predictive: each stores its demand history with its state; default 0. */
  predictiveAutoscalers?: number;
  /**
   * Lambda's START and REPORT lines of every invocation (deploy param logLevel other than INFO: infra/stack.cjs
   * lambdaLoggingConfig); default false: at INFO the functions log JSON with Lambda's own lines at WARN.
   */
  platformLogs?: boolean;
}

export const DEFAULT_FLEET: Fleet = {
  autoscalers: 100,
  metricsPerAutoscaler: 1,
  clusters: 1,
  syncPeriodSeconds: 15,
  memoryMb: 512,
  eventsPerHour: 1,
  alarmChangesPerHour: 0,
  rescalesPerDay: 24,
  decisionLogSeconds: 300,
  logRetentionDays: 30,
  monitoring: true,
  dashboard: false,
  // An error-free month but for a day's worth of hours with some error (a cluster upgrade, a bad spec being fixed).
  errorHoursPerMonth: 24,
  autoscalerMetrics: false,
};

export type Service = 'Lambda' | 'SQS' | 'DynamoDB' | 'CloudWatch' | 'AMP' | 'CloudWatch Logs' | 'Monitoring';

export interface CostLine {
  service: Service;
  item: string;
  quantity: number;
  unit: string;
  usd: number;
  /** How the quantity follows from the fleet. */
  basis: string;
  price: Price;
}

export interface CostEstimate {
  fleet: Required<Fleet>;
  prices: { takenOn: string; region: string; architecture: string };
  lines: CostLine[];
  byService: Partial<Record<Service, number>>;
  totalUsd: number;
  perAutoscalerUsd: number;
  /** Without the fixed monitoring items (alarms, dashboard). */
  perAutoscalerWithoutMonitoringUsd: number;
  /**
   * One shard's tick: its autoscalers, a steady tick's CPU (one core) and duration at the worker's memory, the
   * cycle where all of them change (what shards are sized by, lib/sizing), and whether that fits in half the period.
   */
  cycle: { autoscalersPerShard: number; cpuMs: number; gateMs: number; durationMs: number; allChangeMs: number; capacity: number; halfPeriodMs: number; fits: boolean };
  measuredSource: string;
}

/** A fleet field out of range: `detail` says what it must be. */
export class CostInputError extends Error {
  override readonly name = 'CostInputError';
  constructor(
    readonly field: keyof Fleet,
    readonly detail: string,
  ) {
    super(`${field} ${detail}`);
  }
}

const MONTH_SECONDS = 30 * 86_400;
const HOURS = 720;
const MINUTES = MONTH_SECONDS / 60;

/**
 * Fraction of autoscalers whose state is written per tick in steady state, their metric values
 * moving a little: DynamoStore staggers each one's metricsMaxAgeMs uniformly over its upper
 * half, and the write comes at the first tick after that age.
 */
export function steadyWritesPerTick(periodSeconds: number, policy: WritePolicy = DEFAULT_WRITE_POLICY): number {
  const max = policy.metricsMaxAgeMs / 1000;
  const steps = 1000;
  let sum = 0;
  for (let i = 0; i < steps; i++) {
    const age = max / 2 + ((i + 0.5) / steps) * (max / 2);
    sum += 1 / Math.max(1, Math.ceil(age / periodSeconds));
  }
  return sum / steps;
}

function check(f: Fleet): void {
  const int = (name: keyof Fleet, v: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    if (!Number.isInteger(v) || v < min || v > max) throw new CostInputError(name, `must be an integer from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, got ${v}`);
  };
  const num = (name: keyof Fleet, v: number) => {
    if (!Number.isFinite(v) || v < 0) throw new CostInputError(name, `must be a number ≥ 0, got ${v}`);
  };
  int('autoscalers', f.autoscalers, 1);
  int('metricsPerAutoscaler', f.metricsPerAutoscaler, 0);
  if (f.distinctQueries !== undefined) {
    int('distinctQueries', f.distinctQueries, 0);
    if (f.distinctQueries > f.autoscalers * f.metricsPerAutoscaler) {
      throw new CostInputError('distinctQueries', `(${f.distinctQueries}) cannot exceed the autoscalers × their CloudWatch metrics (${f.autoscalers * f.metricsPerAutoscaler})`);
    }
  }
  int('clusters', f.clusters, 1);
  if (f.fastAutoscalers !== undefined) int('fastAutoscalers', f.fastAutoscalers, 0, f.autoscalers);
  if (f.fastSyncPeriodSeconds !== undefined && !TICK_PERIODS.includes(f.fastSyncPeriodSeconds)) {
    throw new CostInputError('fastSyncPeriodSeconds', `must be a period a shard can tick at (${TICK_PERIODS.join(', ')}), got ${f.fastSyncPeriodSeconds}`);
  }
  if (f.shards !== undefined && !(SHARD_COUNTS as readonly number[]).includes(f.shards)) throw new CostInputError('shards', `must be one of ${SHARD_COUNTS.join(', ')} (per cluster), got ${f.shards}`);
  if (!isSyncPeriod(f.syncPeriodSeconds)) {
    throw new CostInputError('syncPeriodSeconds', `must divide 60 (and be at least 5) or be a multiple of 60 up to 900, as SHPA_SYNC_PERIOD_SECONDS, got ${f.syncPeriodSeconds}`);
  }
  int('memoryMb', f.memoryMb, 128, 10_240);
  num('eventsPerHour', f.eventsPerHour);
  num('alarmChangesPerHour', f.alarmChangesPerHour);
  num('rescalesPerDay', f.rescalesPerDay);
  int('decisionLogSeconds', f.decisionLogSeconds, 0, 86_400);
  int('logRetentionDays', f.logRetentionDays, 1);
  num('errorHoursPerMonth', f.errorHoursPerMonth);
  if (f.promQLQueries !== undefined) int('promQLQueries', f.promQLQueries, 0);
  if (f.predictiveAutoscalers !== undefined) int('predictiveAutoscalers', f.predictiveAutoscalers, 0, f.autoscalers);
  if (f.promQLSamplesPerQuery !== undefined) num('promQLSamplesPerQuery', f.promQLSamplesPerQuery);
  if (f.promQLPeriodSeconds !== undefined) int('promQLPeriodSeconds', f.promQLPeriodSeconds, 5, 3_600);
  if (f.errorHoursPerMonth > HOURS) throw new CostInputError('errorHoursPerMonth', `must be at most the ${HOURS} hours of a month, got ${f.errorHoursPerMonth}`);
  if (f.sqsQueues !== undefined) int('sqsQueues', f.sqsQueues, 0);
  const sqsPeriod = f.sqsSyncPeriodSeconds;
  if (sqsPeriod !== undefined && sqsPeriod !== f.syncPeriodSeconds && !(TICK_PERIODS.includes(sqsPeriod) && sqsPeriod < f.syncPeriodSeconds)) {
    throw new CostInputError('sqsSyncPeriodSeconds', `must be the sync period (${f.syncPeriodSeconds}) or a shorter tick period (${TICK_PERIODS.filter((p) => p < f.syncPeriodSeconds).join(', ')}), got ${sqsPeriod}`);
  }
}

/** One SQS queue read by an SQSQueueMetric at every tick of `periodSeconds`: GetQueueAttributes calls a month and their cost. */
export function sqsQueueMonth(periodSeconds: number, prices: Prices = PRICES): { requests: number; usd: number } {
  const requests = MONTH_SECONDS / periodSeconds;
  return { requests, usd: (requests / 1e6) * prices.sqs.requests.usd };
}

/**
 * The same queue through CloudWatch (a CloudWatchMetric on AWS/SQS, as import made before SQSQueueMetric): visible and
 * in flight, two metrics once per one-minute datapoint, plus their sample counts while the publication delay is learnt
 * at `periodSeconds` ticks, as the GetMetricData lines count them.
 */
export function cloudWatchQueueMonth(periodSeconds: number, prices: Prices = PRICES): { metrics: number; usd: number; probeMetrics: number; probeUsd: number } {
  const metrics = 2 * (MONTH_SECONDS / Math.max(periodSeconds, ASSUMED.metricPeriodSeconds));
  const probeMetrics = 2 * (PROBE_MS / 1000 / periodSeconds) * (MONTH_SECONDS / ((PROBE_MS + RELEARN_MS) / 1000));
  const per = (n: number) => (n / 1000) * prices.cloudWatch.getMetricData.usd;
  return { metrics, usd: per(metrics), probeMetrics, probeUsd: per(probeMetrics) };
}

export interface EstimateOptions {
  prices?: Prices;
  measured?: Measured;
}

export function estimateCost(input: Fleet, o: EstimateOptions = {}): CostEstimate {
  check(input);
  const prices = o.prices ?? PRICES;
  const m = o.measured ?? MEASURED;
  const P = input.syncPeriodSeconds;
  const A = input.autoscalers;
  const vcpu = Math.min(1, input.memoryMb / ASSUMED.mbPerVcpu);

  // The dispatcher's choice (lib/sizing) for a cluster's share of the fleet spread over its buckets.
  const sizing = shardCountFor(evenBuckets(Math.ceil(A / input.clusters)), { memoryMb: input.memoryMb, periodSeconds: P, floor: input.shards ?? 1 });
  const shards = sizing.shards;
  const perShard = Math.ceil(A / (input.clusters * shards));
  const cpuMs = m.cycleCpuFixedMs + m.cycleCpuPerAutoscalerMs * perShard;
  const k8sRounds = Math.ceil((perShard * m.k8sCallsPerAutoscaler) / ASSUMED.concurrency);
  const allChangeMs = allChangeCycleMs(sizing.largest, input.memoryMb);
  const gateMs = expectedGateWaitMs(P);
  const cycle = {
    autoscalersPerShard: perShard,
    cpuMs,
    gateMs,
    durationMs: cpuMs / vcpu + ASSUMED.roundTripMs * (ASSUMED.sequentialRoundTrips + k8sRounds),
    allChangeMs,
    capacity: sizing.capacity,
    halfPeriodMs: (P * 1000) / 2,
    fits: !sizing.over,
  };
  const fleet: Required<Fleet> = {
    fastAutoscalers: 0,
    fastSyncPeriodSeconds: 5,
    allAlarms: false,
    ...input,
    shards,
    distinctQueries: input.distinctQueries ?? A * input.metricsPerAutoscaler,
    promQLQueries: input.promQLQueries ?? 0,
    promQLSamplesPerQuery: input.promQLSamplesPerQuery ?? 1_000,
    promQLPeriodSeconds: input.promQLPeriodSeconds ?? DEFAULT_PROMETHEUS_PERIOD_SECONDS,
    sqsQueues: input.sqsQueues ?? 0,
    sqsSyncPeriodSeconds: input.sqsSyncPeriodSeconds ?? P,
    predictiveAutoscalers: input.predictiveAutoscalers ?? 0,
    platformLogs: input.platformLogs ?? false,
  };
  const S = fleet.clusters * shards;
  // spec.syncPeriodSeconds: a shard holding a faster autoscaler ticks at its period (at worst, each in a shard of its own).
  const Pf = Math.min(P, fleet.fastSyncPeriodSeconds);
  const fastShards = Math.min(S, fleet.fastAutoscalers);
  const fastTicks = fastShards * (MONTH_SECONDS / Pf - MONTH_SECONDS / P);

  // Invocations of the worker (ticks, through SQS) and of the evaluator (events in one shard, alarm changes in every
  // shard: asynchronous invocations, which Lambda queues at no charge beyond the request).
  const tickInvocations = S * (MONTH_SECONDS / P) + fastTicks;
  const eventInvocations = fleet.eventsPerHour * HOURS;
  const alarmInvocations = fleet.alarmChangesPerHour * HOURS * S;
  const loads = tickInvocations + eventInvocations + alarmInvocations;
  const rescales = A * fleet.rescalesPerDay * 30;
  const dispatches = P <= 60 ? MINUTES : MONTH_SECONDS / P;
  const smallInvocations = dispatches + eventInvocations + fleet.alarmChangesPerHour * HOURS;

  const lines: CostLine[] = [];
  const add = (service: Service, item: string, quantity: number, unit: string, price: Price, perUnits: number, basis: string) =>
    lines.push({ service, item, quantity, unit, usd: (quantity / perUnits) * price.usd, basis, price });

  // Lambda.
  const memGb = fleet.memoryMb / 1024;
  const smallGbS = (ASSUMED.smallFunction.memoryMb / 1024) * (ASSUMED.smallFunction.durationMs / 1000);
  const fastBasis = fastShards > 0 ? ` + ${fastShards} shard(s) ticking every ${Pf} s` : '';
  add('Lambda', 'requests (worker, evaluator, dispatcher, stream, events)', loads + smallInvocations, 'requests', prices.lambda.requests, 1e6, `${S} shard(s) × ${MONTH_SECONDS / P} ticks${fastBasis} + events + ${dispatches} dispatches`);
  add(
    'Lambda',
    `worker and evaluator duration (${fleet.memoryMb} MB, arm64)`,
    memGb * ((loads * cycle.durationMs + tickInvocations * gateMs + (rescales * m.rescaleCpuMs) / vcpu) / 1000),
    'GB-s',
    prices.lambda.duration,
    1,
    `${Math.round(cycle.durationMs)} ms a cycle of ${cycle.autoscalersPerShard} autoscalers: ${m.cycleCpuFixedMs} + ${m.cycleCpuPerAutoscalerMs} ms CPU each at ${vcpu.toFixed(2)} vCPU, + round trips; + ${Math.round(gateMs)} ms a tick waiting for metrics-server's store`,
  );
  add('Lambda', 'dispatcher, stream and events duration', smallInvocations * smallGbS, 'GB-s', prices.lambda.duration, 1, `${ASSUMED.smallFunction.memoryMb} MB × ${ASSUMED.smallFunction.durationMs} ms each`);

  // SQS: the dispatcher's batches of ten, one receive and one delete per tick, Lambda's idle long polls (evaluations
  // are the evaluator's asynchronous invocations: no queue of theirs).
  const ticksPerDispatch = P <= 60 ? 60 / P : 1;
  const sends = dispatches * Math.ceil((S * ticksPerDispatch) / 10) + fastTicks / 10;
  add('SQS', 'SendMessageBatch (ticks)', sends, 'requests', prices.sqs.requests, 1e6, 'ten messages a batch');
  add('SQS', 'ReceiveMessage and DeleteMessage', 2 * tickInvocations, 'requests', prices.sqs.requests, 1e6, 'one of each per tick (batch size 1)');
  add('SQS', 'idle long polls of the event source', ASSUMED.sqsEventSources * ASSUMED.sqsIdleReceivesPerMinute * MINUTES, 'requests', prices.sqs.requests, 1e6, `${ASSUMED.sqsEventSources} event source (the work queue), five pollers, 20 s long polls (assumed)`);

  // DynamoDB.
  const bucketsPerShard = Math.min(NAMESPACE_BUCKETS / shards, cycle.autoscalersPerShard);
  const readsPerLoad = 1 + 0.5 * bucketsPerShard + cycle.autoscalersPerShard * m.loadReadUnitsPerAutoscaler;
  add('DynamoDB', 'reads: bucket index and bucket queries', loads * readsPerLoad + rescales * m.rescaleReadUnits, 'RRU', prices.dynamodb.readRequestUnits, 1e6, `${readsPerLoad.toFixed(1)} RRU a shard load (strongly consistent, 4 KB units)`);
  add('DynamoDB', 'writes: lease taken and released', 2 * loads, 'WRU', prices.dynamodb.writeRequestUnits, 1e6, 'two conditional updates per cycle');
  const steady = steadyWritesPerTick(P);
  add(
    'DynamoDB',
    'writes: state',
    ((A - fleet.fastAutoscalers) * (MONTH_SECONDS / P) * steady + fleet.fastAutoscalers * (MONTH_SECONDS / Pf) * steadyWritesPerTick(Pf)) * m.stateWriteUnits +
      rescales * m.rescaleWriteUnits +
      eventInvocations * m.stateWriteUnits,
    'WRU',
    prices.dynamodb.writeRequestUnits,
    1e6,
    `${(steady * 100).toFixed(1)} % of autoscalers a tick (write policy), ${m.rescaleWriteUnits} WRU a rescale, one write an event`,
  );
  add('DynamoDB', 'storage', (A * m.loadReadUnitsPerAutoscaler * 4096) / 1e9, 'GB-month', prices.dynamodb.storage, 1, 'spec, state and CloudWatchMetric items');
  if (fleet.predictiveAutoscalers > 0) predictiveDemandCost(fleet.predictiveAutoscalers, loads / S, m, prices, add);

  // CloudWatch metrics read: each distinct query once per metric period (kept in the table until a newer
  // datapoint can exist, so whichever environment runs a tick finds it), and at most once per tick.
  const every = Math.max(P, ASSUMED.metricPeriodSeconds);
  const reads = fleet.distinctQueries * (MONTH_SECONDS / every);
  add('CloudWatch', 'GetMetricData metrics requested', reads, 'metrics', prices.cloudWatch.getMetricData, 1000, `${fleet.distinctQueries} distinct queries, once per ${every} s whichever environment runs the tick`);
  // Learning each query's publication delay (lib/metrics/publish-delay.ts): its SampleCount at every tick while probing.
  const probes = fleet.distinctQueries * (PROBE_MS / 1000 / P) * (MONTH_SECONDS / ((PROBE_MS + RELEARN_MS) / 1000));
  add('CloudWatch', 'GetMetricData sample counts (publication delays)', probes, 'metrics', prices.cloudWatch.getMetricData, 1000, `each query's SampleCount at every tick for ${PROBE_MS / 60_000} minutes every ${RELEARN_MS / 3_600_000} hours (param cloudWatchPublishDelay: learn)`);
  if (fleet.sqsQueues > 0) sqsQueueCost(fleet, prices, add);
  // AMP: each distinct query once per its period (answers kept as CloudWatch's), billed by the samples it processes.
  const promEvery = Math.max(P, fleet.promQLPeriodSeconds);
  const promQueries = fleet.promQLQueries * (MONTH_SECONDS / promEvery);
  if (fleet.promQLQueries > 0) {
    add('AMP', 'PromQL query samples processed', promQueries * fleet.promQLSamplesPerQuery, 'samples', prices.amp.querySamples, 1e9, `${fleet.promQLQueries} distinct queries of ${fleet.promQLSamplesPerQuery} samples, once per ${promEvery} s`);
  }
  // The answers a shard keeps for the deployment: pages of at most SHARED_PAGE_BYTES per shard (no item grows with the
  // shard), rewritten once a period (a write unit a KB of each page), read with every load (strongly consistent, 4 KB units).
  const answersBytes = ((fleet.distinctQueries + fleet.promQLQueries) * m.sharedAnswerBytes + fleet.distinctQueries * LEARNED_BYTES) / S;
  // No answer to keep, no page: the cycle writes none (lib/sync/cycle.ts keepSharedAnswers).
  const pages = Math.ceil(answersBytes / SHARED_PAGE_BYTES);
  const pageWriteUnits = pages > 0 ? Math.ceil((answersBytes / pages + SHARED_PAGE_OVERHEAD_BYTES) / 1024) : 0;
  add(
    'DynamoDB',
    'writes: CloudWatch answers kept for the deployment',
    S * (MONTH_SECONDS / every) * pages * pageWriteUnits,
    'WRU',
    prices.dynamodb.writeRequestUnits,
    1e6,
    pages > 0 ? `${pages} page(s) of ${Math.round(answersBytes / pages)} bytes per shard (${pageWriteUnits} WRU each), once per ${every} s` : 'no CloudWatch or PromQL answer to keep',
  );
  add('DynamoDB', 'reads: CloudWatch answers kept', loads * ((answersBytes + pages * SHARED_PAGE_OVERHEAD_BYTES) / 4096), 'RRU', prices.dynamodb.readRequestUnits, 1e6, 'read with the shard at every load');
  // Cycles is sent by every tick's cycle with param monitoring full only (its missing-cycles alarm reads it; the default
  // alarms read Lambda's own metrics); Errors only when non-zero (functions/log.ts), and a custom metric is billed for
  // the hours it receives data.
  const errorShare = fleet.errorHoursPerMonth / HOURS;
  const cyclesMetric = fleet.monitoring && fleet.allAlarms;
  const customMetrics = (cyclesMetric ? 1 : 0) + errorShare + (fleet.autoscalerMetrics ? 2 * A : 0);
  add(
    'CloudWatch',
    'custom metrics (EMF)',
    customMetrics,
    'metric-months',
    prices.cloudWatch.customMetrics,
    1,
    `${cyclesMetric ? 'Cycles all month (param monitoring full), ' : ''}Errors in the ${fleet.errorHoursPerMonth} hour(s) a month with errors${fleet.autoscalerMetrics ? ', two per autoscaler all month' : ''}`,
  );

  // CloudWatch Logs.
  const quietLines = fleet.decisionLogSeconds > 0 ? A * (MONTH_SECONDS / Math.max(fleet.decisionLogSeconds, P)) : A * (MONTH_SECONDS / P);
  const decisionLines = quietLines + rescales * m.rescaleDecisionLines + eventInvocations;
  const cycleLines = cycleLinesPerMonth(fleet, { S, tickInvocations, eventful: eventInvocations + alarmInvocations, rescaleCycles: rescales * m.rescaleDecisionLines, errorShare });
  const bytes =
    cycleLines * m.cycleLineBytes +
    ((cyclesMetric ? tickInvocations : 0) + loads * errorShare) * m.emfBytesPerCycle +
    decisionLines * m.decisionLineBytes +
    dispatchLinesPerMonth(fleet, dispatches, errorShare) * m.dispatchLineBytes +
    (fleet.platformLogs ? (loads + smallInvocations) * ASSUMED.platformLogBytesPerInvocation : 0);
  const gb = bytes / 1e9;
  add(
    'CloudWatch Logs',
    'ingestion',
    gb,
    'GB',
    prices.cloudWatch.logIngestion,
    1,
    `${Math.round(decisionLines / 1000)}k decision lines (a quiet one every ${fleet.decisionLogSeconds} s), ${Math.round(cycleLines / 1000)}k cycle lines (every cycle that did something, a quiet shard's every ${fleet.decisionLogSeconds} s), the dispatcher's likewise, EMF${cyclesMetric ? ' Cycles at every tick (param monitoring full),' : ''} Errors only in hours with errors, ${fleet.platformLogs ? "Lambda's START, END and REPORT lines" : "no START or REPORT line (param logLevel INFO)"}`,
  );
  add('CloudWatch Logs', 'storage', gb * (fleet.logRetentionDays / 30) * ASSUMED.logCompression, 'GB-month', prices.cloudWatch.logStorage, 1, `${fleet.logRetentionDays} days kept, compressed to ${ASSUMED.logCompression * 100} %`);

  if (fleet.monitoring) {
    const alarms = fleet.allAlarms ? ASSUMED.alarmMetrics : ASSUMED.essentialAlarmMetrics;
    const which = fleet.allAlarms ? 'all (param monitoring full)' : 'no invocations, worker errors, dead letters, failed events (param monitoring true)';
    add('Monitoring', 'alarms (fixed)', alarms, 'alarm metrics', prices.cloudWatch.alarms, 1, `infra/alarms.cjs: ${alarms} alarms on one metric each: ${which}`);
  }
  if (fleet.dashboard) add('Monitoring', 'dashboard (fixed)', 1, 'dashboards', prices.cloudWatch.dashboards, 1, 'param dashboard (infra/stack.cjs); free if among your first three');

  const byService: Partial<Record<Service, number>> = {};
  for (const l of lines) byService[l.service] = (byService[l.service] ?? 0) + l.usd;
  const totalUsd = lines.reduce((s, l) => s + l.usd, 0);
  return {
    fleet,
    prices: { takenOn: prices.takenOn, region: prices.region, architecture: prices.architecture },
    lines,
    byService,
    totalUsd,
    perAutoscalerUsd: totalUsd / A,
    perAutoscalerWithoutMonitoringUsd: (totalUsd - (byService.Monitoring ?? 0)) / A,
    cycle,
    measuredSource: m.source,
  };
}

/**
 * The worker's cycle lines a month (functions/cycle-lines.ts): every cycle that did something (an event or alarm
 * evaluation, the cycles of a rescale, every cycle in the hours with errors), and a quiet shard's line once per
 * SHPA_DECISION_LOG_SECONDS; every tick's with 0.
 */
function cycleLinesPerMonth(fleet: Required<Fleet>, c: { S: number; tickInvocations: number; eventful: number; rescaleCycles: number; errorShare: number }): number {
  if (fleet.decisionLogSeconds <= 0) return c.tickInvocations + c.eventful;
  const quiet = c.S * (MONTH_SECONDS / Math.max(fleet.decisionLogSeconds, fleet.syncPeriodSeconds));
  return Math.min(c.tickInvocations, quiet + c.rescaleCycles + c.tickInvocations * c.errorShare) + c.eventful;
}

/** The dispatcher's lines a month: every minute with trouble (counted as the hours with errors), a quiet one per SHPA_DECISION_LOG_SECONDS. */
function dispatchLinesPerMonth(fleet: Required<Fleet>, dispatches: number, errorShare: number): number {
  if (fleet.decisionLogSeconds <= 0) return dispatches;
  return Math.min(dispatches, MONTH_SECONDS / Math.max(fleet.decisionLogSeconds, 60, fleet.syncPeriodSeconds) + dispatches * errorShare);
}

/** Bytes of 14 days of demand history (4,032 buckets) as stored, a noisy office-hours load (test/store/demand.test.ts measures the codec). */
export const PREDICTIVE_DEMAND_BYTES = 1_520;
const DEMAND_BUCKET_SECONDS = 300;

/**
 * spec.predictive (docs/predictive.md): each autoscaler's state carries its demand history, written at least once a
 * bucket (a whole state write with it, counted in full: the write policy may have skipped it otherwise) and read
 * with every load (strongly consistent, 4 KB units), and stored.
 */
function predictiveDemandCost(n: number, loadsPerShard: number, m: Measured, prices: Prices, add: (service: 'DynamoDB', item: string, quantity: number, unit: string, price: Price, per: number, note: string) => void): void {
  const demandKb = Math.ceil(PREDICTIVE_DEMAND_BYTES / 1024);
  const writes = n * (MONTH_SECONDS / DEMAND_BUCKET_SECONDS) * (m.stateWriteUnits + demandKb);
  add('DynamoDB', 'writes: predictive demand', writes, 'WRU', prices.dynamodb.writeRequestUnits, 1e6, `${n} autoscalers' state written once a 5-minute bucket with ${PREDICTIVE_DEMAND_BYTES} bytes of history (+${demandKb} WRU)`);
  add('DynamoDB', 'reads: predictive demand', n * loadsPerShard * (PREDICTIVE_DEMAND_BYTES / 4096), 'RRU', prices.dynamodb.readRequestUnits, 1e6, 'the history read with the state at every load');
  add('DynamoDB', 'storage: predictive demand', (n * PREDICTIVE_DEMAND_BYTES) / 1e9, 'GB-month', prices.dynamodb.storage, 1, '14 days of 5-minute buckets each');
}

/**
 * SQSQueueMetric (lib/metrics/sqs-source.ts): one GetQueueAttributes per distinct queue per shard cycle, shared by the
 * shard's autoscalers on it and never kept across ticks (a live count); at every tick, and in every shard at each alarm change.
 */
function sqsQueueCost(fleet: Required<Fleet>, prices: Prices, add: (service: 'SQS', item: string, quantity: number, unit: string, price: Price, per: number, note: string) => void): void {
  const every = fleet.sqsSyncPeriodSeconds;
  const calls = fleet.sqsQueues * (MONTH_SECONDS / every + fleet.alarmChangesPerHour * HOURS);
  const one = sqsQueueMonth(every, prices);
  const cw = cloudWatchQueueMonth(every, prices);
  const usd = (x: number) => `$${x.toFixed(3)}`;
  add(
    'SQS',
    'GetQueueAttributes (SQSQueueMetric queues)',
    calls,
    'requests',
    prices.sqs.requests,
    1e6,
    `${fleet.sqsQueues} queue(s) × one call per tick of the shard reading it (every ${every} s)${fleet.alarmChangesPerHour > 0 ? ' and per alarm change' : ''}: ` +
      `${usd(one.usd)} a queue-month; through CloudWatch instead (AWS/SQS visible + in flight, two metrics a minute) ${usd(cw.usd)} + ${usd(cw.probeUsd)} of sample counts a queue-month, and a minute or more behind`,
  );
}
