// The work queue the worker consumes, its dead-letter queue, and the failed-events queue
// where Lambda sets aside async invocations and stream batches it gave up on. All encrypted
// (SSE-SQS), TLS only; only the stack's functions send work.
'use strict';

const { getAtt, ref, sub } = require('./cfn.cjs');
const { FUNCTIONS, roleArn } = require('./iam-policy.cjs');

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
  const queue = (what, properties) => ({
    Type: 'AWS::SQS::Queue',
    Properties: { QueueName: queueName(c, what), SqsManagedSseEnabled: true, ...properties },
  });
  return {
    WorkQueue: queue('work', {
      VisibilityTimeout: visibilityTimeout(c),
      MessageRetentionPeriod: retention(c),
      RedrivePolicy: { deadLetterTargetArn: getAtt('WorkDeadLetterQueue', 'Arn'), maxReceiveCount: MAX_RECEIVE_COUNT },
    }),
    WorkDeadLetterQueue: queue('work-dlq', {
      MessageRetentionPeriod: FOURTEEN_DAYS,
      // by ARN string: a GetAtt of the work queue would make the two queues depend on each other
      RedriveAllowPolicy: { redrivePermission: 'byQueue', sourceQueueArns: [queueArn(c, 'work')] },
    }),
    FailedEventsQueue: queue('failed-events', { MessageRetentionPeriod: FOURTEEN_DAYS }),
    WorkQueuePolicy: {
      Type: 'AWS::SQS::QueuePolicy',
      Properties: {
        Queues: [ref('WorkQueue')],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            // A message is an order to evaluate: only the stack's functions give them.
            {
              Sid: 'OnlyTheFunctionsSendWork',
              Effect: 'Deny',
              Principal: '*',
              Action: 'sqs:SendMessage',
              Resource: getAtt('WorkQueue', 'Arn'),
              Condition: { ArnNotEquals: { 'aws:PrincipalArn': FUNCTIONS.map((fn) => roleArn(c, fn)) } },
            },
            tlsOnly(getAtt('WorkQueue', 'Arn')),
          ],
        },
      },
    },
    FailureQueuesPolicy: {
      Type: 'AWS::SQS::QueuePolicy',
      Properties: {
        Queues: [ref('WorkDeadLetterQueue'), ref('FailedEventsQueue')],
        PolicyDocument: { Version: '2012-10-17', Statement: [tlsOnly([getAtt('WorkDeadLetterQueue', 'Arn'), getAtt('FailedEventsQueue', 'Arn')])] },
      },
    },
  };
}

module.exports = { queueResources };
