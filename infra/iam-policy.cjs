// The sync function's IAM statements and cluster list, computed at package time
// from the `clusters` and `assumeRoleArns` params (see docs/deploy.md), so that
// every resource is named: no wildcard except cloudwatch:GetMetricData, which
// supports no resource-level permissions (AWS requires "*"). Also the operators'
// dashboard body (infra/dashboard.json), the other package-time value serverless.yml needs.
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
