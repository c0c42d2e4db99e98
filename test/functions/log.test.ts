// What the worker writes to CloudWatch Logs: a decision line when something happened (or at
// most every few minutes), one summary per cycle, an Errors count when there are errors; secrets never.
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { decisionLine, logCycle, logMessage, quietLineDue, type LogOptions } from '../../functions/log.js';
import { SparseMetrics } from '../../functions/wiring/telemetry.js';
import { CapturingLogger, CapturingMetrics } from '../../lib/local/lambda/telemetry-capture.js';
import { countOutcomes, emptyCalls, type AutoscalerReport, type CycleReport } from '../../lib/sync/report.js';

const options: LogOptions = { periodSeconds: 15, decisionLogSeconds: 300, autoscalerMetrics: false, detailedMetrics: false };

function report(extra: Partial<AutoscalerReport> = {}): AutoscalerReport {
  return { cluster: 'prod', namespace: 'apps', name: 'web', source: 'table', outcome: 'unchanged', dryRun: false, patched: false, stored: 'unchanged', errors: [], warnings: [], notable: false, ...extra };
}

function cycle(autoscalers: AutoscalerReport[], extra: Partial<CycleReport> = {}): CycleReport {
  return { shard: 'prod', trigger: 'tick', tick: '2026-03-01T10:00:00Z', startedAt: '2026-03-01T10:00:00.000Z', durationMs: 42, autoscalers, counts: countOutcomes(autoscalers), calls: emptyCalls(), errors: [], warnings: [], failed: false, ...extra };
}

/** Each function one invocation of a handler with the logMetrics middleware, as the functions flush their metrics. */
async function capture(...invocations: ((logger: CapturingLogger, emf: CapturingMetrics) => void)[]) {
  const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
  const emf = new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
  for (const fn of invocations) await invoke(emf, () => fn(logger, emf));
  return { lines: logger.lines, emf: emf.documents };
}

async function invoke(emf: Metrics, fn: () => void): Promise<void> {
  await middy(async () => fn()).use(logMetrics(emf))({}, { functionName: 'worker' } as Context);
}

