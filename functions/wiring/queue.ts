// The work queues on SQS: the one AWS client every function has (each sends messages). The
// stream and events functions carry this and nothing else of AWS.
import { SQSClient } from '@aws-sdk/client-sqs';
import { sqsWorkQueue, type SqsWorkQueue } from '../../lib/queue/sqs-work-queue.js';
import { AwsHttpHandler } from '#transport';
import type { FunctionConfig } from '#sync/messaging';
import type { LocalEndpoints } from './options.js';

export interface WorkQueueClient {
  sqs: SQSClient;
  queue: SqsWorkQueue;
}

export function createWorkQueue(config: Pick<FunctionConfig, 'region' | 'queueUrl' | 'evaluateQueueUrl'>, local?: LocalEndpoints): WorkQueueClient {
  const sqs = new SQSClient({
    region: config.region,
    ...(local ? { endpoint: local.sqs, credentials: local.credentials } : {}),
    // A few requests at once, each timed in the server's time (lib/transport).
    requestHandler: new AwsHttpHandler({ maxInFlight: 4, attemptTimeoutMs: 5_000 }),
  });
  return { sqs, queue: sqsWorkQueue(sqs, { ticks: config.queueUrl, evaluations: config.evaluateQueueUrl }) };
}
