// HorizontalPodAutoscalers of every served version as autoscaling/v2, the form ours reads:
// v2 as written, v2beta2 (the same shape), v2beta1 (flat targets, converted as upstream's
// pkg/apis/autoscaling/v2beta1/conversion.go does, 1.26) and v1 (its CPU target). Pure.
import type { HorizontalPodAutoscaler, LabelSelector, MetricSpec, MetricTarget } from '#hpa';
import { isObj, str, type ImportMetadata, type ImportResult, type Obj } from './result.js';

export const HPA_VERSIONS = ['autoscaling/v2', 'autoscaling/v2beta2', 'autoscaling/v2beta1', 'autoscaling/v1'] as const;

/** The HPA as autoscaling/v2, with what was done to it; the version is one of HPA_VERSIONS. */
export function fromHpa(doc: Obj, metadata: ImportMetadata): ImportResult {
  const spec = isObj(doc.spec) ? doc.spec : {};
  const version = String(doc.apiVersion);
  const source = `HorizontalPodAutoscaler ${metadata.namespace}/${metadata.name}${version === 'autoscaling/v2' ? '' : ` (${version})`}`;
  const out: ImportResult = { source, objects: [], mapped: [], unmapped: [], noEffect: [], live: `HorizontalPodAutoscaler/${metadata.name}` };
  let converted: Obj;
  if (version === 'autoscaling/v1') converted = fromV1(spec, out);
  else if (version === 'autoscaling/v2beta1') converted = fromV2beta1(spec, out);
  else {
    converted = spec;
    out.mapped.push(version === 'autoscaling/v2' ? 'spec: kept as written' : `${version}: the shape of autoscaling/v2, kept as written`);
  }
  const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata, spec: converted } as unknown as HorizontalPodAutoscaler;
  out.objects.push(hpa);
  return out;
}

function fromV1(spec: Obj, out: ImportResult): Obj {
  const { targetCPUUtilizationPercentage: cpu, ...rest } = spec;
  if (typeof cpu === 'number') {
    out.mapped.push(`targetCPUUtilizationPercentage ${cpu} → a Resource cpu metric, Utilization ${cpu}`);
    return { ...rest, metrics: [resourceMetric('cpu', { type: 'Utilization', averageUtilization: cpu })] };
  }
  out.mapped.push('targetCPUUtilizationPercentage unset → no metrics: cpu at 80% utilization, as upstream defaults it');
  return rest;
}

function fromV2beta1(spec: Obj, out: ImportResult): Obj {
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  const converted = metrics.map((m: unknown, i: number) => {
    const r = v2beta1Metric(isObj(m) ? m : {});
    out.mapped.push(`metrics[${i}] (${r.type}): ${r.said}`);
    return r.metric;
  });
  return { ...spec, ...(spec.metrics !== undefined ? { metrics: converted } : {}) };
}

const resourceMetric = (name: string, target: MetricTarget): MetricSpec => ({ type: 'Resource', resource: { name, target } });

/** A v2beta1 target: utilization, else average value, else value (the first that is set, as upstream's conversion). */
function v2beta1Target(m: Obj): { target: MetricTarget; said: string } {
  if (typeof m.targetAverageUtilization === 'number') return { target: { type: 'Utilization', averageUtilization: m.targetAverageUtilization }, said: `targetAverageUtilization ${m.targetAverageUtilization} → target Utilization` };
  if (m.targetAverageValue !== undefined) return { target: { type: 'AverageValue', averageValue: str(m.targetAverageValue) ?? '' }, said: `targetAverageValue ${str(m.targetAverageValue)} → target AverageValue` };
  if (m.averageValue !== undefined) return { target: { type: 'AverageValue', averageValue: str(m.averageValue) ?? '' }, said: `averageValue ${str(m.averageValue)} → target AverageValue` };
  return { target: { type: 'Value', value: str(m.targetValue) ?? '' }, said: `targetValue ${str(m.targetValue)} → target Value` };
}

const withSelector = (name: unknown, selector: unknown) => ({ name: str(name) ?? '', ...(isObj(selector) ? { selector: selector as LabelSelector } : {}) });

function v2beta1Metric(m: Obj): { type: string; metric: MetricSpec; said: string } {
  const type = str(m.type) ?? '';
  const key = type === 'ContainerResource' ? 'containerResource' : type.toLowerCase();
  const source = isObj(m[key]) ? (m[key] as Obj) : {};
  const { target, said } = v2beta1Target(source);
  switch (type) {
    case 'Resource':
      return { type, metric: resourceMetric(str(source.name) ?? '', target), said };
    case 'ContainerResource':
      return { type, metric: { type, containerResource: { name: str(source.name) ?? '', container: str(source.container) ?? '', target } }, said };
    case 'Pods':
      return { type, metric: { type, pods: { metric: withSelector(source.metricName, source.selector), target } }, said: `metricName and selector → metric; ${said}` };
    case 'Object':
      return {
        type,
        metric: { type, object: { describedObject: source.target as never, metric: withSelector(source.metricName, source.selector), target } },
        said: `target → describedObject; metricName and selector → metric; ${said}`,
      };
    case 'External':
      return { type, metric: { type, external: { metric: withSelector(source.metricName, source.metricSelector), target } }, said: `metricName and metricSelector → metric; ${said}` };
    default:
      // Left as written: validation names the type it does not know.
      return { type, metric: m as unknown as MetricSpec, said: 'kept as written' };
  }
}
