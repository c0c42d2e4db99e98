// One KEDA trigger as ours: cpu/memory as Resource (or ContainerResource) metrics,
// prometheus as a PrometheusMetric (a server or AMP), aws-cloudwatch as a CloudWatchMetric,
// aws-sqs-queue as an SQSQueueMetric (./keda-sqs.ts), each read by an External metric; cron as
// a window of scheduled minimum. Pure: the trigger in, the pieces and what was said about them out.
import type { CloudWatchMetric, CloudWatchQuery, PrometheusMetric, PrometheusMetricSpec } from '#api';
import type { MetricSpec, MetricTarget, MinReplicaSchedule } from '#hpa';
import { sqsTrigger } from './keda-sqs.js';
import { isObj, str, type ImportContext, type Obj } from './result.js';
import { externalMetric as external, type TriggerContext, type TriggerOutcome } from './trigger-context.js';

export type { TriggerOutcome } from './trigger-context.js';

export function convertTrigger(t: unknown, index: number, owner: { name: string; namespace: string }, context: ImportContext = {}): TriggerOutcome {
  const trigger = isObj(t) ? t : {};
  const type = str(trigger.type) ?? '';
  const ctx: TriggerContext = {
    at: `triggers[${index}] (${type})`,
    index,
    objectName: `${owner.name}-${str(trigger.name) ?? index}`,
    namespace: owner.namespace,
    md: isObj(trigger.metadata) ? trigger.metadata : {},
    metricType: str(trigger.metricType),
    authenticationRef: trigger.authenticationRef,
    findAuthentication: context.findAuthentication,
    sqsAccountId: context.sqsAccountId,
  };
  const out = convertByType(type, ctx);
  if (trigger.authenticationRef !== undefined && out.object && !out.authenticated) authenticate(out, ctx, trigger.authenticationRef);
  if (out.metric) addActivation(out, ctx);
  if (out.metric || out.schedule) out.unmapped.push(...unreadKeys(type, ctx));
  return out;
}

/** authenticationRef: the role its TriggerAuthentication assumes (podIdentity.roleArn) as the object's spec.roleArn, when the input has it. */
function authenticate(out: TriggerOutcome, ctx: TriggerContext, ref: unknown): void {
  const kind = (isObj(ref) && str(ref.kind)) || 'TriggerAuthentication';
  const name = (isObj(ref) && str(ref.name)) || '';
  const object = out.object!;
  const target = `${object.kind} ${ctx.namespace}/${ctx.objectName}`;
  const role = ctx.findAuthentication?.(kind, ctx.namespace, name)?.roleArn;
  if (role && object.spec.roleArn === undefined) {
    object.spec.roleArn = role;
    out.mapped.push(`${ctx.at} authenticationRef (${kind} ${name}): its podIdentity.roleArn → spec.roleArn of ${target}; that role must trust the worker function's role, not KEDA's operator`);
    return;
  }
  if (role) return;
  out.unmapped.push(`${ctx.at} authenticationRef (${kind} ${name}): ours reads with the worker function's role; give ${target} a spec.roleArn if that role may not`);
}

/** The metadata keys each converted trigger type reads (activation thresholds included). */
const READ_KEYS: Record<string, string[]> = {
  cpu: ['value', 'type', 'containerName', 'activationValue'],
  memory: ['value', 'type', 'containerName', 'activationValue'],
  prometheus: ['serverAddress', 'query', 'threshold', 'activationThreshold', 'awsRegion', 'namespace', 'customHeaders', 'ignoreNullValues', 'metricName'],
  'aws-cloudwatch': [
    'namespace', 'dimensionName', 'dimensionValue', 'expression', 'metricName', 'targetMetricValue', 'activationTargetMetricValue', 'minMetricValue', 'ignoreNullValues',
    'awsRegion', 'awsRoleArn', 'metricCollectionTime', 'metricStat', 'metricStatPeriod', 'metricUnit', 'metricEndTimeOffset',
  ],
  'aws-sqs-queue': ['queueURL', 'queueLength', 'activationQueueLength', 'awsRegion', 'awsEndpoint', 'awsRoleArn', 'identityOwner', 'scaleOnInFlight', 'scaleOnDelayed', 'awsAccessKeyID', 'awsSecretAccessKey', 'awsSessionToken', 'queueURLFromEnv', 'awsAccessKeyIDFromEnv', 'awsSecretAccessKeyFromEnv'],
  cron: ['timezone', 'start', 'end', 'desiredReplicas'],
};

/** Why some keys KEDA users often set are not read. */
const UNREAD_WHY: Record<string, string> = {
  identityOwner: "ours reads with the worker function's role (or spec.roleArn), whatever identity KEDA used",
  awsEndpoint: "ours reads AWS's regional endpoint",
  unsafeSsl: 'ours verifies TLS certificates',
  authModes: 'ours sends no credentials to a Prometheus server but AMP\'s SigV4 (or a bearer token from Secrets Manager)',
};

