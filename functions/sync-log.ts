// How a cycle appears in CloudWatch Logs: one JSON line per autoscaler (message
// "decision") and one summary (message "cycle"), plus EMF metrics. The field names
// here are what infra/logs-insights/*.query read.
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { AutoscalerReport, CycleReport } from '../lib/sync/report.js';

/** Counters of the metric sources, cumulative; the cycle line carries the difference. */
export interface SourceStats {
  cloudWatchCalls: number;
  cloudWatchMetricsRequested: number;
  clusterMetricsCalls: number;
}

export interface LogOptions {
  /** Per-autoscaler EMF metrics (desired/current replicas): two custom metrics per autoscaler. */
  autoscalerMetrics: boolean;
}

const SECRET = [/k8s-aws-v1\.[A-Za-z0-9_-]+/g, /(Bearer|Authorization:?)\s+[^\s"']+/gi, /(X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=[^&\s"']+/gi];

/** Tokens and signatures never reach the log, whatever an error message carries. */
function redact(text: string): string {
  return SECRET.reduce((t, re) => t.replace(re, (m) => `${m.split(/[=.\s]/)[0]}…[redacted]`), text);
}

/** A copy of a log payload with every string redacted (strings, not the JSON text: a match must not eat an escape). */
export function redactAll<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? redact(v) : v))) as T;
}

export function decisionLine(r: AutoscalerReport, cycleStartedAt: string): Record<string, unknown> {
  const line: Record<string, unknown> = {
    cycleStartedAt,
    cluster: r.cluster,
    namespace: r.namespace,
    hpa: r.name,
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
    errors: r.errors.length > 0 ? r.errors : undefined,
  };
  return redactAll(line);
}

export function logCycle(logger: Logger, emf: Metrics, cycle: CycleReport, sources: SourceStats | undefined, options: LogOptions): void {
  for (const r of cycle.autoscalers) {
    const line = decisionLine(r, cycle.startedAt);
    if (r.outcome === 'failed' || r.outcome === 'broken' || r.outcome === 'conflict') logger.error('decision', line);
    else if (r.outcome === 'skipped') logger.warn('decision', line);
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
  const clusterErrors = cycle.clusters.filter((c) => c.error).length;
  logger.info('cycle', {
    cycle: {
      startedAt: cycle.startedAt,
      durationMs: cycle.durationMs,
      counts: cycle.counts,
      calls: cycle.calls,
      sources,
      clusters: redactAll(cycle.clusters),
    },
  });
  emf.addMetric('CycleDuration', MetricUnit.Milliseconds, cycle.durationMs);
  emf.addMetric('Autoscalers', MetricUnit.Count, cycle.counts.autoscalers);
  emf.addMetric('Scaled', MetricUnit.Count, cycle.counts.scaled);
  emf.addMetric('Errors', MetricUnit.Count, cycle.counts.errors + clusterErrors);
  emf.addMetric('Skipped', MetricUnit.Count, cycle.counts.skipped);
  if (sources) emf.addMetric('CloudWatchMetricsRequested', MetricUnit.Count, sources.cloudWatchMetricsRequested);
  emf.publishStoredMetrics();
}
