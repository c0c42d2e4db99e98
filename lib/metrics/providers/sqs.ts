// SQSQueueMetric objects: an SQS queue's backlog, read live with GetQueueAttributes (../sqs-source.ts).
import { type MetricAccess, sqsAccessProblem, sqsQueueIdentity, type SQSQueueMetric, validateSQSQueueMetric } from '#api';
import type { MetricProvider } from './provider.js';

/** The role and, when the object says its region, the queue; a name without region is checked at read time, in the function's region. */
function accessProblem(o: SQSQueueMetric, access: MetricAccess): string | undefined {
  const region = o.spec.queueURL !== undefined || o.spec.region !== undefined;
  return sqsAccessProblem(o, region ? sqsQueueIdentity(o.spec).arn : undefined, access);
}

export const sqsProvider: MetricProvider<SQSQueueMetric> = {
  kind: 'SQSQueueMetric',
  queryType: 'SQS',
  objectsOf: (listing) => (listing.sqsQueueMetrics ?? []) as readonly SQSQueueMetric[],
  validate: validateSQSQueueMetric,
  accessProblem,
  query: (cluster, namespace, source) => ({ type: 'SQS', cluster, namespace, source }),
  describe: (namespace, source) => `SQSQueueMetric ${namespace}/${source.metadata.name} (${source.spec.queueURL ?? source.spec.queueName})`,
};
