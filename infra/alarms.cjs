// Alarms that say when the autoscaler stops or fails (docs/deploy.md, "What to watch"), to the
// SNS topic of param alarmTopicArn, or to one the stack creates. Each alarm also notifies
// when it is OK again.
'use strict';

const { getAtt, ref } = require('./cfn.cjs');

/** The functions' EMF namespace (POWERTOOLS_METRICS_NAMESPACE). */
const METRICS_NAMESPACE = 'ServerlessHPA';
/** The DynamoDB operations the functions call: their errors and throttles are the table's. */
const TABLE_OPERATIONS = ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'];

/** Cycles the worker should run per alarm period: one per shard per tick. */
function expectedCycles(c) {
  const period = Math.max(60, c.syncPeriodSeconds);
  return { period, cycles: c.shards * (period / c.syncPeriodSeconds) };
}

function alarmTopic(c) {
  if (c.alarmTopicArn) return { topic: c.alarmTopicArn, resources: {} };
  return {
    topic: ref('AlarmTopic'),
    resources: { AlarmTopic: { Type: 'AWS::SNS::Topic', Properties: { TopicName: `${c.service}-${c.stage}-alarms`, DisplayName: `serverless-hpa ${c.stage} alarms` } } },
  };
}

function alarmResources(c) {
  const { topic, resources } = alarmTopic(c);
  const alarm = (id, name, description, metric, rule) => {
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
  const lambda = (fn, MetricName, Statistic) => ({
    Namespace: 'AWS/Lambda',
    MetricName,
    Dimensions: [{ Name: 'FunctionName', Value: ref(`${fn[0].toUpperCase()}${fn.slice(1)}LambdaFunction`) }],
    Statistic,
    Period: 60,
  });
  const queue = (logicalId) => ({
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: getAtt(logicalId, 'QueueName') }],
    Statistic: 'Maximum',
    Period: 60,
  });
  // Any at all in 3 of the last 5 minutes: a persistent failure, not one bad minute.
  const anyIn3Of5 = { Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 5, DatapointsToAlarm: 3, TreatMissingData: 'notBreaching' };
  const anyNow = { Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1, DatapointsToAlarm: 1, TreatMissingData: 'notBreaching' };

  alarm('WorkerErrors', 'worker-errors', 'The worker failed shard cycles (Lambda Errors): autoscalers are not being evaluated.', lambda('worker', 'Errors', 'Sum'), anyIn3Of5);
  alarm('WorkerThrottles', 'worker-throttles', 'The worker was throttled: account concurrency, reservedConcurrency or maxConcurrency is too low.', lambda('worker', 'Throttles', 'Sum'), anyIn3Of5);
  const timeoutMs = c.workerTimeout * 1000;
  alarm('WorkerDuration', 'worker-duration', `Worker invocations near their ${c.workerTimeout} s timeout (the sync period): cycles are about to be cut off.`, lambda('worker', 'Duration', 'Maximum'), {
    Threshold: Math.round(timeoutMs * 0.9),
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    EvaluationPeriods: 3,
    DatapointsToAlarm: 2,
    TreatMissingData: 'notBreaching',
  });
  const { period, cycles } = expectedCycles(c);
  alarm('WorkerMissingCycles', 'worker-missing-cycles', `The worker ran fewer than half of the ${cycles} cycles expected every ${period} s (${c.shards} shards, one tick every ${c.syncPeriodSeconds} s), or none: the autoscaler has stopped.`, { ...lambda('worker', 'Invocations', 'Sum'), Period: period }, {
    Threshold: cycles / 2,
    ComparisonOperator: 'LessThanThreshold',
    EvaluationPeriods: 3,
    DatapointsToAlarm: 3,
    TreatMissingData: 'breaching',
  });
  alarm('CycleErrors', 'cycle-errors', 'Cycles report errors (EMF metric Errors: failed, broken or conflicting autoscalers, unreachable clusters) for 5 minutes in a row.', {
    Namespace: METRICS_NAMESPACE,
    MetricName: 'Errors',
    Dimensions: [{ Name: 'service', Value: 'serverless-hpa' }],
    Statistic: 'Sum',
    Period: 60,
  }, { ...anyIn3Of5, DatapointsToAlarm: 5 });
  alarm('TableErrors', 'table-errors', `DynamoDB system errors or throttles on ${c.tableName} (${TABLE_OPERATIONS.join(', ')}).`, {
    Metrics: [
      ...['SystemErrors', 'ThrottledRequests'].flatMap((MetricName, m) =>
        TABLE_OPERATIONS.map((Operation, o) => ({
          Id: `m${m * TABLE_OPERATIONS.length + o}`,
          ReturnData: false,
          MetricStat: {
            Metric: { Namespace: 'AWS/DynamoDB', MetricName, Dimensions: [{ Name: 'TableName', Value: c.tableName }, { Name: 'Operation', Value: Operation }] },
            Period: 60,
            Stat: 'Sum',
          },
        })),
      ),
      { Id: 'errors', Expression: `SUM([${TABLE_OPERATIONS.flatMap((_, o) => [`m${o}`, `m${TABLE_OPERATIONS.length + o}`]).join(', ')}])`, Label: 'system errors and throttles', ReturnData: true },
    ],
  }, anyIn3Of5);
  alarm('DeadLetters', 'dead-letters', 'Work messages failed 3 times and were set aside in the dead-letter queue.', queue('WorkDeadLetterQueue'), anyNow);
  alarm('FailedEvents', 'failed-events', 'Scheduled, EventBridge or stream events could not be handled and were set aside in the failed-events queue.', queue('FailedEventsQueue'), anyNow);
  alarm('DispatcherErrors', 'dispatcher-errors', 'The dispatcher failed: no ticks for those minutes.', lambda('dispatcher', 'Errors', 'Sum'), anyIn3Of5);
  alarm('StreamErrors', 'stream-errors', 'The stream function failed: spec changes wait for the next tick.', lambda('stream', 'Errors', 'Sum'), anyIn3Of5);
  alarm('StreamIteratorAge', 'stream-iterator-age', 'The stream function is more than a minute behind the table stream.', lambda('stream', 'IteratorAge', 'Maximum'), {
    Threshold: 60_000,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    EvaluationPeriods: 5,
    DatapointsToAlarm: 3,
    TreatMissingData: 'notBreaching',
  });
  alarm('EventsErrors', 'events-errors', 'The events function failed: alarm changes and evaluate-now events wait for the next tick.', lambda('events', 'Errors', 'Sum'), anyIn3Of5);
  return { topic, resources };
}

module.exports = { METRICS_NAMESPACE, alarmResources };
