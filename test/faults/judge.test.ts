// The judge finds each kind of harm it counts: runs made by hand, one harm at a time.
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../lib/local/lambda/telemetry-capture.js';
import { START } from './fleet.js';
import { judge, type JudgeOptions, type RunResult } from './judge.js';
import type { StoredEvent } from './stack.js';

const at = (tick: number) => START + tick * 5000;

function decision(tick: number, key: string, outcome: string, current: number, desired: number, extra: Partial<LogLine> = {}) {
  const [namespace, hpa] = key.split('/');
  return { tick, line: { level: 'INFO', message: 'decision', namespace, hpa, trigger: 'tick', cycleStartedAt: new Date(at(tick)).toISOString(), outcome, currentReplicas: current, desiredReplicas: desired, ...extra } };
}

/** apps/queue scales 2 → 5 at tick 2; apps/web stays at 2. */
function run(): RunResult {
  const lines = [0, 1, 2, 3].flatMap((t) => [decision(t, 'apps/queue', t === 2 ? 'scaled' : 'unchanged', t < 3 ? 2 : 5, t < 2 ? 2 : 5), decision(t, 'apps/web', 'unchanged', 2, 2)]);
  const event: StoredEvent = { key: 'apps/queue', atMs: at(2), change: 3, up: true, pending: false };
  return {
    lines,
    emf: [],
    writes: [{ tick: 2, atMs: at(2), key: 'apps/queue', from: 2, to: 5 }],
    snapshots: [0, 1, 2, 3].map((t) => ({ tick: t, atMs: at(t), events: t >= 2 ? [{ ...event, pending: t === 2 }] : [] })),
    tried: 1,
    failedInvocations: 0,
  };
}

const options: JudgeOptions = { targets: ['apps/queue'], error: /the fault/, window: [1, 2] };
const warned = (r: RunResult) => ({ ...r, lines: [...r.lines, { tick: 1, line: { level: 'WARN', message: 'decision', errors: [{ message: 'the fault' }] } }] });

describe('judge', () => {
  it('finds nothing in a faulted run that only warned', () => {
    expect(judge(run(), warned(run()), options)).toMatchObject({ differing: [], doubleScales: 0, wrongScales: 0, historyLost: 0, historyInvented: 0, clearError: true, notes: [] });
  });

  it('wants a WARN or ERROR line naming the fault, one the undisturbed run does not have', () => {
    expect(judge(run(), run(), options)).toMatchObject({ clearError: false, notes: ['no WARN or ERROR line matches /the fault/'] });
    const info = run();
    info.lines.push({ tick: 1, line: { level: 'INFO', message: 'decision', note: 'the fault' } });
    expect(judge(run(), info, options).clearError).toBe(false);
    expect(judge(warned(run()), warned(run()), options).clearError).toBe(false);
  });

  it('wants failed invocations counted in the Errors metric', () => {
    const failed = { ...warned(run()), failedInvocations: 2 };
    expect(judge(run(), failed, options)).toMatchObject({ clearError: false });
    expect(judge(run(), { ...failed, emf: [{ Errors: 1 }] }, options).clearError).toBe(true);
  });

  it('counts an untargeted autoscaler that decided otherwise, or not at all', () => {
    const r = warned(run());
    r.lines = r.lines.filter(({ tick, line }) => !(line.hpa === 'web' && tick === 3));
    expect(judge(run(), r, options)).toMatchObject({ differing: ['apps/web'] });
    expect(judge(run(), r, { ...options, targets: ['apps/queue', 'apps/web'] }).differing).toEqual([]);
  });

  it('counts a second write for one decision as a double scale', () => {
    const r = warned(run());
    r.writes.push({ tick: 2, atMs: at(2), key: 'apps/queue', from: 5, to: 5 });
    expect(judge(run(), r, options)).toMatchObject({ doubleScales: 1, wrongScales: 0 });
  });

  it('counts a write no decision asked for, and one made on stale replicas, as wrong scales', () => {
    const unasked = warned(run());
    unasked.writes.push({ tick: 3, atMs: at(3), key: 'apps/web', from: 2, to: 7 });
    expect(judge(run(), unasked, options)).toMatchObject({ wrongScales: 1, doubleScales: 0 });
    const stale = warned(run());
    stale.writes[0] = { ...stale.writes[0], from: 4, to: 5 };
    expect(judge(run(), stale, options).wrongScales).toBe(1);
  });

  it('with invalid inputs, counts a write of a target in the window that the undisturbed run did not make', () => {
    const r = warned(run());
    r.writes[0] = { ...r.writes[0], to: 6 };
    r.lines = r.lines.map((l) => (l.line.hpa === 'queue' && l.tick === 2 ? { ...l, line: { ...l.line, desiredReplicas: 6 } } : l));
    expect(judge(run(), r, options).wrongScales).toBe(0);
    expect(judge(run(), r, { ...options, invalidInputs: true }).wrongScales).toBe(1);
  });

  it('counts a real scale missing from the stored history as lost, and a stored scale no workload got as invented', () => {
    const lost = warned(run());
    lost.snapshots[3] = { ...lost.snapshots[3], events: [] };
    expect(judge(run(), lost, options)).toMatchObject({ historyLost: 1, historyInvented: 0 });
    expect(judge(run(), lost, { ...options, historyReset: true }).historyLost).toBe(0);

    const invented = warned(run());
    invented.snapshots[1] = { ...invented.snapshots[1], events: [{ key: 'apps/web', atMs: at(1), change: 2, up: false, pending: false }] };
    expect(judge(run(), invented, options)).toMatchObject({ historyLost: 0, historyInvented: 1 });
  });

  it('leaves a pending scale event alone until the run ends', () => {
    const r = warned(run());
    const pending: StoredEvent = { key: 'apps/web', atMs: at(1), change: 2, up: true, pending: true };
    r.snapshots[1] = { ...r.snapshots[1], events: [pending] };
    expect(judge(run(), r, options).historyInvented).toBe(0);
    r.snapshots[3] = { ...r.snapshots[3], events: [...r.snapshots[3].events, pending] };
    expect(judge(run(), r, options).historyInvented).toBe(1);
  });
});
