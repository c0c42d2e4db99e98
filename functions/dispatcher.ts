// The dispatcher: every minute, one tick message per shard per tick of the coming minute
// (lib/sync/dispatch.ts), each shard's just after its data is sampled (the phase its worker
// learned), and the registry mirrored from the deploy's clusters parameter.
// An event too old to act on (a throttled, retried schedule) is dropped and said. A tick SQS
// does not take is sent again within the invocation; one still unsent is counted (EMF
// TicksLost, with the ticks already late, and an alarm on it) and said.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import {
  chooseShards,
  type FunctionConfig,
  loadFunctionConfig,
  MAX_SCHEDULE_AGE_MS,
  mirrorRegistry,
  planTicks,
  type Registry,
  sendWithRetries,
  shardCountAt,
  shardId,
  type ShardTiming,
  tickingShardsOf,
  tickOffsetSeconds,
  tickOffsetsOfMinute,
} from '#sync/messaging';
import type { Clock, ClusterConfig, ClusterIndex, DispatchStore, WorkQueue } from '#sync/ports';
import { DispatchLineGate } from './cycle-lines.js';
import { logDispatch, type QuietDispatchLines } from './log.js';
import { redact } from './redact.js';
import { withConfig } from './wiring/logger.js';
import { systemClock } from './wiring/options.js';
import { createWorkQueue } from './wiring/queue.js';
import { createStore } from './wiring/store.js';
import { createTelemetry } from './wiring/telemetry.js';
import { errorText } from '../lib/shared/error-text.js';

export interface DispatcherResult {
  sent: number;
  /** Ticks SQS did not take however often they were sent again. */
  lost: number;
  /** Ticks of the minute already too late to send (the schedule ran late). */
  late: number;
  tooOld: boolean;
  /** Shards per cluster this minute. */
  shards?: Record<string, number>;
  /** Shards ticking at another period than the deploy's, or off its even seconds (their data's phase). */
  timings?: Record<string, ShardTiming>;
}

/** What the dispatcher uses: the clock, the table's cluster registry and cluster indexes, and the work queue. */
export interface DispatcherAdapters {
  clock: Clock;
  store: Registry & DispatchStore;
  queue: WorkQueue;
}

/** How long the dispatcher sends again what SQS did not take: well within its 20 s timeout. */
const SEND_WINDOW_MS = 12_000;

/** What one container of the dispatcher keeps between invocations, and says through. */
interface Dispatcher {
  config: FunctionConfig;
  logger: Logger;
  emf: Metrics;
  mirror?: boolean;
  /** The counts this container last sent: what it keeps using while the table cannot be read. */
  lastSent: Map<string, number>;
  /** Quiet minutes' lines at most once per SHPA_DECISION_LOG_SECONDS (the deployed dispatcher); absent: every minute's. */
  quietLines?: QuietDispatchLines;
}
type ShardChoice = ReturnType<typeof chooseShards>[number];

export function createDispatcherHandler(deps: { config: FunctionConfig; adapters: () => DispatcherAdapters; logger: Logger; emf: Metrics; mirror?: boolean; quietLines?: boolean }) {
  let adapters: DispatcherAdapters | undefined;
  const d: Dispatcher = { config: deps.config, logger: deps.logger, emf: deps.emf, mirror: deps.mirror, lastSent: new Map() };
  if (deps.quietLines) d.quietLines = { gate: new DispatchLineGate(), decisionLogSeconds: deps.config.options.decisionLogSeconds, periodSeconds: Math.max(60, deps.config.syncPeriodSeconds) };
  return middy<ScheduledEvent, DispatcherResult, Error, Context>()
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.emf))
    .handler(async (event) => dispatchMinute(d, (adapters ??= deps.adapters()), event));
}

