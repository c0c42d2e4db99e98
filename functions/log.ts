// How the functions appear in CloudWatch Logs. Per shard cycle: a "decision" line for each
// autoscaler where something happened (a scale, a desired count other than the current, a
// condition or winning metric that changed, an error or warning, a repair) and otherwise at
// most every few minutes, and a "cycle" summary line, in the worker every cycle that did
// something and otherwise at most every few minutes too (functions/cycle-lines.ts);
// per message that did not run a cycle, one "message" line (dropped, busy). EMF: Cycles for
// every tick's cycle with param monitoring full only (its cycles alarm; the default alarms read
// Lambda's own metrics); Errors, Deferred and DroppedMessages only when non-zero (the alarm
// treats no data as none, and a custom metric is billed only for the hours it gets data); the
// rest only with detailed metrics. Every metric carries the stage (functions/wiring/telemetry.ts);
// the handlers' logMetrics middleware flushes them, when the handler throws too. Field names
// here are what infra/logs-insights/*.query read.
import { createHash } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { AutoscalerReport, CycleReport } from '#sync/messaging';
import type { MessageResult } from '#sync';
import type { CycleLineChoice, CycleLineGate, DispatchLineChoice, DispatchLineGate } from './cycle-lines.js';
import { redact, redactAll } from './redact.js';

/** Counters of the metric sources, cumulative; the cycle line carries the difference. */
export interface SourceStats {
  cloudWatchCalls: number;
  cloudWatchMetricsRequested: number;
  clusterMetricsCalls: number;
  /** PromQL queries sent, and the query samples they processed (AMP bills by them). */
  promQLQueries: number;
  promQLSamplesProcessed: number;
  /** GetQueueAttributes calls of SQSQueueMetric objects (one a queue a tick). */
  sqsQueueReads: number;
}

/** What the counters grew by since `before`. */
export function sourceStatsSince(now: SourceStats, before: SourceStats): SourceStats {
  return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - before[k as keyof SourceStats]])) as unknown as SourceStats;
}

export interface LogOptions {
  periodSeconds: number;
  /** A quiet autoscaler's decision line at most this often. */
  decisionLogSeconds: number;
  /** Per-autoscaler EMF metrics (desired/current replicas): two custom metrics per autoscaler. */
  autoscalerMetrics: boolean;
  /** EMF CycleDuration, Scaled, Autoscalers (the counts of trouble are always sent, when non-zero). */
  detailedMetrics: boolean;
  /** EMF Cycles for every tick's cycle, for the missing-cycles alarm of param monitoring full; default false. */
  cyclesMetric?: boolean;
}

export function decisionLine(r: AutoscalerReport, cycle: Pick<CycleReport, 'shard' | 'startedAt' | 'trigger'>): Record<string, unknown> {
  return redactAll({
    shard: cycle.shard,
    cycleStartedAt: cycle.startedAt,
    trigger: cycle.trigger,
    cluster: r.cluster,
    namespace: r.namespace,
    hpa: r.name,
    source: r.source,
    outcome: r.outcome,
    dryRun: r.dryRun,
    patched: r.patched,
    stored: r.stored,
    currentReplicas: r.currentReplicas,
    desiredReplicas: r.desiredReplicas,
    decision: r.decision,
    conditions: r.conditions,
    events: r.events,
    metricMessages: r.metricMessages,
    shadow: r.shadow,
    errors: r.errors.length > 0 ? r.errors : undefined,
    warnings: r.warnings.length > 0 ? r.warnings : undefined,
  });
}

/** Whether a quiet autoscaler's line is due this cycle: once per interval, at a time spread per autoscaler. */
export function quietLineDue(r: AutoscalerReport, nowMs: number, options: LogOptions): boolean {
  return isQuietLineDue(`${r.cluster}/${r.namespace}/${r.name}`, nowMs, options.periodSeconds, options.decisionLogSeconds);
}

/**
 * Whether the quiet line of `key` (an autoscaler, a shard) falls on the cycle at `nowMs`: once per `intervalSeconds`,
 * at an offset of its own within it, so that lines of many keys spread over the interval. Every cycle when the
 * interval is 0.
 */
