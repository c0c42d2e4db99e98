// What serverless.yml takes from the params at package time: ${file(./infra/stack.cjs):NAME}.
// Every entry point reads and checks every param (infra/params.cjs), so a bad value fails the
// packaging naming the param, whichever value serverless resolves first.
'use strict';

const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { fromServerless, ParamError } = require('./params.cjs');
const { getAtt, ref } = require('./cfn.cjs');
const { ALL_FUNCTIONS, roleResources, streamArn } = require('./iam-policy.cjs');
const { tableResources } = require('./table.cjs');
const { queueResources } = require('./queues.cjs');
const { busName, eventBusResources } = require('./event-bus.cjs');
const { METRICS_NAMESPACE, alarmResources } = require('./alarms.cjs');
const { accessEntryResources, outsideStack } = require('./access-entries.cjs');
const { auditLogResources } = require('./audit-log.cjs');

/**
 * The dashboard body: infra/dashboard.json as one line for Fn::Sub, which fills in ${AWS::Region},
 * the functions, log group and queues by logical id, and ${MetricsNamespace} (CloudFormation takes
 * DashboardBody as a string, and serverless.yml has no raw-text file variable).
 */
function dashboard(c) {
  const file = join(__dirname, 'dashboard.json');
  let body;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
  return {
    Type: 'AWS::CloudWatch::Dashboard',
    Properties: {
      DashboardName: `${c.service}-${c.stage}`,
      DashboardBody: { 'Fn::Sub': [JSON.stringify(body), { MetricsNamespace: METRICS_NAMESPACE, Stage: c.stage }] },
    },
  };
}

/** With param kmsKeyArn, the functions' log groups (which serverless generates) are encrypted with it too. */
function logGroupKeys(c) {
  if (!c.kmsKeyArn) return {};
  return { extensions: Object.fromEntries(ALL_FUNCTIONS.map((fn) => [`${fn[0].toUpperCase()}${fn.slice(1)}LogGroup`, { Properties: { KmsKeyId: c.kmsKeyArn } }])) };
}

function stackResources(c) {
  const alarms = alarmResources(c);
  const outside = outsideStack(c);
  return {
    ...logGroupKeys(c),
    Resources: {
      ...roleResources(c),
      ...tableResources(c),
      ...queueResources(c),
      ...eventBusResources(c),
      ...accessEntryResources(c),
      ...auditLogResources(c),
      ...(c.monitoring ? alarms.resources : {}),
      ...(c.dashboard ? { OperatorsDashboard: dashboard(c) } : {}),
    },
    Outputs: {
      AutoscalerTableName: { Description: 'The table shpa apply writes to (--table)', Value: c.tableName },
      WorkerRoleArn: {
        Description: 'The role that signs EKS tokens: map it in clusters outside the stack (infra/cross-account-cluster-access.yaml)',
        Value: getAtt('WorkerRole', 'Arn'),
      },
      WorkQueueUrl: { Value: ref('WorkQueue') },
      EvaluatorFunctionName: { Description: 'Evaluations (events, spec changes), invoked asynchronously, apart from the ticks', Value: ref('EvaluatorLambdaFunction') },
      EvaluateBusName: { Description: 'Where eventSenderArns put "evaluate now" events (shpa.dev / Evaluate Autoscaler)', Value: busName(c) },
      DeadLetterQueueUrl: { Description: 'Work messages that failed 3 times', Value: ref('WorkDeadLetterQueue') },
      FailedEventsQueueUrl: { Description: 'Events and stream batches Lambda gave up on', Value: ref('FailedEventsQueue') },
      ...(c.monitoring ? { AlarmTopicArn: { Description: 'Where the alarms notify: subscribe to it', Value: alarms.topic } } : {}),
      ...(outside.length > 0 ? { ClustersWithAccessOutsideStack: { Description: 'Give these the worker role access with infra/cross-account-cluster-access.yaml', Value: outside.join(', ') } } : {}),
    },
  };
}

