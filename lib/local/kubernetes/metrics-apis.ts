// The aggregated metrics APIs the local API server serves from its WorkloadModel:
// metrics.k8s.io (PodMetrics), custom.metrics.k8s.io and external.metrics.k8s.io.
import { HttpError, resourceNotFound } from './errors.js';
import type { RequestAttributes } from './rbac.js';
import { labelFilter } from './selectors.js';
import type { WorkloadModel } from './workload-model.js';

function metricTimestamp(model: WorkloadModel): string {
  return model.clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metrics.k8s.io/v1beta1 PodMetrics of a namespace, or one of them. */
export function podMetrics(model: WorkloadModel, a: RequestAttributes, q: Record<string, string>) {
  const match = labelFilter(q.labelSelector);
  const items = model.podMetrics(a.namespace, match);
  if (a.name) {
    const one = items.find((m) => (m.metadata as { name: string }).name === a.name);
    if (!one) throw new HttpError(404, `podmetrics.metrics.k8s.io "${a.namespace}/${a.name}" not found`, { name: a.name, group: 'metrics.k8s.io', kind: 'pods' });
    return one;
  }
  return { kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items };
}

/** custom.metrics.k8s.io/v1beta2: a Pods metric of pods/*, or an Object metric of one object (or of the namespace). */
export function customMetric(model: WorkloadModel, a: RequestAttributes, q: Record<string, string>) {
  if (!a.name || (!a.subresource && a.resource !== 'metrics')) throw resourceNotFound();
  const metricMatch = labelFilter(q.metricLabelSelector, 'metricLabelSelector');
  const timestamp = metricTimestamp(model);
  const metricOf = (name: string, labels?: Record<string, string>) => ({ name, ...(labels ? { selector: { matchLabels: labels } } : {}) });
  if (a.resource === 'pods' && a.name === '*') {
    const podMatch = labelFilter(q.labelSelector);
    const values = model.podsMetricValues(a.namespace, a.subresource).filter((v) => podMatch(v.labels) && metricMatch(v.metricLabels));
    if (values.length === 0) throw new HttpError(404, `the server could not find the metric ${a.subresource} for pods`);
    return {
      kind: 'MetricValueList',
      apiVersion: 'custom.metrics.k8s.io/v1beta2',
      metadata: {},
      items: values.map((v) => ({
        describedObject: { kind: 'Pod', namespace: a.namespace, name: v.pod, apiVersion: '/v1' },
        metric: metricOf(a.subresource, v.metricLabels),
        timestamp,
        windowSeconds: 60,
        value: v.value,
      })),
    };
  }
  // namespaces/<ns>/metrics/<metric> describes the namespace itself
  const isNamespace = a.resource === 'metrics';
  const [resource, group = ''] = isNamespace ? ['namespaces', ''] : splitOnce(a.resource);
  const type = model.resourceTypes().find((t) => t.resource === resource && t.group === group);
  if (!type) throw new HttpError(404, `the server could not find the requested resource (${a.resource})`);
  const objectName = isNamespace ? a.namespace : a.name;
  const metric = isNamespace ? a.name : a.subresource;
  const values = model.objectMetricValues(isNamespace ? '' : a.namespace, type.kind, objectName, metric).filter((v) => metricMatch(v.metricLabels));
  if (values.length === 0) throw new HttpError(404, `the server could not find the metric ${metric} for ${type.group ? `${type.resource}.${type.group}` : type.resource} ${objectName}`);
  return {
    kind: 'MetricValueList',
    apiVersion: 'custom.metrics.k8s.io/v1beta2',
    metadata: {},
    items: values.map((v) => ({
      describedObject: { kind: type.kind, namespace: isNamespace ? '' : a.namespace, name: objectName, apiVersion: type.group ? `${type.group}/${type.version}` : `/${type.version}` },
      metric: metricOf(metric, v.metricLabels),
      timestamp,
      windowSeconds: 60,
      value: v.value,
    })),
  };
}

/** external.metrics.k8s.io/v1beta1: the series of a metric in a namespace. */
export function externalMetric(model: WorkloadModel, a: RequestAttributes, q: Record<string, string>) {
  if (!a.resource || a.name) throw resourceNotFound();
  const match = labelFilter(q.labelSelector);
  const values = model.externalMetricValues(a.namespace, a.resource).filter((v) => match(v.metricLabels));
  if (values.length === 0 && model.externalMetricValues(a.namespace, a.resource).length === 0) {
    throw new HttpError(404, `the server could not find the requested resource (get ${a.resource}.external.metrics.k8s.io)`);
  }
  const timestamp = metricTimestamp(model);
  return {
    kind: 'ExternalMetricValueList',
    apiVersion: 'external.metrics.k8s.io/v1beta1',
    metadata: {},
    items: values.map((v) => ({ metricName: a.resource, metricLabels: v.metricLabels ?? {}, timestamp, value: v.value })),
  };
}

function splitOnce(s: string): [string, string] {
  const i = s.indexOf('.');
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}