/** Each metadata key the conversion did not read, with why where it is known. */
function unreadKeys(type: string, ctx: TriggerContext): string[] {
  const read = READ_KEYS[type] ?? [];
  return Object.keys(ctx.md)
    .filter((k) => !read.includes(k) && !k.endsWith('FromEnv'))
    .map((k) => `${ctx.at} metadata.${k}: ${UNREAD_WHY[k] ?? 'not read by ours'}`)
    .concat(Object.keys(ctx.md).some((k) => k.endsWith('FromEnv') && !read.includes(k)) ? [`${ctx.at} metadata.*FromEnv: ours reads no environment of the target`] : []);
}

function convertByType(type: string, ctx: TriggerContext): TriggerOutcome {
  switch (type) {
    case 'cpu':
    case 'memory':
      return resourceTrigger(type, ctx);
    case 'prometheus':
      return prometheusTrigger(ctx);
    case 'aws-cloudwatch':
      return cloudWatchTrigger(ctx);
    case 'aws-sqs-queue':
      return sqsTrigger(ctx);
    case 'cron':
      return cronTrigger(ctx);
    default:
      return { mapped: [], unmapped: [`${ctx.at}: no equivalent in ours (ours reads the metrics.k8s.io, custom and external metrics APIs, CloudWatch and PromQL)`] };
  }
}

/** KEDA's activation threshold of any trigger: ours on External metrics, read at zero replicas only. */
function addActivation(out: TriggerOutcome, ctx: TriggerContext): void {
  const md = ctx.md;
  const activation = str(md.activationThreshold ?? md.activationTargetMetricValue ?? md.activationQueueLength ?? md.activationValue)?.trim();
  // KEDA reads an empty value as unset (its default, 0).
  if (activation === undefined || activation === '') return;
  if (out.metric?.external) {
    out.metric.external.activation = { value: activation };
    out.mapped.push(`${ctx.at} activation ${activation} → activation.value (ours acts at zero replicas only: docs/scale-to-zero.md)`);
  } else out.unmapped.push(`${ctx.at} activation ${activation}: ours has activation thresholds on Object and External metrics only`);
}

function resourceTrigger(type: 'cpu' | 'memory', ctx: TriggerContext): TriggerOutcome {
  const { md } = ctx;
  const value = str(md.value) ?? '';
  const mt = ctx.metricType ?? str(md.type) ?? 'Utilization';
  const target: MetricTarget = mt === 'Utilization' ? { type: 'Utilization', averageUtilization: Number(value) } : { type: 'AverageValue', averageValue: value };
  const container = str(md.containerName);
  const metric: MetricSpec = container ? { type: 'ContainerResource', containerResource: { name: type, container, target } } : { type: 'Resource', resource: { name: type, target } };
  return { metric, mapped: [`${ctx.at} → a ${container ? `ContainerResource ${type} metric of container ${container}` : `Resource ${type} metric`} (${mt} ${value})`], unmapped: [] };
}

const AMP_URL = /^https:\/\/aps-workspaces\.([a-z0-9-]+)\.amazonaws\.com\/workspaces\/(ws-[0-9a-f-]+)\/?$/;

function prometheusTrigger(ctx: TriggerContext): TriggerOutcome {
  const { md, at, objectName, namespace } = ctx;
  const query = str(md.query);
  const server = str(md.serverAddress);
  if (!query || !server) return { mapped: [], unmapped: [`${at}: metadata.query and metadata.serverAddress are required`] };
  const unmapped: string[] = [];
  const amp = AMP_URL.exec(server);
  const endpoint: Partial<PrometheusMetricSpec> = amp ? { amp: { workspaceId: amp[2], region: str(md.awsRegion) ?? amp[1] } } : { server: { url: server } };
  if (md.namespace !== undefined) unmapped.push(`${at} metadata.namespace (a tenant header): ours sends none`);
  if (md.customHeaders !== undefined) unmapped.push(`${at} metadata.customHeaders: ours sends none`);
  if (md.ignoreNullValues !== undefined) unmapped.push(`${at} metadata.ignoreNullValues: an empty answer is always a metric failure in ours`);
  const object: PrometheusMetric = { apiVersion: 'shpa.dev/v1', kind: 'PrometheusMetric', metadata: { name: objectName, namespace }, spec: { query, ...endpoint } as PrometheusMetricSpec };
  const threshold = str(md.threshold) ?? '0';
  return {
    object,
    metric: external(objectName, ctx.metricType, threshold),
    mapped: [`${at} → PrometheusMetric ${namespace}/${objectName} (${amp ? `AMP workspace ${amp[2]}` : 'server'}), threshold ${threshold} → External ${ctx.metricType === 'Value' ? 'Value' : 'AverageValue'} ${threshold}`],
    unmapped,
  };
}

