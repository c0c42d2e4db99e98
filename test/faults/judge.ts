// Compares a faulted run with the undisturbed one, tick by tick: the decisions of the
// autoscalers the fault does not target, the writes of /scale against the decisions that
// asked for them, and the scale events stored against what the workloads really got.
import type { LogLine } from '../../lib/local/lambda/telemetry-capture.js';
import { EVENT_HORIZON_MS, FLEET, key } from './fleet.js';
import type { Recording, ScaleWrite, StoredEvent } from './stack.js';

export interface RunResult extends Recording {
  /** How many times the fault was met. */
  tried: number;
  /** Worker invocations that failed (Lambda's Errors). */
  failedInvocations: number;
}

export interface Verdict {
  tried: number;
  /** Tick cycles that ran to their summary line, and how many the undisturbed run had. */
  cycles: number;
  baselineCycles: number;
  /** Autoscalers not targeted whose tick decisions differ from the undisturbed run's. */
  differing: string[];
  doubleScales: number;
  wrongScales: number;
  historyLost: number;
  historyInvented: number;
  clearError: boolean;
  /** What each non-zero count and a missing clear error are made of. */
  notes: string[];
}

export interface JudgeOptions {
  targets: string[];
  /** A WARN or ERROR line naming the fault matches this. */
  error: RegExp;
  /** Ticks the fault was on. */
  window: [number, number];
  /** The fault feeds the targets invalid inputs: a write they make in the window that the undisturbed run did not make acts on them. */
  invalidInputs?: boolean;
  /** The fault itself destroys the targets' stored history: their scale events up to the window's end are not expected to survive. */
  historyReset?: boolean;
}

interface Decision {
  tick: number;
  key: string;
  atMs: number;
  trigger: string;
  outcome: string;
  current?: number;
  desired?: number;
  /** The product set out to write /scale (it did, or the write failed). */
  wrote: boolean;
}

function decisions(r: Recording): Decision[] {
  return r.lines
    .filter(({ line }) => line.message === 'decision')
    .map(({ tick, line }) => {
      const errors = (line.errors as { stage: string }[] | undefined) ?? [];
      return {
        tick,
        key: `${String(line.namespace)}/${String(line.hpa)}`,
        atMs: Date.parse(String(line.cycleStartedAt)),
        trigger: String(line.trigger),
        outcome: String(line.outcome),
        current: line.currentReplicas as number | undefined,
        desired: line.desiredReplicas as number | undefined,
        wrote: line.outcome === 'scaled' || errors.some((e) => e.stage === 'updateScale'),
      };
    });
}

const tickCycles = (r: Recording) => r.lines.filter(({ line }) => line.message === 'cycle' && (line.cycle as { trigger?: string }).trigger === 'tick').length;

const errorsCounted = (r: Recording) =>
  r.emf.reduce((n, doc) => {
    const v = doc.Errors;
    return n + (typeof v === 'number' ? v : Array.isArray(v) ? v.reduce((a: number, b: unknown) => a + Number(b), 0) : 0);
  }, 0);

const isProblem = (l: LogLine) => l.level === 'WARN' || l.level === 'ERROR';

