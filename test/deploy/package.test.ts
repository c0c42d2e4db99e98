// `osls package` on serverless.yml, offline: fake credentials, no ambient AWS
// config, and (where the kernel allows) inside an empty network namespace, so
// any attempt to reach AWS or the internet fails the packaging.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/defaults.js';
import { loadSyncConfig } from '../../lib/sync/config.js';
import { logSampleCycle, missingFields, type LogLine } from '../functions/log-lines.js';

const root = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const iam = require('../../infra/iam-policy.cjs') as {
  parseClusters(text: string, region: string): { name: string; region: string; roleArn?: string }[];
  checkParams(params: Record<string, string | number>): void;
};

const offline = spawnSync('unshare', ['-rn', 'true'], { stdio: 'ignore' }).status === 0;
const ROLE = 'arn:aws:iam::123456789012:role/shpa-prod';
const CW_ROLE = 'arn:aws:iam::210987654321:role/metrics-reader';
const SETTINGS = '{"downscaleStabilizationWindowSeconds":600}';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What Ref returns for the resources the dashboard names. */
function refValue(resource: Json | undefined): string {
  if (resource?.Type === 'AWS::Logs::LogGroup') return resource.Properties.LogGroupName;
  if (resource?.Type === 'AWS::Lambda::Function') return resource.Properties.FunctionName;
  throw new Error(`Fn::Sub refers to ${JSON.stringify(resource?.Type)}: no Ref value known here`);
}

/** Fn::Sub [text, vars] as CloudFormation resolves it: pseudo parameters, vars, resource Refs, ${!x} kept literally. */
function resolveSub(sub: unknown, template: Json, region: string): string {
  expect(Array.isArray(sub)).toBe(true);
  const [text, vars] = sub as [string, Record<string, string>];
  return text.replace(/\$\{(!?)([^}]*)\}/g, (_m, literal: string, name: string) => {
    if (literal) return `\${${name}}`;
    if (name === 'AWS::Region') return region;
    if (name in vars) return vars[name];
    return refValue(template.Resources[name]);
  });
}

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

function osls(out: string, params: string[]) {
  const cmd = [process.execPath, join(root, 'node_modules/osls/bin/serverless.js'), 'package', '--region', 'eu-west-1', '--stage', 'test', '--package', out, ...params.map((p) => `--param=${p}`)];
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: mkdtempSync(join(tmpdir(), 'shpa-home-')),
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'eu-west-1',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
  };
  const [bin, ...args] = offline ? ['unshare', '-rn', ...cmd] : cmd;
  return spawnSync(bin, args, { cwd: root, env, encoding: 'utf8', timeout: 240_000 });
}

