// The log lines of a cycle: secrets never reach them, and the Logs Insights queries read fields they have.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTelemetry } from '../../functions/sync.js';
import { decisionLine, logCycle } from '../../functions/sync-log.js';
import { countOutcomes, type AutoscalerReport, type CycleReport } from '../../lib/sync/report.js';

const TOKEN = 'k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbS8_QWN0aW9uPUdldENhbGxlcklkZW50aXR5';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJl';

function report(extra: Partial<AutoscalerReport> = {}): AutoscalerReport {
  return { cluster: 'prod', namespace: 'default', name: 'web', outcome: 'unchanged', dryRun: false, patched: false, stored: 'unchanged', errors: [], ...extra };
}

describe('decision line', () => {
  it('redacts tokens and signatures wherever an error message carries them', () => {
    const line = decisionLine(
      report({
        outcome: 'failed',
        errors: [
          { stage: 'updateScale', message: `Unauthorized: token ${TOKEN} rejected` },
          // A message quoting JSON: the token ends right before an escaped quote once serialized.
          { stage: 'updateScale', message: `request failed: {"headers":{"authorization":"Bearer ${JWT}"}}` },
          { stage: 'saveState', message: 'GET https://sts.amazonaws.com/?X-Amz-Credential=AKIDEXAMPLE%2F20260302&X-Amz-Signature=deadbeef01 failed' },
        ],
      }),
      '2026-03-02T10:00:00.000Z',
    );
    const text = JSON.stringify(line);
    for (const secret of [TOKEN.slice('k8s-aws-v1.'.length), JWT, 'AKIDEXAMPLE', 'deadbeef01']) expect(text).not.toContain(secret);
    const messages = (line.errors as { message: string }[]).map((e) => e.message);
    expect(messages[0]).toBe('Unauthorized: token k8s-aws-v1…[redacted] rejected');
    expect(messages[1]).toMatch(/^request failed: \{"headers":\{"authorization":"Bearer…\[redacted\]"\}\}$/);
    expect(messages[2]).toContain('X-Amz-Credential…[redacted]&X-Amz-Signature…[redacted] failed');
  });
});

describe('Logs Insights queries', () => {
  const dir = join(import.meta.dirname, '../../infra/logs-insights');

  /** What logCycle writes for one cycle, parsed (Powertools writes INFO to stdout and WARN/ERROR to stderr). */
  function capture(fn: () => void): Record<string, unknown>[] {
    const lines: Record<string, unknown>[] = [];
    const streams = [process.stdout, process.stderr];
    const writes = streams.map((s) => s.write);
    for (const s of streams) {
      s.write = ((chunk: string | Uint8Array) => {
        for (const l of String(chunk).split('\n')) if (l.startsWith('{')) lines.push(JSON.parse(l) as Record<string, unknown>);
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

  /** A field path as Logs Insights flattens JSON: a.b for objects, a.0.b for arrays. */
  function has(line: unknown, path: string): boolean {
    let v = line;
    for (const k of path.split('.')) {
      if (v === null || typeof v !== 'object' || !(k in v)) return false;
      v = (v as Record<string, unknown>)[k];
    }
    return true;
  }

  it('read fields that the cycle and decision lines have', () => {
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
    const { logger, emf } = createTelemetry();
    const sources = { cloudWatchCalls: 1, cloudWatchMetricsRequested: 1, clusterMetricsCalls: 1 };
    const lines = capture(() => logCycle(logger, emf, cycle, sources, { autoscalerMetrics: false }));
    expect(lines.filter((l) => l.message === 'decision')).toHaveLength(2);

    // Written by the handler itself, not by logCycle (functions/sync.ts).
    const handlerFields = new Set(['invocationError.message', 'configError']);
    const queries = readdirSync(dir).filter((f) => f.endsWith('.query'));
    expect(queries.length).toBeGreaterThanOrEqual(4);
    for (const file of queries) {
      const text = readFileSync(join(dir, file), 'utf8');
      const fields = /^fields (.*)$/m.exec(text)![1].split(',').map((f) => f.trim());
      const filtered = [...text.matchAll(/\b([a-zA-Z][\w.]*)\s*(?:=|in\s*\[)/g)].map((m) => m[1]);
      for (const f of [...fields, ...filtered]) {
        if (f.startsWith('@') || handlerFields.has(f)) continue;
        expect(lines.some((l) => has(l, f)), `${file}: field ${f}`).toBe(true);
      }
    }
  });
});