/** The stages of one minute: mirror the registry, size the shards, place their ticks, send them. */
async function dispatchMinute(d: Dispatcher, a: DispatcherAdapters, event: ScheduledEvent): Promise<DispatcherResult> {
  const { logger, emf, config } = d;
  const now = a.clock.now();
  const scheduled = event.time && !Number.isNaN(Date.parse(event.time)) ? new Date(event.time) : now;
  if (now.getTime() - scheduled.getTime() > MAX_SCHEDULE_AGE_MS) {
    const result: DispatcherResult = { sent: 0, lost: 0, late: 0, tooOld: true };
    logger.warn('dispatch', { dispatch: { ...result, scheduledAt: scheduled.toISOString(), reason: 'the scheduled event is too old: its ticks are past' } });
    return result;
  }
  if (d.mirror !== false) await mirror(d, a, now);
  const { clusters, indexes } = await sizeShards(d, a, scheduled);
  const timings = await shardTimings(d, a, clusters, scheduled, now, indexes);
  const plan = planTicks(clusters, scheduled, now, config.syncPeriodSeconds, timings, indexes);
  const sending = await sendWithRetries(a.queue, plan.messages, a.clock, { untilMs: a.clock.now().getTime() + SEND_WINDOW_MS });
  const result: DispatcherResult = {
    sent: sending.sent,
    lost: sending.lost,
    late: plan.late,
    tooOld: false,
    shards: Object.fromEntries(clusters.map((c) => [c.name, c.shards])),
    // what is not the deploy's even ticks
    timings: Object.fromEntries([...timings].filter(([, t]) => t.offsetSeconds || t.offsetsSeconds || t.periodSeconds !== config.syncPeriodSeconds)),
  };
  logDispatch(logger, emf, { ...result, attempts: sending.attempts, scheduledAt: scheduled.toISOString(), errors: sending.errors }, d.quietLines);
  return result;
}

/** The deploy's clusters into the table's registry. */
async function mirror(d: Dispatcher, a: DispatcherAdapters, now: Date): Promise<void> {
  try {
    const changes = await mirrorRegistry(a.store, d.config.clusters, now);
    if (changes.length > 0) d.logger.info('registry', { registry: { changes } });
  } catch (e) {
    d.logger.error('registry', { registryError: redact(errorText(e)) });
    d.emf.addMetric('Errors', MetricUnit.Count, 1);
  }
}

/**
 * The clusters with the shard count of the coming minute (lib/sizing, from the counts the workers
 * recorded), a change recorded in the cluster's index before any tick of it is sent: the workers
 * check a tick's count against it.
 */
async function sizeShards(d: Dispatcher, a: DispatcherAdapters, scheduled: Date): Promise<{ clusters: ClusterConfig[]; indexes?: Map<string, ClusterIndex> }> {
  const { config } = d;
  const minute = Math.floor(scheduled.getTime() / 60_000) * 60_000;
  let indexes: Map<string, ClusterIndex>;
  try {
    indexes = await a.store.readIndexes(config.clusters.map((c) => c.name));
  } catch (e) {
    d.logger.error('shards', { shardsError: `reading the cluster indexes: ${redact(errorText(e))}; this minute's ticks keep the last counts sent` });
    d.emf.addMetric('Errors', MetricUnit.Count, 1);
    return { clusters: config.clusters.map((c) => ({ ...c, shards: d.lastSent.get(c.name) ?? c.shards })) };
  }
  const choices = chooseShards(config.clusters, indexes, minute, { memoryMb: config.workerMemoryMb, periodSeconds: config.syncPeriodSeconds, budget: config.shardBudget });
  const out: ClusterConfig[] = [];
  for (const [i, choice] of choices.entries()) {
    const c = config.clusters[i];
    const shards = choice.record ? await recordChoice(d, a, c, choice, choice.record, minute) : choice.shards;
    warnSizing(d, c, choice, shards);
    d.lastSent.set(c.name, shards);
    out.push({ ...c, shards });
  }
  return { clusters: out, indexes };
}

