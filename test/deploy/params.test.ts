// The deploy params (infra/params.cjs) and what the stack makes of them, without packaging:
// every param checked at package time with the param named, the rules the functions apply to
// the same values (lib/sync/config.ts), and the branches the two packagings of
// package.test.ts do not take (an existing table, bad values).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { loadFunctionConfig } from '../../lib/sync/config.js';
import { grants, root, type Json } from './osls.js';

const require = createRequire(import.meta.url);
type Config = Json;
const params = require('../../infra/params.cjs') as {
  PARAMS: string[];
  parseClusters(value: unknown, region: string, namespaces?: string[]): Json[];
  readParams(p: Record<string, unknown>, stack: { service: string; stage: string; region: string }): Config;
};
const stack = require('../../infra/stack.cjs') as Record<string, (arg: { resolveVariable(v: string): Promise<unknown> }) => Promise<unknown>> & {
  stackResources(c: Config): Json;
  environment(c: Config): Record<string, string>;
  lambdaLoggingConfig(c: Config): Json;
};

const ROLE = 'arn:aws:iam::123456789012:role/shpa-prod';
const STACK = { service: 'serverless-hpa', stage: 'dev', region: 'eu-west-1' };

/** params.default of serverless.yml, as serverless resolves them for stage dev. */
function defaults(): Record<string, unknown> {
  const yml = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' }) as { params: { default: Record<string, unknown> } };
  return Object.fromEntries(Object.entries(yml.params.default).map(([k, v]) => [k, v === '${self:service}-${sls:stage}' ? 'serverless-hpa-dev' : v]));
}
/** The opt-outs of the two params without a default: every namespace, any spec writer IAM allows. */
const OPEN = { namespaces: '*', specWriterArns: '*' };
const read = (over: Record<string, unknown> = {}) => params.readParams({ ...defaults(), ...OPEN, clusters: 'prod', ...over }, STACK);
const rejects = (over: Record<string, unknown>) => () => read(over);

describe('serverless.yml params', () => {
  it('defines a default for exactly the params infra/params.cjs reads', () => {
    expect(Object.keys(defaults()).sort()).toEqual([...params.PARAMS].sort());
  });

  it('fails closed: where it may act and who may write specs have no default, and both are named when missing', () => {
    expect(() => params.readParams({ ...defaults(), clusters: 'prod' }, STACK)).toThrow(/^param "namespaces" is required: .*; param "specWriterArns" is required: /);
    // "*" is the explicit opt-out, read as every namespace and no named writer.
    expect(read()).toMatchObject({ specWriterArns: [] });
    expect(JSON.parse(stack.environment(read()).SHPA_CLUSTERS)).toEqual([{ name: 'prod', region: 'eu-west-1', shards: 1 }]);
    // A list: the clusters act only there, and only those principals write specs.
    const narrow = read({ namespaces: 'web,jobs', specWriterArns: ROLE });
    expect(narrow).toMatchObject({ specWriterArns: [ROLE], clusters: [{ name: 'prod', namespaces: ['web', 'jobs'] }] });
  });

  it('are read by the entry points serverless.yml calls, through its variable resolver', async () => {
    const values: Record<string, unknown> = { ...defaults(), ...OPEN, clusters: `prod,other:us-west-2:${ROLE}`, syncPeriodSeconds: '30', reservedConcurrency: '12' };
    const resolveVariable = async (v: string) => {
      if (v.startsWith('param:')) return values[v.slice('param:'.length)];
      return { 'self:service': 'serverless-hpa', 'self:provider.stage': 'dev', 'self:provider.region': 'eu-west-1' }[v];
    };
    const env = (await stack.env({ resolveVariable })) as Record<string, string>;
    expect(JSON.parse(env.SHPA_CLUSTERS)).toEqual([
      { name: 'prod', region: 'eu-west-1', shards: 1 },
      { name: 'other', region: 'us-west-2', roleArn: ROLE, shards: 1 },
    ]);
    expect(await stack.workerTimeout({ resolveVariable })).toBe(30);
    expect(await stack.reservedConcurrency({ resolveVariable })).toBe(12);
    expect(await stack.workerVpc({ resolveVariable })).toBeNull();
    // the worker's reserved concurrency bounds the work queue's, and the dispatcher's shards within it; the evaluator has its own
    expect(await stack.evaluateConcurrency({ resolveVariable })).toBe(2);
    expect(await stack.maxConcurrency({ resolveVariable })).toBe(12);
    expect(env.SHPA_SHARD_BUDGET).toBe('10');
    // an evaluation older than a period (30 s; Lambda's 60 s at least) has been covered by a tick
    expect(await stack.evaluateEventAge({ resolveVariable })).toBe(60);
    values.syncPeriodSeconds = '120';
    expect(await stack.evaluateEventAge({ resolveVariable })).toBe(120);
    values.syncPeriodSeconds = '900';
    expect(await stack.evaluateEventAge({ resolveVariable })).toBe(300);
    expect(await stack.alarmNamePattern({ resolveVariable })).toEqual([{ prefix: 'shpa-' }]);
    values.syncPeriodSeconds = '45';
    await expect(stack.resources({ resolveVariable })).rejects.toThrow('param "syncPeriodSeconds": must divide 60');
  });
});

