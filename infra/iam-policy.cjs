// One IAM role per function, each allowed exactly what its function does, on named resources
// (docs/deploy.md, "Every permission and why"; test/deploy/package.test.ts lists every action and
// resource, so a widening fails). The resource "*" appears only where AWS accepts nothing else:
// cloudwatch:GetMetricData, and the EC2 Describe calls Lambda makes for a worker in a VPC.
'use strict';

const { getAtt, sub } = require('./cfn.cjs');

const FUNCTIONS = ['dispatcher', 'worker', 'stream', 'events'];
/** Every function of serverless.yml: the evaluator runs the worker's code with the worker's role. */
const ALL_FUNCTIONS = [...FUNCTIONS, 'evaluator'];

/**
 * Attributes the worker writes (docs/architecture.md, and lib/store as it is: test/deploy/dynamo-iam.test.ts
 * checks every request of an end-to-end run): state items and the bucket index in `c#…` partitions
 * (`sel`: the target's selector, `cs`, `oc`: a copy of a Kubernetes-defined autoscaler's spec and its creationTimestamp for `shpa get`),
 * the shard's CloudWatch answers kept for the deployment (`cw`) and its buckets' autoscaler counts (`n00`…`n15`)…
 */
const BUCKET_COUNT_ATTRIBUTES = Array.from({ length: 16 }, (_, b) => `n${String(b).padStart(2, '0')}`);
const SHARD_STATE_ATTRIBUTES = ['pk', 'sk', 'uid', 'v', 'sv', 'st', 'rec', 'open', 'off', 'up', 'dn', 'mt', 'ut', 'w', 'pend', 'log', 'src', 'ttl', 'sel', 'cs', 'oc', 'b', 'cw', 'hold', 'dem', ...BUCKET_COUNT_ATTRIBUTES];
/** The shard count the dispatcher chose for a cluster, in its index item (lib/sizing). */
const SHARD_COUNT_ATTRIBUTES = ['pk', 'sk', 'k', 'ks', 'kp', 'pm'];
/** …and the shard's cycle item (lease and what holds it, last tick, marker, what its deadline left, evaluation times, alarms named, phase) in `shard#…` partitions. */
const SHARD_CYCLE_ATTRIBUTES = ['pk', 'sk', 'owner', 'exp', 'what', 'tick', 'at', 'left', 'ev', 'al', 'ph', 'pp'];
/** Spec attributes: only the specWriterArns principals write them (the table's resource policy). */
const SPEC_ATTRIBUTES = ['doc', 'kind'];

const pascal = (name) => name[0].toUpperCase() + name.slice(1);

const functionName = (c, fn) => `${c.service}-${c.stage}-${fn}`;
/** Role names are global to the account: the region is in them. */
const roleName = (c, fn) => `${c.service}-${c.stage}-${c.region}-${fn}`;
const roleLogicalId = (fn) => `${pascal(fn)}Role`;
/** The role's ARN as a string (no dependency on the role: usable in policies the roles themselves depend on). */
const roleArn = (c, fn) => sub(`arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/${roleName(c, fn)}`);
const tableArn = (c) => sub(`arn:\${AWS::Partition}:dynamodb:\${AWS::Region}:\${AWS::AccountId}:table/${c.tableName}`);
const streamArn = (c) => c.existingTableStreamArn ?? getAtt('AutoscalerTable', 'StreamArn');
/** The function's own log group, as AWS::Logs::LogGroup's Arn gives it (`:*` covers its streams, nothing else). */
const logGroupArn = (c, fn) => sub(`arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${functionName(c, fn)}:*`);
/** A function's ARN as a string (no dependency on the function: its role may be the caller's). */
const functionArn = (c, fn) => sub(`arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${functionName(c, fn)}`);
const WORK_QUEUE = getAtt('WorkQueue', 'Arn');
const FAILED_EVENTS_QUEUE = getAtt('FailedEventsQueue', 'Arn');

const allow = (Sid, Action, Resource, Condition) => ({ Sid, Effect: 'Allow', Action, Resource, ...(Condition ? { Condition } : {}) });
const leadingKeys = (op, keys) => ({ [`ForAllValues:${op}`]: { 'dynamodb:LeadingKeys': keys } });

