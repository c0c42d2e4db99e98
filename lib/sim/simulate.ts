// Replays a metric trace through lib/hpa's reconcile, one sync period at a time,
// against the simulator's workload. Pure: no I/O, time comes from the trace.
import { applyDefaults, DEFAULT_CONTROLLER_SETTINGS } from '../hpa/defaults.js';
import type { MetricData } from '../hpa/replica-calculator.js';
import { reconcile } from '../hpa/reconcile.js';
import type { ControllerSettings, HorizontalPodAutoscaler, MetricSpec, MetricTarget, ScalingHistory } from '../hpa/types.js';
import type { AutoscalerReport } from '../report/model.js';
import { ReportRecorder } from '../report/recorder.js';
import { decisionText, limitingReason, logEntry, metricValues, targetNumber } from './explain.js';
import { seriesFor, valueAt, type Trace } from './trace.js';
import { milliQuantity, SimWorkload } from './workload.js';

export interface SimulateOptions {
  /** Seconds between syncs (upstream --horizontal-pod-autoscaler-sync-period, default 15). */
  syncPeriodSeconds: number;
  /** Seconds from a pod's creation to Ready. */
  readyDelaySeconds: number;
  /** Per-pod requests, e.g. { cpu: '1', memory: '1Gi' }: Utilization targets divide usage by these. */
  requests?: Record<string, string>;
  /** Replicas at the start; default status.currentReplicas, else minReplicas. */
  initialReplicas?: number;
  settings?: ControllerSettings;
  /** Report name; default namespace/name. */
  name?: string;
}

export const DEFAULT_REQUESTS: Record<string, string> = { cpu: '1', memory: '1Gi' };

/** The trace series a metric reads: a column named like the metric, else the first. */
export function metricName(m: MetricSpec): string {
  return (
    m.resource?.name ??
    m.containerResource?.name ??
    m.pods?.metric.name ??
    m.object?.metric.name ??
    m.external?.metric.name ??
    m.type
  );
}

function metricTarget(m: MetricSpec): MetricTarget | undefined {
  return m.resource?.target ?? m.containerResource?.target ?? m.pods?.target ?? m.object?.target ?? m.external?.target;
}

/** "cpu (Resource Utilization)": how reports name a metric. */
export function metricLabel(m: MetricSpec): string {
  return `${metricName(m)} (${m.type} ${metricTarget(m)?.type ?? '?'})`;
}

/** What the metrics APIs would answer for one metric, given the trace's load (total, in the metric's unit). */
function metricData(m: MetricSpec, w: SimWorkload, load: number, now: Date): MetricData {
  const timestamp = now.toISOString();
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

export function simulate(input: HorizontalPodAutoscaler, trace: Trace, opts: SimulateOptions): AutoscalerReport {
  const hpa = applyDefaults(input);
  const metrics = hpa.spec.metrics ?? [];
  const containerName = metrics.find((m) => m.containerResource)?.containerResource?.container;
  const settings = opts.settings ?? DEFAULT_CONTROLLER_SETTINGS;
  const start = trace.times[0];
  const end = trace.times[trace.times.length - 1];
  const step = opts.syncPeriodSeconds * 1000;
  const initial = opts.initialReplicas ?? hpa.status?.currentReplicas ?? hpa.spec.minReplicas ?? 1;
  const workload = new SimWorkload({
    name: hpa.spec.scaleTargetRef.name,
    initialReplicas: initial,
    readyDelaySeconds: opts.readyDelaySeconds,
    requests: opts.requests ?? DEFAULT_REQUESTS,
    start: new Date(start),
    containerName,
  });
  const seriesOf = metrics.map((m) => seriesFor(trace, metricName(m)));

  let current: HorizontalPodAutoscaler = hpa;
  let history: ScalingHistory = { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] };
  const recorder = new ReportRecorder(
    opts.name ?? `${hpa.metadata.namespace ?? 'default'}/${hpa.metadata.name}`,
    metrics.map((m) => ({ label: metricLabel(m), target: targetOf(m) })),
    opts.syncPeriodSeconds,
  );
  let lastReason = '';

  for (let t = start; t <= end; t += step) {
    const now = new Date(t);
    const loads = seriesOf.map((s) => valueAt(trace, s, t));
    const result = reconcile({
      hpa: current,
      scale: { value: workload.scaleInfo() },
      pods: workload.podInfos(now),
      metrics: metrics.map((m, i) => metricData(m, workload, loads[i], now)),
      history,
      settings,
      now,
    });
    const d = result.decision;
    if (d.rescale) workload.scale(d.desiredReplicas, now);
    history = result.history;
    current = { ...current, status: result.status };

    const reason = limitingReason(result.conditions);
    recorder.add({
      time: t,
      load: loads[0] ?? valueAt(trace, 0, t),
      replicas: workload.replicas,
      desired: result.status.desiredReplicas,
      readyPods: workload.readyCount(now),
      metrics: metricValues(d, metrics.length),
      rescaled: d.rescale,
      log: logEntry(decisionText(d, result.events), reason, lastReason, d.rescale, result.events.length),
    });
    lastReason = reason;
  }
  return recorder.report();
}

/** The target in the terms of the metric's current value (percent for Utilization). */
export function targetOf(m: MetricSpec): number {
  const t = metricTarget(m);
  return t ? targetNumber(t) : 0;
}
