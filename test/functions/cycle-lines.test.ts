// The worker's cycle lines (functions/cycle-lines.ts): a quiet shard's line at most once per
// SHPA_DECISION_LOG_SECONDS, carrying the quiet cycles left unwritten; every cycle that did
// something is written, whenever it comes.
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { CycleLineGate, DispatchLineGate, type CycleLineReason, type DispatchLineReason, type QuietCycles } from '../../functions/cycle-lines.js';
import { logCycle, logDispatch, type LogOptions } from '../../functions/log.js';
import { CapturingLogger } from '../../lib/local/lambda/telemetry-capture.js';
import { countOutcomes, emptyCalls, type AutoscalerReport, type CycleReport } from '../../lib/sync/report.js';

const options: LogOptions = { periodSeconds: 15, decisionLogSeconds: 300, autoscalerMetrics: false, detailedMetrics: false };
const START = Date.parse('2026-03-01T10:00:00Z');

function report(extra: Partial<AutoscalerReport> = {}): AutoscalerReport {
  return { cluster: 'prod', namespace: 'apps', name: 'web', source: 'table', outcome: 'unchanged', dryRun: false, patched: false, stored: 'unchanged', errors: [], warnings: [], notable: false, ...extra };
}

/** The tick `i` (every 15 s from START) of a shard, quiet unless `extra` says otherwise. */
function tick(i: number, extra: Partial<CycleReport> = {}, autoscalers: AutoscalerReport[] = [report()]): CycleReport {
  const at = new Date(START + i * 15_000).toISOString();
  return { shard: 'prod', trigger: 'tick', tick: at, startedAt: at, durationMs: 40 + i, autoscalers, counts: countOutcomes(autoscalers), calls: emptyCalls(), errors: [], warnings: [], failed: false, tickPeriodSeconds: 15, ...extra };
}

type CycleLine = { cycle: { shard: string; tick?: string; logged?: CycleLineReason[]; quietCycles?: QuietCycles } };

/** Runs the cycles through one container's gate; the cycle lines written. */
function run(cycles: CycleReport[], o: LogOptions = options): CycleLine['cycle'][] {
  const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
  const emf = new Metrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
  const gate = new CycleLineGate();
  for (const c of cycles) logCycle(logger, emf, c, undefined, o, gate);
  return logger.lines.filter((l) => l.message === 'cycle').map((l) => (l as unknown as CycleLine).cycle);
}

const quietTicks = (n: number) => Array.from({ length: n }, (_, i) => tick(i));

describe('cycle lines of a quiet shard', () => {
  it('are written once per interval, each carrying the quiet cycles before it: 40 ticks of 15 s, 2 lines, none lost', () => {
    const lines = run(quietTicks(40));
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l.logged).toEqual(['due']);
    // The second line comes a whole interval (20 ticks) after the first, with the 19 between.
    expect(Date.parse(lines[1].tick!) - Date.parse(lines[0].tick!)).toBe(300_000);
    expect(lines[1].quietCycles).toEqual({ cycles: 19, since: new Date(Date.parse(lines[0].tick!) + 15_000).toISOString(), maxDurationMs: 40 + (Date.parse(lines[1].tick!) - START) / 15_000 - 1 });
    // Every cycle is a line, counted in one, or after the last (counted in the next).
    const after = 39 - (Date.parse(lines[1].tick!) - START) / 15_000;
    expect(lines.reduce((n, l) => n + 1 + (l.quietCycles?.cycles ?? 0), 0) + after).toBe(40);
  });

  it('falls on the same tick however late its cycle starts (the tick time, not the start, decides), at a time of its own per shard', () => {
    const late = quietTicks(40).map((c) => ({ ...c, startedAt: new Date(Date.parse(c.startedAt) + 7_000 + (Date.parse(c.startedAt) % 3) * 1_000).toISOString() }));
    expect(run(late).map((l) => l.tick)).toEqual(run(quietTicks(40)).map((l) => l.tick));
    const other = run(quietTicks(40).map((c) => ({ ...c, shard: 'staging' })));
    expect(other).toHaveLength(2);
    expect(other.map((l) => l.tick)).not.toEqual(run(quietTicks(40)).map((l) => l.tick));
  });

  it('are all written when SHPA_DECISION_LOG_SECONDS is 0, and every one without a gate (the local stack)', () => {
    expect(run(quietTicks(10), { ...options, decisionLogSeconds: 0 })).toHaveLength(10);
    const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
    for (const c of quietTicks(10)) logCycle(logger, new Metrics({ namespace: 'ServerlessHPA' }), c, undefined, options);
    expect(logger.lines.filter((l) => l.message === 'cycle')).toHaveLength(10);
  });
});

