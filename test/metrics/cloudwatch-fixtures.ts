// Builders for CloudWatchMetric objects used by the metrics tests and the benchmark.
import type { CloudWatchMetric, CloudWatchQuery } from '../../lib/api/cloudwatch-types.js';

export function queueMetric(name: string, queue: string, extra: Partial<CloudWatchMetric['spec']> = {}, namespace = 'workers'): CloudWatchMetric {
  return {
    apiVersion: 'shpa.dev/v1',
    kind: 'CloudWatchMetric',
    metadata: { name, namespace },
    spec: {
      queries: [
        {
          id: 'visible',
          metricStat: {
            metric: { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: queue }] },
            period: 60,
            stat: 'Average',
          },
        },
      ],
      region: 'us-east-1',
      ...extra,
    },
  };
}

export function mathMetric(name: string, queries: CloudWatchQuery[], extra: Partial<CloudWatchMetric['spec']> = {}): CloudWatchMetric {
  return { apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name, namespace: 'workers' }, spec: { queries, region: 'us-east-1', ...extra } };
}

export function stat(id: string, metricName: string, value: string, returnData = false): CloudWatchQuery {
  return {
    id,
    metricStat: { metric: { namespace: 'App', metricName, dimensions: [{ name: 'Service', value }] }, period: 60, stat: 'Sum' },
    returnData,
  };
}
