// Which shard cycles get a "cycle" line, and which dispatcher minutes a "dispatch" line. Every
// tick's line was ~1 KB, the largest part of the logs of a small deploy (lib/cost). A cycle or
// minute that did something worth reviewing is written every time; a quiet one follows the quiet
// decision line's rule (functions/log.ts isQuietLineDue): at most once per
// SHPA_DECISION_LOG_SECONDS per shard (or for the dispatcher), at a time spread per shard,
// carrying the count of the quiet ones this container left unwritten since its last line. The
// count lives in the container: one Lambda recycles loses its count, never a line of a cycle that
// did something.
import { type CycleReport, parseShardId } from '#sync/messaging';

/** Why a cycle line is written: what happened, or "due" (the quiet line of its interval). */
export type CycleLineReason = 'evaluate' | 'failed' | 'errors' | 'warnings' | 'autoscalers' | 'layout' | 'tickPeriod' | 'due';

/** The quiet cycles of the shard this container did not write, since `since` (the first of them), and the longest. */
export interface QuietCycles {
  cycles: number;
  since: string;
  maxDurationMs: number;
}

export type CycleLineChoice = { write: false } | { write: true; why: CycleLineReason[]; quiet?: QuietCycles };

/** What this container remembers of a shard: its unwritten quiet cycles and what a change is measured against. */
interface ShardMemory {
  quiet?: QuietCycles;
  /** The period its last tick asked for (absent: no tick seen yet). The tick phase is not compared: it moves with the pods' samples. */
  last?: { tickPeriodSeconds?: number };
}

/**
 * The reasons a cycle is worth its line whatever the interval: an evaluation (events are rare and
 * asked for), a failed load, errors or warnings of the shard, any autoscaler that did more than
 * stay unchanged and quiet (scaled, dry run, conflict, failed, deferred by the deadline, invalid,
 * not allowed, notable, patched).
 */
export function eventfulReasons(cycle: CycleReport): CycleLineReason[] {
  const why: CycleLineReason[] = [];
  if (cycle.trigger === 'evaluate') why.push('evaluate');
  if (cycle.failed) why.push('failed');
  if (cycle.errors.length > 0 || cycle.counts.errors > 0) why.push('errors');
  if (cycle.warnings.length > 0) why.push('warnings');
  if (cycle.autoscalers.some((a) => a.notable || a.patched || a.outcome !== 'unchanged' || a.errors.length > 0 || a.warnings.length > 0)) why.push('autoscalers');
  return why;
}

/** One container's choice of cycle lines, shard by shard (functions/worker.ts keeps one). */
export class CycleLineGate {
  private readonly shards = new Map<string, ShardMemory>();
  /** Each cluster's shard count in this container's last cycle of it. */
  private readonly layouts = new Map<string, number>();

  /**
   * Whether this cycle's line is written, why, and the quiet cycles it carries. `due` says whether the shard's
   * quiet line of the interval falls on this cycle.
   */
  chooseCycleLine(cycle: CycleReport, due: boolean): CycleLineChoice {
    const why = [...eventfulReasons(cycle), ...this.noteChanges(cycle)];
    const memory = this.memoryOf(cycle.shard);
    if (why.length === 0 && !due) {
      const q = (memory.quiet ??= { cycles: 0, since: cycle.startedAt, maxDurationMs: 0 });
      q.cycles++;
      q.maxDurationMs = Math.max(q.maxDurationMs, cycle.durationMs);
      return { write: false };
    }
    if (why.length === 0) why.push('due');
    const quiet = memory.quiet;
    memory.quiet = undefined;
    return { write: true, why, ...(quiet ? { quiet } : {}) };
  }

  /** A changed shard count of the cluster, or tick period of the shard, against this container's last cycle of it. */
  private noteChanges(cycle: CycleReport): CycleLineReason[] {
    const why: CycleLineReason[] = [];
    const memory = this.memoryOf(cycle.shard);
    const layout = layoutOf(cycle.shard);
    if (layout) {
      const before = this.layouts.get(layout.cluster);
      if (before !== undefined && before !== layout.count) why.push('layout');
      this.layouts.set(layout.cluster, layout.count);
    }
    if (cycle.trigger === 'tick') {
      if (memory.last && memory.last.tickPeriodSeconds !== cycle.tickPeriodSeconds) why.push('tickPeriod');
      memory.last = { tickPeriodSeconds: cycle.tickPeriodSeconds };
    }
    return why;
  }

  private memoryOf(shard: string): ShardMemory {
    let memory = this.shards.get(shard);
    if (!memory) {
      memory = {};
      this.shards.set(shard, memory);
    }
    return memory;
  }
}

function layoutOf(shard: string): { cluster: string; count: number } | undefined {
  try {
    const ref = parseShardId(shard);
    return { cluster: ref.cluster, count: ref.count };
  } catch {
    return undefined;
  }
}

/** Why a dispatch line is written: what happened, or "due" (the quiet line of its interval). */
export type DispatchLineReason = 'lost' | 'late' | 'retried' | 'errors' | 'shards' | 'due';

/** What of the dispatcher's minute decides whether its line is written. */
export interface DispatchSummary {
  lost: number;
  late: number;
  attempts: number;
  errors: string[];
  /** Shards per cluster and the shards' tick timings: a change of either is written. */
  shards?: unknown;
  timings?: unknown;
  scheduledAt?: string;
}

export type DispatchLineChoice = { write: false } | { write: true; why: DispatchLineReason[]; quiet?: { minutes: number; since: string } };

/** One dispatcher container's choice of dispatch lines. */
export class DispatchLineGate {
  private layout?: string;
  private quiet?: { minutes: number; since: string };

  chooseDispatchLine(d: DispatchSummary, due: boolean): DispatchLineChoice {
    const why: DispatchLineReason[] = [];
    if (d.lost > 0) why.push('lost');
    if (d.late > 0) why.push('late');
    if (d.attempts > 1) why.push('retried');
    if (d.errors.length > 0) why.push('errors');
    const layout = JSON.stringify([d.shards, d.timings]);
    if (this.layout !== undefined && layout !== this.layout) why.push('shards');
    this.layout = layout;
    if (why.length === 0 && !due) {
      this.quiet ??= { minutes: 0, since: d.scheduledAt ?? '' };
      this.quiet.minutes++;
      return { write: false };
    }
    if (why.length === 0) why.push('due');
    const quiet = this.quiet;
    this.quiet = undefined;
    return { write: true, why, ...(quiet ? { quiet } : {}) };
  }
}

