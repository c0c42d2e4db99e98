// Real log lines of one cycle, as logCycle writes them, and the check that a Logs
// Insights query reads only fields those lines have (infra/logs-insights, the dashboard).
import { createTelemetry } from '../../functions/sync.js';
import { logCycle } from '../../functions/sync-log.js';
import { countOutcomes, type AutoscalerReport, type CycleReport } from '../../lib/sync/report.js';

export type LogLine = Record<string, unknown>;

export function report(extra: Partial<AutoscalerReport> = {}): AutoscalerReport {
  return { cluster: 'prod', namespace: 'default', name: 'web', outcome: 'unchanged', dryRun: false, patched: false, stored: 'unchanged', errors: [], ...extra };
}

/** What fn writes, parsed (Powertools writes INFO to stdout and WARN/ERROR to stderr). */
export function capture(fn: () => void): LogLine[] {
  const lines: LogLine[] = [];
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((s) => s.write);
  for (const s of streams) {
    s.write = ((chunk: string | Uint8Array) => {
      for (const l of String(chunk).split('\n')) if (l.startsWith('{')) lines.push(JSON.parse(l) as LogLine);
      return true;
    }) as typeof s.write;
  }
  try {
    fn();
  } finally {
    streams.forEach((s, i) => (s.write = writes[i]));
  }
  return lines;
}

/** The lines of one cycle with a scaled and a failed autoscaler: decisions, the cycle summary, EMF. */
export function logSampleCycle(options: { metricsNamespace?: string; autoscalerMetrics: boolean }): LogLine[] {
  const autoscalers = [
    report({
      outcome: 'scaled',
      patched: true,
      stored: 'written',
      currentReplicas: 2,
      desiredReplicas: 6,
      decision: { currentReplicas: 2, metrics: [], recommendation: 6, winner: 'cpu', steps: [], desiredReplicas: 6, rescale: true, rescaleReason: 'cpu above target' },
    }),
    report({
      name: 'broken',
      outcome: 'failed',
      errors: [{ stage: 'reconcile', message: 'malformed' }],
      decision: { metrics: [], steps: [], desiredReplicas: 1, rescale: false, skipped: { reason: 'FailedGetScale', message: 'not found' } },
    }),
  ];
  const cycle: CycleReport = {
    startedAt: '2026-03-02T10:00:00.000Z',
    durationMs: 12,
    clusters: [{ name: 'prod', autoscalers: 2 }],
    autoscalers,
    counts: countOutcomes(autoscalers),
    calls: { loadCluster: 1, getScale: 2, listPods: 1, fetchAll: 1, metricQueries: 1, updateScale: 1, saveState: 1 },
  };
  const { logger, emf } = createTelemetry(options.metricsNamespace);
  const sources = { cloudWatchCalls: 1, cloudWatchMetricsRequested: 1, clusterMetricsCalls: 1 };
  return capture(() => logCycle(logger, emf, cycle, sources, { autoscalerMetrics: options.autoscalerMetrics }));
}

/** A field path as Logs Insights flattens JSON: a.b for objects, a.0.b for arrays. */
function has(line: unknown, path: string): boolean {
  let v = line;
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object' || !(k in v)) return false;
    v = (v as Record<string, unknown>)[k];
  }
  return true;
}

// Written by the handler itself, not by logCycle (functions/sync.ts).
const HANDLER_FIELDS = new Set(['invocationError.message', 'configError']);

/** Fields a query displays or filters on that no line has (system @fields and handler fields aside). */
export function missingFields(query: string, lines: LogLine[]): string[] {
  const shown = /^\|?\s*fields (.*)$/m.exec(query);
  if (!shown) throw new Error(`query has no "fields" command: ${query}`);
  const fields = shown[1].split(',').map((f) => f.trim());
  const filtered = [...query.matchAll(/\b([a-zA-Z][\w.]*)\s*(?:=|in\s*\[)/g)].map((m) => m[1]);
  return [...fields, ...filtered].filter((f) => !f.startsWith('@') && !HANDLER_FIELDS.has(f) && !lines.some((l) => has(l, f)));
}
