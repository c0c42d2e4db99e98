// How the functions appear in CloudWatch Logs. Per shard cycle: a "decision" line for each
// autoscaler where something happened (a scale, a desired count other than the current, a
// condition or winning metric that changed, an error or warning, a repair) and otherwise at
// most every few minutes, and one "cycle" summary line;
// per message that did not run a cycle, one "message" line (dropped, busy). EMF: Cycles for
// every tick's cycle (the missing-cycles alarm's heartbeat, with the alarms only); Errors, Deferred and
// DroppedMessages only when non-zero (the alarm treats no data as none, and a custom metric is
// billed only for the hours it gets data); the rest only with detailed metrics. Every metric
// carries the stage (functions/wiring/telemetry.ts). Field names
// here are what infra/logs-insights/*.query read.
import { createHash } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { AutoscalerReport, CycleReport } from '#sync/messaging';
import type { MessageResult } from '#sync';
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
  /** The stack's alarms (param monitoring): the Cycles heartbeat is sent for the missing-cycles alarm only then. */
  monitoring?: boolean;
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
  const interval = options.decisionLogSeconds * 1000;
  if (interval <= 0) return true;
  const offset = createHash('sha1').update(`${r.cluster}/${r.namespace}/${r.name}`).digest().readUInt32BE(0) % interval;
  const period = options.periodSeconds * 1000;
  return Math.floor((nowMs - offset) / interval) !== Math.floor((nowMs - period - offset) / interval);
}

export function logCycle(logger: Logger, emf: Metrics, cycle: CycleReport, sources: SourceStats | undefined, options: LogOptions): void {
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
      decisionLines: lines,
      sources,
      errors: cycle.errors.length > 0 ? redactAll(cycle.errors) : undefined,
      warnings: cycle.warnings.length > 0 ? redactAll(cycle.warnings) : undefined,
    },
  };
  if (cycle.failed || cycle.errors.length > 0) logger.error('cycle', summary);
  else if (cycle.warnings.length > 0) logger.warn('cycle', summary);
  else logger.info('cycle', summary);
  // A deferred autoscaler carries a deadline error but is not a failure (it goes first next tick): it has its own
  // count. Deferred twice in a row is one.
  addErrors(emf, cycle.counts.errors - cycle.counts.deferred + cycle.counts.deferredAgain + cycle.errors.length);
  // The heartbeat the missing-cycles alarm reads: a tick's cycle that ran (a failed run or a dropped tick is an invocation, not a cycle).
  // Without the alarms (param monitoring false) nobody reads it: not sent, not billed.
  if (cycle.trigger === 'tick' && !cycle.failed && options.monitoring !== false) emf.addMetric('Cycles', MetricUnit.Count, 1);
  // Work the deadline left for the next tick: counted always (only when there is some), a sign the shard is too big for its memory.
  if (cycle.counts.deferred > 0) emf.addMetric('Deferred', MetricUnit.Count, cycle.counts.deferred);
  if (options.detailedMetrics) {
    emf.addMetric('CycleDuration', MetricUnit.Milliseconds, cycle.durationMs);
    emf.addMetric('Autoscalers', MetricUnit.Count, cycle.counts.autoscalers);
    emf.addMetric('Scaled', MetricUnit.Count, cycle.counts.scaled);
    if (sources && sources.promQLSamplesProcessed > 0) emf.addMetric('PromQLSamplesProcessed', MetricUnit.Count, sources.promQLSamplesProcessed);
  }
  publish(emf);
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
  publish(emf);
}

/** The dispatcher's minute: what it sent, and the ticks lost (EMF TicksLost, only when some were). */
export function logDispatch(logger: Logger, emf: Metrics, d: { sent: number; lost: number; late: number; attempts: number; errors: string[] } & Record<string, unknown>): void {
  const { errors, ...rest } = d;
  const line = { dispatch: { ...rest, ...(errors.length > 0 ? { errors: errors.map(redact) } : {}) } };
  if (d.lost > 0) logger.error('dispatch', line);
  else if (d.late > 0 || d.attempts > 1) logger.warn('dispatch', line);
  else logger.info('dispatch', line);
  if (d.lost + d.late > 0) {
    emf.addMetric('TicksLost', MetricUnit.Count, d.lost + d.late);
    publish(emf);
  }
}

/**
 * The Errors count, only when there are errors: the cycle-errors alarm treats a minute without
 * data as no errors, and CloudWatch bills a custom metric only for the hours it receives data.
 */
export function addErrors(emf: Metrics, count: number): void {
  if (count > 0) emf.addMetric('Errors', MetricUnit.Count, count);
}

/** Powertools warns on every publish with nothing stored: publish only what there is. */
export function publish(emf: Metrics): void {
  if (emf.hasStoredMetrics()) emf.publishStoredMetrics();
}
