// CloudWatchMetric objects: a metric (or metric math) read from CloudWatch GetMetricData.
import { type CloudWatchMetric, metricAccessProblem, validateCloudWatchMetric } from '#api';
import { CloudWatchSource } from '../cloudwatch-source.js';
import type { MetricProvider } from './provider.js';

export const cloudWatchProvider: MetricProvider<CloudWatchMetric> = {
  kind: 'CloudWatchMetric',
  queryType: 'CloudWatch',
  statsKey: 'cloudWatch',
  sourceName: 'CloudWatch',
  objectsOf: (listing) => listing.cloudWatchMetrics ?? [],
  validate: validateCloudWatchMetric,
  accessProblem: metricAccessProblem,
  query: (cluster, namespace, source) => ({ type: 'CloudWatch', cluster, namespace, source }),
  describe: (namespace, source) => `CloudWatchMetric ${namespace}/${source.metadata.name}`,
  createReader: (o) => {
    const cw = o.cloudWatch;
    return new CloudWatchSource({
      clients: 'client' in cw ? { clientFor: () => cw.client } : { clientFor: (region, role) => cw.clientFor(region, role) },
      defaultRegion: cw.defaultRegion,
      lookbackPeriods: o.lookbackPeriods,
      publishDelaySeconds: o.publishDelaySeconds,
      learnPublishDelay: o.learnPublishDelay,
      onDelayReset: o.onDelayReset,
      retry: o.retry,
      clock: o.clock,
      timer: o.timer,
      sleep: o.sleep,
    });
  },
};
