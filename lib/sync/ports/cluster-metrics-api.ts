// The cluster's metrics APIs port (metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io).
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline no longer has time for.
import type { CrossVersionObjectReference, MetricIdentifier, MetricSample, PodMetric, PodMetricSample } from '#hpa';

/** The cluster's metrics APIs (metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io). */
export interface ClusterMetricsApi {
  /** PodMetrics of a whole namespace. */
  /** With a label selector: of the pods it selects. */
  listPodMetrics(namespace: string, signal?: AbortSignal, labelSelector?: string): Promise<PodMetric[]>;
  getPodsMetric(namespace: string, metric: MetricIdentifier, podSelector: string, signal?: AbortSignal): Promise<PodMetricSample[]>;
  getObjectMetric(namespace: string, describedObject: CrossVersionObjectReference, metric: MetricIdentifier, signal?: AbortSignal): Promise<MetricSample>;
  getExternalMetric(namespace: string, metric: MetricIdentifier, signal?: AbortSignal): Promise<MetricSample[]>;
}
