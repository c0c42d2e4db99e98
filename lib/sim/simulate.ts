// Replays a metric trace through lib/hpa's reconcile, one sync period at a time,
// against the simulator's workload. Pure: no I/O, time comes from the trace.
import { applyDefaults, DEFAULT_CONTROLLER_SETTINGS } from '#hpa/api';
import {
  completeReconcile,
  type ControllerSettings,
  type Decision,
  type HorizontalPodAutoscaler,
  type MetricData,
  type MetricSpec,
  planReconcile,
  PodSelectorIndex,
  type ScalingHistory,
  ScheduleCache,
  withScaledToZeroCondition,
} from '#hpa';
import type { AutoscalerReport } from '../report/model.js';
import { ReportRecorder } from '../report/recorder.js';
import { unitLabel } from '../report/units.js';
import { decisionRows, limitText, metricActivationValues, metricFallbacks, metricValues } from './explain.js';
import { amountUnit, metricName, metricTarget, reportSetup } from './metric-info.js';
import { predictiveReplay } from './predictive.js';
import { findSeries, readingAt, valueAt, type Trace } from './trace.js';
import { windowSample } from './windows.js';
import { milliQuantity, SimWorkload } from './workload.js';

export interface SimulateOptions {
  /** Seconds between syncs (upstream --horizontal-pod-autoscaler-sync-period, default 15). */
  syncPeriodSeconds: number;
  /** Seconds from a pod's creation to Ready. */
  readyDelaySeconds: number;
  /** Seconds the metrics lag the load (a metrics pipeline's delay, e.g. CloudWatch's): each sync reads the trace this far back. Default 0. */
  metricDelaySeconds?: number;
  /** Per-pod requests, e.g. { cpu: '1', memory: '1Gi' }: Utilization targets divide usage by these. */
  requests?: Record<string, string>;
  /** Replicas at the start; default status.currentReplicas, else minReplicas. */
  initialReplicas?: number;
  settings?: ControllerSettings;
  /** Report name; default namespace/name. */
  name?: string;
  /** Metric name -> trace column, for metrics whose column is named otherwise (--column). */
  columns?: Record<string, string>;
  /** What the reader must know about this run (fallbackNotes), shown with the report. */
  notes?: string[];
}

export const DEFAULT_REQUESTS: Record<string, string> = { cpu: '1', memory: '1Gi' };

/** A metric the trace cannot drive: no column of its name, and no single column to fall back on. */
export class TraceColumnError extends Error {
  override readonly name = 'TraceColumnError';
}

/** A metric that reads the trace's only column, not named after it. */
export interface ColumnFallback {
  /** "spec.metrics[0] (External metric jobs-backlog)". */
  what: string;
  name: string;
}

/**
 * The trace column each metric reads: a column named like the metric, or the one --column names; else
 * the trace's only column (a fallback, see fallbackNotes); with several columns, none (an error).
 */
export function traceColumns(metrics: MetricSpec[], trace: Trace, columns: Record<string, string> = {}): { series: number[]; fallbacks: ColumnFallback[] } {
  const fallbacks: ColumnFallback[] = [];
  const list = trace.series.map((s) => JSON.stringify(s)).join(', ');
  const series = metrics.map((m, i) => {
    const name = metricName(m);
    const what = `spec.metrics[${i}] (${m.type} metric ${name})`;
    const mapped = columns[name];
    if (mapped !== undefined) {
      const s = findSeries(trace, mapped);
      if (s < 0) throw new TraceColumnError(`--column ${name}=${mapped}: the trace has no column ${JSON.stringify(mapped)} (its columns: ${list})`);
      return s;
    }
    const own = findSeries(trace, name);
    if (own >= 0) return own;
    if (trace.series.length === 1) {
      fallbacks.push({ what, name });
      return 0;
    }
    throw new TraceColumnError(`${what}: the trace has no column named ${name} (its columns: ${list}): add one, or map one with --column ${name}=COLUMN`);
  });
  return { series, fallbacks };
}

/**
 * One unnamed column is the load of every metric that falls back on it: fine while they all measure the
 * same thing (one name), misleading as soon as they do not (cpu and jobs-backlog, cpu and memory).
 * The note for each fallback of `all` (every autoscaler of the run), by position; [] when they agree.
 */
export function fallbackNotes(all: ColumnFallback[][], trace: Trace): string[][] {
  const names = [...new Set(all.flat().map((f) => f.name))];
  if (names.length < 2) return all.map(() => []);
  const column = JSON.stringify(trace.series[0]);
  return all.map((fallbacks) =>
    fallbacks.map(
      (f) =>
        `${f.what} reads the trace's only column ${column}, as do metrics named ${names.filter((n) => n !== f.name).join(', ')}: one column cannot be the load of all of them; name a column ${f.name}, or pass --column ${f.name}=COLUMN`,
    ),
  );
}

/** What the metrics APIs would answer for one metric, given the trace's load (total, in the metric's unit); undefined: a gap. */
function metricData(m: MetricSpec, w: SimWorkload, load: number | undefined, now: Date): MetricData {
  const timestamp = now.toISOString();
  if (load === undefined) return gapData(m);
  switch (m.type) {
    case 'Resource':
      return { podMetrics: { value: w.podMetrics(m.resource!.name, load, now) } };
    case 'ContainerResource':
      return { podMetrics: { value: w.podMetrics(m.containerResource!.name, load, now) } };
    case 'Pods':
      return { podCustomMetrics: { value: w.podCustomMetrics(load, now) } };
    case 'Object':
      // AverageValue divides by the scale's status replicas inside lib/hpa, as upstream.
      return { objectMetric: { value: { value: milliQuantity(load), timestamp } } };
    case 'External':
      return { externalMetrics: { value: [{ value: milliQuantity(load), timestamp }] } };
  }
}