function cloudWatchTrigger(ctx: TriggerContext): TriggerOutcome {
  const { md, at, objectName, namespace } = ctx;
  const mapped: string[] = [];
  const period = Number(str(md.metricStatPeriod) ?? '300');
  const region = str(md.awsRegion);
  const roleArn = str(md.awsRoleArn);
  // KEDA uses minMetricValue when CloudWatch has no datapoint, unless ignoreNullValues is false (then no data is an error).
  const ignoreNull = str(md.ignoreNullValues) !== 'false';
  const minValue = md.minMetricValue !== undefined && ignoreNull ? Number(str(md.minMetricValue)) : undefined;
  if (minValue !== undefined) mapped.push(`${at} minMetricValue ${minValue} → spec.defaultValue (the value when CloudWatch has no datapoint, as KEDA's)`);
  if (!ignoreNull) mapped.push(`${at} ignoreNullValues false: no datapoint is a metric failure in ours too (no defaultValue)`);
  // KEDA's metricCollectionTime is the range read back; ours counts it in periods.
  const collection = md.metricCollectionTime !== undefined ? Number(str(md.metricCollectionTime)) : undefined;
  const lookback = collection !== undefined && Number.isFinite(collection) && period > 0 ? Math.max(1, Math.ceil(collection / period)) : undefined;
  if (lookback !== undefined) mapped.push(`${at} metricCollectionTime ${collection} → spec.lookbackPeriods ${lookback} (of ${period} s)`);
  const common = {
    ...(region ? { region } : {}),
    ...(roleArn ? { roleArn } : {}),
    ...(md.metricEndTimeOffset !== undefined ? { endTimeOffsetSeconds: Number(str(md.metricEndTimeOffset)) } : {}),
    ...(minValue !== undefined ? { defaultValue: minValue } : {}),
    ...(lookback !== undefined ? { lookbackPeriods: lookback } : {}),
  };
  const query = cloudWatchQuery(md, period);
  if ('error' in query) return { mapped: [], unmapped: [`${at}: ${query.error}`] };
  const object: CloudWatchMetric = { apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name: objectName, namespace }, spec: { queries: [query.query], ...common } };
  const target = str(md.targetMetricValue) ?? '0';
  mapped.unshift(`${at} → CloudWatchMetric ${namespace}/${objectName}, targetMetricValue ${target} → External ${ctx.metricType === 'Value' ? 'Value' : 'AverageValue'} ${target}`);
  return { object, metric: external(objectName, ctx.metricType, target), mapped, unmapped: [] };
}

/** The trigger's one query: its expression, or one metricStat with dimensions paired by position. */
function cloudWatchQuery(md: Obj, period: number): { query: CloudWatchQuery } | { error: string } {
  const expression = str(md.expression);
  if (expression) return { query: { id: 'q', expression, period } };
  const ns = str(md.namespace);
  const metricName = str(md.metricName);
  if (!ns || !metricName) return { error: 'metadata.namespace and metadata.metricName (or metadata.expression) are required' };
  const names = (str(md.dimensionName) ?? '').split(';').filter(Boolean);
  const values = (str(md.dimensionValue) ?? '').split(';').filter(Boolean);
  if (names.length !== values.length) return { error: `dimensionName has ${names.length} names and dimensionValue ${values.length} values` };
  const dimensions = names.map((n, i) => ({ name: n, value: values[i] }));
  return {
    query: {
      id: 'q',
      metricStat: { metric: { namespace: ns, metricName, ...(dimensions.length ? { dimensions } : {}) }, period, stat: str(md.metricStat) ?? 'Average', ...(md.metricUnit ? { unit: str(md.metricUnit)! } : {}) },
    },
  };
}

function cronTrigger(ctx: TriggerContext): TriggerOutcome {
  const { md, at } = ctx;
  // KEDA's cron trigger proposes desiredReplicas while open; ours is a floor (docs/pause-and-schedules.md): the same, since the largest proposal wins.
  const schedule: MinReplicaSchedule = {
    name: `cron-${ctx.index}`,
    minReplicas: Number(str(md.desiredReplicas) ?? NaN),
    ...(str(md.timezone) ? { timezone: str(md.timezone)! } : {}),
    start: str(md.start) ?? '',
    end: str(md.end) ?? '',
  };
  return {
    schedule,
    mapped: [`${at} → scheduled minimum ${schedule.name} (${schedule.start} to ${schedule.end}${schedule.timezone ? ` ${schedule.timezone}` : ''}, minimum ${str(md.desiredReplicas)}: a floor, the other metrics still scale above it)`],
    unmapped: [],
  };
}