describe('clusters', () => {
  it('reads name, region and role, comma-separated, and names the bad entry', () => {
    expect(params.parseClusters(`a, b:us-east-2 ,c:eu-west-3:${ROLE}`, 'eu-west-1')).toEqual([
      { name: 'a', region: 'eu-west-1', shards: 1 },
      { name: 'b', region: 'us-east-2', shards: 1 },
      { name: 'c', region: 'eu-west-3', roleArn: ROLE, shards: 1 },
    ]);
    expect(() => params.parseClusters('', 'eu-west-1')).toThrow('param "clusters" is empty');
    expect(() => params.parseClusters('a,a', 'eu-west-1')).toThrow('cluster "a" is listed twice');
    expect(() => params.parseClusters('a:mars', 'eu-west-1')).toThrow('invalid region "mars" in a:mars');
    expect(() => params.parseClusters('a:eu-west-1:arn:aws:iam::1:user/x', 'eu-west-1')).toThrow('not an IAM role ARN');
  });

  it('reads a JSON or YAML list with shards and a namespace allowlist, narrowed by the global one', () => {
    const list = [{ name: 'prod', shards: 4, namespaces: ['web', 'jobs'] }, { name: 'batch', region: 'us-east-1' }];
    const expected = [
      { name: 'prod', region: 'eu-west-1', shards: 4, namespaces: ['web', 'jobs'] },
      { name: 'batch', region: 'us-east-1', shards: 1 },
    ];
    expect(params.parseClusters(JSON.stringify(list), 'eu-west-1')).toEqual(expected);
    expect(params.parseClusters(list, 'eu-west-1')).toEqual(expected);
    expect(params.parseClusters(list, 'eu-west-1', ['web', 'queue'])).toEqual([
      { name: 'prod', region: 'eu-west-1', shards: 4, namespaces: ['web'] },
      { name: 'batch', region: 'us-east-1', shards: 1, namespaces: ['web', 'queue'] },
    ]);
  });

  it.each([
    ['[{"name":"a","shards":3}]', 'shards of "a" must be one of 1, 2, 4, 8, 16, 32, 64, 128, 256, got 3'],
    ['[{"name":"a","shard":2}]', 'clusters[0]: unknown field "shard"'],
    ['[{"name":"a","namespaces":[]}]', 'namespaces of "a" must be a non-empty list'],
    ['[{"name":"a","namespaces":["Web"]}]', 'not a namespace name (in "a"): "Web"'],
    ['[{"name":"a","namespaces":["web","web"]}]', '"web" is listed twice'],
    ['["a"]', 'clusters[0] must be an object'],
    ['[{"name":"a"', 'param "clusters": not JSON'],
  ])('%s: %s', (value, message) => {
    expect(() => params.parseClusters(value, 'eu-west-1')).toThrow(message);
  });

  it('refuses a cluster whose allowlist and the global one share no namespace', () => {
    expect(() => params.parseClusters('[{"name":"a","namespaces":["jobs"]}]', 'eu-west-1', ['web'])).toThrow('no namespace of "a" is in the namespaces param (web): it could act nowhere');
  });
});