describe('decision lines', () => {
  it('something that happened is logged every time; a quiet autoscaler once per interval, at a time of its own', async () => {
    const quiet = report({ name: 'quiet' });
    const busy = report({ name: 'busy', outcome: 'scaled', patched: true, notable: true });
    let seen = 0;
    for (let i = 0; i < 40; i++) {
      const start = new Date(Date.parse('2026-03-01T10:00:00Z') + i * 15_000).toISOString();
      const { lines } = await capture((l, e) => logCycle(l, e, cycle([quiet, busy], { startedAt: start }), undefined, options));
      expect(lines.filter((l) => l.hpa === 'busy')).toHaveLength(1);
      seen += lines.filter((l) => l.hpa === 'quiet').length;
    }
    // 40 cycles of 15 s are 10 minutes: two lines of a 5-minute interval.
    expect(seen).toBe(2);
    expect(quietLineDue(quiet, Date.parse('2026-03-01T10:00:00Z'), { ...options, decisionLogSeconds: 0 })).toBe(true);
  });

  it('levels: failures at ERROR, skipped and warnings at WARN, the rest at INFO; an evaluation always says what it did', async () => {
    const { lines, emf } = await capture((l, e) =>
      logCycle(
        l,
        e,
        cycle(
          [
            report({ name: 'a', outcome: 'invalid', errors: [{ stage: 'validate', message: 'spec.maxReplicas: Invalid value: 0' }], notable: true }),
            report({ name: 'b', outcome: 'skipped', errors: [{ stage: 'deadline', message: 'cycle deadline reached before the pods of namespace apps answered' }], notable: true }),
            report({ name: 'c', warnings: ['stored state cannot be trusted'], notable: true }),
            report({ name: 'd' }),
          ],
          { trigger: 'evaluate', reason: 'spec change' },
        ),
        undefined,
        options,
      ),
    );
    expect(Object.fromEntries(lines.filter((l) => l.message === 'decision').map((l) => [l.hpa, l.level]))).toEqual({ a: 'ERROR', b: 'WARN', c: 'WARN', d: 'INFO' });
    expect(lines.find((l) => l.message === 'cycle')).toMatchObject({ level: 'INFO', cycle: { shard: 'prod', trigger: 'evaluate', reason: 'spec change', decisionLines: 4 } });
    // Only Errors and Deferred are emitted by default, each only when non-zero (each custom metric costs every month):
    // the autoscaler the deadline left is counted as deferred, not as an error.
    const metrics = emf.flatMap((d) => ((d._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }).CloudWatchMetrics[0].Metrics).map((m) => m.Name));
    expect(metrics).toEqual(['Errors', 'Deferred']);
    expect(emf[0]).toMatchObject({ Errors: 1, Deferred: 1 });
  });

  it('a message that ran no cycle is one line, an error counted when something is wrong', async () => {
    const { lines, emf } = await capture(
      (l, e) => logMessage(l, e, { outcome: 'dropped', shard: 'prod', why: 'late', detail: 'tick 2026-03-01T10:00:00Z is 31 s old, more than a period' }, options),
      (l, e) => logMessage(l, e, { outcome: 'failed', shard: 'prod', error: 'taking the lease of shard prod: TimeoutError' }, options),
    );
    expect(lines.map((l) => [l.level, (l.workMessage as { outcome: string }).outcome])).toEqual([
      ['WARN', 'dropped'],
      ['ERROR', 'failed'],
    ]);
    expect(emf.map((d) => [d.DroppedMessages, d.Errors])).toEqual([
      [1, undefined],
      [undefined, 1],
    ]);
  });

  it('sends nothing from a cycle without errors; the Cycles heartbeat only for param monitoring full: no data is no error, and is not billed', async () => {
    const steps = (o: LogOptions) => [
      (l: CapturingLogger, e: CapturingMetrics) => logCycle(l, e, cycle([report({ outcome: 'scaled', patched: true, notable: true })]), undefined, o),
      (l: CapturingLogger, e: CapturingMetrics) => logCycle(l, e, cycle([report()], { trigger: 'evaluate', reason: 'spec change' }), undefined, o),
      (l: CapturingLogger, e: CapturingMetrics) => logCycle(l, e, cycle([], { failed: true, errors: [{ stage: 'load', message: 'table unreachable' }] }), undefined, o),
      (l: CapturingLogger, e: CapturingMetrics) => logMessage(l, e, { outcome: 'busy', shard: 'prod', holder: 'w2', requeued: true, detail: 'an evaluation sent again a second later' }, o),
    ];
    // By default (monitoring true: the alarms read Lambda's own metrics) only the failed load sends something: Errors.
    expect((await capture(...steps(options))).emf.map((d) => [d.Cycles, d.Errors])).toEqual([[undefined, 1]]);
    // Monitoring full: the tick's cycle that ran is Cycles 1; a failed load is not a cycle that ran.
    expect((await capture(...steps({ ...options, cyclesMetric: true }))).emf.map((d) => [d.Cycles, d.Errors])).toEqual([
      [1, undefined],
      [undefined, 1],
    ]);
    // A message dropped is counted by default, and is all that is sent.
    const dropped = (await capture((l, e) => logMessage(l, e, { outcome: 'dropped', shard: 'prod', why: 'duplicate', detail: 'tick 2026-03-01T10:00:00Z already started' }, options))).emf;
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ DroppedMessages: 1 });
    expect(dropped[0]).not.toHaveProperty('Errors');
    // Detailed metrics still come every cycle, without an Errors value.
    const detailed = (await capture((l, e) => logCycle(l, e, cycle([report()]), undefined, { ...options, detailedMetrics: true, cyclesMetric: true }))).emf;
    expect(detailed).toHaveLength(1);
    expect(detailed[0]).not.toHaveProperty('Errors');
    expect(detailed[0]).toMatchObject({ Cycles: 1, CycleDuration: 42, Autoscalers: 1, Scaled: 0 });
  });

  it('with the real Powertools Metrics and its logMetrics middleware, prints one EMF line per invocation with something to publish, and never its empty-publish warning', async () => {
    const warnings: unknown[][] = [];
    const noop = () => undefined;
    const emf = new SparseMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa', logger: { debug: noop, info: noop, error: noop, warn: (...a: unknown[]) => warnings.push(a) } });
    const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
    const full = { ...options, cyclesMetric: true };
    const printed = await stdoutOf(async () => {
      // An evaluation's cycle without errors has nothing to publish.
      await invoke(emf, () => logCycle(logger, emf, cycle([report()], { trigger: 'evaluate' }), undefined, full));
      await invoke(emf, () => logCycle(logger, emf, cycle([report()]), undefined, full));
      await invoke(emf, () => logMessage(logger, emf, { outcome: 'dropped', shard: 'prod', why: 'late', detail: 'tick 31 s old' }, full));
      // Two messages of one invocation: one EMF line, a value each.
      await invoke(emf, () => {
        logCycle(logger, emf, cycle([report({ outcome: 'failed', errors: [{ stage: 'updateScale', message: 'forbidden' }], notable: true })]), undefined, full);
        logCycle(logger, emf, cycle([report()], { shard: 'prod/1of2' }), undefined, full);
      });
    });
    expect(warnings).toEqual([]);
    expect(printed).toHaveLength(3);
    expect(printed[0]).toMatchObject({ Cycles: 1, service: 'serverless-hpa' });
    expect(printed[1]).toMatchObject({ DroppedMessages: 1, service: 'serverless-hpa' });
    expect(printed[2]).toMatchObject({ Cycles: [1, 1], Errors: 1, service: 'serverless-hpa' });
  });

  it('the logMetrics middleware flushes what a handler counted before it threw', async () => {
    const emf = new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
    const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
    const thrown = await invoke(emf, () => {
      logMessage(logger, emf, { outcome: 'failed', shard: 'prod', error: 'table unreachable' }, options);
      throw new Error('every message failed');
    }).catch((e: unknown) => (e as Error).message);
    expect(thrown).toBe('every message failed');
    expect(emf.documents).toEqual([expect.objectContaining({ Errors: 1 })]);
  });

  it('redacts tokens, signatures and credentials wherever an error message carries them', () => {
    const line = decisionLine(
      report({
        errors: [
          { stage: 'updateScale', message: 'GET https://sts.amazonaws.com/?X-Amz-Credential=AKIDEXAMPLE%2F20260302&X-Amz-Signature=abc123 failed' },
          { stage: 'updateScale', message: 'Authorization: Bearer k8s-aws-v1.aHR0cHM6Ly9zdHM' },
          { stage: 'saveState', message: 'X-Amz-Security-Token: IQoJb3JpZ2luX2VjEJr secret AKIAIOSFODNN7EXAMPLE' },
        ],
      }),
      { shard: 'prod', startedAt: '2026-03-01T10:00:00Z', trigger: 'tick' },
    );
    const text = JSON.stringify(line);
    for (const secret of ['abc123', 'AKIDEXAMPLE', 'aHR0cHM6Ly9zdHM', 'IQoJb3JpZ2luX2VjEJr', 'AKIAIOSFODNN7EXAMPLE']) expect(text).not.toContain(secret);
    expect(text).toContain('X-Amz-Signature…[redacted]');
  });
});

/** The JSON lines fn prints to stdout (where Powertools Metrics writes EMF). */
async function stdoutOf(fn: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    for (const l of String(chunk).split('\n')) if (l.startsWith('{')) lines.push(JSON.parse(l) as Record<string, unknown>);
    return true;
  }) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return lines;
}
