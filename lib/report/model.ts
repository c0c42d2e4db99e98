// What a report shows, per autoscaler: the simulator and the demo both fill it.
import type { Unit } from './units.js';

export interface MetricSeries {
  /** The metric's name: "cpu", "jobs-backlog". */
  name: string;
  /** e.g. "cpu (Resource, Utilization)". */
  label: string;
  unit: Unit;
  /** The target in the same unit as current. */
  target: number;
  /** Current value per sample; null where the metric could not be read. */
  current: (number | null)[];
  /** KEP-5679: the fallback replica count per sample while the metric was in fallback, else null; absent when it never was. */
  fallback?: (number | null)[];
  /** Ours: the activation threshold (lib/hpa/activation.ts), and per sample at zero replicas the value compared with it, else null. */
  activation?: number;
  atZero?: (number | null)[];
}

/** One line of the decision log: a rescale, an event, or a change of what limits the autoscaler. */
export interface DecisionRow {
  /** Epoch milliseconds. */
  time: number;
  /** Replicas before and after this sync. */
  from: number;
  to: number;
  type: 'Normal' | 'Warning';
  /** Upstream's event or condition reason: SuccessfulRescale, FailedGetExternalMetric, ScaleDownStabilized, ... */
  reason: string;
  /** Upstream's words: "New size: 4; reason: cpu resource utilization (percentage of request) above target". */
  message: string;
  /** The condition that held the count back, as upstream words it: "ScaleUpLimit: the desired replica count is increasing faster than ...". */
  limit?: string;
  /** Each metric's current/target: "cpu 92%/60%, memory 1.18Gi/1Gi". */
  metrics: string;
  /** All of the above on one line (the terminal, tests, a text search). */
  text: string;
}

export interface AutoscalerSummary {
  /** Replicas seen during the run (not the spec's minReplicas/maxReplicas). */
  lowestReplicas: number;
  highestReplicas: number;
  /** Time spent at the spec's minReplicas and at its maxReplicas. */
  secondsAtMin: number;
  secondsAtMax: number;
  scaleEvents: number;
  /** Seconds during which some metric was above its target. */
  secondsAboveTarget: number;
  /** Sum over samples of pods (ready or not) × sample interval, in hours: the cost proxy. */
  podHours: number;
  /** The same in minutes: replicas (spec.replicas, i.e. pods ready or not) × each sample's minutes. */
  replicaMinutes: number;
  /**
   * Ours (issue 32): at each sample, the replicas the metrics asked for (the recommendation before
   * behavior, within minReplicas..maxReplicas) beyond the ready pods, times the sample's minutes.
   * 0 where the metrics gave no recommendation (none could be read, scaling skipped).
   */
  underProvisionedReplicaMinutes: number;
}

export interface AutoscalerReport {
  /** e.g. "workers/jobs-worker" or the HPA file name when comparing files. */
  name: string;
  /** The spec's bounds. */
  minReplicas: number;
  maxReplicas: number;
  /** Epoch milliseconds per sample. */
  times: number[];
  /** The load driving the workload: "load (cpu, cores)", and its unit. */
  loadLabel: string;
  loadUnit: Unit;
  /** null inside a gap of the trace: drawn as a gap, not carried flat through it. */
  load: (number | null)[];
  /** spec.replicas after the sync. */
  replicas: number[];
  /** The HPA's desired replicas (status.desiredReplicas). */
  desired: number[];
  readyPods: number[];
  /** What the metrics asked for per sample (the recommendation before behavior, within min..max); null when none. */
  demand?: (number | null)[];
  /** Ours, only for an autoscaler with spec.predictive: the predictive minimum per sample, null while it does not act. */
  forecast?: (number | null)[];
  metrics: MetricSeries[];
  decisions: DecisionRow[];
  /** Things the reader must know to trust the figures (e.g. a metric that read another trace column). */
  notes: string[];
  summary: AutoscalerSummary;
  /** Ours, only for an autoscaler with scheduled minimums: the effective minimum per sample. */
  minimum?: number[];
  /** Ours, only when some were: the spans a schedule window was open or a direction paused. */
  spans?: ReportSpan[];
}

/** A span of the run during which a schedule window was open or a direction was paused. */
export interface ReportSpan {
  kind: 'window' | 'pause';
  /** "window day (minReplicas 10)", "scale down paused". */
  label: string;
  /** Epoch milliseconds of the first and last sample inside it. */
  from: number;
  to: number;
}

export interface Report {
  title: string;
  /** A line under the title: trace, sync period, ... */
  subtitle: string;
  /** Several behaviors on the same load: their replicas overlaid on one chart first. */
  compare?: boolean;
  autoscalers: AutoscalerReport[];
}

/** Summary figures from the series; `intervalSeconds` is the time each sample stands for. */
export function summarize(a: Omit<AutoscalerReport, 'summary'>, intervalSeconds: number, scaleEvents: number): AutoscalerSummary {
  let above = 0;
  let podSeconds = 0;
  let underSeconds = 0;
  let atMin = 0;
  let atMax = 0;
  // A loop, not Math.min(...replicas): spreading a month of samples overflows the call stack.
  let lowest = Infinity;
  let highest = -Infinity;
  for (let i = 0; i < a.times.length; i++) {
    const r = a.replicas[i];
    if (a.metrics.some((m) => (m.current[i] ?? -Infinity) > m.target)) above += intervalSeconds;
    podSeconds += r * intervalSeconds;
    const demand = a.demand?.[i] ?? null;
    if (demand !== null) underSeconds += Math.max(0, demand - a.readyPods[i]) * intervalSeconds;
    if (r === a.minReplicas) atMin += intervalSeconds;
    if (r === a.maxReplicas) atMax += intervalSeconds;
    lowest = Math.min(lowest, r);
    highest = Math.max(highest, r);
  }
  return {
    lowestReplicas: a.times.length ? lowest : 0,
    highestReplicas: a.times.length ? highest : 0,
    secondsAtMin: atMin,
    secondsAtMax: atMax,
    scaleEvents,
    secondsAboveTarget: above,
    podHours: podSeconds / 3600,
    replicaMinutes: podSeconds / 60,
    underProvisionedReplicaMinutes: underSeconds / 60,
  };
}
