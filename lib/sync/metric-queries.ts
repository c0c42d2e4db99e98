// Which metric queries one autoscaler needs, and how the answers become the
// MetricData the replica calculator reads (aligned with the defaulted spec.metrics).
import type { Fetched, MetricData, MetricSpec, ScaleInfo } from '#hpa';
import type { CloudWatchMetric } from '../api/cloudwatch-types.js';
import { prometheusEndpointText, type PrometheusMetric } from '../api/prometheus-types.js';
import type { MetricAnswer, MetricQuery } from './ports.js';

/** What an autoscaler's metrics need from the rest of the cycle. */
export interface QueryContext {
  cluster: string;
  namespace: string;
  scale: Fetched<ScaleInfo>;
  /** CloudWatchMetric objects of the same namespace, by name. */
  cloudWatch: ReadonlyMap<string, CloudWatchMetric>;
  /** PrometheusMetric objects of the same namespace, by name. */
  prometheus?: ReadonlyMap<string, PrometheusMetric>;
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
      // Our rule: an External metric named like a CloudWatchMetric of the namespace reads CloudWatch.
      const name = metric.external.metric.name;
      const source = ctx.cloudWatch.get(name);
      const prometheus = ctx.prometheus?.get(name);
      if (source && prometheus) {
        return { error: `both a CloudWatchMetric and a PrometheusMetric are named ${name} in namespace ${namespace}: rename one`, answerType: 'External' };
      }
      if (source) return { query: { type: 'CloudWatch', cluster, namespace, source } };
      if (prometheus) return { query: { type: 'Prometheus', cluster, namespace, source: prometheus } };
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
export function metricSourceText(metric: MetricSpec, namespace: string, objects: Pick<QueryContext, 'cloudWatch' | 'prometheus'>): string {
  switch (metric.type) {
    case 'Resource':
    case 'ContainerResource':
      return 'metrics.k8s.io';
    case 'Pods':
    case 'Object':
      return 'custom.metrics.k8s.io';
    case 'External': {
      const name = metric.external?.metric.name ?? '';
      const prometheus = objects.prometheus?.get(name);
      if (objects.cloudWatch.has(name)) return `CloudWatchMetric ${namespace}/${name}`;
      if (prometheus) return `PrometheusMetric ${namespace}/${name} (${prometheusEndpointText(prometheus.spec)})`;
      return 'external.metrics.k8s.io';
    }
    default:
      return 'unknown';
  }
}

/** A stable identity for de-duplicating queries across autoscalers. */
export function queryKey(q: MetricQuery): string {
  switch (q.type) {
    case 'CloudWatch':
    case 'Prometheus':
      // The object's identity is its namespace/name; its spec comes from the same snapshot.
      return JSON.stringify([q.type, q.cluster, q.namespace, q.source.metadata.name]);
    default:
      return JSON.stringify(q);
  }
}

/** The MetricData field the replica calculator reads for this answer. */
export function toMetricData(answer: MetricAnswer): MetricData {
  switch (answer.type) {
    case 'PodResource':
      return { podMetrics: answer.result };
    case 'Pods':
      return { podCustomMetrics: answer.result };
    case 'Object':
      return { objectMetric: answer.result };
    case 'External':
    case 'CloudWatch':
    case 'Prometheus':
      return { externalMetrics: answer.result };
  }
}

/** MetricData carrying an error in the field a metric of this answer type reads. */
export function errorMetricData(answerType: MetricAnswer['type'], error: string): MetricData {
  return toMetricData({ type: answerType, result: { error } } as MetricAnswer);
}
