// The stack as a platform team's reviewer reads it: `osls package` offline (test/deploy/osls.ts)
// for the configuration of the issue (two clusters in the stack's account and region, one in
// another account, a VPC, an alarm topic, a permissions boundary, spec writers, tags, the dashboard), checked
// item by item: every action and resource of every role, conditions, log groups, access entries,
// alarms, async and event-source settings, queues, table, VPC, tags. Then the defaults (one
// cluster, nothing optional). Two packagings in all: they take seconds each.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { missingFields, workerLogLines, type LogLine } from './log-sample.js';
import { cfnLintAvailable, cfnLintErrors, configWarnings, grants, offline, oslsPackage, REGION, root, roleStatements, show, type Json, type Packaged } from './osls.js';

const require = createRequire(import.meta.url);
const { TAGGABLE } = require('../../infra/tags-plugin.cjs') as { TAGGABLE: string[] };

const ACCOUNT_ROLE = 'arn:aws:iam::210987654321:role/shpa-access';
const CW_ROLE = 'arn:aws:iam::210987654321:role/metrics-reader';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:oncall';
const BOUNDARY = 'arn:aws:iam::123456789012:policy/platform-boundary';
const WRITER = 'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Platform_*';
const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'];
const SECURITY_GROUP = 'sg-0123456789abcdef0';
const SETTINGS = '{"downscaleStabilizationWindowSeconds":600}';
const SENDER = 'arn:aws:iam::123456789012:role/deploy-pipeline';
const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const CLUSTERS = [{ name: 'prod', shards: 4, namespaces: ['web', 'jobs'] }, { name: 'batch' }, { name: 'other', region: 'us-west-2', roleArn: ACCOUNT_ROLE }];
const FULL = [
  `clusters=${JSON.stringify(CLUSTERS)}`,
  'namespaces=web,jobs,batch',
  `assumeRoleArns=${CW_ROLE}`,
  `metricAccess=${JSON.stringify({ web: { roles: [CW_ROLE], metricNamespaces: ['AWS/SQS'] } })}`,
  `vpcSubnetIds=${SUBNETS.join(',')}`,
  `vpcSecurityGroupIds=${SECURITY_GROUP}`,
  `alarmTopicArn=${TOPIC}`,
  `permissionsBoundaryArn=${BOUNDARY}`,
  `specWriterArns=${WRITER}`,
  'tags=team=platform,cost-center=42',
  'reservedConcurrency=10',
  'dryRun=true',
  `controllerSettings=${SETTINGS}`,
  'dashboard=true',
  `eventSenderArns=${SENDER}`,
  `kmsKeyArn=${KEY}`,
  'monitoring=full',
];

/** The functions with a handler file and a role of their own; the evaluator runs the worker's code with its role. */
const FUNCTIONS = ['dispatcher', 'worker', 'stream', 'events'] as const;
const ALL_FUNCTIONS = [...FUNCTIONS, 'evaluator'] as const;
const pascal = (s: string) => s[0].toUpperCase() + s.slice(1);
const TABLE = 'arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/serverless-hpa-test';
const logGroupArn = (fn: string) => `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/serverless-hpa-test-${fn}:*`;
const roleArn = (fn: string) => `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/serverless-hpa-test-${REGION}-${fn}`;
const WORK_QUEUE = 'GetAtt WorkQueue.Arn';
const EVALUATOR = 'arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:serverless-hpa-test-evaluator';
const FAILED_EVENTS = 'GetAtt FailedEventsQueue.Arn';
const logs = (fn: string) => [`logs:CreateLogStream ${logGroupArn(fn)}`, `logs:PutLogEvents ${logGroupArn(fn)}`];
const eni = 'arn:${AWS::Partition}:ec2:${AWS::Region}:${AWS::AccountId}:';
// the shard's kept CloudWatch answers (cw) and the autoscalers of each bucket (n00 … n15) are the worker's too
const STATE_ATTRIBUTES = ['pk', 'sk', 'uid', 'v', 'sv', 'st', 'rec', 'open', 'off', 'up', 'dn', 'mt', 'ut', 'w', 'pend', 'log', 'src', 'ttl', 'sel', 'cs', 'oc', 'b', 'cw', 'hold', 'dem', ...Array.from({ length: 16 }, (_, b) => `n${String(b).padStart(2, '0')}`)];
const CYCLE_ATTRIBUTES = ['pk', 'sk', 'owner', 'exp', 'what', 'tick', 'at', 'left', 'ev', 'al', 'ph', 'pp'];
/** The customer-managed key, through SQS and DynamoDB only (param kmsKeyArn). */
const KEY_GRANTS = [`kms:Decrypt ${KEY}`, `kms:GenerateDataKey ${KEY}`];
/** Resource types that take no Tags property (stack tags reach those AWS can tag at deploy). */
const UNTAGGABLE = ['AWS::Events::Rule', 'AWS::Events::EventBusPolicy', 'AWS::Lambda::Permission', 'AWS::Lambda::EventInvokeConfig', 'AWS::SQS::QueuePolicy', 'AWS::SNS::TopicPolicy', 'AWS::CloudWatch::Dashboard', 'AWS::S3::BucketPolicy'];

const resourcesOf = (t: Json, type: string): [string, Json][] => Object.entries(t.Resources as Json).filter(([, r]) => r.Type === type);
const fn = (t: Json, name: string): Json => t.Resources[`${pascal(name)}LambdaFunction`].Properties;
const statementsBySid = (t: Json, roleId: string) => Object.fromEntries(roleStatements(t, roleId).map((s) => [s.Sid as string, s]));

