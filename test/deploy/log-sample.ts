// Real log lines of the worker, as functions/log.ts writes them (every EMF metric on), to check
// that the dashboard graphs metrics and queries fields the worker really writes.
import { createTelemetry } from '../../functions/wiring/telemetry.js';
import { CycleLineGate } from '../../functions/cycle-lines.js';
import { isQuietLineDue, logCycle, logDispatch, logMessage, type LogOptions } from '../../functions/log.js';
import { countOutcomes, emptyCalls, type AutoscalerReport, type CycleReport } from '../../lib/sync/report.js';

export type LogLine = Record<string, unknown>;

/** What fn writes, parsed (Powertools writes INFO to stdout and WARN/ERROR to stderr). */
function capture(fn: () => void): LogLine[] {
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

const autoscaler = (name: string, extra: Partial<AutoscalerReport>): AutoscalerReport => ({
  cluster: 'prod',
  namespace: 'web',
  name,
  source: 'table',
  outcome: 'unchanged',
  dryRun: false,
  patched: false,
  stored: 'unchanged',
  errors: [],
  warnings: [],
  notable: true,
  ...extra,
});

/** One cycle with a scaled and a failed autoscaler and a shard error, a failed message and a dropped one, and a dispatcher's minute with lost ticks. */
export function workerLogLines(metricsNamespace: string, stage: string): LogLine[] {
  const options: LogOptions = { periodSeconds: 15, decisionLogSeconds: 300, autoscalerMetrics: true, detailedMetrics: true, cyclesMetric: true };
  const autoscalers = [
    autoscaler('api', {
      outcome: 'scaled',
      patched: true,
      stored: 'written',
      currentReplicas: 2,
      desiredReplicas: 6,
      decision: { currentReplicas: 2, metrics: [], recommendation: 6, winner: 'cpu', steps: [], desiredReplicas: 6, rescale: true, rescaleReason: 'cpu above target' },
    }),
    autoscaler('broken', {
      outcome: 'failed',
      errors: [{ stage: 'reconcile', message: 'malformed' }],
      decision: { metrics: [], steps: [], desiredReplicas: 1, rescale: false, skipped: { reason: 'FailedGetScale', message: 'not found' } },
    }),
  ];
  const cycle: CycleReport = {
    shard: 'prod',
    trigger: 'tick',
    tick: '2026-03-02T10:00:00Z',
    startedAt: '2026-03-02T10:00:00.100Z',
    durationMs: 12,
    autoscalers,
    counts: countOutcomes(autoscalers),
    calls: emptyCalls(),
    errors: [{ stage: 'source', message: 'listing autoscaler objects: forbidden' }],
    warnings: [],
    failed: false,
  };
  const { logger, emf } = createTelemetry(metricsNamespace, stage);
  // The deployed worker's cycle lines: a quiet tick before (not its shard's quiet line) is counted in the next line.
  const gate = new CycleLineGate();
  let quietMs = Date.parse(cycle.tick!) - 15_000;
  while (isQuietLineDue(cycle.shard, quietMs, options.periodSeconds, options.decisionLogSeconds)) quietMs -= 15_000;
  const quietAt = new Date(quietMs).toISOString();
  const quiet: CycleReport = { ...cycle, tick: quietAt, startedAt: quietAt, autoscalers: [], counts: countOutcomes([]), errors: [] };
  // Each call one invocation: the handlers' logMetrics middleware flushes after each.
  const invocations = [
    () => logCycle(logger, emf, quiet, undefined, options, gate),
    () => logCycle(logger, emf, cycle, { cloudWatchCalls: 1, cloudWatchMetricsRequested: 3, clusterMetricsCalls: 2, promQLQueries: 0, promQLSamplesProcessed: 0, sqsQueueReads: 0 }, options, gate),
    () => logMessage(logger, emf, { outcome: 'failed', shard: 'prod', error: 'table unreachable' }, options),
    () => logMessage(logger, emf, { outcome: 'dropped', shard: 'prod', why: 'late', detail: 'tick 20 s old' }, options),
    () => logDispatch(logger, emf, { sent: 14, lost: 2, late: 0, attempts: 6, errors: ['InternalError: try again'] }),
  ];
  return capture(() => {
    for (const run of invocations) {
      run();
      emf.publishStoredMetrics();
    }
  });
}

/** Written by the handler wrapper (functions/wiring/logger.ts withConfig), not by the cycle. */
const HANDLER_FIELDS = new Set(['configError']);

/** Fields a Logs Insights query displays or filters on that no line has (system @fields and handler fields aside). */
export function missingFields(query: string, lines: LogLine[]): string[] {
  const has = (line: unknown, path: string): boolean => {
    let v = line;
    for (const k of path.split('.')) {
      if (v === null || typeof v !== 'object' || !(k in v)) return false;
      v = (v as Record<string, unknown>)[k];
    }
    return true;
  };
  const shown = /^\|?\s*fields (.*)$/m.exec(query);
  if (!shown) throw new Error(`query has no "fields" command: ${query}`);
  const fields = shown[1].split(',').map((f) => f.trim());
  const filtered = [...query.matchAll(/\b([a-zA-Z][\w.]*)\s*(?:=|in\s*\[)/g)].map((m) => m[1]);
  return [...fields, ...filtered].filter((f) => !f.startsWith('@') && !HANDLER_FIELDS.has(f) && !lines.some((l) => has(l, f)));
}
