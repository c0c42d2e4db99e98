// The queue the worker consumes: ticks, and what the worker sends again a second later (busy
// ticks, busy, coalesced or conflicting evaluations); events' evaluations are asynchronous
// invocations of the evaluator instead (serverless.yml), so no second queue is long-polled. Its
// dead-letter queue, and the failed-events queue where Lambda sets aside async invocations
// (the evaluator's among them) and stream batches it gave up on. All encrypted (SSE-SQS, or the
// param kmsKeyArn), TLS only; only the stack's functions send work.
'use strict';

const { getAtt, ref, sub } = require('./cfn.cjs');
const { roleArn } = require('./iam-policy.cjs');

/** Who sends work: the dispatcher ticks, the worker (and the evaluator, with its role) what it sends again. */
const SENDERS = { WorkQueue: ['dispatcher', 'worker'] };
/** Who consumes the work queues: the worker's event sources, with its role. */
const CONSUMERS = ['worker'];
/** Who sets failures aside: Lambda, with the failing function's role (on-failure destinations, the stream's; the evaluator's is the worker role). */
const FAILURE_SENDERS = ['dispatcher', 'events', 'stream', 'worker'];

const FOURTEEN_DAYS = 14 * 24 * 3600;
const MAX_RECEIVE_COUNT = 3;

/**
 * Visibility timeout: AWS requires at least the function's timeout and advises six times it, because
 * Lambda keeps a message in flight while it retries a throttled invocation. A failed message is seen
 * again after that long: a tick is late by then and dropped (the next tick covers its shard).
 */
const visibilityTimeout = (c) => Math.min(43_200, 6 * c.workerTimeout);
/** Long enough for a message to fail MAX_RECEIVE_COUNT times and reach the dead-letter queue, never less than an hour. */
const retention = (c) => Math.min(FOURTEEN_DAYS, Math.max(3600, (MAX_RECEIVE_COUNT + 1) * visibilityTimeout(c)));

const queueName = (c, what) => `${c.service}-${c.stage}-${what}`;
const queueArn = (c, what) => sub(`arn:\${AWS::Partition}:sqs:\${AWS::Region}:\${AWS::AccountId}:${queueName(c, what)}`);

function tlsOnly(queueArns) {
  return { Sid: 'TlsOnly', Effect: 'Deny', Principal: '*', Action: 'sqs:*', Resource: queueArns, Condition: { Bool: { 'aws:SecureTransport': 'false' } } };
}

function queueResources(c) {
  // A customer-managed key when given (its data key reused for 5 minutes: fewer KMS calls), else SQS-managed keys.
  const encryption = c.kmsKeyArn ? { KmsMasterKeyId: c.kmsKeyArn, KmsDataKeyReusePeriodSeconds: 300 } : { SqsManagedSseEnabled: true };
  const queue = (what, properties) => ({
    Type: 'AWS::SQS::Queue',
    Properties: { QueueName: queueName(c, what), ...encryption, ...properties },
  });
  const workQueue = (what) =>
    queue(what, {
      VisibilityTimeout: visibilityTimeout(c),
      MessageRetentionPeriod: retention(c),
      RedrivePolicy: { deadLetterTargetArn: getAtt('WorkDeadLetterQueue', 'Arn'), maxReceiveCount: MAX_RECEIVE_COUNT },
    });
  // A message is an order to evaluate: only the stack's functions give them.
  const onlySenders = (logicalId) => ({
    Type: 'AWS::SQS::QueuePolicy',
    Properties: {
      Queues: [ref(logicalId)],
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'OnlyTheFunctionsSendWork',
            Effect: 'Deny',
            Principal: '*',
            Action: 'sqs:SendMessage',
            Resource: getAtt(logicalId, 'Arn'),
            Condition: { ArnNotEquals: { 'aws:PrincipalArn': SENDERS[logicalId].map((fn) => roleArn(c, fn)) } },
          },
          // Taking or dropping a message is losing a tick or an evaluation: the worker alone does.
          {
            Sid: 'OnlyTheWorkerTakesWork',
            Effect: 'Deny',
            Principal: '*',
            Action: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:PurgeQueue'],
            Resource: getAtt(logicalId, 'Arn'),
            Condition: { ArnNotEquals: { 'aws:PrincipalArn': CONSUMERS.map((fn) => roleArn(c, fn)) } },
          },
          tlsOnly(getAtt(logicalId, 'Arn')),
        ],
      },
    },
  });
  return {
    WorkQueue: workQueue('work'),
    WorkDeadLetterQueue: queue('work-dlq', {
      MessageRetentionPeriod: FOURTEEN_DAYS,
      // by ARN string: a GetAtt of the work queue would make the queues depend on each other
      RedriveAllowPolicy: { redrivePermission: 'byQueue', sourceQueueArns: [queueArn(c, 'work')] },
    }),
    FailedEventsQueue: queue('failed-events', { MessageRetentionPeriod: FOURTEEN_DAYS }),
    WorkQueuePolicy: onlySenders('WorkQueue'),
    FailureQueuesPolicy: {
      Type: 'AWS::SQS::QueuePolicy',
      Properties: {
        Queues: [ref('WorkDeadLetterQueue'), ref('FailedEventsQueue')],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            // Only the stack sets failures aside (the dead-letter queue is fed by SQS's redrive, no principal's send).
            {
              Sid: 'OnlyTheStackSetsFailuresAside',
              Effect: 'Deny',
              Principal: '*',
              Action: 'sqs:SendMessage',
              Resource: [getAtt('WorkDeadLetterQueue', 'Arn'), getAtt('FailedEventsQueue', 'Arn')],
              Condition: { ArnNotEquals: { 'aws:PrincipalArn': FAILURE_SENDERS.map((fn) => roleArn(c, fn)) } },
            },
            tlsOnly([getAtt('WorkDeadLetterQueue', 'Arn'), getAtt('FailedEventsQueue', 'Arn')]),
          ],
        },
      },
    },
  };
}

module.exports = { queueResources };
