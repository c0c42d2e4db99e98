// The work queue on SQS (ticks, and the worker's delayed re-sends), and the evaluator the stream
// and events functions invoke asynchronously (evaluations): the AWS clients those functions carry.
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { lambdaEvaluations, type LambdaEvaluations } from '../../lib/queue/lambda-evaluations.js';
import { sqsWorkQueue, type SqsWorkQueue } from '../../lib/queue/sqs-work-queue.js';
import { AwsHttpHandler } from '#transport';
import type { FunctionConfig } from '#sync/messaging';
import type { LocalEndpoints } from './options.js';

export interface WorkQueueClient {
  sqs: SQSClient;
  queue: SqsWorkQueue;
}

export function createWorkQueue(config: Pick<FunctionConfig, 'region' | 'queueUrl'>, local?: LocalEndpoints): WorkQueueClient {
  const sqs = new SQSClient({
    region: config.region,
    ...(local ? { endpoint: local.sqs, credentials: local.credentials } : {}),
    // A few requests at once, each timed in the server's time (lib/transport).
    requestHandler: new AwsHttpHandler({ maxInFlight: 4, attemptTimeoutMs: 5_000 }),
  });
  return { sqs, queue: sqsWorkQueue(sqs, { ticks: config.queueUrl }) };
}

/** The evaluator (SHPA_EVALUATOR_FUNCTION), invoked asynchronously with each evaluate message. */
export function createEvaluations(config: Pick<FunctionConfig, 'region' | 'evaluatorFunction'>, local?: Pick<LocalEndpoints, 'lambda' | 'credentials'>): LambdaEvaluations {
  // loadFunctionConfig(env, { evaluator: true }) has checked it in the Lambda.
  if (!config.evaluatorFunction) throw new Error('SHPA_EVALUATOR_FUNCTION is not set: the function evaluations are sent to');
  if (local && !local.lambda) throw new Error('no local Lambda endpoint to invoke the evaluator on');
  const lambda = new LambdaClient({
    region: config.region,
    ...(local ? { endpoint: local.lambda, credentials: local.credentials } : {}),
    requestHandler: new AwsHttpHandler({ maxInFlight: 4, attemptTimeoutMs: 5_000 }),
  });
  return lambdaEvaluations(lambda, config.evaluatorFunction);
}
