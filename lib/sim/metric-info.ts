// How reports name and measure an autoscaler's metrics: label, target, unit, and the recorder set-up.
import { activationThreshold, type HorizontalPodAutoscaler, type MetricSpec, type MetricTarget, type MetricValueStatus } from '#hpa';
import { parseQuantity, toFloat } from '#hpa/api';
import type { RecorderSetup } from '../report/recorder.js';
import type { Unit } from '../report/units.js';

/** A quantity string as a number; undefined when absent or unparsable. */
function quantityNumber(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  try {
    return toFloat(parseQuantity(q));
  } catch {
    return undefined;
  }
}

/** The number a target compares against: percent for Utilization, else the quantity. */
export function targetNumber(t: MetricTarget): number {
  if (t.type === 'Utilization') return t.averageUtilization ?? 0;
  return quantityNumber(t.type === 'Value' ? t.value : t.averageValue) ?? 0;
}

/** The current value in the target's terms. */
export function currentNumber(t: MetricTarget, cur: MetricValueStatus | undefined): number | undefined {
  if (!cur) return undefined;
  if (t.type === 'Utilization') return cur.averageUtilization;
  return quantityNumber(t.type === 'Value' ? cur.value : cur.averageValue);
}

/** The metric's own name: "cpu", "memory", "jobs-backlog"; a trace column of that name drives it. */
export function metricName(m: MetricSpec): string {
  return m.resource?.name ?? m.containerResource?.name ?? m.pods?.metric.name ?? m.object?.metric.name ?? m.external?.metric.name ?? m.type;
}

export function metricTarget(m: MetricSpec): MetricTarget | undefined {
  return m.resource?.target ?? m.containerResource?.target ?? m.pods?.target ?? m.object?.target ?? m.external?.target;
}

/** "cpu (Resource, Utilization)", "queue (External, Value, activation above 5)": how reports name a metric. */
function metricLabel(m: MetricSpec): string {
  const activation = activationThreshold(m);
  return `${metricName(m)} (${m.type}, ${metricTarget(m)?.type ?? '?'}${activation ? `, activation above ${activation.value}` : ''})`;
}

/** The target in the terms of the metric's current value (percent for Utilization). */
function targetOf(m: MetricSpec): number {
  const t = metricTarget(m);
  return t ? targetNumber(t) : 0;
}

const BINARY_SUFFIX = /[KMGTPE]i$/;

/** What the metric's amount measures: the resource's unit, else bytes when its target is written in Ki/Mi/Gi. */
export function amountUnit(type: string, name: string, target: MetricTarget | undefined): Unit {
  if (type === 'Resource' || type === 'ContainerResource') {
    if (name === 'memory') return 'bytes';
    if (name === 'cpu') return 'cores';
  }
  const q = target?.type === 'Value' ? target.value : target?.averageValue;
  return q !== undefined && BINARY_SUFFIX.test(q) ? 'bytes' : '';
}

/** The unit a metric's current/target are shown in: percent for Utilization targets. */
export function metricUnit(type: string, name: string, target: MetricTarget | undefined): Unit {
  return target?.type === 'Utilization' ? '%' : amountUnit(type, name, target);
}

function unitOfSpec(m: MetricSpec): Unit {
  return metricUnit(m.type, metricName(m), metricTarget(m));
}

/** The recorder set-up for an autoscaler; `load` names what drives it (its unit, e.g. cores for a cpu trace). */
export function reportSetup(hpa: HorizontalPodAutoscaler, name: string, intervalSeconds: number, load: { label: string; unit: Unit }): RecorderSetup {
  const metrics = hpa.spec.metrics ?? [];
  return {
    name,
    minReplicas: hpa.spec.minReplicas ?? 1,
    maxReplicas: hpa.spec.maxReplicas,
    metrics: metrics.map((m) => {
      const activation = activationThreshold(m);
      const threshold = activation ? quantityNumber(activation.value) : undefined;
      return { name: metricName(m), label: metricLabel(m), target: targetOf(m), unit: unitOfSpec(m), ...(threshold !== undefined ? { activation: threshold } : {}) };
    }),
    loadLabel: load.label,
    loadUnit: load.unit,
    intervalSeconds,
  };
}