describe('serverless.yml packaged offline', () => {
  let out: string;
  let template: Json;
  let packaged: ReturnType<typeof osls>;

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'shpa-package-'));
    packaged = osls(out, [`clusters=prod,other:us-west-2:${ROLE}`, `assumeRoleArns=${CW_ROLE}`, 'dryRun=true', `controllerSettings=${SETTINGS}`]);
    if (packaged.status === 0) template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
  }, 300_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('packages without network access', () => {
    expect(packaged.stderr + packaged.stdout).toContain('Service packaged');
    expect(packaged.status).toBe(0);
    if (!offline) console.warn('unshare -rn unavailable: packaged with the network present');
  });

  it('schedules the sync every minute', () => {
    const rules = Object.values(template.Resources as Json).filter((r: Json) => r.Type === 'AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    expect(rules[0].Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(rules[0].Properties.State).toBe('ENABLED');
  });

  it('creates the table: pk/sk strings, on demand, point-in-time recovery, encryption, retained', () => {
    const table = template.Resources.AutoscalerTable;
    expect(table.Type).toBe('AWS::DynamoDB::Table');
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      TableName: 'serverless-hpa-test',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('runs nodejs22.x with the configured memory, timeout and environment', () => {
    const fn = template.Resources.SyncLambdaFunction.Properties;
    expect(fn).toMatchObject({ Runtime: 'nodejs22.x', MemorySize: 512, Timeout: 90, Handler: 'functions/sync.handler' });
    const env = fn.Environment.Variables;
    expect(JSON.parse(env.SHPA_CLUSTERS)).toEqual([
      { name: 'prod', region: 'eu-west-1' },
      { name: 'other', region: 'us-west-2', roleArn: ROLE },
    ]);
    expect(env).toMatchObject({ SHPA_TABLE: 'serverless-hpa-test', SHPA_SYNC_PERIOD_SECONDS: '15', SHPA_DRY_RUN: 'true' });
    // What the function reads: the environment as packaged is a valid configuration.
    const config = loadSyncConfig({ ...env, AWS_REGION: 'eu-west-1' });
    expect(config.options.settings.downscaleStabilizationWindowSeconds).toBe(600);
    expect(config.options.dryRun).toBe(true);
  });

  it('grants least privilege: named resources, "*" only for cloudwatch:GetMetricData', () => {
    const statements: Json[] = template.Resources.IamRoleLambdaExecution.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement);
    const list = (v: unknown) => (Array.isArray(v) ? v : [v]);
    for (const s of statements) {
      for (const action of list(s.Action)) expect(action).not.toMatch(/\*/);
      const wildcard = list(s.Resource).some((r) => r === '*');
      if (wildcard) expect(list(s.Action)).toEqual(['cloudwatch:GetMetricData']);
    }
    const byAction = (a: string) => statements.filter((s) => list(s.Action).includes(a)).flatMap((s) => list(s.Resource));
    expect(byAction('dynamodb:Query')).toEqual([{ 'Fn::GetAtt': ['AutoscalerTable', 'Arn'] }]);
    expect(byAction('dynamodb:PutItem')).toEqual([{ 'Fn::GetAtt': ['AutoscalerTable', 'Arn'] }]);
    // The cluster behind a role is described with that role; only the local one is named here.
    expect(byAction('eks:DescribeCluster')).toEqual([{ 'Fn::Sub': 'arn:${AWS::Partition}:eks:eu-west-1:${AWS::AccountId}:cluster/prod' }]);
    expect(byAction('sts:AssumeRole').sort()).toEqual([CW_ROLE, ROLE].sort());
    expect(byAction('logs:PutLogEvents')).toHaveLength(1);
  });

  describe('operators dashboard', () => {
    let body: Json;
    let lines: LogLine[];
    let widgets: Json[];
    const metricWidgets = () => widgets.filter((w) => w.type === 'metric');
    const logWidgets = () => widgets.filter((w) => w.type === 'log');
    const fnName = () => template.Resources.SyncLambdaFunction.Properties.FunctionName as string;

    beforeAll(() => {
      if (!template) return;
      const props = template.Resources.OperatorsDashboard?.Properties;
      if (props) body = JSON.parse(resolveSub(props.DashboardBody['Fn::Sub'], template, 'eu-west-1'));
      widgets = body?.widgets ?? [];
      // The function's own EMF output for a cycle (one scaled autoscaler, one failed), in the packaged namespace.
      const env = template.Resources.SyncLambdaFunction.Properties.Environment.Variables;
      lines = logSampleCycle({ metricsNamespace: env.SHPA_METRICS_NAMESPACE, autoscalerMetrics: env.SHPA_AUTOSCALER_METRICS !== 'false' });
    });

    it('is a CloudWatch dashboard per stage whose body is JSON once Fn::Sub resolves', () => {
      const dashboard = template.Resources.OperatorsDashboard;
      expect(dashboard.Type).toBe('AWS::CloudWatch::Dashboard');
      expect(dashboard.Properties.DashboardName).toBe('serverless-hpa-test');
      expect(widgets.length).toBeGreaterThanOrEqual(8);
      for (const w of widgets) expect(w.properties.region).toBe('eu-west-1');
    });

    it('graphs metrics the sync function emits, with their dimensions, and all of them', () => {
      const emitted = emittedMetrics(lines);
      const emittedNames = new Set([...emitted].map((m) => m.split(' ')[1]));
      expect(emittedNames).toContain('DesiredReplicas');
      const shown = new Set<string>();
      const lambda = new Set<string>();
      for (const row of metricWidgets().flatMap((w) => w.properties.metrics as unknown[][])) {
        if (typeof row[0] === 'object') {
          // SEARCH finds a metric only under its exact dimension set: the schema must be what EMF declares.
          const expr = (row[0] as Json).expression as string;
          const search = /^SEARCH\('\{([^}]+)\} MetricName="(\w+)"', '\w+', \d+\)$/.exec(expr);
          expect(search, expr).not.toBeNull();
          const [ns, ...dims] = search![1].split(',');
          const schema = `${ns} ${search![2]} ${dims.sort().join(',')}`;
          const match = [...emitted].some((m) => m.replace(/=[^,]*/g, '') === schema);
          expect(match, `${expr} matches no emitted metric (${[...emitted].join('; ')})`).toBe(true);
          shown.add(search![2]);
          continue;
        }
        const [ns, name, ...rest] = row as string[];
        const dims = rest.filter((x) => typeof x === 'string');
        const pairs = dims.flatMap((_, i) => (i % 2 === 0 ? [`${dims[i]}=${dims[i + 1]}`] : [])).sort().join(',');
        if (ns === 'AWS/Lambda') {
          expect(pairs).toBe(`FunctionName=${fnName()}`);
          lambda.add(name);
          continue;
        }
        expect(emitted, `${ns} ${name} ${pairs}`).toContain(`${ns} ${name} ${pairs}`);
        shown.add(name);
      }
      expect([...shown].sort()).toEqual([...emittedNames].sort());
      expect([...lambda].sort()).toEqual(['Duration', 'Errors', 'Throttles']);
    });

    it('queries the sync log group for fields the decision and cycle lines have', () => {
      const logGroup = template.Resources.SyncLogGroup.Properties.LogGroupName as string;
      expect(logGroup).toBe(`/aws/lambda/${fnName()}`);
      expect(logWidgets()).toHaveLength(2);
      for (const w of logWidgets()) {
        const query = w.properties.query as string;
        expect(query.startsWith(`SOURCE '${logGroup}'\n`), query).toBe(true);
        expect(missingFields(query, lines), w.properties.title).toEqual([]);
      }
    });
  });

  it('ships one bundled ESM handler', () => {
    const zip = join(out, 'serverless-hpa.zip');
    const listing = spawnSync('unzip', ['-l', zip], { encoding: 'utf8' });
    expect(listing.stdout).toMatch(/functions\/sync\.mjs/);
    expect(listing.stdout).not.toMatch(/node_modules/);
    // Goal of the issue: ≤ 1 MB minified (test/deploy/bundle.test.ts says what is in it).
    const handlerBytes = Number(/^\s*(\d+)\s.*functions\/sync\.mjs$/m.exec(listing.stdout)?.[1]);
    expect(handlerBytes).toBeGreaterThan(0);
    expect(handlerBytes).toBeLessThanOrEqual(1_000_000);
    console.info(`package: ${statSync(zip).size} bytes zipped; functions/sync.mjs ${handlerBytes} bytes; ${listing.stdout.trim().split('\n').at(-1)}`);
  });
});

