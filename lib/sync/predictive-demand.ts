// Ours (issue 32): spec.predictive's demand history in a worker's sync. It is read with the state
// (lib/store/demand-codec.ts), updated in place by reconcile, and saved with the state by the store,
// which writes it when a bucket closes or its newest value rises (lib/store/history.ts needsWrite).
import type { DemandHistory, ReconcilePlan } from '#hpa';
import type { AutoscalerRecord } from './ports/autoscaler-store.js';

/** The reconcile input's demand: the stored one, when there is one. */
export function demandOf(record: AutoscalerRecord): { demand?: DemandHistory } {
  return record.demand ? { demand: record.demand } : {};
}

/** The demand the plan learned becomes the record's, which the store saves with the state. */
export function keepDemand(record: AutoscalerRecord, plan: ReconcilePlan): void {
  if (plan.demand) record.demand = plan.demand;
}
