// One scheduled invocation: take a lease per cluster, run cycles on ticks aligned
// to the sync period until the schedule's next invocation is due, stop in time.
import { runCycle, type CycleDeps, type SyncOptions } from './cycle.js';
import type { Clock, ClusterRecord } from './ports.js';
import { errorText, type CycleReport } from './report.js';

export interface SleepingClock extends Clock {
  /** Resolves after ms of this clock's time (a virtual clock may advance instantly). */
  sleep(ms: number): Promise<void>;
}

export interface InvocationDeps extends CycleDeps {
  clock: SleepingClock;
}

export interface InvocationConfig {
  clusters: ClusterRecord[];
  syncPeriodSeconds: number;
  /** How often the schedule invokes: one invocation covers this much time. */
  scheduleIntervalSeconds: number;
  options: SyncOptions;
  /** Kept free before the invocation's own timeout (releasing leases, flushing logs). */
  safetyMarginMs: number;
}

export interface InvocationRun {
  /** Identifies this invocation as lease owner (the Lambda request id). */
  owner: string;
  /** Time left before the platform stops the invocation, read once at start. */
  remainingMs: number;
  onCycle(report: CycleReport): void;
}

export interface InvocationReport {
  owner: string;
  startedAt: string;
  /** Clusters this invocation synced. */
  held: string[];
  /** Clusters whose lease another invocation holds: not touched. */
  lost: string[];
  errors: { cluster?: string; stage: 'lease' | 'cycle'; message: string }[];
  cycles: number;
  stoppedBecause: 'done' | 'time' | 'noLease';
}

/** Shortest time worth starting a cycle in. */
const MIN_CYCLE_MS = 2_000;

/**
 * The ticks of one invocation: at once (the schedule fires at no particular second), then
 * on multiples of the period, each at least half a period after the previous one and half a
 * period before the next invocation's first tick, so gaps stay between P/2 and 3P/2.
 */
export function tickTimes(startMs: number, periodMs: number, intervalMs: number): number[] {
  const ticks = [startMs];
  for (let b = Math.ceil((startMs + periodMs / 2) / periodMs) * periodMs; b + periodMs / 2 <= startMs + intervalMs; b += periodMs) {
    ticks.push(b);
  }
  return ticks;
}

export async function runInvocation(deps: InvocationDeps, config: InvocationConfig, run: InvocationRun): Promise<InvocationReport> {
  const { clock, store } = deps;
  const start = clock.now().getTime();
  const hardDeadline = start + run.remainingMs - config.safetyMarginMs;
  const report: InvocationReport = {
    owner: run.owner,
    startedAt: new Date(start).toISOString(),
    held: [],
    lost: [],
    errors: [],
    cycles: 0,
    stoppedBecause: 'done',
  };
  // The lease lasts as long as this invocation can: a crashed one blocks the next only until its own timeout.
  const ttlSeconds = Math.max(1, Math.ceil(run.remainingMs / 1000));
  await Promise.all(
    config.clusters.map(async (c) => {
      try {
        if (await store.acquireLease(leaseName(c.name), run.owner, new Date(start), ttlSeconds)) report.held.push(c.name);
        else report.lost.push(c.name);
      } catch (e) {
        report.errors.push({ cluster: c.name, stage: 'lease', message: errorText(e) });
      }
    }),
  );
  const held = config.clusters.filter((c) => report.held.includes(c.name));
  if (held.length === 0) {
    report.stoppedBecause = 'noLease';
    return report;
  }
  const periodMs = config.syncPeriodSeconds * 1000;
  try {
    for (const tick of tickTimes(start, periodMs, config.scheduleIntervalSeconds * 1000)) {
      const wait = tick - clock.now().getTime();
      if (tick + MIN_CYCLE_MS > hardDeadline) {
        report.stoppedBecause = 'time';
        break;
      }
      if (wait > 0) await clock.sleep(wait);
      // A cycle must end before the next tick and before the invocation's deadline.
      const deadline = new Date(Math.min(clock.now().getTime() + periodMs * 0.8, hardDeadline));
      try {
        run.onCycle(await runCycle(deps, { clusters: held, deadline, options: config.options }));
        report.cycles++;
      } catch (e) {
        report.errors.push({ stage: 'cycle', message: errorText(e) });
      }
    }
  } finally {
    await Promise.all(
      held.map((c) =>
        store.releaseLease(leaseName(c.name), run.owner).catch((e: unknown) => {
          report.errors.push({ cluster: c.name, stage: 'lease', message: errorText(e) });
        }),
      ),
    );
  }
  return report;
}

export function leaseName(cluster: string): string {
  return `sync:${cluster}`;
}