describe('osls package: the configuration of the issue', () => {
  let packaged: Packaged;
  let t: Json;

  beforeAll(() => {
    packaged = oslsPackage(FULL);
    t = packaged.template ?? { Resources: {}, Outputs: {} };
  }, 300_000);

  it.skipIf(!cfnLintAvailable)('passes the CloudFormation specification check (cfn-lint)', () => {
    expect(cfnLintErrors(t)).toEqual([]);
  }, 120_000);

  it('packages offline, and osls warns about nothing but the `build` block Serverless Framework v4 needs', () => {
    expect(packaged.output).toContain('Service packaged');
    expect(packaged.status).toBe(0);
    if (!offline) console.warn('unshare -rn unavailable: packaged with the network present');
    // configValidationMode is warn: any other schema problem must still fail the suite
    expect(configWarnings(packaged.output)).toEqual(["at root: unrecognized property 'build'"]);
  });

  it('ships the four handlers, bundled ESM, and nothing else (the evaluator runs the worker\'s)', () => {
    const files = [...packaged.listing!.matchAll(/^\s*(\d+)\s+\S+\s+\S+\s+(\S+)$/gm)].map((m) => [m[2], Number(m[1])] as const);
    expect(files.map(([f]) => f).sort()).toEqual(FUNCTIONS.map((f) => `functions/${f}.mjs`).sort());
    for (const [file, bytes] of files) expect(bytes, file).toBeLessThanOrEqual(1_000_000);
    for (const f of FUNCTIONS) expect(fn(t, f).Handler).toBe(`functions/${f}.handler`);
    expect(fn(t, 'evaluator').Handler).toBe('functions/worker.evaluate');
  });

  describe('1–2. functions, environment, alarms', () => {
    it('runs each function with its own role, memory and timeout; the worker never outlives the sync period', () => {
      const expected = { dispatcher: [256, 20], worker: [512, 15], evaluator: [512, 15], stream: [256, 30], events: [256, 30] };
      for (const f of ALL_FUNCTIONS) {
        const p = fn(t, f);
        expect(p, f).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], FunctionName: `serverless-hpa-test-${f}`, MemorySize: expected[f][0], Timeout: expected[f][1] });
        expect(p.Role).toEqual({ 'Fn::GetAtt': [`${pascal(f === 'evaluator' ? 'worker' : f)}Role`, 'Arn'] });
        // logLevel INFO: JSON, and Lambda's START and REPORT lines left out (infra/stack.cjs lambdaLoggingConfig)
        expect(p.LoggingConfig, f).toEqual({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'WARN' });
      }
      expect(t.Resources.IamRoleLambdaExecution).toBeUndefined();
    });

    it('gives each function the environment docs/architecture.md lists, and SHPA_CLUSTERS as the JSON the functions parse', () => {
      const common = ['POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME', 'SHPA_CLUSTERS', 'SHPA_METRICS_NAMESPACE', 'SHPA_QUEUE_URL', 'SHPA_STAGE'];
      const keys = (f: string) => Object.keys(fn(t, f).Environment.Variables as Json).sort();
      // the dispatcher sizes shards for the worker's memory
      expect(keys('dispatcher')).toEqual([...common, 'SHPA_DECISION_LOG_SECONDS', 'SHPA_SHARD_BUDGET', 'SHPA_SYNC_PERIOD_SECONDS', 'SHPA_TABLE', 'SHPA_WORKER_MEMORY_MB'].sort());
      expect(fn(t, 'dispatcher').Environment.Variables).toMatchObject({ SHPA_WORKER_MEMORY_MB: '512', SHPA_SHARD_BUDGET: '8' });
      // the stream and events functions invoke the evaluator, by name
      for (const f of ['stream', 'events']) {
        expect(keys(f), f).toEqual([...common, 'SHPA_EVALUATOR_FUNCTION', 'SHPA_TABLE'].sort());
        expect(fn(t, f).Environment.Variables.SHPA_EVALUATOR_FUNCTION, f).toEqual({ Ref: 'EvaluatorLambdaFunction' });
      }
      // the evaluator runs the worker's code, configured as the worker
      expect(fn(t, 'evaluator').Environment).toEqual(fn(t, 'worker').Environment);
      expect(keys('worker')).toEqual(
        [
          ...common,
          'SHPA_TABLE',
          'SHPA_SYNC_PERIOD_SECONDS',
          'SHPA_DRY_RUN',
          'SHPA_CONTROLLER_SETTINGS',
          'SHPA_AUTOSCALER_METRICS',
          'SHPA_DETAILED_METRICS',
          'SHPA_MONITORING',
          'SHPA_AUTOSCALER_SOURCES',
          'SHPA_DECISION_LOG_SECONDS',
          'SHPA_METRIC_ACCESS',
          'SHPA_CLOUDWATCH_PUBLISH_DELAY',
        ].sort(),
      );
      const env = fn(t, 'worker').Environment.Variables as Json;
      // what lib/sync/config.ts reads: web's objects may assume the one role, and read AWS/SQS only
      expect(JSON.parse(env.SHPA_METRIC_ACCESS as string)).toEqual({ web: { roles: [CW_ROLE], metricNamespaces: ['AWS/SQS'] } });
      expect(env).toMatchObject({
        SHPA_QUEUE_URL: { Ref: 'WorkQueue' },
        SHPA_TABLE: 'serverless-hpa-test',
        SHPA_SYNC_PERIOD_SECONDS: '15',
        SHPA_DRY_RUN: 'true',
        SHPA_CONTROLLER_SETTINGS: SETTINGS,
        SHPA_AUTOSCALER_METRICS: 'false',
        SHPA_DETAILED_METRICS: 'false',
        SHPA_AUTOSCALER_SOURCES: 'table,cluster',
        SHPA_DECISION_LOG_SECONDS: '300',
        SHPA_CLOUDWATCH_PUBLISH_DELAY: 'learn',
        POWERTOOLS_SERVICE_NAME: 'serverless-hpa',
        POWERTOOLS_METRICS_NAMESPACE: 'ServerlessHPA',
      });
      // the global allowlist narrows every cluster, a cluster's own list narrows it further
      expect(JSON.parse(env.SHPA_CLUSTERS as string)).toEqual([
        { name: 'prod', region: 'eu-west-1', shards: 4, namespaces: ['web', 'jobs'] },
        { name: 'batch', region: 'eu-west-1', shards: 1, namespaces: ['web', 'jobs', 'batch'] },
        { name: 'other', region: 'us-west-2', roleArn: ACCOUNT_ROLE, shards: 1, namespaces: ['web', 'jobs', 'batch'] },
      ]);
      for (const f of ALL_FUNCTIONS) expect(fn(t, f).Environment.Variables.SHPA_CLUSTERS).toBe(env.SHPA_CLUSTERS);
    });

    it('alarms on each way the autoscaler stops or fails, one metric per alarm, to the topic given', () => {
      const alarms = Object.fromEntries(resourcesOf(t, 'AWS::CloudWatch::Alarm').map(([, r]) => [(r.Properties.AlarmName as string).replace('serverless-hpa-test-', ''), r.Properties]));
      // docs/operations.md, "Alarms": what each covers, and which alarm covers the failures that have none of their own.
      expect(Object.keys(alarms).sort()).toEqual(['worker-missing-cycles', 'worker-errors', 'worker-throttles', 'cycle-errors', 'ticks-lost', 'dead-letters', 'failed-events'].sort());
      for (const a of Object.values(alarms)) {
        expect(a.AlarmActions).toEqual([TOPIC]);
        expect(a.OKActions).toEqual([TOPIC]);
        expect(typeof a.AlarmDescription).toBe('string');
        // billed per metric read: no metric math
        expect(a.Metrics).toBeUndefined();
        const fnRef = (a.Dimensions as Json[] | undefined)?.find((d) => d.Name === 'FunctionName')?.Value;
        if (fnRef) expect(t.Resources[fnRef.Ref as string]?.Type).toBe('AWS::Lambda::Function');
      }
      const lambda = (name: string, metric: string, fnName: string) => {
        expect(alarms[name], name).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: metric, Dimensions: [{ Name: 'FunctionName', Value: { Ref: `${pascal(fnName)}LambdaFunction` } }] });
      };
      lambda('worker-errors', 'Errors', 'worker');
      lambda('worker-throttles', 'Throttles', 'worker');
      expect(alarms['worker-errors']).toMatchObject({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
      const ours = [{ Name: 'service', Value: 'serverless-hpa' }, { Name: 'stage', Value: 'test' }];
      // 6 shards, a tick every 15 s: 24 cycles a minute, counted from the cycles that ran (EMF Cycles); fewer than half, or none at all, is an alarm
      expect(alarms['worker-missing-cycles']).toMatchObject({ Namespace: 'ServerlessHPA', MetricName: 'Cycles', Dimensions: ours, Statistic: 'Sum', Period: 60, Threshold: 12, ComparisonOperator: 'LessThanThreshold', TreatMissingData: 'breaching', EvaluationPeriods: 3 });
      // param monitoring full: the worker sends that Cycles heartbeat
      expect(fn(t, 'worker').Environment.Variables.SHPA_MONITORING).toBe('full');
      // our EMF Errors (the dashboard test checks the worker emits it so), sent only when non-zero: no data is no error
      expect(alarms['cycle-errors']).toMatchObject({
        Namespace: 'ServerlessHPA',
        MetricName: 'Errors',
        Dimensions: ours,
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      // the dispatcher's lost ticks, sent only when non-zero, alarm at once
      expect(alarms['ticks-lost']).toMatchObject({ Namespace: 'ServerlessHPA', MetricName: 'TicksLost', Dimensions: ours, Statistic: 'Sum', Period: 60, Threshold: 1, EvaluationPeriods: 1, TreatMissingData: 'notBreaching' });
      // anything set aside
      for (const [name, queue] of [['dead-letters', 'WorkDeadLetterQueue'], ['failed-events', 'FailedEventsQueue']]) {
        expect(alarms[name]).toMatchObject({
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
          Threshold: 1,
          EvaluationPeriods: 1,
          // an idle queue's metrics stop: no data keeps the state
          TreatMissingData: 'ignore',
        });
      }
      // the failures left without an alarm of their own end in the failed-events queue: the dispatcher's, events' and
      // evaluator's failed or expired invocations, the stream's failed or expired batches
      const destinations = [
        ...resourcesOf(t, 'AWS::Lambda::EventInvokeConfig').map(([, r]) => [r.Properties.FunctionName.Ref, r.Properties.DestinationConfig.OnFailure.Destination]),
        ...resourcesOf(t, 'AWS::Lambda::EventSourceMapping')
          .filter(([, r]) => show(r.Properties.EventSourceArn) === 'GetAtt AutoscalerTable.StreamArn')
          .map(([, r]) => [r.Properties.FunctionName['Fn::GetAtt'][0], r.Properties.DestinationConfig.OnFailure.Destination]),
      ];
      expect(destinations.map(([f]) => f).sort()).toEqual(['DispatcherLambdaFunction', 'EvaluatorLambdaFunction', 'EventsLambdaFunction', 'StreamLambdaFunction']);
      for (const [, d] of destinations) expect(d).toEqual({ 'Fn::GetAtt': ['FailedEventsQueue', 'Arn'] });
      expect(t.Resources.AlarmTopic).toBeUndefined();
      expect(t.Outputs.AlarmTopicArn.Value).toBe(TOPIC);
    });
  });

  describe('3. asynchronous invocation and event sources', () => {
    it('gives every asynchronously invoked function a 60 s event age, no retry and a failure destination', () => {
      const asyncInvoked = new Set(
        resourcesOf(t, 'AWS::Events::Rule').flatMap(([, r]) => (r.Properties.Targets as Json[]).map((target) => (target.Arn['Fn::GetAtt'] as string[])[0])),
      );
      expect([...asyncInvoked].sort()).toEqual(['DispatcherLambdaFunction', 'EventsLambdaFunction']);
      // and the evaluator, which the stream and events functions invoke (Invoke, InvocationType Event): an evaluation
      // older than a period (15 s here; Lambda's 60 s at least) has been covered by a tick
      asyncInvoked.add('EvaluatorLambdaFunction');
      const configs = resourcesOf(t, 'AWS::Lambda::EventInvokeConfig').map(([, r]) => r.Properties);
      expect(configs.map((c) => c.FunctionName.Ref as string).sort()).toEqual([...asyncInvoked].sort());
      for (const c of configs) {
        expect(c).toEqual({
          FunctionName: c.FunctionName,
          Qualifier: '$LATEST',
          MaximumEventAgeInSeconds: 60,
          MaximumRetryAttempts: 0,
          DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['FailedEventsQueue', 'Arn'] } } },
        });
      }
    });

    it('schedules the dispatcher every minute, routes our alarms\' changes and evaluate-now events of the stack\'s bus to the events function', () => {
      const rules = resourcesOf(t, 'AWS::Events::Rule').map(([, r]) => r.Properties);
      expect(rules).toHaveLength(3);
      const target = (r: Json) => (r.Targets[0].Arn['Fn::GetAtt'] as string[])[0];
      expect(rules.filter((r) => r.ScheduleExpression).map((r) => [r.ScheduleExpression, r.State, target(r)])).toEqual([['rate(1 minute)', 'ENABLED', 'DispatcherLambdaFunction']]);
      expect(rules.filter((r) => r.EventPattern).map((r) => [r.EventPattern, r.EventBusName ?? 'default', target(r)])).toEqual([
        // only alarms whose name starts with param alarmNamePrefix, not every alarm of the account
        [{ source: ['aws.cloudwatch'], 'detail-type': ['CloudWatch Alarm State Change'], account: [{ Ref: 'AWS::AccountId' }], detail: { alarmName: [{ prefix: 'shpa-' }] } }, 'default', 'EventsLambdaFunction'],
        [{ source: ['shpa.dev'], 'detail-type': ['Evaluate Autoscaler'] }, { Ref: 'EvaluateBus' }, 'EventsLambdaFunction'],
      ]);
      // the permission names the rule on the stack's bus
      const permission = resourcesOf(t, 'AWS::Lambda::Permission').find(([, r]) => JSON.stringify(r.Properties.SourceArn).includes('EvaluateBus'));
      expect(permission).toBeDefined();
    });

    it('takes evaluate-now events only from param eventSenderArns (the bus\'s resource policy)', () => {
      expect(t.Resources.EvaluateBus.Properties.Name).toBe('serverless-hpa-test-evaluate');
      const policies = resourcesOf(t, 'AWS::Events::EventBusPolicy').map(([, r]) => r.Properties);
      const statements = policies.map((p) => p.Statement as Json);
      const bus = { Principal: '*', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': ['EvaluateBus', 'Arn'] } };
      // statement ids of this service and stage: another stage's bus policy in the same account and region never collides
      expect(statements).toEqual([
        { Sid: 'serverless-hpa-test-senders-may-send', Effect: 'Allow', ...bus, Condition: { ArnLike: { 'aws:PrincipalArn': [SENDER] } } },
        { Sid: 'serverless-hpa-test-only-senders-send', Effect: 'Deny', ...bus, Condition: { ArnNotLike: { 'aws:PrincipalArn': [SENDER] } } },
      ]);
      expect(policies.map((p) => p.StatementId)).toEqual(statements.map((st) => st.Sid));
      expect(t.Outputs.EvaluateBusName.Value).toBe('serverless-hpa-test-evaluate');
    });

    it('feeds the worker one message at a time, with partial batch failures and bounded concurrency; evaluations on the evaluator\'s own reserved concurrency', () => {
      const mapping = (queue: string) => {
        const [[, sqs], ...more] = resourcesOf(t, 'AWS::Lambda::EventSourceMapping').filter(([, r]) => show(r.Properties.EventSourceArn) === queue);
        expect(more).toEqual([]);
        return sqs.Properties as Json;
      };
      const common = { FunctionName: { 'Fn::GetAtt': ['WorkerLambdaFunction', 'Arn'] }, BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'], Enabled: true };
      // as many as the reserved concurrency (10) allows: the dispatcher keeps its shards within 8 of it (room for busy ticks sent again)
      expect(mapping(WORK_QUEUE)).toMatchObject({ ...common, ScalingConfig: { MaximumConcurrency: 10 } });
      // one SQS event source only: nothing long-polls an idle queue of evaluations
      expect(resourcesOf(t, 'AWS::Lambda::EventSourceMapping').filter(([, r]) => show(r.Properties.EventSourceArn) !== 'GetAtt AutoscalerTable.StreamArn')).toHaveLength(1);
      // the lease or the queue's concurrency keeps cycles apart: reserved concurrency is a choice, here 10
      expect(fn(t, 'worker').ReservedConcurrentExecutions).toBe(10);
      // a flood of events never takes a tick's place: the evaluator's own share (param evaluateConcurrency)
      expect(fn(t, 'evaluator').ReservedConcurrentExecutions).toBe(2);
      for (const f of ['dispatcher', 'stream', 'events']) expect(fn(t, f).ReservedConcurrentExecutions, f).toBeUndefined();
    });

    it('reads the table stream for spec changes only, bisecting failed batches, dropping old records, setting failures aside', () => {
      const [[, stream], ...more] = resourcesOf(t, 'AWS::Lambda::EventSourceMapping').filter(([, r]) => show(r.Properties.EventSourceArn) === 'GetAtt AutoscalerTable.StreamArn');
      expect(more).toEqual([]);
      const { FilterCriteria, ...p } = stream.Properties as Json;
      expect(p).toMatchObject({
        FunctionName: { 'Fn::GetAtt': ['StreamLambdaFunction', 'Arn'] },
        StartingPosition: 'LATEST',
        BatchSize: 100,
        BisectBatchOnFunctionError: true,
        MaximumRecordAgeInSeconds: 300,
        MaximumRetryAttempts: 2,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['FailedEventsQueue', 'Arn'] } } },
      });
      const filter = JSON.parse(readFileSync(join(root, 'infra/stream-filter.json'), 'utf8')) as unknown;
      expect((FilterCriteria.Filters as Json[]).map((f) => JSON.parse(f.Pattern as string) as unknown)).toEqual([filter]);
    });

    it('queues work encrypted, with a dead-letter queue after 3 receives and a visibility timeout above the worker timeout', () => {
      const q = (id: string) => t.Resources[id].Properties;
      // param kmsKeyArn: the customer's key, each data key reused 5 minutes
      const encrypted = { KmsMasterKeyId: KEY, KmsDataKeyReusePeriodSeconds: 300 };
      for (const id of ['WorkQueue', 'WorkDeadLetterQueue', 'FailedEventsQueue']) expect(q(id).SqsManagedSseEnabled, id).toBeUndefined();
      expect(resourcesOf(t, 'AWS::SQS::Queue').map(([id]) => id).sort()).toEqual(['FailedEventsQueue', 'WorkDeadLetterQueue', 'WorkQueue']);
      expect(q('WorkQueue')).toMatchObject({
        QueueName: 'serverless-hpa-test-work',
        ...encrypted,
        // six times the worker's 15 s timeout (AWS's advice for Lambda event sources)
        VisibilityTimeout: 90,
        MessageRetentionPeriod: 3600,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['WorkDeadLetterQueue', 'Arn'] }, maxReceiveCount: 3 },
      });
      expect(q('WorkQueue').VisibilityTimeout).toBeGreaterThanOrEqual(fn(t, 'worker').Timeout);
      expect(q('WorkQueue').MessageRetentionPeriod).toBeGreaterThan(3 * q('WorkQueue').VisibilityTimeout);
      const queueArn = (name: string) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:sqs:\${AWS::Region}:\${AWS::AccountId}:serverless-hpa-test-${name}` });
      expect(q('WorkDeadLetterQueue')).toMatchObject({
        QueueName: 'serverless-hpa-test-work-dlq',
        ...encrypted,
        MessageRetentionPeriod: 1_209_600,
        RedriveAllowPolicy: { redrivePermission: 'byQueue', sourceQueueArns: [queueArn('work')] },
      });
      expect(q('FailedEventsQueue')).toMatchObject({ QueueName: 'serverless-hpa-test-failed-events', ...encrypted, MessageRetentionPeriod: 1_209_600 });
      // each queue takes messages only from the functions that send its kind
      const onlyFrom = (id: string, senders: string[]) => [
        {
          Sid: 'OnlyTheFunctionsSendWork',
          Effect: 'Deny',
          Principal: '*',
          Action: 'sqs:SendMessage',
          Resource: { 'Fn::GetAtt': [id, 'Arn'] },
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': senders.map((f) => ({ 'Fn::Sub': roleArn(f) })) } },
        },
        // and only the worker takes, deletes or purges them
        {
          Sid: 'OnlyTheWorkerTakesWork',
          Effect: 'Deny',
          Principal: '*',
          Action: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:PurgeQueue'],
          Resource: { 'Fn::GetAtt': [id, 'Arn'] },
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': [{ 'Fn::Sub': roleArn('worker') }] } },
        },
        { Sid: 'TlsOnly', Effect: 'Deny', Principal: '*', Action: 'sqs:*', Resource: { 'Fn::GetAtt': [id, 'Arn'] }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
      ];
      expect(q('WorkQueuePolicy').PolicyDocument.Statement).toEqual(onlyFrom('WorkQueue', ['dispatcher', 'worker']));
      expect(q('FailureQueuesPolicy').Queues).toEqual([{ Ref: 'WorkDeadLetterQueue' }, { Ref: 'FailedEventsQueue' }]);
      // the failure queues take messages only from the stack (Lambda sets failures aside with the failing function's role; the evaluator's is the worker's)
      const failures = [{ 'Fn::GetAtt': ['WorkDeadLetterQueue', 'Arn'] }, { 'Fn::GetAtt': ['FailedEventsQueue', 'Arn'] }];
      expect(q('FailureQueuesPolicy').PolicyDocument.Statement).toEqual([
        {
          Sid: 'OnlyTheStackSetsFailuresAside',
          Effect: 'Deny',
          Principal: '*',
          Action: 'sqs:SendMessage',
          Resource: failures,
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': ['dispatcher', 'events', 'stream', 'worker'].map((f) => ({ 'Fn::Sub': roleArn(f) })) } },
        },
        { Sid: 'TlsOnly', Effect: 'Deny', Principal: '*', Action: 'sqs:*', Resource: failures, Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
      ]);
    });
  });

  describe('4. private clusters', () => {
    it('puts the worker and the evaluator, the only functions calling EKS, in the VPC', () => {
      expect(fn(t, 'worker').VpcConfig).toEqual({ SubnetIds: SUBNETS, SecurityGroupIds: [SECURITY_GROUP] });
      expect(fn(t, 'evaluator').VpcConfig).toEqual({ SubnetIds: SUBNETS, SecurityGroupIds: [SECURITY_GROUP] });
      for (const f of ['dispatcher', 'stream', 'events']) expect(fn(t, f).VpcConfig, f).toBeUndefined();
    });
  });

  describe('5. least privilege, exactly', () => {
    it('allows the dispatcher the registry partition, its clusters\' index items (the shard count only), the queue, its failure destination and its log group', () => {
      expect(grants(t, 'DispatcherRole')).toEqual(
        [
          `dynamodb:BatchGetItem ${TABLE}`,
          `dynamodb:BatchGetItem ${TABLE}`,
          `dynamodb:DeleteItem ${TABLE}`,
          `dynamodb:GetItem ${TABLE}`,
          `dynamodb:PutItem ${TABLE}`,
          `dynamodb:Query ${TABLE}`,
          `dynamodb:UpdateItem ${TABLE}`,
          `sqs:SendMessage ${FAILED_EVENTS}`,
          `sqs:SendMessage ${WORK_QUEUE}`,
          ...KEY_GRANTS,
          ...logs('dispatcher'),
        ].sort(),
      );
      const sids = statementsBySid(t, 'DispatcherRole');
      expect(sids.ClusterRegistry.Condition).toEqual({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['clusters'] } });
      const indexes = ['c#prod', 'c#batch', 'c#other'];
      expect(sids.ReadClusterIndexes.Condition).toEqual({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': indexes } });
      expect(sids.ReadShardPhases.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['shard#*'] } });
      expect(sids.RecordShardCounts.Condition).toEqual({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': indexes, 'dynamodb:Attributes': ['pk', 'sk', 'k', 'ks', 'kp', 'pm'] } });
    });

    it('allows the worker (and the evaluator) its shard partitions (state attributes only), the queue, EKS, its roles, metrics, the VPC, the failure destination and both log groups', () => {
      const prodArn = (name: string) => `arn:\${AWS::Partition}:eks:eu-west-1:\${AWS::AccountId}:cluster/${name}`;
      expect(grants(t, 'WorkerRole')).toEqual(
        [
          'cloudwatch:GetMetricData *',
          // spec versions checked many at once
          `dynamodb:BatchGetItem ${TABLE}`,
          `dynamodb:GetItem ${TABLE}`,
          `dynamodb:Query ${TABLE}`,
          // UpdateItem only: the worker can never replace an item whole (a spec at a state's key)
          `dynamodb:UpdateItem ${TABLE}`,
          `dynamodb:UpdateItem ${TABLE}`,
          `ec2:AssignPrivateIpAddresses ${eni}network-interface/*`,
          `ec2:CreateNetworkInterface ${eni}network-interface/*`,
          `ec2:CreateNetworkInterface ${eni}subnet/${SUBNETS[0]}`,
          `ec2:CreateNetworkInterface ${eni}subnet/${SUBNETS[1]}`,
          `ec2:CreateNetworkInterface ${eni}security-group/${SECURITY_GROUP}`,
          `ec2:DeleteNetworkInterface ${eni}network-interface/*`,
          'ec2:DescribeNetworkInterfaces *',
          'ec2:DescribeSubnets *',
          `ec2:UnassignPrivateIpAddresses ${eni}network-interface/*`,
          // same-account clusters only: "other" is described with its own role
          `eks:DescribeCluster ${prodArn('prod')}`,
          `eks:DescribeCluster ${prodArn('batch')}`,
          ...['DeleteMessage', 'GetQueueAttributes', 'ReceiveMessage', 'SendMessage'].map((a) => `sqs:${a} ${WORK_QUEUE}`),
          // the evaluator's on-failure destination
          `sqs:SendMessage ${FAILED_EVENTS}`,
          ...KEY_GRANTS,
          `sts:AssumeRole ${ACCOUNT_ROLE}`,
          `sts:AssumeRole ${CW_ROLE}`,
          ...logs('worker'),
          ...logs('evaluator'),
        ].sort(),
      );
      const sids = statementsBySid(t, 'WorkerRole');
      expect(sids.ReadShardPartitions).toMatchObject({ Action: ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'], Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['c#*', 'shard#*'] } } });
      expect(sids.WriteShardState).toMatchObject({
        Action: ['dynamodb:UpdateItem'],
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['c#*'] }, 'ForAllValues:StringEquals': { 'dynamodb:Attributes': STATE_ATTRIBUTES } },
      });
      expect(sids.WriteShardCycle).toMatchObject({
        Action: ['dynamodb:UpdateItem'],
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['shard#*'] }, 'ForAllValues:StringEquals': { 'dynamodb:Attributes': CYCLE_ATTRIBUTES } },
      });
      // not the spec, not the registry
      for (const s of [sids.WriteShardState, sids.WriteShardCycle]) {
        const attributes = s.Condition['ForAllValues:StringEquals']['dynamodb:Attributes'] as string[];
        expect(attributes).not.toContain('doc');
        expect(attributes).not.toContain('kind');
      }
    });

    it('allows the stream function the stream read actions, invoking the evaluator, its failure destination and its log group', () => {
      expect(grants(t, 'StreamRole')).toEqual(
        [
          ...['DescribeStream', 'GetRecords', 'GetShardIterator', 'ListStreams'].map((a) => `dynamodb:${a} GetAtt AutoscalerTable.StreamArn`),
          `lambda:InvokeFunction ${EVALUATOR}`,
          `sqs:SendMessage ${FAILED_EVENTS}`,
          ...KEY_GRANTS,
          ...logs('stream'),
        ].sort(),
      );
    });

    it('allows the events function to read which shards name an alarm, invoking the evaluator, its failure destination and its log group', () => {
      expect(grants(t, 'EventsRole')).toEqual([`dynamodb:BatchGetItem ${TABLE}`, `lambda:InvokeFunction ${EVALUATOR}`, `sqs:SendMessage ${FAILED_EVENTS}`, ...KEY_GRANTS, ...logs('events')].sort());
      expect(statementsBySid(t, 'EventsRole').ReadAlarmShards.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['c#prod', 'c#batch', 'c#other', 'shard#*'] } });
    });

    it('uses the customer-managed key only through SQS and DynamoDB, and encrypts the log groups with it', () => {
      for (const f of FUNCTIONS) {
        expect(statementsBySid(t, `${pascal(f)}Role`).UseStackKey.Condition, f).toEqual({
          StringEquals: { 'kms:ViaService': [{ 'Fn::Sub': 'sqs.${AWS::Region}.amazonaws.com' }, { 'Fn::Sub': 'dynamodb.${AWS::Region}.amazonaws.com' }] },
        });
        expect(t.Resources[`${pascal(f)}LogGroup`].Properties.KmsKeyId, f).toBe(KEY);
      }
      expect(t.Resources.EvaluatorLogGroup.Properties.KmsKeyId).toBe(KEY);
    });

    it('names each log group exactly (no prefix wildcard, no CreateLogGroup: the stack creates the groups)', () => {
      const groupArn = (f: string) => {
        const group = t.Resources[`${pascal(f)}LogGroup`];
        expect(group.Properties).toMatchObject({ LogGroupName: `/aws/lambda/${fn(t, f).FunctionName as string}`, RetentionInDays: 30 });
        return { 'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:${group.Properties.LogGroupName as string}:*` };
      };
      for (const f of FUNCTIONS) {
        const logStatements = roleStatements(t, `${pascal(f)}Role`).filter((s) => (s.Action as string[]).some((a) => a.startsWith('logs:')));
        // the worker's role is the evaluator's too
        const groups = f === 'worker' ? ['worker', 'evaluator'] : [f];
        expect(logStatements.map((s) => [s.Action, s.Resource])).toEqual(groups.map((g) => [['logs:CreateLogStream', 'logs:PutLogEvents'], [groupArn(g)]]));
      }
    });

    it('uses "*" only where AWS allows nothing else, and no action wildcard', () => {
      for (const f of FUNCTIONS) {
        for (const s of roleStatements(t, `${pascal(f)}Role`)) {
          for (const a of s.Action as string[]) expect(a).not.toMatch(/\*/);
          if ((s.Resource as unknown[]).includes('*')) expect(['cloudwatch:GetMetricData', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets']).toEqual(expect.arrayContaining(s.Action as string[]));
        }
      }
    });

    it('names each role, trusts Lambda only, and sets the permissions boundary', () => {
      for (const f of FUNCTIONS) {
        expect(t.Resources[`${pascal(f)}Role`].Properties).toMatchObject({
          RoleName: `serverless-hpa-test-${REGION}-${f}`,
          PermissionsBoundary: BOUNDARY,
          AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }] },
        });
        expect(t.Resources[`${pascal(f)}Role`].Properties.ManagedPolicyArns).toBeUndefined();
      }
    });

    it('tags every resource that takes tags, and knows every resource type in the stack', () => {
      const want = [
        { Key: 'service', Value: 'serverless-hpa' },
        { Key: 'stage', Value: 'test' },
        { Key: 'team', Value: 'platform' },
        { Key: 'cost-center', Value: '42' },
      ];
      for (const [id, r] of Object.entries(t.Resources as Json)) {
        expect([...TAGGABLE, ...UNTAGGABLE], `${id}: ${r.Type as string}`).toContain(r.Type);
        if (TAGGABLE.includes(r.Type as string)) expect(r.Properties.Tags, id).toEqual(expect.arrayContaining(want));
      }
    });
  });

  describe('6–8. who may write specs, cluster access, the table', () => {
    it('denies spec writes, autoscaler deletes and PartiQL writes to anyone but the spec writers (table resource policy)', () => {
      const policy = t.Resources.AutoscalerTable.Properties.ResourcePolicy.PolicyDocument;
      const others = { ArnNotLike: { 'aws:PrincipalArn': [WRITER] } };
      const deny = { Effect: 'Deny', Principal: '*', Resource: { 'Fn::Sub': TABLE } };
      expect(policy.Statement).toEqual([
        { Sid: 'SpecAttributesOnlyBySpecWriters', ...deny, Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'], Condition: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': ['doc', 'kind'] }, ...others } },
        { Sid: 'AutoscalerPutsOnlyBySpecWriters', ...deny, Action: ['dynamodb:PutItem'], Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['c#*'] }, ...others } },
        { Sid: 'AutoscalerDeletesOnlyBySpecWriters', ...deny, Action: ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'], Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['c#*'] }, ...others } },
        { Sid: 'PartiQLWritesOnlyBySpecWriters', ...deny, Action: ['dynamodb:PartiQLInsert', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete'], Condition: others },
      ]);
    });

    it('creates the EKS access entries of the clusters in its account and region, for the worker role', () => {
      const entries = resourcesOf(t, 'AWS::EKS::AccessEntry');
      expect(entries.map(([id]) => id).sort()).toEqual(['AccessEntryBatch', 'AccessEntryProd']);
      for (const [, e] of entries) {
        expect(e.Properties).toMatchObject({ PrincipalArn: { 'Fn::GetAtt': ['WorkerRole', 'Arn'] }, Type: 'STANDARD', KubernetesGroups: ['shpa:autoscaler'] });
      }
      expect(entries.map(([, e]) => e.Properties.ClusterName as string).sort()).toEqual(['batch', 'prod']);
      expect(t.Outputs.ClustersWithAccessOutsideStack.Value).toBe(`other (role ${ACCOUNT_ROLE})`);
      expect(t.Outputs.WorkerRoleArn.Value).toEqual({ 'Fn::GetAtt': ['WorkerRole', 'Arn'] });
    });

    it('keeps the table: retained, deletion protection on, point-in-time recovery, encryption, TTL, stream of both images', () => {
      const table = t.Resources.AutoscalerTable;
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      expect(table.Properties).toMatchObject({
        TableName: 'serverless-hpa-test',
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: KEY },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      });
      expect(t.Outputs.AutoscalerTableName.Value).toBe('serverless-hpa-test');
    });
  });

  describe('operators dashboard', () => {
    let widgets: Json[];
    let lines: LogLine[];
    beforeAll(() => {
      const props = t.Resources.OperatorsDashboard?.Properties;
      widgets = props ? (JSON.parse(resolveSub(props.DashboardBody['Fn::Sub'], t)) as Json).widgets : [];
      const vars = fn(t, 'worker').Environment.Variables;
      lines = workerLogLines(vars.SHPA_METRICS_NAMESPACE as string, vars.SHPA_STAGE as string);
    });

    it('is a CloudWatch dashboard per stage whose body is JSON once Fn::Sub resolves', () => {
      expect(t.Resources.OperatorsDashboard.Properties.DashboardName).toBe('serverless-hpa-test');
      expect(widgets.length).toBeGreaterThanOrEqual(10);
      for (const w of widgets) expect(w.properties.region).toBe(REGION);
    });

    it('graphs every EMF metric the worker emits, with its dimensions, and the functions and queues of the stack', () => {
      const emitted = emittedMetrics(lines);
      // the cycle-errors alarm reads this one
      expect(emitted).toContain('ServerlessHPA Errors service=serverless-hpa,stage=test');
      expect(emitted).toContain('ServerlessHPA Cycles service=serverless-hpa,stage=test');
      const emittedNames = new Set([...emitted].map((m) => m.split(' ')[1]));
      const shown = new Set<string>();
      const lambda = new Set<string>();
      const queues = new Set<string>();
      const names = Object.fromEntries(ALL_FUNCTIONS.map((f) => [fn(t, f).FunctionName as string, f]));
      for (const row of widgets.filter((w) => w.type === 'metric').flatMap((w) => w.properties.metrics as unknown[][])) {
        if (typeof row[0] === 'object') {
          // SEARCH finds a metric only under its exact dimension set: the schema must be what EMF declares.
          const expr = (row[0] as Json).expression as string;
          const search = /^SEARCH\('\{([^}]+)\} MetricName="(\w+)"', '\w+', \d+\)$/.exec(expr);
          expect(search, expr).not.toBeNull();
          const [ns, ...dims] = search![1].split(',');
          const schema = `${ns} ${search![2]} ${dims.sort().join(',')}`;
          expect([...emitted].some((m) => m.replace(/=[^,]*/g, '') === schema), `${expr} matches no emitted metric`).toBe(true);
          shown.add(search![2]);
          continue;
        }
        const [ns, name, dim, value] = row as string[];
        if (ns === 'AWS/Lambda') {
          expect(dim).toBe('FunctionName');
          expect(names[value], value).toBeDefined();
          lambda.add(`${names[value]} ${name}`);
        } else if (ns === 'AWS/SQS') {
          expect(dim).toBe('QueueName');
          queues.add(value);
        } else {
          const dims = (row as unknown[]).slice(2).filter((x) => typeof x === 'string') as string[];
          const pairs = dims.flatMap((_, i) => (i % 2 === 0 ? [`${dims[i]}=${dims[i + 1]}`] : [])).sort().join(',');
          expect(emitted, `${ns} ${name} ${pairs}`).toContain(`${ns} ${name} ${pairs}`);
          shown.add(name);
        }
      }
      expect([...shown].sort()).toEqual([...emittedNames].sort());
      for (const f of ALL_FUNCTIONS) expect(lambda, f).toContain(`${f} Errors`);
      // the evaluations Lambda's queue holds: how many came, were dropped, and the oldest
      for (const m of ['AsyncEventsReceived', 'AsyncEventsDropped', 'AsyncEventAge']) expect(lambda).toContain(`evaluator ${m}`);
      expect(lambda).toContain('worker Duration');
      expect(lambda).toContain('worker Throttles');
      expect([...queues].sort()).toEqual(['serverless-hpa-test-failed-events', 'serverless-hpa-test-work', 'serverless-hpa-test-work-dlq']);
    });

    it('queries the worker\'s and the evaluator\'s log groups (ticks, evaluations) for fields their lines have', () => {
      const group = (id: string) => t.Resources[id].Properties.LogGroupName as string;
      const logWidgets = widgets.filter((w) => w.type === 'log');
      expect(logWidgets).toHaveLength(2);
      for (const w of logWidgets) {
        const query = w.properties.query as string;
        expect(query.startsWith(`SOURCE '${group('WorkerLogGroup')}' | SOURCE '${group('EvaluatorLogGroup')}'\n`), query).toBe(true);
        expect(missingFields(query, lines), w.properties.title).toEqual([]);
      }
    });

    it('ships Logs Insights queries (infra/logs-insights) that read fields the worker writes', () => {
      const dir = join(root, 'infra/logs-insights');
      const files = readdirSync(dir).filter((f) => f.endsWith('.query'));
      expect(files.length).toBeGreaterThanOrEqual(4);
      for (const f of files) expect(missingFields(readFileSync(join(dir, f), 'utf8'), lines), f).toEqual([]);
    });
  });
});

