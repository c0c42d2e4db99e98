// An autoscaler's metrics as kubectl prints an HPA's: the TARGETS column of `kubectl get hpa`
// ("cpu: 72%/60%") and the metric lines of `kubectl describe hpa`. Shared by the CLI and the
// status the sync writes for the printer columns of our custom resource.
import { fallbackOf, storedMetricStatus } from './fallback.js';
import type { HorizontalPodAutoscaler, MetricFallbackStatus, MetricSpec, MetricStatus, MetricTarget, MetricValueStatus } from './types.js';

/** What a decision adds to a metric's TARGETS entry: at zero replicas, its value against its activation threshold. */
export interface TargetNote {
  activation?: { threshold: string; value?: string };
}

function currentFor(spec: MetricSpec, statuses: MetricStatus[]): MetricValueStatus | undefined {
  const same = (s: MetricStatus): boolean => {
    if (s.type !== spec.type) return false;
    switch (spec.type) {
      case 'Resource':
        return s.resource?.name === spec.resource?.name;
      case 'ContainerResource':
        return s.containerResource?.name === spec.containerResource?.name && s.containerResource?.container === spec.containerResource?.container;
      case 'Pods':
        return s.pods?.metric.name === spec.pods?.metric.name;
      case 'Object':
        return s.object?.metric.name === spec.object?.metric.name;
      case 'External':
        return s.external?.metric.name === spec.external?.metric.name;
    }
  };
  const s = statuses.find(same);
  return s && (s.resource ?? s.containerResource ?? s.pods ?? s.object ?? s.external)?.current;
}

function targetOf(spec: MetricSpec): { name: string; target: MetricTarget } | undefined {
  if (spec.resource) return { name: spec.resource.name, target: spec.resource.target };
  if (spec.containerResource) return { name: `${spec.containerResource.name}(${spec.containerResource.container})`, target: spec.containerResource.target };
  if (spec.pods) return { name: spec.pods.metric.name, target: spec.pods.target };
  if (spec.object) return { name: spec.object.metric.name, target: spec.object.target };
  if (spec.external) return { name: spec.external.metric.name, target: spec.external.target };
  return undefined;
}

/**
 * One metric as "current/target": "cpu: 72%/60%", "qps: 1500m/1 (avg)"; while its fallback count is in use
 * "queue: <fallback: 10 replicas>/30 (avg)"; at zero replicas with an activation threshold "jobs: 4/5 (activation)".
 */
export function formatMetric(spec: MetricSpec, statuses: MetricStatus[], note?: TargetNote, fallbackStatus?: MetricFallbackStatus['fallbackStatus']): string {
  const t = targetOf(spec);
  if (!t) return '<unknown>';
  // Ours: what upstream prints here at zero is a saturated int64 average ("9223372036854775807m/10").
  if (note?.activation) return `${t.name}: ${note.activation.value ?? '<unknown>'}/${note.activation.threshold} (activation)`;
  const fallback = fallbackOf(spec);
  if (fallbackStatus === 'Fallback' && fallback) {
    const wanted = t.target.type === 'Utilization' ? `${t.target.averageUtilization}%` : t.target.type === 'AverageValue' ? t.target.averageValue : t.target.value;
    return `${t.name}: <fallback: ${fallback.replicas} replicas>/${wanted}${t.target.type === 'AverageValue' && (spec.type === 'Object' || spec.type === 'External') ? ' (avg)' : ''}`;
  }
  const cur = currentFor(spec, statuses);
  const unknown = '<unknown>';
  switch (t.target.type) {
    case 'Utilization':
      return `${t.name}: ${cur?.averageUtilization !== undefined ? `${cur.averageUtilization}%` : unknown}/${t.target.averageUtilization}%`;
    case 'AverageValue': {
      const avg = spec.type === 'Object' || spec.type === 'External' ? ' (avg)' : '';
      return `${t.name}: ${cur?.averageValue ?? unknown}/${t.target.averageValue}${avg}`;
    }
    case 'Value':
      return `${t.name}: ${cur?.value ?? unknown}/${t.target.value}`;
  }
}

/** One metric line of `describe`, worded as kubectl's describe of an autoscaling/v2 HPA: [label, "current / target"]. */
export function describeMetric(spec: MetricSpec, statuses: MetricStatus[]): [string, string] {
  const t = targetOf(spec);
  if (!t) return [`<unknown metric type ${JSON.stringify(spec.type)}>`, ''];
  const cur = currentFor(spec, statuses);
  const unknown = '<unknown>';
  const target = t.target;
  const valueText = (current: string | undefined, wanted: string | undefined) => `${current ?? unknown} / ${wanted ?? unknown}`;
  if (target.type === 'Utilization') {
    const current = cur?.averageUtilization !== undefined ? `${cur.averageUtilization}% (${cur.averageValue ?? unknown})` : unknown;
    const on = spec.containerResource ? `resource ${spec.containerResource.name} of container "${spec.containerResource.container}" on pods` : `resource ${t.name} on pods`;
    return [`${on}  (as a percentage of request)`, valueText(current, target.averageUtilization !== undefined ? `${target.averageUtilization}%` : '<auto>')];
  }
  const average = target.type === 'AverageValue';
  const current = average ? cur?.averageValue : cur?.value;
  const wanted = average ? target.averageValue : target.value;
  const kind = average ? 'target average value' : 'target value';
  switch (spec.type) {
    case 'Resource':
      return [`resource ${t.name} on pods`, valueText(current, wanted)];
    case 'ContainerResource':
      return [`resource ${spec.containerResource?.name} of container "${spec.containerResource?.container}" on pods`, valueText(current, wanted)];
    case 'Pods':
      return [`"${t.name}" on pods`, valueText(current, wanted)];
    case 'Object':
      return [`"${t.name}" on ${spec.object?.describedObject.kind}/${spec.object?.describedObject.name} (${kind})`, valueText(current, wanted)];
    default:
      return [`"${t.name}" (${kind})`, valueText(current, wanted)];
  }
}

function fallbackStatusOf(s: MetricStatus | undefined): MetricFallbackStatus['fallbackStatus'] {
  const entry = s && (s.resource ?? s.containerResource ?? s.pods ?? s.object ?? s.external);
  return entry?.fallbackStatus;
}

/** The TARGETS column: the first four metrics, then "+ N more...". */
export function formatTargets(hpa: HorizontalPodAutoscaler, wide = false, notes: readonly (TargetNote | undefined)[] = []): string {
  const specs = hpa.spec.metrics ?? [];
  if (specs.length === 0) return '<none>';
  const statuses = hpa.status?.currentMetrics ?? [];
  const shown = wide ? specs : specs.slice(0, 4);
  const list = shown.map((s, i) => formatMetric(s, statuses, notes[i], fallbackStatusOf(storedMetricStatus(specs, i, statuses)))).join(', ');
  return specs.length > shown.length ? `${list} + ${specs.length - shown.length} more...` : list;
}