describe('other params', () => {
  it('takes the per-stage example of docs/deploy.md as it is written', () => {
    const doc = readFileSync(join(root, 'docs/deploy.md'), 'utf8');
    const block = /or per stage in `serverless.yml`:\n\n```yaml\n([^]*?)```/.exec(doc)?.[1];
    expect(block, 'the per-stage example of docs/deploy.md').toBeDefined();
    const prod = (parse(block!) as { params: { prod: Record<string, unknown> } }).params.prod;
    const c = params.readParams({ ...defaults(), ...prod }, { ...STACK, stage: 'prod' });
    expect(c.clusters.map((x: Json) => [x.name, x.region, x.namespaces])).toEqual([
      ['prod', 'eu-west-1', ['web', 'jobs']],
      ['other', 'us-west-2', ['web', 'jobs', 'checkout']],
    ]);
  });

  it('accepts the defaults', () => {
    const c = read();
    expect(c).toMatchObject({ syncPeriodSeconds: 15, dryRun: false, autoscalerMetrics: false, detailedMetrics: false, dashboard: false, memorySize: 512, logRetentionDays: 30, maxConcurrency: 258, shardBudget: 256, monitoring: true, tableDeletionProtection: true });
    expect(c.reservedConcurrency).toBeUndefined();
    expect(c.vpc).toBeUndefined();
    expect(c.tags).toEqual({ service: 'serverless-hpa', stage: 'dev' });
  });

  it('takes a sync period that divides 60 (≥ 5 s) or a multiple of 60 up to 900', () => {
    for (const ok of ['5', '6', '10', '12', '15', '20', '30', '60', '120', '900']) expect(read({ syncPeriodSeconds: ok }).syncPeriodSeconds).toBe(Number(ok));
    for (const bad of ['1', '4', '7', '45', '90', '61', '960', 'abc', '1.5']) expect(rejects({ syncPeriodSeconds: bad }), bad).toThrow('param "syncPeriodSeconds": must divide 60');
  });

  it.each([
    // the missing one is named
    [{ vpcSubnetIds: 'subnet-0123456789abcdef0' }, 'param "vpcSecurityGroupIds": a VPC needs both vpcSubnetIds and vpcSecurityGroupIds (or neither)'],
    [{ vpcSecurityGroupIds: 'sg-0123456789abcdef0' }, 'param "vpcSubnetIds": a VPC needs both'],
    [{ vpcSubnetIds: 'subnet-xyz', vpcSecurityGroupIds: 'sg-0123456789abcdef0' }, 'param "vpcSubnetIds": not a subnet id'],
    [{ maxConcurrency: '1' }, 'param "maxConcurrency": must be an integer from 2 to 1000'],
    [{ clusters: '[{"name":"a","shards":8}]', maxConcurrency: '4' }, 'param "maxConcurrency": 4 is less than the 8 shards'],
    [{ reservedConcurrency: '1' }, 'param "reservedConcurrency": must be an integer from 2 to 1000'],
    [{ reservedConcurrency: '7', maxConcurrency: '8' }, 'param "reservedConcurrency": 7 is less than maxConcurrency (8)'],
    [{ evaluateConcurrency: '0' }, 'param "evaluateConcurrency": must be an integer from 1 to 1000'],
    [{ eventSenderArns: 'arn:aws:iam::123456789012:group/ops' }, 'param "eventSenderArns": not an IAM role, user or root ARN'],
    [{ eventSenderArns: '*,arn:aws:iam::123456789012:role/ops' }, 'param "eventSenderArns": "*" (every one) cannot be listed with others'],
    [{ alarmNamePrefix: 'shpa\u0001-' }, 'param "alarmNamePrefix": must be 1 to 255 characters without control characters'],
    [{ kmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:alias/shpa' }, 'param "kmsKeyArn": not a KMS key ARN'],
    [{ kmsKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab' }, 'param "kmsKeyArn": is in us-east-1, but the stack deploys to eu-west-1'],
    [{ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms.fifo' }, 'param "alarmTopicArn": not a standard SNS topic ARN'],
    [{ permissionsBoundaryArn: 'arn:aws:iam::123456789012:role/x' }, 'param "permissionsBoundaryArn": not an IAM policy ARN'],
    [{ specWriterArns: 'arn:aws:iam::123456789012:group/admins' }, 'param "specWriterArns": not an IAM role, user or root ARN'],
    [{ assumeRoleArns: 'arn:aws:iam::123456789012:user/x' }, 'param "assumeRoleArns": not an IAM role ARN'],
    [{ namespaces: 'web,kube_system' }, 'param "namespaces": not a namespace name: "kube_system"'],
    [{ namespaces: '' }, 'param "namespaces" is required: the namespaces the autoscaler may act in, e.g. "web,jobs" (each cluster may narrow them), or "*" for every namespace, kube-system included'],
    [{ specWriterArns: '' }, 'param "specWriterArns" is required: the IAM principals that may write autoscaler specs'],
    [{ namespaces: 'web,*' }, 'param "namespaces": "*" (every one) cannot be listed with others'],
    [{ assumeRoleArns: ROLE }, `param "assumeRoleArns": no namespace may use ${ROLE}: grant each in param metricAccess`],
    [{ metricAccess: '{"web":{"roles":["arn:aws:iam::123456789012:role/other"]}}' }, 'param "metricAccess": web: role arn:aws:iam::123456789012:role/other is not in assumeRoleArns'],
    [{ assumeRoleArns: ROLE, metricAccess: `{"web":{"role":["${ROLE}"]}}` }, 'param "metricAccess": web: unknown field "role" (roles, metricNamespaces, prometheusWorkspaces, prometheusUrls, bearerTokenSecrets, sqsQueues)'],
    [{ metricAccess: '{"Web":{}}' }, 'param "metricAccess": not a namespace name: "Web"'],
    [{ tags: 'aws:owner=me' }, 'param "tags": invalid tag key "aws:owner"'],
    [{ tags: 'team' }, 'param "tags": "team" is not key=value'],
    [{ autoscalerSources: 'table,crd' }, 'param "autoscalerSources": unknown source "crd"'],
    [{ tableDeletionProtection: 'yes' }, 'param "tableDeletionProtection": must be true or false'],
    [{ dashboard: 'on' }, 'param "dashboard": must be true or false, got "on"'],
    [{ logLevel: 'LOUD' }, 'param "logLevel": must be one of'],
    [{ memorySize: '64' }, 'param "memorySize": must be an integer from 128 to 10240'],
    [{ logRetentionDays: '10' }, 'param "logRetentionDays": must be one of'],
    [{ tableName: 'a/b' }, 'param "tableName"'],
    [{ controllerSettings: '{bad' }, 'param "controllerSettings": not JSON'],
    [{ existingTableStreamArn: 'arn:aws:dynamodb:eu-west-1:123456789012:table/other/stream/2026-01-01T00:00:00.000' }, 'is the stream of table "other", but param "tableName" is "serverless-hpa-dev"'],
    [{ existingTableStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/serverless-hpa-dev/stream/2026-01-01T00:00:00.000' }, 'is in us-east-1, but the stack deploys to eu-west-1'],
    [{ existingTableStreamArn: 'serverless-hpa-dev' }, 'not a DynamoDB stream ARN'],
  ])('%j: %s', (over, message) => {
    expect(rejects(over)).toThrow(message);
  });

  it('reads tags as key=value pairs, JSON or a map, over the defaults', () => {
    const want = { service: 'serverless-hpa', stage: 'dev', team: 'platform', 'cost-center': '42' };
    expect(read({ tags: 'team=platform, cost-center=42' }).tags).toEqual(want);
    expect(read({ tags: '{"team":"platform","cost-center":42}' }).tags).toEqual(want);
    expect(read({ tags: { team: 'platform', 'cost-center': 42 } }).tags).toEqual(want);
  });

  it('creates the dashboard only when param dashboard is true; the alarms either way', () => {
    const dashboards = (c: Config) => Object.values(stack.stackResources(c).Resources as Json).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    const alarms = (c: Config) => Object.values(stack.stackResources(c).Resources as Json).filter((r) => r.Type === 'AWS::CloudWatch::Alarm').length;
    expect(dashboards(read())).toEqual([]);
    expect(dashboards(read({ dashboard: 'TRUE' }))).toHaveLength(1);
    expect(dashboards(read({ dashboard: 'true' }))[0].Properties.DashboardName).toBe('serverless-hpa-dev');
    expect(alarms(read())).toBe(alarms(read({ dashboard: 'true' })));
  });

  it('logs JSON without Lambda’s START and REPORT lines at logLevel INFO; keeps them when debugging; keeps Text where JSON filtering would drop the EMF lines', () => {
    expect(stack.lambdaLoggingConfig(read())).toEqual({ logFormat: 'JSON', applicationLogLevel: 'INFO', systemLogLevel: 'WARN' });
    expect(stack.lambdaLoggingConfig(read({ logLevel: 'debug' }))).toEqual({ logFormat: 'JSON', applicationLogLevel: 'DEBUG', systemLogLevel: 'INFO' });
    for (const logLevel of ['WARN', 'ERROR', 'CRITICAL', 'SILENT']) expect(stack.lambdaLoggingConfig(read({ logLevel }))).toEqual({ logFormat: 'Text' });
  });

  it('sends the Cycles heartbeat (SHPA_MONITORING full) only with param monitoring full', () => {
    expect([read(), read({ monitoring: 'full' }), read({ monitoring: 'false' })].map((c) => stack.environment(c).SHPA_MONITORING)).toEqual(['true', 'full', 'false']);
  });

  it('deploys four alarms with param monitoring true, seven with full, and leaves out the alarms, their topic and the Cycles heartbeat with false', () => {
    const resources = (c: Config) => Object.values(stack.stackResources(c).Resources as Json).map((r) => r.Type as string);
    expect(resources(read()).filter((t) => t === 'AWS::CloudWatch::Alarm')).toHaveLength(4);
    expect(resources(read({ monitoring: 'full' })).filter((t) => t === 'AWS::CloudWatch::Alarm')).toHaveLength(7);
    expect(read({ monitoring: 'full' })).toMatchObject({ monitoring: true, allAlarms: true });
    expect(() => read({ monitoring: 'some' })).toThrow('param "monitoring": must be true (the four alarms that catch a stopped autoscaler or lost work), full (all seven) or false (none), got "some"');
    const off = read({ monitoring: 'false' });
    expect(resources(off).filter((t) => t === 'AWS::CloudWatch::Alarm' || t === 'AWS::SNS::Topic')).toEqual([]);
    expect(stack.stackResources(off).Outputs.AlarmTopicArn).toBeUndefined();
  });

  it('subscribes the events function to the audit log of each in-stack cluster only when param auditLogEvaluations is true', () => {
    const byType = (c: Config, type: string) => Object.entries(stack.stackResources(c).Resources as Json).filter(([, r]) => r.Type === type);
    expect(byType(read(), 'AWS::Logs::SubscriptionFilter')).toEqual([]);
    // prod is in the stack's account and region; other is in another account: its log group is not the stack's to subscribe to.
    const c = read({ auditLogEvaluations: 'true', clusters: `prod,other:us-west-2:${ROLE}` });
    expect(byType(c, 'AWS::Logs::SubscriptionFilter')).toEqual([
      [
        'AuditLogSubscriptionProd',
        {
          Type: 'AWS::Logs::SubscriptionFilter',
          DependsOn: ['AuditLogPermissionProd'],
          Properties: {
            LogGroupName: '/aws/eks/prod/cluster',
            FilterPattern: '{ $.objectRef.apiGroup = "shpa.dev" && $.stage = "ResponseComplete" }',
            DestinationArn: { 'Fn::GetAtt': ['EventsLambdaFunction', 'Arn'] },
          },
        },
      ],
    ]);
    expect(byType(c, 'AWS::Lambda::Permission').map(([id, r]) => [id, r.Properties.Principal, r.Properties.SourceArn])).toEqual([
      ['AuditLogPermissionProd', 'logs.amazonaws.com', { 'Fn::Sub': 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/eks/prod/cluster:*' }],
    ]);
    expect(() => read({ auditLogEvaluations: 'yes' })).toThrow(/param "auditLogEvaluations"/);
  });

  it('refuses a role name longer than IAM allows, saying what to shorten', () => {
    const c = params.readParams({ ...defaults(), ...OPEN, clusters: 'prod' }, { ...STACK, stage: 'a-very-long-stage-name-for-testing' });
    expect(() => stack.stackResources(c)).toThrow('longer than IAM\'s 64 characters: use a shorter stage or service name');
  });
});

describe('an existing table (retained by a deleted stack)', () => {
  const ARN = 'arn:aws:dynamodb:eu-west-1:123456789012:table/serverless-hpa-dev/stream/2026-01-01T00:00:00.000';

  it('is used, not created: the stream function reads its stream, and roles name it as before', () => {
    const created = stack.stackResources(read());
    const adopted = stack.stackResources(read({ existingTableStreamArn: ARN }));
    expect(created.Resources.AutoscalerTable).toBeDefined();
    expect(adopted.Resources.AutoscalerTable).toBeUndefined();
    expect(grants(adopted, 'StreamRole').filter((g) => g.startsWith('dynamodb:'))).toEqual(['DescribeStream', 'GetRecords', 'GetShardIterator', 'ListStreams'].map((a) => `dynamodb:${a} ${ARN}`));
    expect(grants(adopted, 'WorkerRole')).toEqual(grants(created, 'WorkerRole'));
    expect(adopted.Outputs.AutoscalerTableName.Value).toBe('serverless-hpa-dev');
  });
});

describe('what the functions read', () => {
  const env = (over: Record<string, unknown> = {}) => stack.environment(read(over));
  const base = { AWS_REGION: 'eu-west-1', SHPA_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/q' };

  it('is a configuration lib/sync/config.ts accepts, with the same clusters, shards and namespaces', () => {
    const clusters = JSON.stringify([{ name: 'prod', shards: 4, namespaces: ['web'] }, { name: 'other', region: 'us-west-2', roleArn: ROLE }]);
    const e = env({ clusters, dryRun: 'TRUE', syncPeriodSeconds: '30', controllerSettings: '{"tolerance":{"scaleUp":0.05}}', autoscalerSources: 'cluster' });
    const config = loadFunctionConfig({ ...base, ...e });
    expect(config.clusters).toEqual(JSON.parse(e.SHPA_CLUSTERS));
    expect(config.clusters).toEqual([
      { name: 'prod', region: 'eu-west-1', shards: 4, namespaces: ['web'] },
      { name: 'other', region: 'us-west-2', roleArn: ROLE, shards: 1 },
    ]);
    expect(config).toMatchObject({ tableName: 'serverless-hpa-dev', syncPeriodSeconds: 30, options: { dryRun: true, sources: { table: false, cluster: true }, decisionLogSeconds: 300 } });
    expect(config.options.settings.tolerance.scaleUp).toBe(0.05);
    expect(e.SHPA_DRY_RUN).toBe('true');
  });

  // Packaging must accept exactly what the functions accept, value by value.
  const settings = (v: unknown) => JSON.stringify(v);
  const ENV: Record<string, string> = {
    syncPeriodSeconds: 'SHPA_SYNC_PERIOD_SECONDS',
    dryRun: 'SHPA_DRY_RUN',
    autoscalerMetrics: 'SHPA_AUTOSCALER_METRICS',
    controllerSettings: 'SHPA_CONTROLLER_SETTINGS',
    autoscalerSources: 'SHPA_AUTOSCALER_SOURCES',
    decisionLogSeconds: 'SHPA_DECISION_LOG_SECONDS',
    cloudWatchPublishDelay: 'SHPA_CLOUDWATCH_PUBLISH_DELAY',
  };
  const table: [string, string][] = [
    ...['', '1', '5', '7', '15', '45', '60', '61', '90', '120', '900', '960', '0', '-5', '1.5', 'abc', '1e1', ' 30'].map((v): [string, string] => ['syncPeriodSeconds', v]),
    ...['', 'true', 'false', 'TRUE', ' False ', 'maybe', '1', 'yes'].map((v): [string, string] => ['dryRun', v]),
    ...['', 'true', 'no'].map((v): [string, string] => ['autoscalerMetrics', v]),
    ...['table,cluster', 'cluster', 'table, table', 'crd', ',', 'table,crd'].map((v): [string, string] => ['autoscalerSources', v]),
    ...['', '0', '300', '86400', '86401', '-1', 'x'].map((v): [string, string] => ['decisionLogSeconds', v]),
    ...['', 'learn', '0', '20', '600', '601', '-1', '1.5', 'fast'].map((v): [string, string] => ['cloudWatchPublishDelay', v]),
    ...[
      '',
      '{bad',
      '[]',
      'null',
      '42',
      '{}',
      settings(DEFAULT_CONTROLLER_SETTINGS),
      settings({ unknown: 1 }),
      settings({ tolerance: null }),
      settings({ tolerance: { scaleUp: 0.2 } }),
      settings({ tolerance: { scaleUp: -0.2 } }),
      settings({ tolerance: { sideways: 0.2 } }),
      settings({ featureGates: { HPAScaleToZero: 'yes' } }),
      settings({ featureGates: { HPAScaleToZero: false, Other: true } }),
    ].map((v): [string, string] => ['controllerSettings', v]),
    ...Object.entries(DEFAULT_CONTROLLER_SETTINGS).flatMap(([k, v]): [string, string][] =>
      typeof v === 'number'
        ? [['controllerSettings', settings({ [k]: v })], ['controllerSettings', settings({ [k]: -1 })], ['controllerSettings', settings({ [k]: String(v) })]]
        : Object.entries(v as object).flatMap(([f, fv]): [string, string][] => [
            ['controllerSettings', settings({ [k]: { [f]: fv } })],
            ['controllerSettings', settings({ [k]: { [f]: typeof fv === 'number' ? true : 1 } })],
          ]),
    ),
  ];

  it.each(table)('%s=%j: packaging and the functions agree', (name, value) => {
    const verdict = (f: () => unknown) => {
      try {
        f();
        return 'accepted';
      } catch {
        return 'rejected';
      }
    };
    const packaged = verdict(() => read({ [name]: value }));
    const runtime = verdict(() => loadFunctionConfig({ ...base, SHPA_TABLE: 't', SHPA_CLUSTERS: '[{"name":"prod"}]', [ENV[name]]: value }));
    expect(packaged).toBe(runtime);
    // and what packaging writes for an accepted value is read the same way
    if (packaged === 'accepted') expect(() => loadFunctionConfig({ ...base, ...env({ [name]: value }) })).not.toThrow();
  });
});

describe('SQSQueueMetric params: least privilege', () => {
  const QUEUES = 'arn:aws:sqs:eu-west-1:123456789012:orders-*';
  const sqsGrants = (over: Record<string, unknown>) => grants(stack.stackResources(read(over)), 'WorkerRole').filter((g) => g.startsWith('sqs:GetQueueAttributes') && !g.includes('Queue.Arn') && !g.includes('Fn::'));

  it('grants GetQueueAttributes on the named queues only, none by default', () => {
    const none = sqsGrants({});
    expect(none.some((g) => g.includes(':orders'))).toBe(false);
    expect(sqsGrants({ sqsQueueArns: QUEUES })).toContain(`sqs:GetQueueAttributes ${QUEUES}`);
  });

  it('refuses what is not a queue ARN, and a namespace grant the IAM policy does not cover', () => {
    expect(rejects({ sqsQueueArns: 'orders' })).toThrow(/^param "sqsQueueArns": not an SQS queue ARN/);
    expect(rejects({ sqsQueueArns: QUEUES, metricAccess: '{"web":{"sqsQueues":["arn:aws:sqs:eu-west-1:123456789012:payments"]}}' })).toThrow(
      'param "metricAccess": web: queue arn:aws:sqs:eu-west-1:123456789012:payments is not within sqsQueueArns: the functions may not read it',
    );
    expect(rejects({ sqsQueueArns: QUEUES, metricAccess: '{"web":{"sqsQueues":["orders-*"]}}' })).toThrow(/web\.sqsQueues: not an SQS queue ARN pattern/);
    expect(read({ sqsQueueArns: QUEUES, metricAccess: '{"web":{"sqsQueues":["arn:aws:sqs:eu-west-1:123456789012:orders-eu"]}}' })).toMatchObject({ sqsQueueArns: [QUEUES] });
  });
});

describe('PrometheusMetric params: least privilege', () => {
  const WS = 'arn:aws:aps:eu-west-1:123456789012:workspace/ws-12345678-abcd-4ef0-9abc-123456789012';
  const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prom-token-AbCdEf';
  const promGrants = (over: Record<string, unknown>) => grants(stack.stackResources(read(over)), 'WorkerRole').filter((g) => /^(aps|secretsmanager):|ListMetrics/.test(g));

  it('grants nothing by default; aps:QueryMetrics on the named workspaces, GetSecretValue on the named secrets, ListMetrics only when asked', () => {
    expect(promGrants({})).toEqual([]);
    expect(promGrants({ prometheusWorkspaceArns: WS, prometheusSecretArns: SECRET, cloudWatchPromQL: 'true' })).toEqual([`aps:QueryMetrics ${WS}`, 'cloudwatch:ListMetrics *', `secretsmanager:GetSecretValue ${SECRET}`]);
  });

  it('refuses what is not an ARN of its kind, and a metricAccess entry the IAM policy does not grant', () => {
    expect(rejects({ prometheusWorkspaceArns: 'ws-12345678-abcd-4ef0-9abc-123456789012' })).toThrow(/^param "prometheusWorkspaceArns": not an AMP workspace ARN/);
    expect(rejects({ prometheusSecretArns: 'prom-token' })).toThrow(/^param "prometheusSecretArns": not a Secrets Manager secret ARN/);
    expect(rejects({ metricAccess: '{"web":{"prometheusWorkspaces":["ws-00000000-abcd-4ef0-9abc-123456789012"]}}' })).toThrow(/web: workspace ws-00000000-abcd-4ef0-9abc-123456789012 is not in prometheusWorkspaceArns/);
    expect(rejects({ metricAccess: `{"web":{"bearerTokenSecrets":["${SECRET}"]}}` })).toThrow(/web: secret .* is not in prometheusSecretArns/);
    expect(read({ prometheusWorkspaceArns: WS, metricAccess: '{"web":{"prometheusWorkspaces":["ws-12345678-abcd-4ef0-9abc-123456789012"]}}' })).toMatchObject({ prometheus: { workspaceArns: [WS] } });
  });

  it('grants Prometheus servers as origins, and a bearer token only with the origins it may be sent to', () => {
    const access = (rules: unknown) => ({ prometheusSecretArns: SECRET, metricAccess: JSON.stringify({ web: rules }) });
    expect(rejects(access({ bearerTokenSecrets: [SECRET] }))).toThrow('param "metricAccess": web.bearerTokenSecrets: grant the origins each token may be sent to, by name, in web.prometheusUrls');
    expect(rejects(access({ prometheusUrls: ['*'], bearerTokenSecrets: [SECRET] }))).toThrow('param "metricAccess": web.bearerTokenSecrets: grant the origins each token may be sent to, by name, in web.prometheusUrls');
    expect(rejects(access({ prometheusUrls: ['http://prom:9090/api'] }))).toThrow('param "metricAccess": web.prometheusUrls: "http://prom:9090/api" must be an origin only (scheme://host[:port]): servers are granted whole, compared by scheme, host and port');
    expect(rejects(access({ prometheusUrls: ['prom:9090'] }))).toThrow('param "metricAccess": web.prometheusUrls: "prom:9090" is not an http(s) origin such as http://prometheus.monitoring:9090');
    expect(rejects(access({ prometheusUrls: ['http://u:p@prom:9090'] }))).toThrow('param "metricAccess": web.prometheusUrls: "http://u:p@prom:9090" must not carry credentials');
    expect(read(access({ prometheusUrls: ['http://prom:9090', '*'], bearerTokenSecrets: [SECRET] })).metricAccess).toEqual({ web: { prometheusUrls: ['http://prom:9090', '*'], bearerTokenSecrets: [SECRET] } });
  });
});
