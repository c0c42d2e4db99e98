// Alarms that say when the autoscaler stops or fails (docs/operations.md, "Alarms"), to the
// SNS topic of param alarmTopicArn, or to one the stack creates. Each alarm also notifies
// when it is OK again. CloudWatch bills every metric an alarm reads ($0.10 a month each, a
// metric-math alarm per metric it references), so each failure mode has one alarm on one
// metric, and a failure another alarm already sees gets none of its own: the table in
// docs/operations.md says which alarm covers what. Param monitoring true deploys four of
// them, full all seven.
'use strict';

const { getAtt, ref, sub } = require('./cfn.cjs');

/** The functions' EMF namespace (POWERTOOLS_METRICS_NAMESPACE). */
const METRICS_NAMESPACE = 'ServerlessHPA';

/**
 * The alarms' period: a minute, or the sync period when it is longer (a multiple of 60, as
 * CloudWatch wants), so that a failure of every tick is a breach of every period and the
 * thresholds count periods, whatever the sync period.
 */
function alarmPeriod(c) {
  return Math.max(60, c.syncPeriodSeconds);
}

/** Cycles the worker should run per alarm period: one per shard per tick (the shards' floor). */
function expectedCycles(c) {
  const period = alarmPeriod(c);
  return { period, cycles: c.shards * (period / c.syncPeriodSeconds) };
}

function alarmTopic(c) {
  if (c.alarmTopicArn) return { topic: c.alarmTopicArn, resources: {} };
  return {
    topic: ref('AlarmTopic'),
    resources: {
      AlarmTopic: {
        Type: 'AWS::SNS::Topic',
        Properties: { TopicName: `${c.service}-${c.stage}-alarms`, DisplayName: `serverless-hpa ${c.stage} alarms`, ...(c.kmsKeyArn ? { KmsMasterKeyId: c.kmsKeyArn } : {}) },
      },
      AlarmTopicPolicy: { Type: 'AWS::SNS::TopicPolicy', Properties: { Topics: [ref('AlarmTopic')], PolicyDocument: alarmTopicPolicy(c) } },
    },
  };
}

/** Only this stack's alarms publish to its topic (CloudWatch, of this account, for alarms of this stage), over TLS only. */
function alarmTopicPolicy(c) {
  const topic = ref('AlarmTopic');
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'StackAlarmsPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: topic,
        Condition: {
          StringEquals: { 'aws:SourceAccount': sub('${AWS::AccountId}') },
          ArnLike: { 'aws:SourceArn': sub(`arn:\${AWS::Partition}:cloudwatch:\${AWS::Region}:\${AWS::AccountId}:alarm:${c.service}-${c.stage}-*`) },
        },
      },
      { Sid: 'TlsOnly', Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Resource: topic, Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
    ],
  };
}

