// The sync function's IAM statements and cluster list, computed at package time
// from the `clusters` and `assumeRoleArns` params (see docs/deploy.md), so that
// every resource is named: no wildcard except cloudwatch:GetMetricData, which
// supports no resource-level permissions (AWS requires "*"). Also the operators'
// dashboard body (infra/dashboard.json), the other package-time value serverless.yml needs.
// Every other param with a clear domain is checked here too (checkParams), so that a bad
// value fails the packaging rather than every invocation; the rules are lib/sync/config.ts's
// (test/deploy/package.test.ts checks that both agree on a table of values).
//
// clusters: comma-separated entries `name`, `name:region` or `name:region:roleArn`
// (a role in the cluster's account, assumed to describe and call that cluster).
// assumeRoleArns: comma-separated extra roles (CloudWatchMetric objects in other accounts).
'use strict';

const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]*$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=.@/-]+$/;

/** The clusters param as records; throws with the offending entry. */
function parseClusters(text, defaultRegion) {
  const entries = String(text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) {
    throw new Error('param "clusters" is empty: set it to e.g. "prod" or "prod:eu-west-1,staging:us-east-1:arn:aws:iam::123456789012:role/shpa"');
  }
  const seen = new Set();
  return entries.map((entry) => {
    const [name, region, ...role] = entry.split(':');
    const roleArn = role.join(':');
    if (!CLUSTER_NAME.test(name)) throw new Error(`param "clusters": invalid cluster name in "${entry}"`);
    if (seen.has(name)) throw new Error(`param "clusters": cluster "${name}" is listed twice`);
    seen.add(name);
    if (region && !REGION.test(region)) throw new Error(`param "clusters": invalid region "${region}" in "${entry}"`);
    if (roleArn && !ROLE_ARN.test(roleArn)) throw new Error(`param "clusters": not an IAM role ARN: "${roleArn}"`);
    return { name, region: region || defaultRegion, ...(roleArn ? { roleArn } : {}) };
  });
}

function parseRoleArns(text) {
  return String(text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((arn) => {
      if (!ROLE_ARN.test(arn)) throw new Error(`param "assumeRoleArns": not an IAM role ARN: "${arn}"`);
      return arn;
    });
}

/** The sync period must fit in the schedule's interval (SHPA_SCHEDULE_INTERVAL_SECONDS in serverless.yml). */
const SCHEDULE_INTERVAL_SECONDS = 60;
// ControllerSettings fields (lib/hpa/types.ts) and their types, as lib/sync/config.ts accepts them.
const SETTING_NUMBERS = ['cpuInitializationPeriodSeconds', 'initialReadinessDelaySeconds', 'downscaleStabilizationWindowSeconds', 'scaleUpLimitFactor', 'scaleUpLimitMinimum'];
const SETTING_OBJECTS = {
  tolerance: { scaleUp: 'number', scaleDown: 'number' },
  featureGates: { HPAScaleToZero: 'boolean', HPAConfigurableTolerance: 'boolean' },
};
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];
// CloudWatch Logs' allowed retention periods.
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

function integerParam(name, text, min, max) {
  if (text === '') return;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`param "${name}": must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
}

function booleanParam(name, text) {
  if (!['', 'true', 'false'].includes(text.trim().toLowerCase())) throw new Error(`param "${name}": must be true or false, got ${JSON.stringify(text)}`);
}

function controllerSettingsParam(text) {
  if (text === '') return;
  const at = (path) => `param "controllerSettings"${path ? `: ${path}` : ''}`;
  let raw;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${at()}: not JSON: ${e.message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${at()}: must be a JSON object`);
  for (const [k, v] of Object.entries(raw)) {
    if (SETTING_NUMBERS.includes(k)) {
      if (typeof v !== 'number' || !(v >= 0)) throw new Error(`${at(k)} must be a number ≥ 0`);
    } else if (k in SETTING_OBJECTS) {
      if (typeof v !== 'object' || v === null) throw new Error(`${at(k)} must be an object`);
      for (const [field, value] of Object.entries(v)) {
        const type = SETTING_OBJECTS[k][field];
        if (!type) throw new Error(`${at(`${k}.${field}`)}: unknown field`);
        if (typeof value !== type) throw new Error(`${at(`${k}.${field}`)} must be a ${type}`);
        if (type === 'number' && !(value >= 0)) throw new Error(`${at(`${k}.${field}`)} must be ≥ 0`);
      }
    } else {
      throw new Error(`${at(k)}: unknown setting (known: ${[...SETTING_NUMBERS, ...Object.keys(SETTING_OBJECTS)].join(', ')})`);
    }
  }
}

