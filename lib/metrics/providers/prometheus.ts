// PrometheusMetric objects: a PromQL query against AMP, CloudWatch PromQL or a granted server.
import { prometheusAccessProblem, prometheusEndpointText, type PrometheusMetric, validatePrometheusMetric } from '#api';
import { PrometheusSource } from '../prometheus-source.js';
import type { MetricProvider } from './provider.js';

export const prometheusProvider: MetricProvider<PrometheusMetric> = {
  kind: 'PrometheusMetric',
  queryType: 'Prometheus',
  statsKey: 'prometheus',
  sourceName: 'Prometheus',
  objectsOf: (listing) => listing.prometheusMetrics ?? [],
  validate: validatePrometheusMetric,
  accessProblem: prometheusAccessProblem,
  query: (cluster, namespace, source) => ({ type: 'Prometheus', cluster, namespace, source }),
  describe: (namespace, source) => `PrometheusMetric ${namespace}/${source.metadata.name} (${prometheusEndpointText(source.spec)})`,
  // Its region defaults to CloudWatch's.
  createReader: (o) => new PrometheusSource({ defaultRegion: o.cloudWatch.defaultRegion, clock: o.clock, timer: o.timer, sleep: o.sleep, ...o.prometheus }),
};