function alarmResources(c) {
  const { topic, resources } = alarmTopic(c);
  // Param monitoring true keeps the alarms of a silent stop or loss (no invocations, worker errors, dead letters, failed
  // events: the evaluator's failures land there), on AWS's
  // own metrics only; full adds the ones whose failures the missing-cycles alarm also sees later, or that the logs
  // show, and counts cycles that ran rather than invocations (docs/operations.md).
  const ESSENTIAL = ['WorkerMissingCycles', 'WorkerErrors', 'DeadLetters', 'FailedEvents'];
  const alarm = (id, name, description, metric, rule) => {
    if (!c.allAlarms && !ESSENTIAL.includes(id)) return;
    resources[`Alarm${id}`] = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${c.service}-${c.stage}-${name}`,
        AlarmDescription: description,
        ...metric,
        ...rule,
        AlarmActions: [topic],
        OKActions: [topic],
      },
    };
  };
  const period = alarmPeriod(c);
  const lambda = (fn, MetricName, Statistic) => ({
    Namespace: 'AWS/Lambda',
    MetricName,
    Dimensions: [{ Name: 'FunctionName', Value: ref(`${fn[0].toUpperCase()}${fn.slice(1)}LambdaFunction`) }],
    Statistic,
    Period: period,
  });
  const queue = (logicalId) => ({
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: getAtt(logicalId, 'QueueName') }],
    Statistic: 'Maximum',
    Period: 60,
  });
  // Our EMF counts (functions/log.ts) of this stage: two stages in one account never trip each other's alarms.
  const emf = (MetricName, Period = period) => ({
    Namespace: METRICS_NAMESPACE,
    MetricName,
    Dimensions: [{ Name: 'service', Value: 'serverless-hpa' }, { Name: 'stage', Value: c.stage }],
    Statistic: 'Sum',
    Period,
  });
  // Any at all in 3 of the last 5 periods: a persistent failure, not one bad period.
  const anyIn3Of5 = { Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 5, DatapointsToAlarm: 3, TreatMissingData: 'notBreaching' };
  const anyNow = { Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1, DatapointsToAlarm: 1, TreatMissingData: 'notBreaching' };

  const { cycles } = expectedCycles(c);
  // A stopped autoscaler: what a failing dispatcher, a lost schedule, a broken event source mapping or a throttled
  // worker end in. Param monitoring full counts the cycles that ran (EMF Cycles: failed runs and dropped ticks are
  // invocations, not cycles); true counts the worker's invocations (AWS/Lambda Invocations, free: no custom metric
  // to pay for), whose failures worker-errors sees. What true does not see: a worker invoked at every tick that
  // drops each one (late, busy) without failing (docs/operations.md).
  const heartbeat = c.allAlarms
    ? { metric: emf('Cycles'), what: 'ran fewer than half of the', counted: 'cycles that ran' }
    : { metric: lambda('worker', 'Invocations', 'Sum'), what: 'was invoked fewer than half of the', counted: 'invocations' };
  alarm('WorkerMissingCycles', 'worker-missing-cycles', `The worker ${heartbeat.what} ${cycles} cycles expected every ${period} s (${c.shards} shards, one tick every ${c.syncPeriodSeconds} s), or none (${heartbeat.counted}): the autoscaler has stopped.`, heartbeat.metric, {
    Threshold: cycles / 2,
    ComparisonOperator: 'LessThanThreshold',
    EvaluationPeriods: 3,
    DatapointsToAlarm: 3,
    TreatMissingData: 'breaching',
  });
  // Crashes, timeouts, out of memory, configuration errors, failed messages: what the worker cannot count itself.
  alarm('WorkerErrors', 'worker-errors', 'Worker invocations failed (Lambda Errors: failed messages, timeouts, crashes): shards are not being evaluated.', lambda('worker', 'Errors', 'Sum'), anyIn3Of5);
  alarm('WorkerThrottles', 'worker-throttles', 'The worker was throttled: its ticks arrive late and are dropped (account concurrency or reservedConcurrency too low).', lambda('worker', 'Throttles', 'Sum'), anyIn3Of5);
  // Emitted only when non-zero (functions/log.ts): a minute without data is a minute without errors.
  alarm('CycleErrors', 'cycle-errors', 'Cycles report errors for 5 periods in a row (EMF Errors: failed, broken or conflicting autoscalers, autoscalers cut off by the cycle deadline, unreachable clusters, DynamoDB or registry errors).', emf('Errors'), { ...anyIn3Of5, DatapointsToAlarm: 5 });
  // The dispatcher's ticks that SQS never took, or that it could only plan too late (functions/dispatcher.ts); emitted only when non-zero.
  alarm('TicksLost', 'ticks-lost', 'The dispatcher could not send ticks to the work queue (SQS refused them for the whole of its retries) or sent its minute too late: shards skipped those cycles.', emf('TicksLost', 60), anyNow);
  // SQS stops publishing an idle queue's metrics: no data keeps the state (a DLQ still holding messages stays in ALARM).
  const anyLeft = { ...anyNow, TreatMissingData: 'ignore' };
  alarm('DeadLetters', 'dead-letters', 'Work messages failed 3 times and were set aside in the dead-letter queue.', queue('WorkDeadLetterQueue'), anyLeft);
  // Where the dispatcher's and the events function's failed invocations go, and the stream's failed or expired batches.
  alarm('FailedEvents', 'failed-events', 'Scheduled, EventBridge or stream events could not be handled (a failed dispatcher, events or evaluator invocation, an evaluation older than its maximum event age, a stream batch that failed 3 times or fell 300 s behind) and were set aside in the failed-events queue.', queue('FailedEventsQueue'), anyLeft);
  return { topic, resources };
}

module.exports = { METRICS_NAMESPACE, alarmResources };
