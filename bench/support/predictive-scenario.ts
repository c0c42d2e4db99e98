// Issue 32's scenario through the real simulator (lib/sim, lib/hpa's reconcile): one autoscaler on
// an External metric of one replica's worth a pod (so the metrics ask for ceil(load) replicas),
// minReplicas 2, maxReplicas 200, no behavior (upstream's defaults: doubling or +4 pods a sync up,
// 300 s downscale stabilization), a 15 s sync and pods ready 120 s after creation; run without
// spec.predictive, with ForecastOnly and with ForecastAndScale at the shipped settings.
import type { HorizontalPodAutoscaler } from '#hpa';
import type { AutoscalerReport } from '../../lib/report/model.js';
import { simulate } from '../../lib/sim/simulate.js';
import type { Trace } from '../../lib/sim/trace.js';
import { type LoadTrace, TRACE_START, TRACE_STEP_SECONDS } from './predictive-traces.js';

export const POD_START_SECONDS = 120;
export const SYNC_SECONDS = 15;
export const MODES = ['off', 'ForecastOnly', 'ForecastAndScale'] as const;
export type ScenarioMode = (typeof MODES)[number];

export function scenarioHpa(mode: ScenarioMode): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'bench' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 200,
      metrics: [{ type: 'External', external: { metric: { name: 'load' }, target: { type: 'AverageValue', averageValue: '1' } } }],
      // The shipped settings: only the mode is given.
      ...(mode === 'off' ? {} : { predictive: { mode } }),
    },
  };
}

/** The load as a simulator trace: one column `load`, a point every 15 s. */
export function scenarioTrace(load: LoadTrace): Trace {
  const times = Array.from({ length: load.demand.length }, (_, i) => TRACE_START + i * TRACE_STEP_SECONDS * 1000);
  return { series: ['load'], times, values: [Array.from(load.demand)] };
}

export function runScenario(load: LoadTrace, mode: ScenarioMode, trace: Trace = scenarioTrace(load), metricDelaySeconds = 0): AutoscalerReport {
  return simulate(scenarioHpa(mode), trace, { syncPeriodSeconds: SYNC_SECONDS, readyDelaySeconds: POD_START_SECONDS, metricDelaySeconds, name: `${load.name}, ${mode}` });
}

export interface ScenarioOutcome {
  trace: string;
  off: AutoscalerReport['summary'];
  forecastOnly: AutoscalerReport['summary'];
  forecastAndScale: AutoscalerReport['summary'];
  /** ForecastOnly's replicas equal those without spec.predictive at every sync. */
  forecastOnlyIdentical: boolean;
  /** Syncs at which the predictive minimum acted (ForecastAndScale). */
  syncsActing: number;
  reports: Record<ScenarioMode, AutoscalerReport>;
}

export function runScenarios(load: LoadTrace, metricDelaySeconds = 0): ScenarioOutcome {
  const trace = scenarioTrace(load);
  const reports = Object.fromEntries(MODES.map((m) => [m, runScenario(load, m, trace, metricDelaySeconds)])) as Record<ScenarioMode, AutoscalerReport>;
  const off = reports.off.replicas;
  const only = reports.ForecastOnly.replicas;
  return {
    trace: load.name,
    off: reports.off.summary,
    forecastOnly: reports.ForecastOnly.summary,
    forecastAndScale: reports.ForecastAndScale.summary,
    forecastOnlyIdentical: off.length === only.length && off.every((r, i) => r === only[i]),
    syncsActing: (reports.ForecastAndScale.forecast ?? []).filter((f) => f !== null).length,
    reports,
  };
}