/** A new count into the cluster's index, once a minute; the count the minute uses. */
async function recordChoice(d: Dispatcher, a: DispatcherAdapters, c: ClusterConfig, choice: ShardChoice, record: NonNullable<ShardChoice['record']>, minute: number): Promise<number> {
  try {
    if (await a.store.recordShardCount(c.name, record)) {
      if (choice.changed) d.logger.info('shards', { shards: { cluster: c.name, from: record.previous, to: record.k, since: new Date(minute).toISOString(), largest: choice.sizing.largest, capacity: choice.sizing.capacity } });
      return choice.shards;
    }
    // Another invocation planned this minute since the index was read: its count stands (its ticks may be running).
    const shards = shardCountAt((await a.store.readIndexes([c.name])).get(c.name) ?? { buckets: [], counts: [] }, c.shards, minute);
    d.logger.warn('shards', { shards: { cluster: c.name, shards, reason: `minute ${new Date(minute).toISOString()} was already planned by another invocation: its count kept` } });
    return shards;
  } catch (e) {
    // Unrecorded, a new count would be refused by the workers: the minute keeps the old one.
    const shards = choice.changed ? (record.previous ?? c.shards) : choice.shards;
    d.logger.error('shards', { shardsError: `recording ${record.k} shards for cluster ${c.name}: ${redact(errorText(e))}; kept ${shards}` });
    d.emf.addMetric('Errors', MetricUnit.Count, 1);
    return shards;
  }
}

/** A count capped by the queue's concurrency, or a shard bigger than a worker holds: said with the remedy. */
function warnSizing(d: Dispatcher, c: ClusterConfig, choice: ShardChoice, shards: number): void {
  const { config } = d;
  if (choice.capped) {
    d.logger.warn('shards', {
      shards: { cluster: c.name, shards, wanted: choice.sizing.shards, advice: `the worker queue's concurrency (param maxConcurrency, or reservedConcurrency) leaves room for ${config.shardBudget} shards in all: raise it` },
    });
  } else if (choice.sizing.over) {
    d.logger.warn('shards', {
      shards: { cluster: c.name, shards, largest: choice.sizing.largest, capacity: choice.sizing.capacity, advice: `a shard of ${choice.sizing.largest} autoscalers is more than one worker of ${config.workerMemoryMb} MB evaluates in half a period even when all of them change: raise the worker's memory (param memorySize); meanwhile what a deadline leaves goes first at the next tick` },
    });
  }
}

/**
 * How often each shard ticks (faster when its autoscalers ask, spec.syncPeriodSeconds) and where within the
 * period: just after its pod metrics are sampled (lib/sync/tick-phase.ts), as its worker recorded.
 */
async function shardTimings(d: Dispatcher, a: DispatcherAdapters, clusters: ClusterConfig[], scheduled: Date, now: Date, indexes?: Map<string, ClusterIndex>): Promise<Map<string, ShardTiming>> {
  const period = d.config.syncPeriodSeconds;
  const ids = clusters.flatMap((c) => tickingShardsOf(c, indexes?.get(c.name)).map(shardId));
  try {
    const records = await a.store.shardRecords(ids);
    return new Map(
      ids.map((id) => {
        const r = records.get(id);
        const periodSeconds = r?.tickPeriodSeconds ?? period;
        // While it learns or probes, the shard's record plans each tick of the minute (lib/sync/visibility.ts).
        const offsets = tickOffsetsOfMinute(r?.phase, periodSeconds, scheduled.getTime(), now.getTime());
        return [id, { periodSeconds, offsetSeconds: tickOffsetSeconds(r?.phase, periodSeconds, now.getTime()), ...(offsets ? { offsetsSeconds: offsets } : {}) }];
      }),
    );
  } catch (e) {
    d.logger.warn('phases', { phasesError: `reading the shards' periods and phases: ${redact(errorText(e))}; this minute's ticks fall on the even seconds of the deploy's period` });
    return new Map();
  }
}

const env = process.env;
const { logger, emf } = createTelemetry(env.SHPA_METRICS_NAMESPACE, env.SHPA_STAGE);

export const handler = withConfig(logger, () => {
  const config = loadFunctionConfig(env);
  return createDispatcherHandler({ config, adapters: () => ({ clock: systemClock, store: createStore(config), queue: createWorkQueue(config).queue }), logger, emf, quietLines: true });
});