export function judge(baseline: RunResult, faulted: RunResult, o: JudgeOptions): Verdict {
  const notes: string[] = [];
  const base = decisions(baseline);
  const mine = decisions(faulted);
  const targeted = new Set(o.targets);
  const [from, to] = o.window;

  // Decisions of the autoscalers the fault does not target: the same, tick by tick.
  const differing: string[] = [];
  const byTick = (list: Decision[], k: string) => new Map(list.filter((d) => d.key === k && d.trigger === 'tick').map((d) => [d.atMs, `${d.outcome} → ${d.desired}`]));
  for (const k of FLEET.map(key).filter((x) => !targeted.has(x))) {
    const a = byTick(base, k);
    const b = byTick(mine, k);
    const diff = [...new Set([...a.keys(), ...b.keys()])].filter((t) => a.get(t) !== b.get(t));
    if (diff.length === 0) continue;
    differing.push(k);
    const t = diff[0];
    notes.push(`${k} at ${new Date(t).toISOString()}: ${b.get(t) ?? 'no decision'} instead of ${a.get(t) ?? 'no decision'}`);
  }

  // Every write of /scale answers one decision that asked for that size, made on what the workload then had.
  let doubleScales = 0;
  let wrongScales = 0;
  const used = new Set<Decision>();
  const decidedAt = new Map<ScaleWrite, number>();
  for (const w of faulted.writes) {
    const asked = mine.filter((d) => d.wrote && d.key === w.key && d.tick === w.tick && d.desired === w.to);
    const d = asked.find((x) => !used.has(x));
    if (d) {
      used.add(d);
      decidedAt.set(w, d.atMs);
      if (d.current !== w.from) {
        wrongScales++;
        notes.push(`${w.key} written ${w.from} → ${w.to} by a decision made on ${d.current} replicas (stale)`);
      }
    } else if (asked.length > 0) {
      doubleScales++;
      notes.push(`${w.key} written ${w.from} → ${w.to} a second time for one decision (tick ${w.tick})`);
    } else {
      wrongScales++;
      notes.push(`${w.key} written ${w.from} → ${w.to} at tick ${w.tick}: no decision asked for ${w.to}`);
    }
  }
  if (o.invalidInputs) {
    const same = (a: ScaleWrite, b: ScaleWrite) => a.key === b.key && a.tick === b.tick && a.to === b.to;
    for (const w of faulted.writes) {
      if (!targeted.has(w.key) || w.tick < from || w.tick > to || baseline.writes.some((b) => same(b, w))) continue;
      wrongScales++;
      notes.push(`${w.key} written ${w.from} → ${w.to} at tick ${w.tick} on the fault's invalid metric value`);
    }
  }

  // Stored scale events against the workloads' real changes.
  const { lost, invented } = history(faulted, decidedAt, o, notes);

  // The clear error: a WARN/ERROR line naming the fault (not a line the undisturbed run also has),
  // and the Errors metric counted when invocations failed.
  const named = (r: Recording) => r.lines.some(({ line }) => isProblem(line) && o.error.test(JSON.stringify(line)));
  let clearError = named(faulted) && !named(baseline);
  if (!clearError) notes.push(`no WARN or ERROR line matches ${o.error}`);
  if (faulted.failedInvocations > baseline.failedInvocations && errorsCounted(faulted) <= errorsCounted(baseline)) {
    clearError = false;
    notes.push(`${faulted.failedInvocations - baseline.failedInvocations} worker invocations failed, but the Errors metric did not count them`);
  }

  return {
    tried: faulted.tried,
    cycles: tickCycles(faulted),
    baselineCycles: tickCycles(baseline),
    differing,
    doubleScales,
    wrongScales,
    historyLost: lost,
    historyInvented: invented,
    clearError,
    notes,
  };
}

/**
 * lost: a real change never recorded, or taken out of the history before it aged out of every
 * policy period; invented: an event recorded as done (not pending) that no workload got, or
 * still pending when the run ended.
 */
function history(r: Recording, decidedAt: Map<ScaleWrite, number>, o: JudgeOptions, notes: string[]): { lost: number; invented: number } {
  const same = (e: StoredEvent, k: string, atMs: number, change: number, up: boolean) => e.key === k && e.atMs === atMs && e.change === change && e.up === up;
  const real = r.writes.filter((w) => w.to !== w.from).map((w) => ({ key: w.key, atMs: decidedAt.get(w) ?? w.atMs, change: Math.abs(w.to - w.from), up: w.to > w.from, tick: w.tick }));
  let lost = 0;
  for (const w of real) {
    if (o.historyReset && o.targets.includes(w.key) && w.tick <= o.window[1]) continue;
    const due = r.snapshots.filter((s) => s.atMs >= w.atMs && s.atMs < w.atMs + EVENT_HORIZON_MS);
    const missing = due.find((s) => !s.events.some((e) => same(e, w.key, w.atMs, w.change, w.up)));
    if (!missing) continue;
    lost++;
    notes.push(`${w.key}: the scale by ${w.up ? '+' : '-'}${w.change} at ${new Date(w.atMs).toISOString()} is missing from the stored history after tick ${missing.tick}`);
  }
  const invented = new Map<string, StoredEvent>();
  const last = r.snapshots.at(-1);
  for (const s of r.snapshots) {
    for (const e of s.events) {
      if (real.some((w) => same(e, w.key, w.atMs, w.change, w.up))) continue;
      if (e.pending && s !== last) continue;
      invented.set(`${e.key}: a scale by ${e.up ? '+' : '-'}${e.change} at ${new Date(e.atMs).toISOString()}`, e);
    }
  }
  for (const [what, e] of invented) notes.push(`${what} is stored, but no workload got it${e.pending ? ' (still pending when the run ended)' : ''}`);
  return { lost, invented: invented.size };
}
