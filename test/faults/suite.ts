// Runs a fault scenario twice on the product (stack.ts): undisturbed, then with the fault
// on during its window of ticks; the judge compares the two. The undisturbed run is the same
// for every scenario (same fleet, same ticks, a virtual clock), so it runs once per process.
import type { DynamoServer } from '../support/dynamo.js';
import { FALL, RISE, START } from './fleet.js';
import { judge, type RunResult, type Verdict } from './judge.js';
import { PERIOD_MS, startFaultStack, type FaultStack } from './stack.js';

/** Ticks per run: demand rises, falls, and the first scale down (after the 10 s downscale stabilization) follows. */
export const TICKS = FALL + 4;

/** A fault while it is on. */
export interface ActiveFault {
  /** How many times it has been met so far (requests faulted, items corrupted, workers killed). */
  tried(): number;
  /** Ends it (after the last tick of the window). */
  stop?(): Promise<void> | void;
  /** Runs a tick of the window in place of the dispatcher and the drain. */
  tick?(): Promise<void>;
}

export interface Scenario {
  /** The fault, as the table names it. */
  name: string;
  /** What it hits: a namespace, a metric, a shard. */
  hits: string;
  /** namespace/name of the autoscalers it targets. */
  targets: string[];
  /** First and last tick it is on; default: the two ticks from the rise of demand. */
  window?: [number, number];
  /** Starts it at the beginning of the window's first tick. */
  inject(s: FaultStack): Promise<ActiveFault>;
  /** What a WARN or ERROR line naming it matches. */
  error: RegExp;
  /** It feeds its targets invalid metric values: a write they make then, that the undisturbed run does not, acts on them. */
  invalidInputs?: boolean;
  /** It destroys its targets' stored history itself: their earlier scale events are not expected to survive it. */
  historyReset?: boolean;
}

export interface ScenarioResult {
  scenario: Scenario;
  verdict: Verdict;
  /** The run with the fault, as recorded. */
  faulted: RunResult;
}

export const windowOf = (s: Scenario): [number, number] => s.window ?? [RISE, RISE + 1];

async function run(db: DynamoServer, scenario?: Scenario): Promise<RunResult> {
  const s = await startFaultStack(db);
  let fault: ActiveFault | undefined;
  let tried = 0;
  try {
    const [from, to] = scenario ? windowOf(scenario) : [-1, -1];
    for (let i = 0; i < TICKS; i++) {
      s.tick = i;
      s.clock.t = START + i * PERIOD_MS;
      if (scenario && i === from) fault = await scenario.inject(s);
      if (fault?.tick) await fault.tick();
      else await s.runTick();
      if (fault && i === to) {
        tried = fault.tried();
        await fault.stop?.();
        fault = undefined;
      }
      await s.snapshot();
    }
    // Copies: a handler cut off by its timeout may still write lines after the run.
    const { lines, emf, writes, snapshots } = s.rec;
    return { lines: [...lines], emf: [...emf], writes: [...writes], snapshots, tried, failedInvocations: s.fns.worker.counters.errors + s.fns.evaluator.counters.errors + s.containerFailures };
  } finally {
    await fault?.stop?.();
    await s.stop();
  }
}

const baselines = new WeakMap<DynamoServer, Promise<RunResult>>();

/** The undisturbed run (once per DynamoDB server). */
export function baseline(db: DynamoServer): Promise<RunResult> {
  let b = baselines.get(db);
  if (!b) baselines.set(db, (b = run(db)));
  return b;
}

export async function runScenario(db: DynamoServer, scenario: Scenario): Promise<ScenarioResult> {
  const base = await baseline(db);
  const faulted = await run(db, scenario);
  return {
    scenario,
    faulted,
    verdict: judge(base, faulted, {
      targets: scenario.targets,
      error: scenario.error,
      window: windowOf(scenario),
      invalidInputs: scenario.invalidInputs,
      historyReset: scenario.historyReset,
    }),
  };
}

/** An undisturbed run, again: the comparison is only fair if runs replay exactly. */
export const undisturbed = (db: DynamoServer) => run(db);

export const harmless = (v: Verdict) => v.differing.length === 0 && v.doubleScales === 0 && v.wrongScales === 0 && v.historyLost === 0 && v.historyInvented === 0;

const COLUMNS = ['fault', 'tried', 'cycles finished', 'untargeted differing', 'double scales', 'wrong scales', 'history lost', 'history invented', 'clear error'];

/** The table `npm run faults` prints and the README quotes (Markdown). */
export function formatTable(results: ScenarioResult[]): string {
  const rows = results.map(({ scenario, verdict: v }) => [
    scenario.name,
    String(v.tried),
    `${v.cycles}/${v.baselineCycles}`,
    String(v.differing.length),
    String(v.doubleScales),
    String(v.wrongScales),
    String(v.historyLost),
    String(v.historyInvented),
    v.clearError ? 'yes' : 'no',
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [line(COLUMNS), `|${widths.map((w, i) => (i === 0 ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`, ...rows.map(line)].join('\n');
}
