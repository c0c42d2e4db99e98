// What one shard cycle reports: one record per autoscaler (a decision line when something
// happened) and a summary (one line per shard per cycle).
import type { Decision, HorizontalPodAutoscalerCondition, HpaEvent } from '#hpa';
import type { AutoscalerSource } from './ports/autoscaler-store.js';
import type { ShadowReport } from './shadow.js';
import type { TickPhase } from './tick-phase.js';
import { errorText } from '../shared/error-text.js';

/** Where an autoscaler's sync stopped or what failed. A failed read is not one: it reaches the reconcile, as upstream (FailedGetScale, FailedGet*Metric). */
export type SyncStage = 'load' | 'source' | 'validate' | 'reconcile' | 'check' | 'saveState' | 'updateScale' | 'status' | 'event' | 'deadline';

export interface StageError {
  stage: SyncStage;
  message: string;
}

/**
 * scaled: the scale was written; unchanged: computed, no write to the target needed;
 * dryRun: would have scaled; conflict: the spec or the state changed since the load, nothing acted on;
 * failed: an error stopped it; skipped: the deadline came first; broken: the stored spec is unreadable;
 * invalid: the spec fails validation and is not acted on; notAllowed: its namespace is outside the allowlist.
 */
export type AutoscalerOutcome = 'scaled' | 'unchanged' | 'dryRun' | 'conflict' | 'failed' | 'skipped' | 'broken' | 'invalid' | 'notAllowed';

/** written / unchanged (nothing to write) / conflict / failed / skipped (not attempted). */
export type StoredState = 'written' | 'unchanged' | 'conflict' | 'failed' | 'skipped';

export interface AutoscalerReport {
  cluster: string;
  namespace: string;
  name: string;
  source: AutoscalerSource;
  outcome: AutoscalerOutcome;
  dryRun: boolean;
  /** The scale subresource was written this cycle. */
  patched: boolean;
  stored: StoredState;
  currentReplicas?: number;
  desiredReplicas?: number;
  decision?: Decision;
  conditions?: HorizontalPodAutoscalerCondition[];
  events?: HpaEvent[];
  /** While shadowing a live autoscaler (lib/sync/shadow.ts): ours against its HPA's status. */
  shadow?: ShadowReport;
  /** Partial-result notes from the metric sources (e.g. CloudWatch Messages). */
  metricMessages?: string[];
  errors: StageError[];
  /** Repairs and doubts that did not stop it (a state reset, an unconfirmed scale). */
  warnings: string[];
  /**
   * Something worth a decision line happened: desired differs from current, an error or a warning,
   * a condition changed, or another metric now gives the replica count. Not metrics that merely disagree.
   */
  notable: boolean;
  /** A conflict on the target's scale: evaluate again soon, as upstream requeues. */
  retrySoon?: boolean;
  /** Left by the deadline at this tick and the one before. */
  deferredAgain?: boolean;
}

/** Calls the cycle made (each is one API round trip or more for paginated ones). */
export interface CycleCalls {
  loadShard: number;
  listAutoscalerObjects: number;
  getScale: number;
  /** LISTs of a namespace's Deployments, StatefulSets or ReplicaSets, each in place of GET /scale of its targets. */
  listScales: number;
  listPods: number;
  fetchAll: number;
  /** Distinct cluster metric queries. */
  metricQueries: number;
  specChecks: number;
  updateScale: number;
  saveState: number;
  statusWrites: number;
  events: number;
}

/** deferred: skipped because the deadline came first (carried to the next tick), a part of skipped; deferredAgain: of them, those left at the tick before too. */
export type CycleCounts = Record<AutoscalerOutcome, number> & { autoscalers: number; errors: number; evaluated: number; deferred: number; deferredAgain: number };

export interface CycleReport {
  shard: string;
  trigger: 'tick' | 'evaluate';
  /** The tick's time, or what asked for the evaluation. */
  tick?: string;
  reason?: string;
  startedAt: string;
  durationMs: number;
  autoscalers: AutoscalerReport[];
  counts: CycleCounts;
  calls: CycleCalls;
  /** Failures of the shard as a whole (its load, the list of autoscaler objects). */
  errors: StageError[];
  warnings: string[];
  /** The shard could not be loaded: nothing was evaluated. */
  failed: boolean;
  /** The alarms the shard's CloudWatchMetric objects name (spec.alarmName), when all of them could be read. */
  alarms?: string[];
  /** The phase of the pod metrics this cycle read within the period: where the shard's ticks go (lib/sync/tick-phase.ts). */
  phase?: TickPhase;
  /** A tick a second early: how long it waited for its pod metrics to change (lib/sync/fresh-gate.ts), in how many reads, and whether they did. */
  storeWait?: { namespace: string; waitedMs: number; reads: number; changed: boolean };
  /** A tick: the period the shard should tick at, when its autoscalers ask for faster than the deploy's (lib/sync/sync-periods.ts). */
  tickPeriodSeconds?: number;
}

export function emptyCalls(): CycleCalls {
  return { loadShard: 0, listAutoscalerObjects: 0, getScale: 0, listScales: 0, listPods: 0, fetchAll: 0, metricQueries: 0, specChecks: 0, updateScale: 0, saveState: 0, statusWrites: 0, events: 0 };
}

export function countOutcomes(reports: AutoscalerReport[]): CycleCounts {
  const counts: CycleCounts = {
    autoscalers: reports.length,
    evaluated: 0,
    errors: 0,
    deferred: 0,
    deferredAgain: 0,
    scaled: 0,
    unchanged: 0,
    dryRun: 0,
    conflict: 0,
    failed: 0,
    skipped: 0,
    broken: 0,
    invalid: 0,
    notAllowed: 0,
  };
  for (const r of reports) {
    counts[r.outcome]++;
    if (r.decision) counts.evaluated++;
    if (r.errors.length > 0) counts.errors++;
    if (isDeferred(r)) counts.deferred++;
    if (r.deferredAgain) counts.deferredAgain++;
  }
  return counts;
}

/** An autoscaler the deadline left unevaluated (before or during its evaluation, before anything was written). */
export function isDeferred(a: AutoscalerReport): boolean {
  return a.outcome === 'skipped' && a.errors.some((e) => e.stage === 'deadline');
}

export { errorText };
