// What one cycle reports: one record per autoscaler (logged as one line) and a summary.
import type { Decision, HpaEvent } from '../hpa/reconcile.js';
import type { HorizontalPodAutoscalerCondition } from '../hpa/types.js';

/** Where an autoscaler's sync stopped. A failed read is not one: it reaches the reconcile, as upstream (FailedGetScale, FailedGet*Metric). */
export type SyncStage = 'load' | 'reconcile' | 'saveState' | 'updateScale' | 'deadline';

export interface StageError {
  stage: SyncStage;
  message: string;
}

/**
 * scaled: the scale was written; unchanged: computed, no write to the target needed;
 * dryRun: would have scaled; conflict: another writer changed the record, nothing written;
 * failed: an error stopped it; skipped: the deadline came first; broken: the stored record is unreadable.
 */
export type AutoscalerOutcome = 'scaled' | 'unchanged' | 'dryRun' | 'conflict' | 'failed' | 'skipped' | 'broken';

/** written / unchanged (nothing to write) / conflict / failed / skipped (not attempted). */
export type StoredState = 'written' | 'unchanged' | 'conflict' | 'failed' | 'skipped';

export interface AutoscalerReport {
  cluster: string;
  namespace: string;
  name: string;
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
  /** Partial-result notes from the metric sources (e.g. CloudWatch Messages). */
  metricMessages?: string[];
  errors: StageError[];
}

export interface ClusterReport {
  name: string;
  autoscalers: number;
  error?: StageError;
}

/** Port calls made by the cycle (each is one API round trip or more for paginated ones). */
export interface CycleCalls {
  loadCluster: number;
  getScale: number;
  listPods: number;
  fetchAll: number;
  /** Distinct metric queries handed to fetchAll. */
  metricQueries: number;
  updateScale: number;
  saveState: number;
}

export type CycleCounts = Record<AutoscalerOutcome, number> & { autoscalers: number; errors: number };

export interface CycleReport {
  startedAt: string;
  durationMs: number;
  clusters: ClusterReport[];
  autoscalers: AutoscalerReport[];
  counts: CycleCounts;
  calls: CycleCalls;
}

export function countOutcomes(reports: AutoscalerReport[]): CycleCounts {
  const counts: CycleCounts = {
    autoscalers: reports.length,
    errors: 0,
    scaled: 0,
    unchanged: 0,
    dryRun: 0,
    conflict: 0,
    failed: 0,
    skipped: 0,
    broken: 0,
  };
  for (const r of reports) {
    counts[r.outcome]++;
    if (r.errors.length > 0) counts.errors++;
  }
  return counts;
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
