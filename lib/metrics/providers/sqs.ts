// SQSQueueMetric objects: an SQS queue's backlog, read live with GetQueueAttributes (../sqs-source.ts).
import { type MetricAccess, sqsAccessProblem, sqsQueueIdentity, type SQSQueueMetric, validateSQSQueueMetric } from '#api';
import { SqsSource } from '../sqs-source.js';
import type { MetricProvider, ObjectReader } from './provider.js';

/** The role and, when the object says its region, the queue; a name without region is checked at read time, in the function's region. */
function accessProblem(o: SQSQueueMetric, access: MetricAccess): string | undefined {
  const region = o.spec.queueURL !== undefined || o.spec.region !== undefined;
  return sqsAccessProblem(o, region ? sqsQueueIdentity(o.spec).arn : undefined, access);
}

/** A deploy without SQS clients (no sqsQueueArns param) reads no queue: each object is a metric failure that says so. */
const noQueues: ObjectReader<SQSQueueMetric> = {
  fetch: async (objects) => objects.map(() => ({ result: { error: 'SQS: this deploy reads no SQS queues (param sqsQueueArns)' } })),
  stats: () => ({ calls: 0, objects: 0 }),
  resetStats: () => undefined,
};

export const sqsProvider: MetricProvider<SQSQueueMetric> = {
  kind: 'SQSQueueMetric',
  queryType: 'SQS',
  statsKey: 'sqs',
  sourceName: 'SQS',
  objectsOf: (listing) => listing.sqsQueueMetrics ?? [],
  validate: validateSQSQueueMetric,
  accessProblem,
  query: (cluster, namespace, source) => ({ type: 'SQS', cluster, namespace, source }),
  describe: (namespace, source) => `SQSQueueMetric ${namespace}/${source.metadata.name} (${source.spec.queueURL ?? source.spec.queueName})`,
  createReader: (o) => (o.sqs ? new SqsSource({ defaultRegion: o.cloudWatch.defaultRegion, ...o.sqs }) : noQueues),
};