/** SHPA_CLUSTERS is a JSON list of {name, region, roleArn?, shards, namespaces?}: namespaces only when restricted. */
function environment(c) {
  return {
    SHPA_TABLE: c.tableName,
    SHPA_CLUSTERS: JSON.stringify(c.clusters),
    SHPA_SYNC_PERIOD_SECONDS: String(c.syncPeriodSeconds),
    SHPA_DRY_RUN: String(c.dryRun),
    SHPA_CONTROLLER_SETTINGS: c.controllerSettings,
    SHPA_AUTOSCALER_METRICS: String(c.autoscalerMetrics),
    SHPA_DETAILED_METRICS: String(c.detailedMetrics),
    // full: the worker sends the Cycles heartbeat its missing-cycles alarm reads
    SHPA_MONITORING: c.allAlarms ? 'full' : String(c.monitoring),
    SHPA_AUTOSCALER_SOURCES: [...new Set(c.autoscalerSources)].join(','),
    SHPA_DECISION_LOG_SECONDS: String(c.decisionLogSeconds),
    SHPA_METRIC_ACCESS: JSON.stringify(c.metricAccess),
    SHPA_CLOUDWATCH_PUBLISH_DELAY: c.cloudWatchPublishDelay,
    SHPA_WORKER_MEMORY_MB: String(c.memorySize),
    SHPA_SHARD_BUDGET: String(c.shardBudget),
    POWERTOOLS_LOG_LEVEL: c.logLevel,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    SHPA_METRICS_NAMESPACE: METRICS_NAMESPACE,
    SHPA_STAGE: c.stage,
  };
}

/**
 * An entry point of serverless.yml. Serverless resolves each one on its own and would print a
 * bad param's refusal once per entry (some thirty), each with its stack: under serverless (its
 * options passed) the refusal is said once, without a trace, and packaging stops there (exit 1).
 * Serverless' own errors (a variable not resolvable yet) pass through, as it retries them.
 */
const entry = (fn) => async ({ options, resolveVariable }) => {
  let c;
  try {
    c = await fromServerless(resolveVariable);
  } catch (e) {
    if (!(e instanceof ParamError)) throw e;
    if (options !== null && typeof options === 'object') {
      process.stderr.write(`\nError:\n${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  return fn(c);
};

/**
 * The functions' logging (Lambda's advanced logging controls, provider.logs.lambda). At logLevel INFO (the default):
 * JSON, the application's lines at INFO as Powertools writes them, and Lambda's own at WARN, which leaves out the
 * START and REPORT lines of every invocation (~290 bytes, a fifth of a small deploy's logs): each invocation's
 * duration stays in Lambda's free Duration metric, a timeout in its Errors (the worker-errors alarm); what only
 * REPORT says (memory used, init duration, "Task timed out") comes back with logLevel DEBUG or TRACE. At WARN and
 * quieter, Lambda's Text format: its JSON filter would drop the EMF lines (no level: INFO to it), and Powertools
 * takes the filter's level over POWERTOOLS_LOG_LEVEL.
 */
function lambdaLoggingConfig(c) {
  if (c.logLevel === 'INFO') return { logFormat: 'JSON', applicationLogLevel: 'INFO', systemLogLevel: 'WARN' };
  if (c.logLevel === 'DEBUG' || c.logLevel === 'TRACE') return { logFormat: 'JSON', applicationLogLevel: c.logLevel, systemLogLevel: 'INFO' };
  return { logFormat: 'Text' };
}

module.exports = {
  stackResources,
  lambdaLoggingConfig,
  environment,
  /** serverless.yml: resources (roles, table, queues, access entries, alarms, the dashboard if param dashboard) and outputs. */
  resources: entry(stackResources),
  /** The functions' variables, as lib/sync/config.ts reads them: each param checked and written out normalized. */
  env: entry(environment),
  /** Numbers as the function schema wants them (a --param is a string). */
  workerMemorySize: entry((c) => c.memorySize),
  logRetentionDays: entry((c) => c.logRetentionDays),
  /** provider.logs.lambda: JSON, and Lambda's START and REPORT lines only when debugging (lambdaLoggingConfig). */
  lambdaLogging: entry(lambdaLoggingConfig),
  /** The worker's timeout in seconds: the sync period. */
  workerTimeout: entry((c) => c.workerTimeout),
  /** The worker's VPC config, or null (serverless.yml falls back to none). */
  workerVpc: entry((c) => c.vpc ?? null),
  maxConcurrency: entry((c) => c.maxConcurrency),
  /** The evaluator's reserved concurrency. */
  evaluateConcurrency: entry((c) => c.evaluateConcurrency),
  /** The evaluator's maximumEventAge: a period, so a tick has covered what is older; Lambda's 60 s at least, the worker's 300 s at most. */
  evaluateEventAge: entry((c) => Math.min(300, Math.max(60, c.syncPeriodSeconds))),
  /** The alarm rule's pattern on the alarm name: only the alarms CloudWatchMetric objects may name. */
  alarmNamePattern: entry((c) => [{ prefix: c.alarmNamePrefix }]),
  reservedConcurrency: entry((c) => c.reservedConcurrency ?? null),
  tableStreamArn: entry(streamArn),
  /** Tags of every resource (stack tags; infra/tags-plugin.cjs puts them in the template too). */
  tags: entry((c) => c.tags),
};
