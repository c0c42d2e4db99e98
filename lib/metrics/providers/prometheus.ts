// PrometheusMetric objects: a PromQL query against AMP, CloudWatch PromQL or a granted server.
import { validatePrometheusMetric } from '../../api/prometheus-validation.js';
import { prometheusAccessProblem } from '../../api/metric-access.js';
import { prometheusEndpointText, type PrometheusMetric } from '../../api/prometheus-types.js';
import type { MetricProvider } from './provider.js';

export const prometheusProvider: MetricProvider<PrometheusMetric> = {
  kind: 'PrometheusMetric',
  queryType: 'Prometheus',
  objectsOf: (listing) => (listing.prometheusMetrics ?? []) as readonly PrometheusMetric[],
  validate: validatePrometheusMetric,
  accessProblem: prometheusAccessProblem,
  query: (cluster, namespace, source) => ({ type: 'Prometheus', cluster, namespace, source }),
  describe: (namespace, source) => `PrometheusMetric ${namespace}/${source.metadata.name} (${prometheusEndpointText(source.spec)})`,
};