export function isQuietLineDue(key: string, nowMs: number, periodSeconds: number, intervalSeconds: number): boolean {
  const interval = intervalSeconds * 1000;
  if (interval <= 0) return true;
  const offset = createHash('sha1').update(key).digest().readUInt32BE(0) % interval;
  const period = periodSeconds * 1000;
  return Math.floor((nowMs - offset) / interval) !== Math.floor((nowMs - period - offset) / interval);
}

/**
 * A shard cycle's lines and metrics: its decision lines, its cycle line (every cycle, or with `cycleLines` only those
 * that did something and one quiet one per interval: functions/cycle-lines.ts), its EMF counts. Metrics are flushed by
 * the handler's logMetrics middleware.
 */
export function logCycle(logger: Logger, emf: Metrics, cycle: CycleReport, sources: SourceStats | undefined, options: LogOptions, cycleLines?: CycleLineGate): void {
  const lines = writeDecisionLines(logger, emf, cycle, options);
  const choice: CycleLineChoice = cycleLines ? cycleLines.chooseCycleLine(cycle, isQuietLineDue(cycle.shard, cycleTimeMs(cycle), cycle.tickPeriodSeconds ?? options.periodSeconds, options.decisionLogSeconds)) : { write: true, why: [] };
  if (choice.write) writeCycleLine(logger, cycle, sources, lines, choice);
  addCycleMetrics(emf, cycle, sources, options);
}

/** The tick's own time (the same every run of the tick, so the quiet line falls on one tick an interval), else when the cycle started. */
function cycleTimeMs(cycle: CycleReport): number {
  const tick = cycle.trigger === 'tick' && cycle.tick ? Date.parse(cycle.tick) : Number.NaN;
  return Number.isNaN(tick) ? Date.parse(cycle.startedAt) : tick;
}

/** The decision lines of the autoscalers where something happened or whose quiet line is due; how many. */
function writeDecisionLines(logger: Logger, emf: Metrics, cycle: CycleReport, options: LogOptions): number {
  const nowMs = Date.parse(cycle.startedAt);
  let lines = 0;
  for (const r of cycle.autoscalers) {
    const due = r.notable || cycle.trigger === 'evaluate' || r.patched || r.outcome === 'dryRun' || quietLineDue(r, nowMs, options);
    if (!due) continue;
    lines++;
    const line = decisionLine(r, cycle);
    if (['failed', 'broken', 'conflict', 'invalid'].includes(r.outcome)) logger.error('decision', line);
    else if (r.outcome === 'skipped' || r.outcome === 'notAllowed' || r.errors.length > 0 || r.warnings.length > 0) logger.warn('decision', line);
    else logger.info('decision', line);
    if (options.autoscalerMetrics && r.currentReplicas !== undefined) {
      // A single metric is flushed, dimensions and all, by its addMetric: one per value.
      for (const [name, value] of [['CurrentReplicas', r.currentReplicas], ['DesiredReplicas', r.desiredReplicas]] as const) {
        if (value === undefined) continue;
        const m = emf.singleMetric();
        m.addDimensions({ cluster: r.cluster, namespace: r.namespace, hpa: r.name });
        m.addMetric(name, MetricUnit.Count, value);
      }
    }
  }
  return lines;
}

/** The cycle's summary line; with the quiet-cycle rule, why it is written and the quiet cycles left unwritten before it. */
function writeCycleLine(logger: Logger, cycle: CycleReport, sources: SourceStats | undefined, decisionLines: number, choice: Extract<CycleLineChoice, { write: true }>): void {
  const summary = {
    cycle: {
      shard: cycle.shard,
      trigger: cycle.trigger,
      tick: cycle.tick,
      reason: cycle.reason,
      startedAt: cycle.startedAt,
      durationMs: cycle.durationMs,
      counts: cycle.counts,
      calls: cycle.calls,
      storeWait: cycle.storeWait,
      decisionLines,
      sources,
      errors: cycle.errors.length > 0 ? redactAll(cycle.errors) : undefined,
      warnings: cycle.warnings.length > 0 ? redactAll(cycle.warnings) : undefined,
      logged: choice.why.length > 0 ? choice.why : undefined,
      quietCycles: choice.quiet,
    },
  };
  if (cycle.failed || cycle.errors.length > 0) logger.error('cycle', summary);
  else if (cycle.warnings.length > 0) logger.warn('cycle', summary);
  else logger.info('cycle', summary);
}

