// The work queue on SQS: the one AWS client every function has (each sends messages). The
// stream and events functions carry this and nothing else of AWS.
import { SQSClient } from '@aws-sdk/client-sqs';
import { sqsWorkQueue, type SqsWorkQueue } from '../../lib/queue/sqs-work-queue.js';
import type { FunctionConfig } from '../../lib/sync/config.js';
import type { LocalEndpoints } from './options.js';

export interface WorkQueueClient {
  sqs: SQSClient;
  queue: SqsWorkQueue;
}

export function createWorkQueue(config: Pick<FunctionConfig, 'region' | 'queueUrl'>, local?: LocalEndpoints): WorkQueueClient {
  const sqs = new SQSClient({
    region: config.region,
    ...(local ? { endpoint: local.sqs, credentials: local.credentials } : {}),
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
  });
  return { sqs, queue: sqsWorkQueue(sqs, config.queueUrl) };
}