/** A gap in the trace: the metric's source answers with an error, as an outage would. */
function gapData(m: MetricSpec): MetricData {
  const error = { error: 'no datapoint: a gap in the trace' };
  switch (m.type) {
    case 'Resource':
    case 'ContainerResource':
      return { podMetrics: error };
    case 'Pods':
      return { podCustomMetrics: error };
    case 'Object':
      return { objectMetric: error };
    case 'External':
      return { externalMetrics: error };
  }
}

/** What the metrics asked for: the recommendation before behavior, within minReplicas..maxReplicas; null when none was made. */
export function demandOf(d: Decision, hpa: HorizontalPodAutoscaler): number | null {
  if (d.recommendation === undefined || d.skipped) return null;
  return Math.min(hpa.spec.maxReplicas, Math.max(hpa.spec.minReplicas ?? 1, d.recommendation));
}

/** Throws TraceColumnError when a metric has no trace column (see traceColumns). */
export function simulate(input: HorizontalPodAutoscaler, trace: Trace, opts: SimulateOptions): AutoscalerReport {
  const hpa = applyDefaults(input);
  const metrics = hpa.spec.metrics ?? [];
  const { series } = traceColumns(metrics, trace, opts.columns);
  const containerName = metrics.find((m) => m.containerResource)?.containerResource?.container;
  const settings = opts.settings ?? DEFAULT_CONTROLLER_SETTINGS;
  const start = trace.times[0];
  const end = trace.times[trace.times.length - 1];
  const step = opts.syncPeriodSeconds * 1000;
  const delay = (opts.metricDelaySeconds ?? 0) * 1000;
  const initial = opts.initialReplicas ?? hpa.status?.currentReplicas ?? hpa.spec.minReplicas ?? 1;
  const workload = new SimWorkload({
    name: hpa.spec.scaleTargetRef.name,
    initialReplicas: initial,
    readyDelaySeconds: opts.readyDelaySeconds,
    requests: opts.requests ?? DEFAULT_REQUESTS,
    start: new Date(start),
    containerName,
  });

  // The chart's load is what drives the first metric, in that metric's unit.
  const first = metrics[0];
  const loadUnit = first ? amountUnit(first.type, metricName(first), metricTarget(first)) : '';
  const loadColumn = trace.series[series[0] ?? 0];
  const recorder = new ReportRecorder(
    reportSetup(hpa, opts.name ?? `${hpa.metadata.namespace ?? 'default'}/${hpa.metadata.name}`, opts.syncPeriodSeconds, {
      label: `load: trace column ${loadColumn}${loadUnit ? ` (${unitLabel(loadUnit)})` : ''}`,
      unit: loadUnit,
    }),
  );
  for (const n of opts.notes ?? []) recorder.note(n);

  let current: HorizontalPodAutoscaler = hpa;
  let history: ScalingHistory = { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] };
  let lastLimit = '';
  // Kept across the syncs of the run, as a worker keeps one across its cycles.
  const scheduleCache = new ScheduleCache();
  // spec.predictive: learned from the trace itself, from nothing, as a new autoscaler learns.
  const predictive = predictiveReplay(hpa);
  let indexed: PodSelectorIndex | undefined;
  let lastDemand: number | null = null;
  for (let t = start; t <= end; t += step) {
    const now = new Date(t);
    const loads = series.map((s) => readingAt(trace, s, Math.max(start, t - delay)));
    const pods = workload.podInfos(now);
    // The selector's matches worked out once while the pods stay the same, as a cycle does per namespace.
    if (pods !== indexed?.pods) indexed = new PodSelectorIndex(pods);
    const plan = planReconcile({
      hpa: current,
      scale: { value: workload.scaleInfo() },
      pods: [...pods],
      podIndex: indexed,
      metrics: metrics.map((m, i) => metricData(m, workload, loads[i], now)),
      history,
      settings,
      now,
      scheduleCache,
      ...predictive?.input(),
    });
    // As the sync does: ScaledToZero on a rescale to or from zero.
    const result = withScaledToZeroCondition(plan, completeReconcile(plan), settings.featureGates);
    const d = result.decision;
    const before = workload.replicas;
    if (d.rescale) workload.scale(d.desiredReplicas, now);
    history = result.history;
    current = { ...current, status: result.status };
    const forecast = predictive?.learn(result);
    // A sync raised to a minimum (or clamped to the maximum) reads no metrics, as upstream's: the demand last
    // asked for still stands and counts in the under-provisioning. A skipped sync (no metric could be read,
    // scaling disabled) counts none.
    const demand: number | null = d.skipped ? null : (demandOf(d, hpa) ?? lastDemand);
    lastDemand = demand;

    recorder.add({
      time: t,
      // The load as it was at t (the metrics may lag it); inside a gap of the trace, unknown: a gap in the chart.
      load: series.length > 0 ? (readingAt(trace, series[0], t) ?? null) : valueAt(trace, 0, t),
      replicas: workload.replicas,
      desired: result.status.desiredReplicas,
      readyPods: workload.readyCount(now),
      demand,
      forecast,
      metrics: metricValues(d, metrics.length),
      fallbacks: metricFallbacks(d, metrics.length),
      atZero: metricActivationValues(d, metrics.length),
      rescaled: d.rescale,
      decisions: decisionRows({ time: t, decision: d, events: result.events, conditions: result.conditions, from: before, to: workload.replicas }, lastLimit),
      ...windowSample(current, now, scheduleCache),
    });
    lastLimit = limitText(result.conditions);
  }
  return recorder.report();
}