/** Checks the params other than clusters and assumeRoleArns (values as strings, as --param gives them); throws naming the param. */
function checkParams(params) {
  const text = (name) => String(params[name] ?? '');
  integerParam('syncPeriodSeconds', text('syncPeriodSeconds'), 1, SCHEDULE_INTERVAL_SECONDS);
  booleanParam('dryRun', text('dryRun'));
  booleanParam('autoscalerMetrics', text('autoscalerMetrics'));
  controllerSettingsParam(text('controllerSettings'));
  if (!LOG_LEVELS.includes(text('logLevel').toUpperCase())) throw new Error(`param "logLevel": must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(text('logLevel'))}`);
  integerParam('memorySize', text('memorySize'), 128, 10240);
  if (!RETENTION_DAYS.includes(Number(text('logRetentionDays')))) {
    throw new Error(`param "logRetentionDays": must be one of ${RETENTION_DAYS.join(', ')}, got ${JSON.stringify(text('logRetentionDays'))}`);
  }
  if (!TABLE_NAME.test(text('tableName'))) throw new Error(`param "tableName": 3 to 255 letters, digits, "_", "." or "-", got ${JSON.stringify(text('tableName'))}`);
}

const CHECKED_PARAMS = ['syncPeriodSeconds', 'dryRun', 'autoscalerMetrics', 'controllerSettings', 'logLevel', 'memorySize', 'logRetentionDays', 'tableName'];

/** IAM statements of the sync function's role. */
function statements({ clusters, roleArns, tableArn }) {
  const out = [
    {
      Effect: 'Allow',
      Action: ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
      Resource: [tableArn],
    },
    // GetMetricData has no resource-level permissions: "*" is the only valid resource.
    { Effect: 'Allow', Action: ['cloudwatch:GetMetricData'], Resource: ['*'] },
  ];
  // Clusters reached through a role are described with that role's credentials.
  const local = clusters.filter((c) => !c.roleArn);
  if (local.length > 0) {
    out.push({
      Effect: 'Allow',
      Action: ['eks:DescribeCluster'],
      Resource: local.map((c) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:eks:${c.region}:\${AWS::AccountId}:cluster/${c.name}` })),
    });
  }
  const roles = [...new Set([...clusters.map((c) => c.roleArn).filter(Boolean), ...roleArns])];
  if (roles.length > 0) out.push({ Effect: 'Allow', Action: ['sts:AssumeRole'], Resource: roles });
  return out;
}

async function fromParams(resolveVariable) {
  const region = await resolveVariable('self:provider.region');
  const clusters = parseClusters(await resolveVariable('param:clusters'), region);
  const roleArns = parseRoleArns(await resolveVariable('param:assumeRoleArns'));
  const params = {};
  for (const name of CHECKED_PARAMS) params[name] = await resolveVariable(`param:${name}`);
  checkParams(params);
  return { region, clusters, roleArns };
}

/**
 * The dashboard body: infra/dashboard.json as one line for Fn::Sub, which fills in
 * ${AWS::Region}, ${SyncLambdaFunction}, ${SyncLogGroup} and ${MetricsNamespace}
 * (CloudFormation takes DashboardBody as a string, and serverless.yml has no raw-text file variable).
 */
function dashboardSub(metricsNamespace) {
  const file = join(__dirname, 'dashboard.json');
  let body;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
  return { 'Fn::Sub': [JSON.stringify(body), { MetricsNamespace: metricsNamespace }] };
}

module.exports = {
  parseClusters,
  parseRoleArns,
  checkParams,
  statements,
  /** serverless.yml: provider.iam.role.statements */
  async roleStatements({ resolveVariable }) {
    const { clusters, roleArns } = await fromParams(resolveVariable);
    return statements({ clusters, roleArns, tableArn: { 'Fn::GetAtt': ['AutoscalerTable', 'Arn'] } });
  },
  /** serverless.yml: the SHPA_CLUSTERS environment variable (JSON, read by lib/sync/config.ts). */
  async clustersJson({ resolveVariable }) {
    const { clusters } = await fromParams(resolveVariable);
    return JSON.stringify(clusters);
  },
  /** serverless.yml: the DashboardBody of the operators' dashboard, in the function's EMF namespace. */
  async dashboardBody({ resolveVariable }) {
    return dashboardSub(await resolveVariable('self:provider.environment.SHPA_METRICS_NAMESPACE'));
  },
};