describe('a cycle that did something is always written', () => {
  const failed = (stage: 'updateScale' | 'deadline') => [{ stage, message: 'x' }];
  const cases: [string, (i: number) => CycleReport, CycleLineReason][] = [
    ['an evaluation (an event)', (i) => tick(i, { trigger: 'evaluate', tick: undefined, reason: 'spec change' }), 'evaluate'],
    ['a shard that could not be loaded', (i) => tick(i, { failed: true, errors: [{ stage: 'load', message: 'table unreachable' }] }, []), 'failed'],
    ['an error of the shard', (i) => tick(i, { errors: [{ stage: 'load', message: 'listing the CR objects: 503' }] }), 'errors'],
    ['a warning of the shard', (i) => tick(i, { warnings: ["keeping the shard's metric answers: throttled"] }), 'warnings'],
    ['a rescale', (i) => tick(i, {}, [report({ outcome: 'scaled', patched: true, notable: true })]), 'autoscalers'],
    ['a dry run that would have scaled', (i) => tick(i, {}, [report({ outcome: 'dryRun', dryRun: true })]), 'autoscalers'],
    ['an autoscaler the deadline deferred', (i) => tick(i, {}, [report({ outcome: 'skipped', errors: failed('deadline') })]), 'autoscalers'],
    ['a failed scale write', (i) => tick(i, {}, [report({ outcome: 'failed', errors: failed('updateScale') })]), 'autoscalers'],
    ['a conflict', (i) => tick(i, {}, [report({ outcome: 'conflict' })]), 'autoscalers'],
    ['an invalid spec', (i) => tick(i, {}, [report({ outcome: 'invalid', notable: true })]), 'autoscalers'],
    ['a condition that changed (notable, unchanged scale)', (i) => tick(i, {}, [report({ notable: true })]), 'autoscalers'],
    ['an autoscaler warning', (i) => tick(i, {}, [report({ warnings: ['stored state cannot be trusted'] })]), 'autoscalers'],
    ['a changed shard layout', (i) => tick(i, { shard: 'prod/0of2' }), 'layout'],
    ['a shard asking for another tick period', (i) => tick(i, { tickPeriodSeconds: 5 }), 'tickPeriod'],
  ];
  it.each(cases)('%s', (_, eventful, reason) => {
    // Quiet ticks, then the event at a tick that is not the quiet line's, then quiet again.
    const due = new Set(run(quietTicks(40)).map((l) => l.tick));
    const at = Array.from({ length: 40 }, (_, i) => i).find((i) => i > 5 && !due.has(tick(i).tick) && !due.has(tick(i - 1).tick))!;
    const cycles = quietTicks(40).map((c, i) => (i === at ? eventful(i) : c));
    const lines = run(cycles);
    const line = lines.find((l) => l.logged?.includes(reason));
    expect(line, `no line for ${reason}: ${JSON.stringify(lines)}`).toBeDefined();
    expect(line?.logged).not.toContain('due');
    if (line?.shard === 'prod') {
      // It carries the quiet cycles since the line before it in this container, so the count stays whole.
      const before = lines[lines.indexOf(line) - 1];
      const expected = before ? (START + at * 15_000 - Date.parse(before.tick ?? '')) / 15_000 - 1 : at;
      expect(line.quietCycles?.cycles ?? 0).toBe(expected);
    }
    // The quiet lines of the interval are still written.
    for (const t of due) expect(lines.some((l) => l.shard === 'prod' && l.tick === t)).toBe(true);
  });
});

describe('dispatch lines', () => {
  const minute = (i: number, extra: Partial<Parameters<typeof logDispatch>[2]> = {}) => ({
    sent: 4,
    lost: 0,
    late: 0,
    attempts: 1,
    errors: [] as string[],
    tooOld: false,
    shards: { prod: 1 },
    timings: {},
    scheduledAt: new Date(START + i * 60_000).toISOString(),
    ...extra,
  });
  function dispatchLines(minutes: ReturnType<typeof minute>[], decisionLogSeconds = 300) {
    const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
    const emf = new Metrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
    const quiet = { gate: new DispatchLineGate(), decisionLogSeconds, periodSeconds: 60 };
    for (const m of minutes) logDispatch(logger, emf, m, quiet);
    return logger.lines.map((l) => l.dispatch as { scheduledAt: string; logged: DispatchLineReason[]; quietMinutes?: { minutes: number; since: string } });
  }

  it('a quiet dispatcher writes a minute every interval, with the quiet minutes before it', () => {
    const lines = dispatchLines(Array.from({ length: 20 }, (_, i) => minute(i)));
    expect(lines).toHaveLength(4);
    expect(lines.map((l) => l.logged)).toEqual([['due'], ['due'], ['due'], ['due']]);
    expect(lines.slice(1).map((l) => l.quietMinutes?.minutes)).toEqual([4, 4, 4]);
    expect(dispatchLines(Array.from({ length: 5 }, (_, i) => minute(i)), 0)).toHaveLength(5);
  });

  it.each([
    ['ticks lost', { lost: 1 }, 'lost'],
    ['ticks late', { late: 2 }, 'late'],
    ['sends retried', { attempts: 3 }, 'retried'],
    ['send errors', { errors: ['InternalError'] }, 'errors'],
    ['a shard count changed', { shards: { prod: 2 } }, 'shards'],
    ['a tick timing changed', { timings: { prod: { offsetSeconds: 7, periodSeconds: 15 } } }, 'shards'],
  ] as const)('a minute with %s is written', (_, extra, reason) => {
    const quiet = dispatchLines(Array.from({ length: 20 }, (_, i) => minute(i)));
    const due = new Set(quiet.map((l) => l.scheduledAt));
    const at = Array.from({ length: 20 }, (_, i) => i).find((i) => i > 1 && !due.has(minute(i).scheduledAt))!;
    const lines = dispatchLines(Array.from({ length: 20 }, (_, i) => minute(i, i === at ? (extra as Partial<ReturnType<typeof minute>>) : {})));
    expect(lines.find((l) => l.scheduledAt === minute(at).scheduledAt)?.logged).toContain(reason);
  });
});
