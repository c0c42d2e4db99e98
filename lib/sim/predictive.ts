// The simulator's side of spec.predictive (issue 32): the demand history the worker stores with each
// autoscaler, carried here from one sync to the next. It starts empty, so the forecast learns from the
// trace itself, as a new autoscaler learns from its own history; lib/hpa's reconcile reads it, raises
// the minimum with it (ForecastAndScale) and returns it with this sync's recommendation learned.
import type { Decision, DemandHistory, HorizontalPodAutoscaler, ReconcileResult } from '#hpa';

export class PredictiveReplay {
  private demand: DemandHistory | undefined;

  /** What this sync's reconcile reads. */
  input(): { demand?: DemandHistory } {
    return this.demand ? { demand: this.demand } : {};
  }

  /** After the sync: keeps the history it returns; the predictive minimum drawn on the chart, null while it does not act. */
  learn(result: Pick<ReconcileResult, 'demand'> & { decision: Decision }): number | null {
    this.demand = result.demand ?? this.demand;
    return result.decision.predictive?.replicas ?? null;
  }
}

/** The replay for an autoscaler with spec.predictive, else undefined. */
export function predictiveReplay(hpa: HorizontalPodAutoscaler): PredictiveReplay | undefined {
  return hpa.spec.predictive ? new PredictiveReplay() : undefined;
}
