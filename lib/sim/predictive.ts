// The simulator's predictive minimum (issue 32): it learns from the trace itself, sync by sync, as
// the worker learns from the history it stores. This module holds everything the simulator knows of
// spec.predictive, so that it can follow lib/hpa's reconcile when that carries the demand history.
import type { HorizontalPodAutoscaler } from '#hpa';
// Straight from the forecast until lib/hpa's index exports it with the spec.predictive contract.
import {
  assessForecast,
  DEFAULT_FORECAST_SETTINGS,
  type DemandHistory,
  type ForecastAssessment,
  type ForecastSettings,
  predictiveMinimum,
  recordDemand,
} from '../hpa/forecast.js';

/** spec.predictive as the simulator reads it; unset fields take the shipped defaults. */
export interface PredictiveSettings {
  mode: 'ForecastOnly' | 'ForecastAndScale';
  schedulingBufferSeconds?: number;
  historySeconds?: number;
  minHistorySeconds?: number;
  maxReplicasBehavior?: 'HonorMaxReplicas' | 'IncreaseMaxReplicas';
}

/** The pattern check runs this often per autoscaler, as AWS refreshes its forecast (docs/predictive.md). */
const ASSESS_EVERY_MS = 6 * 3600_000;

export class PredictiveReplay {
  private history: DemandHistory | undefined;
  private assessment: ForecastAssessment | undefined;
  private assessedAt = -Infinity;
  private readonly settings: ForecastSettings;

  constructor(
    private readonly spec: PredictiveSettings,
    private readonly maxReplicas: number,
  ) {
    this.settings = {
      schedulingBufferSeconds: spec.schedulingBufferSeconds ?? DEFAULT_FORECAST_SETTINGS.schedulingBufferSeconds,
      historySeconds: spec.historySeconds ?? DEFAULT_FORECAST_SETTINGS.historySeconds,
      minHistorySeconds: spec.minHistorySeconds ?? DEFAULT_FORECAST_SETTINGS.minHistorySeconds,
    };
  }

  /** The predictive minimum at `now` from the demand recorded before it; null while it does not act. */
  minimum(now: Date): number | null {
    if (this.history && now.getTime() - this.assessedAt >= ASSESS_EVERY_MS) {
      this.assessment = assessForecast(this.history, now, this.settings.historySeconds);
      this.assessedAt = now.getTime();
    }
    const honourMax = this.spec.maxReplicasBehavior !== 'IncreaseMaxReplicas';
    const m = predictiveMinimum(this.history, now, this.maxReplicas, this.settings, honourMax, this.assessment);
    return m.acting ? m.replicas : null;
  }

  /** The autoscaler this sync reconciles: with ForecastAndScale, its minimum raised to the forecast (never lowered). */
  reconciled(hpa: HorizontalPodAutoscaler, minimum: number | null): HorizontalPodAutoscaler {
    const min = hpa.spec.minReplicas ?? 1;
    if (this.spec.mode !== 'ForecastAndScale' || minimum === null || minimum <= min) return hpa;
    // With IncreaseMaxReplicas the forecast may pass maxReplicas: the maximum follows it, as AWS's max capacity does.
    return { ...hpa, spec: { ...hpa.spec, minReplicas: minimum, maxReplicas: Math.max(hpa.spec.maxReplicas, minimum) } };
  }

  /** After the sync: what the metrics asked for (null: nothing) joins the history. */
  record(now: Date, demand: number | null): void {
    if (demand !== null) this.history = recordDemand(this.history, now, demand, this.settings.historySeconds);
  }
}

/** The replay for an autoscaler with spec.predictive, else undefined. */
export function predictiveReplay(hpa: HorizontalPodAutoscaler): PredictiveReplay | undefined {
  const spec = (hpa.spec as { predictive?: PredictiveSettings }).predictive;
  return spec ? new PredictiveReplay(spec, hpa.spec.maxReplicas) : undefined;
}
