// Collects one autoscaler's samples, sync by sync, into a report (simulator and demo alike).
import { summarize, type AutoscalerReport, type MetricSeries } from './model.js';

export interface Sample {
  time: number;
  load: number;
  replicas: number;
  desired: number;
  readyPods: number;
  /** Aligned with the metrics given to the constructor; null where it could not be read. */
  metrics: (number | null)[];
  rescaled: boolean;
  /** A line for the decision log, or undefined when this sync is not worth one. */
  log?: string;
}

export class ReportRecorder {
  private readonly r: Omit<AutoscalerReport, 'summary'>;
  private scaleEvents = 0;

  constructor(
    name: string,
    metrics: { label: string; target: number }[],
    private readonly intervalSeconds: number,
  ) {
    this.r = {
      name,
      times: [],
      load: [],
      replicas: [],
      desired: [],
      readyPods: [],
      metrics: metrics.map((m): MetricSeries => ({ ...m, current: [] })),
      decisions: [],
    };
  }

  add(s: Sample): void {
    const r = this.r;
    r.times.push(s.time);
    r.load.push(s.load);
    r.replicas.push(s.replicas);
    r.desired.push(s.desired);
    r.readyPods.push(s.readyPods);
    r.metrics.forEach((m, i) => m.current.push(s.metrics[i] ?? null));
    if (s.rescaled) this.scaleEvents++;
    if (s.log !== undefined) r.decisions.push({ time: s.time, text: s.log });
  }

  report(): AutoscalerReport {
    return { ...this.r, summary: summarize(this.r, this.intervalSeconds, this.scaleEvents) };
  }
}
