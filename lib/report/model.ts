// What a report shows, per autoscaler: the simulator and the demo both fill it.

export interface MetricSeries {
  /** e.g. "cpu (Utilization)" or "jobs-backlog (AverageValue)". */
  label: string;
  /** The target in the same unit as current. */
  target: number;
  /** Current value per sample; null where the metric could not be read. */
  current: (number | null)[];
}

export interface DecisionLogEntry {
  /** Epoch milliseconds. */
  time: number;
  /** One line: what changed and why. */
  text: string;
}

export interface AutoscalerSummary {
  minReplicas: number;
  maxReplicas: number;
  scaleEvents: number;
  /** Seconds during which some metric was above its target. */
  secondsAboveTarget: number;
  /** Sum over samples of pods (ready or not) × sample interval, in minutes. */
  podMinutes: number;
}

export interface AutoscalerReport {
  /** e.g. "workers/jobs-worker" or the HPA file name when comparing files. */
  name: string;
  /** Epoch milliseconds per sample. */
  times: number[];
  load: number[];
  /** spec.replicas after the sync. */
  replicas: number[];
  /** The HPA's desired replicas (status.desiredReplicas). */
  desired: number[];
  readyPods: number[];
  metrics: MetricSeries[];
  decisions: DecisionLogEntry[];
  summary: AutoscalerSummary;
}

export interface Report {
  title: string;
  /** A line under the title: trace, sync period, ... */
  subtitle: string;
  autoscalers: AutoscalerReport[];
}

/** Summary figures from the series; `intervalSeconds` is the time each sample stands for. */
export function summarize(a: Omit<AutoscalerReport, 'summary'>, intervalSeconds: number, scaleEvents: number): AutoscalerSummary {
  let above = 0;
  let pods = 0;
  // A loop, not Math.min(...replicas): spreading a month of samples overflows the call stack.
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < a.times.length; i++) {
    if (a.metrics.some((m) => (m.current[i] ?? -Infinity) > m.target)) above += intervalSeconds;
    pods += a.replicas[i] * intervalSeconds;
    min = Math.min(min, a.replicas[i]);
    max = Math.max(max, a.replicas[i]);
  }
  return {
    minReplicas: a.times.length ? min : 0,
    maxReplicas: a.times.length ? max : 0,
    scaleEvents,
    secondsAboveTarget: above,
    podMinutes: pods / 60,
  };
}
