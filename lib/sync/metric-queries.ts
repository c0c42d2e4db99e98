// Which metric queries one autoscaler needs, and how the answers become the
// MetricData the replica calculator reads (aligned with the defaulted spec.metrics).
import type { Fetched, MetricData, MetricSpec, ScaleInfo } from '#hpa';
import { isObjectAnswer, isObjectQuery, metricProviders, type MetricObject, type MetricObjectListing, type MetricProvider } from '../metrics/providers/index.js';
import type { MetricAnswer, MetricQuery } from './ports.js';

/** What an autoscaler's metrics need from the rest of the cycle. */
export interface QueryContext {
  cluster: string;
  namespace: string;
  scale: Fetched<ScaleInfo>;
  /** Each provider's metric objects of the same namespace, by name. */
  objects: NamespaceMetricObjects;
}

/** Each provider's metric objects of one namespace, by name, in the providers' order. */
export type NamespaceMetricObjects = readonly { provider: MetricProvider; objects: ReadonlyMap<string, MetricObject> }[];

/** The metric objects of one namespace in a listing (the CLI's `describe`). */
export function namespaceMetricObjects(listing: MetricObjectListing, namespace: string): NamespaceMetricObjects {
  return metricProviders.map((provider) => ({
    provider,
    objects: new Map(provider.objectsOf(listing).filter((o) => (o.metadata.namespace ?? 'default') === namespace).map((o) => [o.metadata.name, o])),
  }));
}

/** The objects an External metric's name names, one per provider that has one. */
function objectsNamed(objects: NamespaceMetricObjects, name: string): { provider: MetricProvider; source: MetricObject }[] {
  return objects.flatMap(({ provider, objects: byName }) => {
    const source = byName.get(name);
    return source ? [{ provider, source }] : [];
  });
}

/** A query, or the reason it cannot be made (reported as that metric's error). */
export type PlannedQuery = { query: MetricQuery } | { error: string; answerType: MetricAnswer['type'] };

export function planQuery(metric: MetricSpec, ctx: QueryContext): PlannedQuery {
  const { cluster, namespace } = ctx;
  switch (metric.type) {
    case 'Resource':
    case 'ContainerResource':
      return { query: { type: 'PodResource', cluster, namespace } };
    case 'Pods': {
      const selector = ctx.scale.value?.selector;
      // Without the scale's selector the reconcile stops at FailedGetScale/InvalidSelector before reading this.
      if (!selector) return { error: 'no pod selector: the target scale could not be read', answerType: 'Pods' };
      if (!metric.pods) return { error: 'spec.metrics: pods is required for type Pods', answerType: 'Pods' };
      return { query: { type: 'Pods', cluster, namespace, metric: metric.pods.metric, podSelector: selector } };
    }
    case 'Object':
      if (!metric.object) return { error: 'spec.metrics: object is required for type Object', answerType: 'Object' };
      return {
        query: {
          type: 'Object',
          cluster,
          namespace,
          describedObject: metric.object.describedObject,
          metric: metric.object.metric,
        },
      };
    case 'External': {
      if (!metric.external) return { error: 'spec.metrics: external is required for type External', answerType: 'External' };
      // Our rule: an External metric named like a metric object of the namespace (CloudWatchMetric, …) reads it.
      const name = metric.external.metric.name;
      const named = objectsNamed(ctx.objects, name);
      if (named.length > 1) {
        const kinds = named.map((n) => `a ${n.provider.kind}`).join(' and ');
        return { error: `${named.length === 2 ? 'both ' : ''}${kinds} are named ${name} in namespace ${namespace}: rename one`, answerType: 'External' };
      }
      if (named[0]) return { query: named[0].provider.query(cluster, namespace, named[0].source) };
      return { query: { type: 'External', cluster, namespace, metric: metric.external.metric } };
    }
    default:
      return { error: `unknown metric source type ${JSON.stringify((metric as MetricSpec).type)}`, answerType: 'External' };
  }
}

/**
 * Where a metric's value is read, in words for the decision line and `describe`: the cluster API
 * group, or the metric object of the namespace an External metric names.
 */
export function metricSourceText(metric: MetricSpec, namespace: string, objects: NamespaceMetricObjects): string {
  switch (metric.type) {
    case 'Resource':
    case 'ContainerResource':
      return 'metrics.k8s.io';
    case 'Pods':
    case 'Object':
      return 'custom.metrics.k8s.io';
    case 'External': {
      const name = metric.external?.metric.name ?? '';
      const [named] = objectsNamed(objects, name);
      if (named) return named.provider.describe(namespace, named.source);
      return 'external.metrics.k8s.io';
    }
    default:
      return 'unknown';
  }
}

/** A stable identity for de-duplicating queries across autoscalers. */
export function queryKey(q: MetricQuery): string {
  // A metric object's identity is its namespace/name; its spec comes from the same snapshot.
  if (isObjectQuery(q)) return JSON.stringify([q.type, q.cluster, q.namespace, q.source.metadata.name]);
  return JSON.stringify(q);
}

/** The MetricData field the replica calculator reads for this answer. */
export function toMetricData(answer: MetricAnswer): MetricData {
  if (isObjectAnswer(answer)) return { externalMetrics: answer.result };
  switch (answer.type) {
    case 'PodResource':
      return { podMetrics: answer.result };
    case 'Pods':
      return { podCustomMetrics: answer.result };
    case 'Object':
      return { objectMetric: answer.result };
    case 'External':
      return { externalMetrics: answer.result };
  }
}

/** MetricData carrying an error in the field a metric of this answer type reads. */
export function errorMetricData(answerType: MetricAnswer['type'], error: string): MetricData {
  return toMetricData({ type: answerType, result: { error } } as MetricAnswer);
}
