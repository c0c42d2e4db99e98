// CloudWatchMetric objects: a metric (or metric math) read from CloudWatch GetMetricData.
import type { CloudWatchMetric } from '../../api/cloudwatch-types.js';
import { validateCloudWatchMetric } from '../../api/cloudwatch-validation.js';
import { metricAccessProblem } from '../../api/metric-access.js';
import type { MetricProvider } from './provider.js';

export const cloudWatchProvider: MetricProvider<CloudWatchMetric> = {
  kind: 'CloudWatchMetric',
  queryType: 'CloudWatch',
  objectsOf: (listing) => (listing.cloudWatchMetrics ?? []) as readonly CloudWatchMetric[],
  validate: validateCloudWatchMetric,
  accessProblem: metricAccessProblem,
  query: (cluster, namespace, source) => ({ type: 'CloudWatch', cluster, namespace, source }),
  describe: (namespace, source) => `CloudWatchMetric ${namespace}/${source.metadata.name}`,
};
