// The deploy parameters (serverless.yml `params`, or --param="name=value"), read and checked
// at package time, so that a bad value fails `osls package` naming the param and the fix,
// instead of failing every invocation. docs/deploy.md lists them. The functions read the
// same values from their environment (lib/sync/config.ts); the rules here are theirs.
'use strict';

// Region, role-ARN and cluster-name rules: the same module as the functions' and our kinds' (lib/shared).
const { CLUSTER_NAME, REGION, ROLE_ARN } = require('../lib/shared/aws-patterns.cjs');
// aws:PrincipalArn patterns: roles (SSO roles have paths), users, the account root; * and ? allowed.
const PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(root|(role|user)\/[\w+=,.@/*?-]+)$/;
const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[0-9a-f-]{36}$|^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/mrk-[0-9a-f]{32}$/;
// CloudWatch alarm names: printable, no control characters; a prefix the alarm rule matches.
const ALARM_PREFIX = /^[^\x00-\x1f\x7f]{1,255}$/;
const DEFAULT_ALARM_PREFIX = 'shpa-';
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
const POLICY_ARN = /^arn:aws[a-z-]*:iam::(\d{12}|aws):policy\/[\w+=,.@/-]+$/;
const WORKSPACE_ARN = /^arn:aws[a-z-]*:aps:[a-z0-9-]+:\d{12}:workspace\/ws-[0-9a-f-]{36}$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
const SUBNET = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP = /^sg-[0-9a-f]{8,17}$/;
// Kubernetes namespace names are DNS-1123 labels.
const NAMESPACE = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
const TAG_KEY = /^(?!aws:)[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,128}$/u;
const TAG_VALUE = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{0,256}$/u;
// The shard counts the dispatcher chooses from (lib/sizing: the same module it sizes shards with).
const { SHARD_COUNTS: SHARDS } = require('../lib/sizing/shard-sizing.cjs');
const SOURCES = ['table', 'cluster'];
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];
// CloudWatch Logs' allowed retention periods.
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];
// ControllerSettings fields (lib/hpa/types.ts) and their types, as lib/sync/config.ts accepts them.
const SETTING_NUMBERS = ['cpuInitializationPeriodSeconds', 'initialReadinessDelaySeconds', 'downscaleStabilizationWindowSeconds', 'scaleUpLimitFactor', 'scaleUpLimitMinimum'];
const SETTING_OBJECTS = {
  tolerance: { scaleUp: 'number', scaleDown: 'number' },
  featureGates: { HPAScaleToZero: 'boolean', HPAConfigurableTolerance: 'boolean', HPAExternalMetricFallback: 'boolean' },
};
/** Headroom of the work queue's concurrency over one message per shard: a busy tick sent again. */
const CONCURRENCY_HEADROOM = 2;
/** The most shards the dispatcher cuts a cluster into: every one of them must be able to tick at once. */
const MAX_SHARDS = SHARDS[SHARDS.length - 1];

/** A refused param value (what packaging says, once, without a trace: infra/stack.cjs). */
class ParamError extends Error {}

const fail = (name, message) => {
  throw new ParamError(`param "${name}": ${message}`);
};

/** A list param: comma-separated text, a JSON list, or a list already (YAML params). */
function list(name, value) {
  if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter(Boolean);
  const text = String(value ?? '').trim();
  if (text.startsWith('[')) {
    const parsed = json(name, text);
    if (!Array.isArray(parsed)) fail(name, 'must be a list');
    return list(name, parsed);
  }
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function json(name, text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    return fail(name, `not JSON: ${e.message}`);
  }
}

function matching(name, re, what, values) {
  for (const v of values) if (!re.test(v)) fail(name, `not ${what}: ${JSON.stringify(v)}`);
  const seen = new Set();
  for (const v of values) {
    if (seen.has(v)) fail(name, `${JSON.stringify(v)} is listed twice`);
    seen.add(v);
  }
  return values;
}

/** An integer param; empty: dflt (as the functions read an empty variable). */
function integer(name, value, min, max, dflt) {
  if (String(value ?? '') === '' && dflt !== undefined) return dflt;
  const n = Number(String(value ?? '').trim() === '' ? NaN : value);
  if (!Number.isInteger(n) || n < min || n > max) fail(name, `must be an integer from ${min} to ${max}, got ${JSON.stringify(String(value ?? ''))}`);
  return n;
}

function boolean(name, value, dflt) {
  const text = String(value ?? '').trim().toLowerCase();
  if (text === '') return dflt;
  if (text === 'true' || text === 'false') return text === 'true';
  return fail(name, `must be true or false, got ${JSON.stringify(String(value))}`);
}

/** Param monitoring: true (default), full or false. */
function monitoringLevel(value) {
  const text = String(value ?? '').trim().toLowerCase();
  if (text === '') return 'true';
  if (text === 'true' || text === 'false' || text === 'full') return text;
  return fail('monitoring', `must be true (the four alarms that catch a stopped autoscaler or lost work), full (all seven) or false (none), got ${JSON.stringify(String(value))}`);
}

/** 5 ≤ a divisor of 60, or a multiple of 60 up to 900: ticks fall on the same seconds every minute, and no worker outlives 15 min. */
function syncPeriod(value) {
  if (String(value ?? '') === '') return 15;
  const n = Number(String(value ?? '').trim() === '' ? NaN : value);
  const ok = Number.isInteger(n) && ((n >= 5 && n <= 60 && 60 % n === 0) || (n > 60 && n <= 900 && n % 60 === 0));
  if (!ok) fail('syncPeriodSeconds', `must divide 60 and be at least 5 (5, 6, 10, 12, 15, 20, 30, 60) or be a multiple of 60 up to 900, got ${JSON.stringify(String(value ?? ''))}`);
  return n;
}

function controllerSettings(text) {
  if (text === '') return;
  const at = (path) => `param "controllerSettings"${path ? `: ${path}` : ''}`;
  const raw = json('controllerSettings', text);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ParamError(`${at()}: must be a JSON object`);
  for (const [k, v] of Object.entries(raw)) {
    if (SETTING_NUMBERS.includes(k)) {
      if (typeof v !== 'number' || !(v >= 0)) throw new ParamError(`${at(k)} must be a number ≥ 0`);
    } else if (k in SETTING_OBJECTS) {
      if (typeof v !== 'object' || v === null) throw new ParamError(`${at(k)} must be an object`);
      for (const [field, value] of Object.entries(v)) {
        const type = SETTING_OBJECTS[k][field];
        if (!type) throw new ParamError(`${at(`${k}.${field}`)}: unknown field`);
        if (typeof value !== type) throw new ParamError(`${at(`${k}.${field}`)} must be a ${type}`);
        if (type === 'number' && !(value >= 0)) throw new ParamError(`${at(`${k}.${field}`)} must be ≥ 0`);
      }
    } else {
      throw new ParamError(`${at(k)}: unknown setting (known: ${[...SETTING_NUMBERS, ...Object.keys(SETTING_OBJECTS)].join(', ')})`);
    }
  }
}

/**
 * The clusters param as the functions' SHPA_CLUSTERS records: {name, region, roleArn?, shards, namespaces?}.
 * Forms: comma-separated `name`, `name:region` or `name:region:roleArn`; or a JSON list (or YAML list) of
 * {name, region?, roleArn?, shards?, namespaces?}. `namespaces` (the global allowlist) narrows every cluster;
 * a cluster's own list narrows it further. Throws naming the entry.
 */
function parseClusters(value, defaultRegion, globalNamespaces = []) {
  const example = 'e.g. "prod" or "prod:eu-west-1,staging:us-east-1:arn:aws:iam::123456789012:role/shpa", or a JSON list [{"name":"prod","shards":4,"namespaces":["web"]}]';
  const text = typeof value === 'string' ? value.trim() : value;
  const entries =
    Array.isArray(text) || (typeof text === 'string' && text.startsWith('['))
      ? clusterObjects(Array.isArray(text) ? text : json('clusters', text))
      : String(text ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .map((entry) => {
            const [name, region, ...role] = entry.split(':');
            return { entry, name, region: region || undefined, roleArn: role.join(':') || undefined };
          });
  if (entries.length === 0) throw new ParamError(`param "clusters" is empty: set it, ${example}`);
  const seen = new Set();
  return entries.map(({ entry, name, region, roleArn, shards = 1, namespaces }) => {
    if (typeof name !== 'string' || !CLUSTER_NAME.test(name)) fail('clusters', `invalid cluster name in ${entry}`);
    if (seen.has(name)) fail('clusters', `cluster "${name}" is listed twice`);
    seen.add(name);
    if (region !== undefined && (typeof region !== 'string' || !REGION.test(region))) fail('clusters', `invalid region ${JSON.stringify(region)} in ${entry}`);
    if (roleArn !== undefined && (typeof roleArn !== 'string' || !ROLE_ARN.test(roleArn))) fail('clusters', `not an IAM role ARN: ${JSON.stringify(roleArn)} in ${entry}`);
    if (!SHARDS.includes(shards)) fail('clusters', `shards of "${name}" must be one of ${SHARDS.join(', ')}, got ${JSON.stringify(shards)}`);
    let allowed = globalNamespaces.length > 0 ? globalNamespaces : undefined;
    if (namespaces !== undefined) {
      if (!Array.isArray(namespaces) || namespaces.length === 0) fail('clusters', `namespaces of "${name}" must be a non-empty list (leave it out for every namespace)`);
      matching('clusters', NAMESPACE, `a namespace name (in "${name}")`, namespaces);
      allowed = allowed ? namespaces.filter((ns) => allowed.includes(ns)) : namespaces;
      if (allowed.length === 0) fail('clusters', `no namespace of "${name}" is in the namespaces param (${globalNamespaces.join(', ')}): it could act nowhere`);
    }
    return { name, region: region ?? defaultRegion, ...(roleArn ? { roleArn } : {}), shards, ...(allowed ? { namespaces: allowed } : {}) };
  });
}

function clusterObjects(items) {
  if (!Array.isArray(items)) fail('clusters', 'must be a list');
  return items.map((item, i) => {
    const entry = `clusters[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) fail('clusters', `${entry} must be an object {name, region?, roleArn?, shards?, namespaces?}`);
    const { name, region, roleArn, shards, namespaces, ...rest } = item;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) fail('clusters', `${entry}: unknown field "${unknown[0]}" (known: name, region, roleArn, shards, namespaces)`);
    return { entry, name, region, roleArn, shards, namespaces };
  });
}

/** A tag map: a map (YAML params), JSON, or `key=value,key=value`. */
function parseTags(value) {
  let map = value;
  if (typeof value !== 'object' || value === null) {
    const text = String(value ?? '').trim();
    if (text.startsWith('{')) map = json('tags', text);
    else {
      map = {};
      for (const pair of text.split(',').map((s) => s.trim()).filter(Boolean)) {
        const at = pair.indexOf('=');
        if (at <= 0) fail('tags', `"${pair}" is not key=value`);
        map[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
      }
    }
  }
  if (typeof map !== 'object' || map === null || Array.isArray(map)) fail('tags', 'must be a map of tag keys to values');
  for (const [k, v] of Object.entries(map)) {
    if (!TAG_KEY.test(k)) fail('tags', `invalid tag key ${JSON.stringify(k)} (1–128 letters, digits, spaces, _.:/=+-@; not starting with "aws:")`);
    if (!TAG_VALUE.test(String(v))) fail('tags', `invalid value of tag ${k}: ${JSON.stringify(v)}`);
  }
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, String(v)]));
}

/**
 * Secure by default: a deploy says where the autoscaler may act and who may write its specs (the
 * right to scale). Neither has a default; "*" is the explicit opt-out: every namespace of every
 * cluster (kube-system included), and any principal whose IAM allows it to write the table. The
 * opt-outs read as today's empty lists.
 */
function scopes(p) {
  const asked = {
    namespaces: ['the namespaces the autoscaler may act in, e.g. "web,jobs" (each cluster may narrow them), or "*" for every namespace, kube-system included', NAMESPACE, 'a namespace name'],
    specWriterArns: ['the IAM principals that may write autoscaler specs, e.g. "arn:aws:iam::123456789012:role/platform" (wildcards allowed), or "*" for any principal whose IAM allows it', PRINCIPAL_ARN, 'an IAM role, user or root ARN'],
  };
  const missing = [];
  const out = {};
  for (const [name, [what, re, one]] of Object.entries(asked)) {
    const values = list(name, p[name]);
    if (values.length === 0) missing.push(`param "${name}" is required: ${what}`);
    else if (values.includes('*')) {
      if (values.length > 1) fail(name, '"*" (every one) cannot be listed with others');
      out[name] = [];
    } else out[name] = matching(name, re, one, values);
  }
  if (missing.length > 0) throw new ParamError(missing.join('; '));
  return out;
}

/**
 * Why a prometheusUrls entry is no origin (scheme://host[:port]) or "*", as lib/api/endpoint-address.ts's
 * grantedOriginProblem says it: servers are granted whole and compared parsed, never as string prefixes.
 */
function originProblem(entry) {
  if (entry === '*') return undefined;
  let u;
  try {
    u = new URL(entry);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) return `${JSON.stringify(entry)} is not an http(s) origin such as http://prometheus.monitoring:9090`;
  if (u.username || u.password || entry.includes('@')) return `${JSON.stringify(entry)} must not carry credentials`;
  if ((u.pathname !== '/' && u.pathname !== '') || entry.includes('?') || entry.includes('#')) {
    return `${JSON.stringify(entry)} must be an origin only (scheme://host[:port]): servers are granted whole, compared by scheme, host and port`;
  }
  return undefined;
}

/** The fields of a namespace's entry in metricAccess (lib/api/metric-access.ts). */
const ACCESS_FIELDS = ['roles', 'metricNamespaces', 'prometheusWorkspaces', 'prometheusUrls', 'bearerTokenSecrets', 'sqsQueues'];

/**
 * Which roles and CloudWatch namespaces each namespace's CloudWatchMetric objects may use (lib/api/metric-access.ts
 * enforces it in the worker), and which AMP workspaces, Prometheus servers and bearer-token secrets its PrometheusMetric
 * objects may. Each role must be one of assumeRoleArns, and each of those granted somewhere: a role nobody may use is a
 * mistake, and without this param no namespace may assume any. Workspaces and secrets must be ones the IAM policy grants.
 */
function metricAccess(value, roleArns, prometheus = { workspaceArns: [], secretArns: [] }, sqsQueueArns = []) {
  const raw = value === '' ? {} : json('metricAccess', value);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('metricAccess', 'must be a JSON object of namespaces ("*": the others), e.g. {"web":{"roles":["arn:aws:iam::123456789012:role/metrics"]}}');
  const granted = new Set();
  for (const [ns, rules] of Object.entries(raw)) {
    if (ns !== '*' && !NAMESPACE.test(ns)) fail('metricAccess', `not a namespace name: ${JSON.stringify(ns)}`);
    if (typeof rules !== 'object' || rules === null || Array.isArray(rules)) fail('metricAccess', `${ns}: must be an object {${ACCESS_FIELDS.map((f) => `${f}?`).join(', ')}}`);
    for (const [k, v] of Object.entries(rules)) {
      if (!ACCESS_FIELDS.includes(k)) fail('metricAccess', `${ns}: unknown field "${k}" (${ACCESS_FIELDS.join(', ')})`);
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) fail('metricAccess', `${ns}.${k}: must be a list of names`);
    }
    for (const r of rules.roles ?? []) {
      if (!roleArns.includes(r)) fail('metricAccess', `${ns}: role ${r} is not in assumeRoleArns: the functions could not assume it`);
      granted.add(r);
    }
    for (const w of rules.prometheusWorkspaces ?? []) {
      if (!prometheus.workspaceArns.some((arn) => arn.endsWith(`/${w}`))) fail('metricAccess', `${ns}: workspace ${w} is not in prometheusWorkspaceArns: the functions may not query it`);
    }
    for (const origin of rules.prometheusUrls ?? []) {
      const problem = originProblem(origin);
      if (problem) fail('metricAccess', `${ns}.prometheusUrls: ${problem}`);
    }
    for (const secret of rules.bearerTokenSecrets ?? []) {
      if (!prometheus.secretArns.includes(secret)) fail('metricAccess', `${ns}: secret ${secret} is not in prometheusSecretArns: the functions may not read it`);
    }
    for (const q of rules.sqsQueues ?? []) {
      if (!SQS_QUEUE_ARN.test(q)) fail('metricAccess', `${ns}.sqsQueues: not an SQS queue ARN pattern (arn:aws:sqs:REGION:ACCOUNT:NAME, * and ? allowed): ${JSON.stringify(q)}`);
      if (!sqsQueueArns.some((g) => globMatches(g, q))) fail('metricAccess', `${ns}: queue ${q} is not within sqsQueueArns: the functions may not read it`);
    }
    // A token is granted with the origins it may be sent to (by name: "*" sends it nowhere).
    if ((rules.bearerTokenSecrets ?? []).length > 0 && !(rules.prometheusUrls ?? []).some((u) => u !== '*')) {
      fail('metricAccess', `${ns}.bearerTokenSecrets: grant the origins each token may be sent to, by name, in ${ns}.prometheusUrls`);
    }
  }
  const unused = roleArns.filter((r) => !granted.has(r));
  if (unused.length > 0) fail('assumeRoleArns', `no namespace may use ${unused.join(', ')}: grant each in param metricAccess (e.g. {"web":{"roles":["${unused[0]}"]}}, or "*" for every namespace)`);
  return raw;
}

/** An SQS queue ARN, IAM wildcards allowed. */
const SQS_QUEUE_ARN = /^arn:aws(-cn|-us-gov)?:sqs:[a-z0-9*?-]+:(\d{12}|[*?]+):[A-Za-z0-9_.*?-]{1,80}$/;

/** Whether an IAM-style pattern ("*", "?") covers the text (itself a pattern: its wildcards are taken literally, which is stricter). */
function globMatches(pattern, textValue) {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(textValue);
}

/**
 * Who may put "evaluate now" events on the stack's bus (aws:PrincipalArn patterns). Empty: nobody (the bus takes
 * alarm-free evaluations from no one); "*": any principal of the account whose IAM allows events:PutEvents on it.
 */
function eventSenders(value) {
  const values = list('eventSenderArns', value);
  if (values.includes('*')) {
    if (values.length > 1) fail('eventSenderArns', '"*" (every one) cannot be listed with others');
    return '*';
  }
  return matching('eventSenderArns', PRINCIPAL_ARN, 'an IAM role, user or root ARN', values);
}

/** The names of the params read here: serverless.yml's params.default must define each. */
const PARAMS = [
  'clusters', 'namespaces', 'assumeRoleArns', 'syncPeriodSeconds', 'dryRun', 'controllerSettings', 'autoscalerMetrics',
  'detailedMetrics', 'dashboard', 'monitoring', 'autoscalerSources', 'decisionLogSeconds', 'logLevel', 'logRetentionDays', 'memorySize', 'maxConcurrency',
  'reservedConcurrency', 'tableName', 'tableDeletionProtection', 'existingTableStreamArn', 'specWriterArns',
  'alarmTopicArn', 'vpcSubnetIds', 'vpcSecurityGroupIds', 'permissionsBoundaryArn', 'tags', 'metricAccess', 'auditLogEvaluations',
  'evaluateConcurrency', 'eventSenderArns', 'alarmNamePrefix', 'kmsKeyArn',
  'prometheusWorkspaceArns', 'prometheusSecretArns', 'cloudWatchPromQL', 'cloudWatchPublishDelay',
  'sqsQueueArns',
];

/**
 * Every param, checked, as the deploy uses them. `p` maps param names to their values (strings from
 * --param, or what YAML params hold); `stack` is {service, stage, region}.
 */
function readParams(p, stack) {
  const text = (name) => String(p[name] ?? '').trim();
  const { namespaces, specWriterArns } = scopes(p);
  const clusters = parseClusters(p.clusters, stack.region, namespaces);
  const syncPeriodSeconds = syncPeriod(p.syncPeriodSeconds);
  const shards = clusters.reduce((n, c) => n + c.shards, 0);

  controllerSettings(text('controllerSettings'));
  const logLevel = text('logLevel').toUpperCase();
  if (!LOG_LEVELS.includes(logLevel)) fail('logLevel', `must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(text('logLevel'))}`);
  const logRetentionDays = Number(text('logRetentionDays'));
  if (!RETENTION_DAYS.includes(logRetentionDays)) fail('logRetentionDays', `must be one of ${RETENTION_DAYS.join(', ')}, got ${JSON.stringify(text('logRetentionDays'))}`);
  const sources = list('autoscalerSources', p.autoscalerSources);
  if (sources.length === 0) fail('autoscalerSources', `must name at least one of ${SOURCES.join(', ')}`);
  for (const s of sources) if (!SOURCES.includes(s)) fail('autoscalerSources', `unknown source ${JSON.stringify(s)} (${SOURCES.join(', ')})`);

  const tableName = text('tableName');
  if (!TABLE_NAME.test(tableName)) fail('tableName', `3 to 255 letters, digits, "_", "." or "-", got ${JSON.stringify(tableName)}`);
  const existingTableStreamArn = text('existingTableStreamArn') || undefined;
  if (existingTableStreamArn) {
    const m = /^arn:aws[a-z-]*:dynamodb:([a-z0-9-]+):\d{12}:table\/([A-Za-z0-9_.-]+)\/stream\/[0-9A-Za-z:._-]+$/.exec(existingTableStreamArn);
    if (!m) fail('existingTableStreamArn', `not a DynamoDB stream ARN: ${JSON.stringify(existingTableStreamArn)} (aws dynamodb describe-table --table-name ${tableName} --query Table.LatestStreamArn)`);
    if (m[2] !== tableName) fail('existingTableStreamArn', `is the stream of table "${m[2]}", but param "tableName" is "${tableName}"`);
    if (m[1] !== stack.region) fail('existingTableStreamArn', `is in ${m[1]}, but the stack deploys to ${stack.region}`);
  }

  // The dispatcher may cut every cluster into up to 16 shards (lib/sizing): by default each of them can tick at once,
  // or as many as the reserved concurrency allows; the dispatcher keeps its shards within it (SHPA_SHARD_BUDGET).
  // The evaluator has its own reserved concurrency: events never take a tick's place.
  const evaluateConcurrency = integer('evaluateConcurrency', text('evaluateConcurrency'), 1, 1000, 2);
  const reservedConcurrency = text('reservedConcurrency') === '' ? undefined : integer('reservedConcurrency', text('reservedConcurrency'), 2, 1000);
  const maxConcurrency =
    text('maxConcurrency') === ''
      ? Math.min(1000, reservedConcurrency ?? clusters.length * MAX_SHARDS + CONCURRENCY_HEADROOM)
      : integer('maxConcurrency', text('maxConcurrency'), 2, 1000);
  if (maxConcurrency < shards) fail('maxConcurrency', `${maxConcurrency} is less than the ${shards} shards: ticks would queue behind each other and arrive late`);
  if (reservedConcurrency !== undefined && reservedConcurrency < maxConcurrency) {
    fail('reservedConcurrency', `${reservedConcurrency} is less than maxConcurrency (${maxConcurrency}): the work queue's pollers would be throttled; raise it or leave it unset`);
  }
  const alarmNamePrefix = text('alarmNamePrefix') || DEFAULT_ALARM_PREFIX;
  if (!ALARM_PREFIX.test(alarmNamePrefix)) fail('alarmNamePrefix', `must be 1 to 255 characters without control characters (the alarms CloudWatchMetric objects name start with it), got ${JSON.stringify(alarmNamePrefix)}`);
  const kmsKeyArn = text('kmsKeyArn') || undefined;
  if (kmsKeyArn && !KMS_KEY_ARN.test(kmsKeyArn)) fail('kmsKeyArn', `not a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key id>; an alias will not do, IAM grants by key): ${JSON.stringify(kmsKeyArn)}`);
  if (kmsKeyArn && kmsKeyArn.split(':')[3] !== stack.region) fail('kmsKeyArn', `is in ${kmsKeyArn.split(':')[3]}, but the stack deploys to ${stack.region} (SQS and DynamoDB need a key of their region)`);

  const subnetIds = matching('vpcSubnetIds', SUBNET, 'a subnet id (subnet-…)', list('vpcSubnetIds', p.vpcSubnetIds));
  const securityGroupIds = matching('vpcSecurityGroupIds', SECURITY_GROUP, 'a security group id (sg-…)', list('vpcSecurityGroupIds', p.vpcSecurityGroupIds));
  if ((subnetIds.length === 0) !== (securityGroupIds.length === 0)) {
    fail(subnetIds.length === 0 ? 'vpcSubnetIds' : 'vpcSecurityGroupIds', 'a VPC needs both vpcSubnetIds and vpcSecurityGroupIds (or neither)');
  }
  const alarmTopicArn = text('alarmTopicArn') || undefined;
  if (alarmTopicArn && !TOPIC_ARN.test(alarmTopicArn)) fail('alarmTopicArn', `not a standard SNS topic ARN: ${JSON.stringify(alarmTopicArn)}`);
  const permissionsBoundaryArn = text('permissionsBoundaryArn') || undefined;
  if (permissionsBoundaryArn && !POLICY_ARN.test(permissionsBoundaryArn)) fail('permissionsBoundaryArn', `not an IAM policy ARN: ${JSON.stringify(permissionsBoundaryArn)}`);

  const roleArns = matching('assumeRoleArns', ROLE_ARN, 'an IAM role ARN', list('assumeRoleArns', p.assumeRoleArns));
  // PrometheusMetric objects: aps:QueryMetrics on these workspaces only, GetSecretValue on these secrets only.
  const prometheus = {
    workspaceArns: matching('prometheusWorkspaceArns', WORKSPACE_ARN, 'an AMP workspace ARN (arn:aws:aps:REGION:ACCOUNT:workspace/ws-…)', list('prometheusWorkspaceArns', p.prometheusWorkspaceArns)),
    secretArns: matching('prometheusSecretArns', SECRET_ARN, 'a Secrets Manager secret ARN', list('prometheusSecretArns', p.prometheusSecretArns)),
    cloudWatchPromQL: boolean('cloudWatchPromQL', p.cloudWatchPromQL, false),
  };
  // SQSQueueMetric objects: sqs:GetQueueAttributes on these queues only.
  const sqsQueueArns = matching('sqsQueueArns', SQS_QUEUE_ARN, 'an SQS queue ARN (arn:aws:sqs:REGION:ACCOUNT:NAME, * and ? allowed)', list('sqsQueueArns', p.sqsQueueArns));

  return {
    ...stack,
    clusters,
    shards,
    roleArns,
    metricAccess: metricAccess(text('metricAccess'), roleArns, prometheus, sqsQueueArns),
    prometheus,
    sqsQueueArns,
    syncPeriodSeconds,
    // no invocation outlives its period
    workerTimeout: syncPeriodSeconds,
    dryRun: boolean('dryRun', p.dryRun, false),
    controllerSettings: text('controllerSettings'),
    autoscalerMetrics: boolean('autoscalerMetrics', p.autoscalerMetrics, false),
    detailedMetrics: boolean('detailedMetrics', p.detailedMetrics, false),
    // $3 a month (beyond an account's first three): opt-in; the Logs Insights queries answer the same questions.
    dashboard: boolean('dashboard', p.dashboard, false),
    // The alarms (infra/alarms.cjs): "true" the four that catch a stopped autoscaler or lost work, on AWS's own metrics ($0.40 a
    // month), "full" all seven with the Cycles heartbeat the missing-cycles one then reads ($1.00), "false" none.
    monitoring: monitoringLevel(p.monitoring) !== 'false',
    allAlarms: monitoringLevel(p.monitoring) === 'full',
    // Edits of Kubernetes objects evaluated within seconds, from the clusters' audit logs (infra/audit-log.cjs).
    auditLogEvaluations: boolean('auditLogEvaluations', p.auditLogEvaluations, false),
    autoscalerSources: sources,
    decisionLogSeconds: integer('decisionLogSeconds', text('decisionLogSeconds'), 0, 86_400, 300),
    // When CloudWatch datapoints are read: each object's publication delay learned (60 s until then), or fixed seconds.
    cloudWatchPublishDelay: ['', 'learn'].includes(text('cloudWatchPublishDelay').trim()) ? 'learn' : String(integer('cloudWatchPublishDelay', text('cloudWatchPublishDelay'), 0, 600)),
    logLevel,
    logRetentionDays,
    memorySize: integer('memorySize', text('memorySize'), 128, 10_240),
    maxConcurrency,
    evaluateConcurrency,
    /** Shards of all clusters the dispatcher may run at once: the work queue's concurrency less room for busy ticks sent again. */
    shardBudget: Math.max(shards, maxConcurrency - CONCURRENCY_HEADROOM),
    reservedConcurrency,
    tableName,
    tableDeletionProtection: boolean('tableDeletionProtection', p.tableDeletionProtection, true),
    existingTableStreamArn,
    specWriterArns,
    eventSenderArns: eventSenders(p.eventSenderArns),
    alarmNamePrefix,
    kmsKeyArn,
    alarmTopicArn,
    vpc: subnetIds.length > 0 ? { subnetIds, securityGroupIds } : undefined,
    permissionsBoundaryArn,
    tags: { service: stack.service, stage: stack.stage, ...parseTags(p.tags) },
  };
}

/** readParams with serverless' variable resolver (the `${file(...)}` entry points). */
async function fromServerless(resolveVariable) {
  const stack = {
    service: await resolveVariable('self:service'),
    stage: await resolveVariable('self:provider.stage'),
    region: await resolveVariable('self:provider.region'),
  };
  const p = {};
  for (const name of PARAMS) p[name] = await resolveVariable(`param:${name}`);
  return readParams(p, stack);
}

module.exports = { PARAMS, ParamError, parseClusters, readParams, fromServerless };