/** The statements of each function's role, by function. */
function statements(c) {
  const table = [tableArn(c)];
  const ownLogGroup = (fn) => allow('OwnLogGroup', ['logs:CreateLogStream', 'logs:PutLogEvents'], [logGroupArn(c, fn)]);
  const sendTicks = allow('SendTicks', ['sqs:SendMessage'], [WORK_QUEUE]);
  // Evaluations are asynchronous invocations of the evaluator (Lambda's own queue holds them), of it only.
  const sendEvaluations = allow('InvokeEvaluator', ['lambda:InvokeFunction'], [functionArn(c, 'evaluator')]);
  const failureDestination = allow('FailureDestination', ['sqs:SendMessage'], [FAILED_EVENTS_QUEUE]);
  // With a customer-managed key: its data keys, only through the services the stack encrypts with it.
  const useKey = c.kmsKeyArn
    ? [allow('UseStackKey', ['kms:Decrypt', 'kms:GenerateDataKey'], [c.kmsKeyArn], { StringEquals: { 'kms:ViaService': ['sqs', 'dynamodb'].map((svc) => sub(`${svc}.\${AWS::Region}.amazonaws.com`)) } })]
    : [];

  const worker = [
    // its shard's partitions (spec versions checked many at once); a refused lease reads the cycle item to say why
    allow('ReadShardPartitions', ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'], table, leadingKeys('StringLike', ['c#*', 'shard#*'])),
    // UpdateItem only: an item is never replaced whole, so a spec at a state's key cannot be erased
    allow('WriteShardState', ['dynamodb:UpdateItem'], table, {
      ...leadingKeys('StringLike', ['c#*']),
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': SHARD_STATE_ATTRIBUTES },
    }),
    allow('WriteShardCycle', ['dynamodb:UpdateItem'], table, {
      ...leadingKeys('StringLike', ['shard#*']),
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': SHARD_CYCLE_ATTRIBUTES },
    }),
    // what Lambda's SQS event source calls with the worker's role (it never changes a visibility)
    allow('ReceiveWork', ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'], [WORK_QUEUE]),
    // a busy tick and a busy, coalesced, conflicting or rerouted evaluation are sent again, a second later: to the work queue (a delay the evaluator's invocations cannot have)
    allow('SendWork', ['sqs:SendMessage'], [WORK_QUEUE]),
    // GetMetricData has no resource-level permissions: "*" is the only valid resource.
    allow('ReadCloudWatchMetrics', ['cloudwatch:GetMetricData'], ['*']),
  ];
  worker.push(...prometheusStatements(c.prometheus));
  // SQSQueueMetric objects: the queues' counts, on the granted queues only.
  if ((c.sqsQueueArns ?? []).length > 0) worker.push(allow('ReadQueueCounts', ['sqs:GetQueueAttributes'], c.sqsQueueArns));
  // Clusters behind a role are described with that role's credentials.
  const local = c.clusters.filter((cl) => !cl.roleArn);
  if (local.length > 0) {
    worker.push(allow('DescribeClusters', ['eks:DescribeCluster'], local.map((cl) => sub(`arn:\${AWS::Partition}:eks:${cl.region}:\${AWS::AccountId}:cluster/${cl.name}`))));
  }
  const roles = [...new Set([...c.clusters.map((cl) => cl.roleArn).filter(Boolean), ...c.roleArns])];
  if (roles.length > 0) worker.push(allow('AssumeClusterAndMetricsRoles', ['sts:AssumeRole'], roles));
  if (c.vpc) worker.push(...vpcStatements(c.vpc));
  // The evaluator runs with this role: its on-failure destination, and its log group.
  worker.push(failureDestination, ...useKey, ownLogGroup('worker'), { ...ownLogGroup('evaluator'), Sid: 'EvaluatorLogGroup' });

  return {
    // Mirrors the clusters param into the registry partition, sizes each cluster's shards from its index item, and sends the ticks.
    dispatcher: [
      allow('ClusterRegistry', ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'], table, leadingKeys('StringEquals', ['clusters'])),
      allow('ReadClusterIndexes', ['dynamodb:BatchGetItem'], table, leadingKeys('StringEquals', c.clusters.map((cl) => `c#${cl.name}`))),
      // the phase each shard's pod metrics are sampled at: where its ticks go
      allow('ReadShardPhases', ['dynamodb:BatchGetItem'], table, leadingKeys('StringLike', ['shard#*'])),
      // Both under ForAllValues:StringEquals: one object, or the second key would replace the first.
      allow('RecordShardCounts', ['dynamodb:UpdateItem'], table, {
        'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': c.clusters.map((cl) => `c#${cl.name}`), 'dynamodb:Attributes': SHARD_COUNT_ATTRIBUTES },
      }),
      sendTicks,
      failureDestination,
      ...useKey,
      ownLogGroup('dispatcher'),
    ],
    worker,
    // What Lambda's event source mapping reads from the stream (the function reads nothing else).
    stream: [
      allow('ReadTableStream', ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'], [streamArn(c)]),
      sendEvaluations,
      failureDestination,
      ...useKey,
      ownLogGroup('stream'),
    ],
    events: [
      // which shards name an alarm: the clusters' shard counts and the shards' cycle items (their alarm lists)
      allow('ReadAlarmShards', ['dynamodb:BatchGetItem'], table, leadingKeys('StringLike', [...c.clusters.map((cl) => `c#${cl.name}`), 'shard#*'])),
      sendEvaluations,
      failureDestination,
      ...useKey,
      ownLogGroup('events'),
    ],
  };
}

/**
 * PrometheusMetric objects: AMP queries on the named workspaces only, bearer tokens from the named secrets only,
 * and CloudWatch's PromQL endpoint (GetMetricData, granted above, and ListMetrics, which accepts only "*") when asked for.
 */
function prometheusStatements(p = { workspaceArns: [], secretArns: [], cloudWatchPromQL: false }) {
  return [
    ...(p.workspaceArns.length > 0 ? [allow('QueryPrometheusWorkspaces', ['aps:QueryMetrics'], p.workspaceArns)] : []),
    ...(p.secretArns.length > 0 ? [allow('ReadPrometheusTokens', ['secretsmanager:GetSecretValue'], p.secretArns)] : []),
    ...(p.cloudWatchPromQL ? [allow('QueryCloudWatchPromQL', ['cloudwatch:ListMetrics'], ['*'])] : []),
  ];
}

/**
 * What Lambda does with the worker's role to attach it to the VPC (AWSLambdaVPCAccessExecutionRole, minus logs),
 * scoped to the configured subnets and security groups; the Describe calls accept only "*".
 */
function vpcStatements(vpc) {
  const ec2 = (what) => sub(`arn:\${AWS::Partition}:ec2:\${AWS::Region}:\${AWS::AccountId}:${what}`);
  const interfaces = ec2('network-interface/*');
  return [
    allow('CreateNetworkInterfaces', ['ec2:CreateNetworkInterface'], [interfaces, ...vpc.subnetIds.map((id) => ec2(`subnet/${id}`)), ...vpc.securityGroupIds.map((id) => ec2(`security-group/${id}`))]),
    allow('ManageNetworkInterfaces', ['ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'], [interfaces]),
    allow('DescribeNetwork', ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'], ['*']),
  ];
}

const DESCRIPTIONS = {
  dispatcher: 'serverless-hpa dispatcher: mirrors the clusters param into the registry, sends one tick per shard',
  worker: 'serverless-hpa worker and evaluator: one shard cycle per message or event (state in the table, EKS, CloudWatch metrics)',
  stream: 'serverless-hpa stream: turns spec changes into evaluations (invokes the evaluator)',
  events: 'serverless-hpa events: turns alarm state changes and evaluate-now events into evaluations (invokes the evaluator)',
};

/** The four roles, by logical id. */
function roleResources(c) {
  const byFunction = statements(c);
  const out = {};
  for (const fn of FUNCTIONS) {
    const name = roleName(c, fn);
    if (name.length > 64) throw new Error(`the role name ${name} is longer than IAM's 64 characters: use a shorter stage or service name`);
    out[roleLogicalId(fn)] = {
      Type: 'AWS::IAM::Role',
      Properties: {
        RoleName: name,
        Description: DESCRIPTIONS[fn],
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
        },
        ...(c.permissionsBoundaryArn ? { PermissionsBoundary: c.permissionsBoundaryArn } : {}),
        Policies: [{ PolicyName: fn, PolicyDocument: { Version: '2012-10-17', Statement: byFunction[fn] } }],
      },
    };
  }
  return out;
}

module.exports = { FUNCTIONS, ALL_FUNCTIONS, SPEC_ATTRIBUTES, roleArn, tableArn, streamArn, roleResources };
