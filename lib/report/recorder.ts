// Collects one autoscaler's samples, sync by sync, into a report (simulator and demo alike).
import { summarize, type AutoscalerReport, type DecisionRow, type MetricSeries, type ReportSpan } from './model.js';
import type { Unit } from './units.js';

export interface RecorderSetup {
  name: string;
  /** The spec's bounds, drawn on the chart and counted in the summary. */
  minReplicas: number;
  maxReplicas: number;
  metrics: { name: string; label: string; target: number; unit: Unit; activation?: number }[];
  loadLabel: string;
  loadUnit: Unit;
  /** Seconds each sample stands for (the sync period). */
  intervalSeconds: number;
}

export interface Sample {
  time: number;
  /** null where the trace has a gap. */
  load: number | null;
  replicas: number;
  desired: number;
  readyPods: number;
  /** What the metrics asked for (the recommendation before behavior, within min..max); null when none. Omitted: not recorded. */
  demand?: number | null;
  /** Ours: the predictive minimum at this sample, null while it does not act. Omitted: no spec.predictive. */
  forecast?: number | null;
  /** Aligned with the setup's metrics; null where it could not be read. */
  metrics: (number | null)[];
  /** Aligned with the setup's metrics: the fallback count of a metric in fallback, else null. */
  fallbacks?: (number | null)[];
  /** Aligned with the setup's metrics: at zero replicas, the value compared with the activation threshold, else null. */
  atZero?: (number | null)[];
  rescaled: boolean;
  /** The decision-log rows of this sync (none when nothing worth a line happened). */
  decisions?: DecisionRow[];
  /** Ours: the effective minimum (scheduled minimums), and what is open or paused at this sample (span labels). */
  minimum?: number;
  spans?: { kind: ReportSpan['kind']; label: string }[];
}

export class ReportRecorder {
  private readonly r: Omit<AutoscalerReport, 'summary'>;
  private scaleEvents = 0;
  private readonly intervalSeconds: number;

  constructor(setup: RecorderSetup) {
    const { intervalSeconds, metrics, ...rest } = setup;
    this.intervalSeconds = intervalSeconds;
    this.r = {
      ...rest,
      times: [],
      load: [],
      replicas: [],
      desired: [],
      readyPods: [],
      metrics: metrics.map((m): MetricSeries => ({ ...m, current: [] })),
      decisions: [],
      notes: [],
    };
  }

  add(s: Sample): void {
    const r = this.r;
    r.times.push(s.time);
    r.load.push(s.load);
    r.replicas.push(s.replicas);
    r.desired.push(s.desired);
    r.readyPods.push(s.readyPods);
    if (s.demand !== undefined) (r.demand ??= []).push(s.demand);
    if (s.forecast !== undefined) (r.forecast ??= []).push(s.forecast);
    r.metrics.forEach((m, i) => {
      m.current.push(s.metrics[i] ?? null);
      // A fallback series only for a metric that used its fallback: the samples before it are null.
      const fallback = s.fallbacks?.[i] ?? null;
      if (fallback !== null && !m.fallback) m.fallback = new Array<number | null>(r.times.length - 1).fill(null);
      m.fallback?.push(fallback);
      if (m.activation !== undefined) (m.atZero ??= []).push(s.atZero?.[i] ?? null);
    });
    if (s.rescaled) this.scaleEvents++;
    if (s.decisions) r.decisions.push(...s.decisions);
    if (s.minimum !== undefined) (r.minimum ??= []).push(s.minimum);
    for (const span of s.spans ?? []) this.extendSpan(span, s.time);
  }

  /** The open span of this label continues to `time` when it reached the sample before; else a new one starts. */
  private extendSpan(span: { kind: ReportSpan['kind']; label: string }, time: number): void {
    const spans = (this.r.spans ??= []);
    const before = this.r.times.at(-2);
    const open = spans.findLast((x) => x.label === span.label);
    if (open && open.to === before) open.to = time;
    else spans.push({ ...span, from: time, to: time });
  }

  /** Something the reader must know to trust the figures. */
  note(text: string): void {
    this.r.notes.push(text);
  }

  report(): AutoscalerReport {
    return { ...this.r, summary: summarize(this.r, this.intervalSeconds, this.scaleEvents) };
  }
}