describe('cluster parameter', () => {
  it('reads name, region and role, and names the bad entry', () => {
    expect(iam.parseClusters(`a, b:us-east-2 ,c:eu-west-3:${ROLE}`, 'eu-west-1')).toEqual([
      { name: 'a', region: 'eu-west-1' },
      { name: 'b', region: 'us-east-2' },
      { name: 'c', region: 'eu-west-3', roleArn: ROLE },
    ]);
    expect(() => iam.parseClusters('', 'eu-west-1')).toThrow(/param "clusters" is empty/);
    expect(() => iam.parseClusters('a,a', 'eu-west-1')).toThrow(/"a" is listed twice/);
    expect(() => iam.parseClusters('a:mars', 'eu-west-1')).toThrow(/invalid region "mars"/);
    expect(() => iam.parseClusters('a:eu-west-1:arn:aws:iam::1:user/x', 'eu-west-1')).toThrow(/not an IAM role ARN/);
  });

  it('refuses to package without clusters', () => {
    const out = mkdtempSync(join(tmpdir(), 'shpa-package-'));
    try {
      const r = osls(out, []);
      expect(r.status).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(/param "clusters" is empty/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('other params', () => {
  const DEFAULTS = { syncPeriodSeconds: '15', dryRun: 'false', autoscalerMetrics: 'true', controllerSettings: '', logLevel: 'INFO', memorySize: 512, logRetentionDays: 30, tableName: 'serverless-hpa-dev' };
  const check = (name: string, value: string) => () => iam.checkParams({ ...DEFAULTS, [name]: value });

  it('accepts the defaults and names the bad param', () => {
    expect(() => iam.checkParams(DEFAULTS)).not.toThrow();
    expect(check('controllerSettings', '{bad')).toThrow(/param "controllerSettings": not JSON/);
    expect(check('controllerSettings', '{"downscaleStabilisationWindowSeconds":600}')).toThrow(/param "controllerSettings": downscaleStabilisationWindowSeconds: unknown setting/);
    expect(check('syncPeriodSeconds', 'abc')).toThrow(/param "syncPeriodSeconds": must be an integer from 1 to 60, got "abc"/);
    expect(check('dryRun', 'maybe')).toThrow(/param "dryRun": must be true or false, got "maybe"/);
    expect(check('autoscalerMetrics', 'no')).toThrow(/param "autoscalerMetrics"/);
    expect(check('logLevel', 'LOUD')).toThrow(/param "logLevel": must be one of/);
    expect(check('memorySize', '64')).toThrow(/param "memorySize"/);
    expect(check('logRetentionDays', '10')).toThrow(/param "logRetentionDays"/);
    expect(check('tableName', 'a/b')).toThrow(/param "tableName"/);
  });

  // The function reads these params from its environment (lib/sync/config.ts): packaging must accept exactly what it accepts.
  const ENV: Record<string, string> = { syncPeriodSeconds: 'SHPA_SYNC_PERIOD_SECONDS', dryRun: 'SHPA_DRY_RUN', controllerSettings: 'SHPA_CONTROLLER_SETTINGS' };
  const settings = (v: unknown) => JSON.stringify(v);
  const table: [string, string][] = [
    ...['', '1', '15', '60', '61', '0', '-5', '1.5', 'abc', '1e1', ' 30'].map((v): [string, string] => ['syncPeriodSeconds', v]),
    ...['', 'true', 'false', 'TRUE', ' False ', 'maybe', '1', 'yes'].map((v): [string, string] => ['dryRun', v]),
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
    // every setting, with its default's type and with a wrong one
    ...Object.entries(DEFAULT_CONTROLLER_SETTINGS).flatMap(([k, v]): [string, string][] =>
      typeof v === 'number'
        ? [['controllerSettings', settings({ [k]: v })], ['controllerSettings', settings({ [k]: -1 })], ['controllerSettings', settings({ [k]: String(v) })]]
        : Object.entries(v as object).flatMap(([f, fv]): [string, string][] => [
            ['controllerSettings', settings({ [k]: { [f]: fv } })],
            ['controllerSettings', settings({ [k]: { [f]: typeof fv === 'number' ? true : 1 } })],
          ]),
    ),
  ];

  it.each(table)('%s=%s: packaging and the function agree', (name, value) => {
    const packaged = (() => {
      try {
        iam.checkParams({ ...DEFAULTS, [name]: value });
        return 'accepted';
      } catch {
        return 'rejected';
      }
    })();
    const env = { AWS_REGION: 'eu-west-1', SHPA_TABLE: 't', SHPA_CLUSTERS: '[{"name":"prod"}]', SHPA_SCHEDULE_INTERVAL_SECONDS: '60', [ENV[name]]: value };
    const runtime = (() => {
      try {
        loadSyncConfig(env);
        return 'accepted';
      } catch {
        return 'rejected';
      }
    })();
    expect(packaged).toBe(runtime);
  });

  it('refuses to package with a bad param, naming it', () => {
    const out = mkdtempSync(join(tmpdir(), 'shpa-package-'));
    try {
      const r = osls(out, ['clusters=prod', 'controllerSettings={bad']);
      expect(r.status).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(/param "controllerSettings": not JSON/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