/** The cycle's EMF counts: Errors and Deferred when non-zero, the Cycles heartbeat with param monitoring full, the detailed ones when asked. */
function addCycleMetrics(emf: Metrics, cycle: CycleReport, sources: SourceStats | undefined, options: LogOptions): void {
  // A deferred autoscaler carries a deadline error but is not a failure (it goes first next tick): it has its own
  // count. Deferred twice in a row is one.
  addErrors(emf, cycle.counts.errors - cycle.counts.deferred + cycle.counts.deferredAgain + cycle.errors.length);
  // A tick's cycle that ran (a failed run or a dropped tick is an invocation, not a cycle): for the cycles alarm of
  // param monitoring full only. The default alarms read Lambda's own free Invocations and Errors of the worker.
  if (cycle.trigger === 'tick' && !cycle.failed && options.cyclesMetric === true) emf.addMetric('Cycles', MetricUnit.Count, 1);
  // Work the deadline left for the next tick: counted always (only when there is some), a sign the shard is too big for its memory.
  if (cycle.counts.deferred > 0) emf.addMetric('Deferred', MetricUnit.Count, cycle.counts.deferred);
  if (options.detailedMetrics) {
    emf.addMetric('CycleDuration', MetricUnit.Milliseconds, cycle.durationMs);
    emf.addMetric('Autoscalers', MetricUnit.Count, cycle.counts.autoscalers);
    emf.addMetric('Scaled', MetricUnit.Count, cycle.counts.scaled);
    if (sources && sources.promQLSamplesProcessed > 0) emf.addMetric('PromQLSamplesProcessed', MetricUnit.Count, sources.promQLSamplesProcessed);
  }
}

/** A message that ran no cycle: dropped (late, duplicate...), busy shard, or a failure. */
export function logMessage(logger: Logger, emf: Metrics, result: Exclude<MessageResult, { outcome: 'synced' }>, options: LogOptions): void {
  const line = { workMessage: redactAll(result) };
  if (result.outcome === 'failed' || (result.outcome === 'dropped' && (result.why === 'unknownCluster' || result.why === 'future'))) {
    logger.error('message', line);
    addErrors(emf, 1);
  } else if (result.outcome === 'rerouted' || (result.outcome === 'coalesced' && result.requeued !== false)) {
    logger.info('message', line);
  } else {
    logger.warn('message', line);
    // Every message that ran no cycle and will not run one: an evaluation sent again is not lost.
    if (!(result.outcome === 'busy' && result.requeued)) emf.addMetric('DroppedMessages', MetricUnit.Count, 1);
  }
}

/** How often a quiet dispatcher minute is written (functions/cycle-lines.ts DispatchLineGate): absent, every minute. */
export interface QuietDispatchLines {
  gate: DispatchLineGate;
  decisionLogSeconds: number;
  /** Seconds between the dispatcher's runs. */
  periodSeconds: number;
}

/** The dispatcher's minute: what it sent, and the ticks lost (EMF TicksLost, only when some were). */
export function logDispatch(logger: Logger, emf: Metrics, d: { sent: number; lost: number; late: number; attempts: number; errors: string[]; scheduledAt?: string } & Record<string, unknown>, quiet?: QuietDispatchLines): void {
  if (d.lost + d.late > 0) emf.addMetric('TicksLost', MetricUnit.Count, d.lost + d.late);
  const choice: DispatchLineChoice = quiet
    ? quiet.gate.chooseDispatchLine(d, isQuietLineDue('dispatch', Date.parse(d.scheduledAt ?? '') || 0, quiet.periodSeconds, quiet.decisionLogSeconds))
    : { write: true, why: [] };
  if (!choice.write) return;
  const { errors, ...rest } = d;
  const logged = choice.why.length > 0 ? { logged: choice.why } : {};
  const line = { dispatch: { ...rest, ...(errors.length > 0 ? { errors: errors.map(redact) } : {}), ...logged, ...(choice.quiet ? { quietMinutes: choice.quiet } : {}) } };
  if (d.lost > 0) logger.error('dispatch', line);
  else if (d.late > 0 || d.attempts > 1) logger.warn('dispatch', line);
  else logger.info('dispatch', line);
}

/**
 * The Errors count, only when there are errors: the cycle-errors alarm treats a minute without
 * data as no errors, and CloudWatch bills a custom metric only for the hours it receives data.
 */
export function addErrors(emf: Metrics, count: number): void {
  if (count > 0) emf.addMetric('Errors', MetricUnit.Count, count);
}