describe('osls package: the defaults (one cluster, the opt-outs of where and who, nothing optional)', () => {
  let packaged: Packaged;
  let t: Json;

  beforeAll(() => {
    packaged = oslsPackage(['clusters=prod', 'namespaces=*', 'specWriterArns=*']);
    t = packaged.template ?? { Resources: {}, Outputs: {} };
  }, 300_000);

  it.skipIf(!cfnLintAvailable)('passes the CloudFormation specification check (cfn-lint)', () => {
    expect(cfnLintErrors(t)).toEqual([]);
  }, 120_000);

  it('packages, with no reserved concurrency, no VPC, no permissions boundary', () => {
    expect(packaged.status, packaged.output).toBe(0);
    for (const f of FUNCTIONS) {
      expect(fn(t, f).ReservedConcurrentExecutions, f).toBeUndefined();
      expect(fn(t, f).VpcConfig, f).toBeUndefined();
      expect(t.Resources[`${pascal(f)}Role`].Properties.PermissionsBoundary, f).toBeUndefined();
    }
    expect(grants(t, 'WorkerRole').filter((g) => g.startsWith('ec2:') || g.startsWith('sts:'))).toEqual([]);
    expect(JSON.parse(fn(t, 'worker').Environment.Variables.SHPA_CLUSTERS as string)).toEqual([{ name: 'prod', region: 'eu-west-1', shards: 1 }]);
    expect(fn(t, 'worker').Environment.Variables.SHPA_DRY_RUN).toBe('false');
    expect(t.Outputs.ClustersWithAccessOutsideStack).toBeUndefined();
  });

  it('creates the alarm topic, and sizes the queue concurrency and the missing-cycles alarm for one shard', () => {
    expect(t.Resources.AlarmTopic).toMatchObject({ Type: 'AWS::SNS::Topic', Properties: { TopicName: 'serverless-hpa-test-alarms' } });
    // only this stage's alarms (CloudWatch of this account) publish to it, over TLS
    expect(t.Resources.AlarmTopicPolicy.Properties).toEqual({
      Topics: [{ Ref: 'AlarmTopic' }],
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'StackAlarmsPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: 'AlarmTopic' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { 'Fn::Sub': '${AWS::AccountId}' } },
              ArnLike: { 'aws:SourceArn': { 'Fn::Sub': 'arn:${AWS::Partition}:cloudwatch:${AWS::Region}:${AWS::AccountId}:alarm:serverless-hpa-test-*' } },
            },
          },
          { Sid: 'TlsOnly', Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Resource: { Ref: 'AlarmTopic' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
        ],
      },
    });
    const alarms = resourcesOf(t, 'AWS::CloudWatch::Alarm').map(([, r]) => r.Properties);
    // param monitoring true: the alarms of a silent stop or lost work only (monitoring=full adds three)
    expect(alarms.map((a) => a.AlarmName).sort()).toEqual(['dead-letters', 'failed-events', 'worker-errors', 'worker-missing-cycles'].map((n) => `serverless-hpa-test-${n}`));
    for (const a of alarms) expect([a.AlarmActions, a.OKActions]).toEqual([[{ Ref: 'AlarmTopic' }], [{ Ref: 'AlarmTopic' }]]);
    // on the worker's own Invocations (AWS/Lambda, free): no custom metric, and the worker sends no Cycles
    expect(alarms.find((a) => a.AlarmName === 'serverless-hpa-test-worker-missing-cycles')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'WorkerLambdaFunction' } }],
      Statistic: 'Sum',
      Threshold: 2,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(fn(t, 'worker').Environment.Variables.SHPA_MONITORING).toBe('true');
    const [[, sqs]] = resourcesOf(t, 'AWS::Lambda::EventSourceMapping').filter(([, r]) => show(r.Properties.EventSourceArn) === WORK_QUEUE);
    // up to 256 shards for the one cluster (a bucket cut in 16 parts), + 2 for busy ticks sent again
    expect(sqs.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 258 });
    expect(t.Outputs.AlarmTopicArn.Value).toEqual({ Ref: 'AlarmTopic' });
  });

  it('creates no dashboard unless asked (param dashboard)', () => {
    expect(resourcesOf(t, 'AWS::CloudWatch::Dashboard')).toEqual([]);
  });

  it('without spec writers, denies spec writes to the stack\'s own roles whatever they come to allow', () => {
    const [first] = t.Resources.AutoscalerTable.Properties.ResourcePolicy.PolicyDocument.Statement as Json[];
    expect(first.Condition.ArnLike).toEqual({ 'aws:PrincipalArn': FUNCTIONS.map((f) => ({ 'Fn::Sub': roleArn(f) })) });
    expect(first.Condition.ArnNotLike).toBeUndefined();
  });

  it('without eventSenderArns, takes evaluate-now events from nobody; without kmsKeyArn, encrypts with AWS-managed keys', () => {
    const statements = resourcesOf(t, 'AWS::Events::EventBusPolicy').map(([, r]) => r.Properties.Statement as Json);
    expect(statements).toEqual([{ Sid: 'serverless-hpa-test-nobody-sends', Effect: 'Deny', Principal: '*', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': ['EvaluateBus', 'Arn'] } }]);
    for (const id of ['WorkQueue', 'WorkDeadLetterQueue', 'FailedEventsQueue']) expect(t.Resources[id].Properties.SqsManagedSseEnabled, id).toBe(true);
    expect(t.Resources.AutoscalerTable.Properties.SSESpecification).toEqual({ SSEEnabled: true });
    expect(t.Resources.AlarmTopic.Properties.KmsMasterKeyId).toBeUndefined();
    for (const f of FUNCTIONS) {
      expect(statementsBySid(t, `${pascal(f)}Role`).UseStackKey, f).toBeUndefined();
      expect(t.Resources[`${pascal(f)}LogGroup`].Properties.KmsKeyId, f).toBeUndefined();
    }
  });

  it('tags with the defaults, and gives access to its one cluster in the stack', () => {
    expect(t.Resources.WorkQueue.Properties.Tags).toEqual([
      { Key: 'service', Value: 'serverless-hpa' },
      { Key: 'stage', Value: 'test' },
    ]);
    expect(resourcesOf(t, 'AWS::EKS::AccessEntry').map(([, e]) => e.Properties.ClusterName)).toEqual(['prod']);
  });
});

describe('osls package: the other opt-ins (PromQL sources with their grants, monitoring off)', () => {
  const WORKSPACE = 'arn:aws:aps:eu-west-1:123456789012:workspace/ws-0123abcd-4567-89ef-0123-456789abcdef';
  const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prometheus-token-AbCdEf';
  const QUEUES = 'arn:aws:sqs:eu-west-1:123456789012:orders-*';
  let packaged: Packaged;

  beforeAll(() => {
    const access = { web: { prometheusWorkspaces: ['ws-0123abcd-4567-89ef-0123-456789abcdef'], prometheusUrls: ['https://prometheus.monitoring:9090'], bearerTokenSecrets: [SECRET], sqsQueues: [QUEUES] } };
    packaged = oslsPackage(['clusters=prod', 'namespaces=web', 'specWriterArns=*', `prometheusWorkspaceArns=${WORKSPACE}`, `prometheusSecretArns=${SECRET}`, `sqsQueueArns=${QUEUES}`, `metricAccess=${JSON.stringify(access)}`, 'cloudWatchPromQL=true', 'monitoring=false', `kmsKeyArn=${KEY}`]);
  }, 300_000);

  it('packages, with no alarms, and passes the CloudFormation specification check where cfn-lint is found', () => {
    expect(packaged.status, packaged.output).toBe(0);
    const t = packaged.template!;
    expect(resourcesOf(t, 'AWS::CloudWatch::Alarm')).toEqual([]);
    expect(grants(t, 'WorkerRole')).toEqual(expect.arrayContaining([`aps:QueryMetrics ${WORKSPACE}`, `secretsmanager:GetSecretValue ${SECRET}`, `sqs:GetQueueAttributes ${QUEUES}`]));
    if (cfnLintAvailable) expect(cfnLintErrors(t)).toEqual([]);
  }, 120_000);
});

describe('osls package with a bad param', () => {
  it('fails before building anything, naming the param and the fix', () => {
    const r = oslsPackage(['clusters=prod', 'namespaces=*', 'specWriterArns=*', 'syncPeriodSeconds=7']);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('param "syncPeriodSeconds": must divide 60 and be at least 5');
    // Said once, without a stack trace (serverless resolves each entry point on its own).
    expect(r.output.split('param "syncPeriodSeconds"').length - 1).toBe(1);
    expect(r.output).not.toMatch(/^\s+at /m);
    expect(r.template).toBeUndefined();
  }, 120_000);

  it('refuses to package without saying where it may act and who may write specs ("*" says every one, on purpose)', () => {
    const r = oslsPackage(['clusters=prod']);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('param "namespaces" is required');
    expect(r.output).toContain('param "specWriterArns" is required');
    expect(r.output.split('param "namespaces" is required').length - 1).toBe(1);
    expect(r.output).not.toMatch(/^\s+at /m);
    expect(r.template).toBeUndefined();
  }, 120_000);
});

/** Each metric the EMF lines define, as "namespace metric dim=value,…" (dimensions sorted). */
function emittedMetrics(lines: LogLine[]): Set<string> {
  const out = new Set<string>();
  for (const line of lines) {
    const emf = (line._aws as Json | undefined)?.CloudWatchMetrics as Json[] | undefined;
    for (const d of emf ?? []) {
      for (const dims of d.Dimensions as string[][]) {
        const pairs = dims.map((k) => `${k}=${String(line[k])}`).sort().join(',');
        for (const m of d.Metrics as { Name: string }[]) out.add(`${d.Namespace} ${m.Name} ${pairs}`);
      }
    }
  }
  return out;
}

/** Fn::Sub [text, vars] as CloudFormation resolves it: pseudo parameters, vars, Ref and GetAtt of resources, ${!x} kept literally. */
function resolveSub(sub: unknown, template: Json): string {
  expect(Array.isArray(sub)).toBe(true);
  const [text, vars] = sub as [string, Record<string, string>];
  return text.replace(/\$\{(!?)([^}]*)\}/g, (_m, literal: string, name: string) => {
    if (literal) return `\${${name}}`;
    if (name === 'AWS::Region') return REGION;
    if (name in vars) return vars[name];
    const [id, attribute] = name.split('.');
    const r = template.Resources[id] as Json | undefined;
    if (r?.Type === 'AWS::Logs::LogGroup' && !attribute) return r.Properties.LogGroupName as string;
    if (r?.Type === 'AWS::Lambda::Function' && !attribute) return r.Properties.FunctionName as string;
    if (r?.Type === 'AWS::SQS::Queue' && attribute === 'QueueName') return r.Properties.QueueName as string;
    throw new Error(`Fn::Sub refers to ${name} (${JSON.stringify(r?.Type)}): no value known here`);
  });
}
