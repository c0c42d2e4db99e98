// `shpa import`: existing autoscalers into ours. An autoscaling/v2 HorizontalPodAutoscaler is
// ours already (kept as written, status and server fields dropped); an autoscaling/v1 one maps
// its CPU target; a KEDA ScaledObject (keda.sh/v1alpha1) becomes an HPA whose triggers are
// Resource metrics (cpu, memory) and External metrics read by CloudWatchMetric objects
// (aws-cloudwatch, aws-sqs-queue) or PrometheusMetric objects (prometheus). What ours cannot
// express is listed, each item with why, never dropped silently. Pure: documents in, documents out.
import type { CloudWatchMetric, CloudWatchQuery } from '../api/cloudwatch-types.js';
import type { PrometheusMetric, PrometheusMetricSpec } from '../api/prometheus-types.js';
import { PAUSE_ANNOTATION, PAUSE_SCALE_DOWN_ANNOTATION, PAUSE_SCALE_UP_ANNOTATION } from '../hpa/pause.js';
import { MIN_REPLICA_SCHEDULES_ANNOTATION } from '../hpa/schedules.js';
import type { HorizontalPodAutoscaler, MetricSpec, MetricTarget, MinReplicaSchedule } from '../hpa/types.js';
import { withKedaFallback } from './keda-fallback.js';

export type ImportedObject = HorizontalPodAutoscaler | CloudWatchMetric | PrometheusMetric;

export interface ImportResult {
  /** What the source was: "ScaledObject demo/worker". */
  source: string;
  objects: ImportedObject[];
  /** "triggers[0] (aws-sqs-queue) → CloudWatchMetric demo/worker-0". */
  mapped: string[];
  /** "triggers[2] (cron): …why". */
  unmapped: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** Converts one decoded document; undefined when it is not a kind `shpa import` reads. */
export function importDocument(doc: unknown, defaultNamespace = 'default'): ImportResult | undefined {
  if (!isObj(doc)) return undefined;
  const meta = isObj(doc.metadata) ? doc.metadata : {};
  const name = str(meta.name) ?? '';
  const namespace = str(meta.namespace) ?? defaultNamespace;
  const metadata = { name, namespace, ...(isObj(meta.labels) ? { labels: meta.labels as Record<string, string> } : {}) };
  if (doc.kind === 'HorizontalPodAutoscaler' && doc.apiVersion === 'autoscaling/v2') {
    const { status: _s, ...rest } = doc;
    return { source: `HorizontalPodAutoscaler ${namespace}/${name}`, objects: [{ ...(rest as unknown as HorizontalPodAutoscaler), metadata }], mapped: ['autoscaling/v2: kept as written'], unmapped: [] };
  }
  if (doc.kind === 'HorizontalPodAutoscaler' && doc.apiVersion === 'autoscaling/v1') return fromV1(doc, metadata);
  if (doc.kind === 'ScaledObject' && String(doc.apiVersion).startsWith('keda.sh/')) return fromScaledObject(doc, metadata);
  return undefined;
}

function fromV1(doc: Obj, metadata: { name: string; namespace: string }): ImportResult {
  const spec = isObj(doc.spec) ? doc.spec : {};
  const cpu = typeof spec.targetCPUUtilizationPercentage === 'number' ? spec.targetCPUUtilizationPercentage : undefined;
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef: spec.scaleTargetRef as HorizontalPodAutoscaler['spec']['scaleTargetRef'],
      ...(typeof spec.minReplicas === 'number' ? { minReplicas: spec.minReplicas } : {}),
      maxReplicas: spec.maxReplicas as number,
      ...(cpu !== undefined ? { metrics: [resource('cpu', { type: 'Utilization', averageUtilization: cpu })] } : {}),
    },
  };
  return { source: `HorizontalPodAutoscaler (autoscaling/v1) ${metadata.namespace}/${metadata.name}`, objects: [hpa], mapped: [`targetCPUUtilizationPercentage${cpu === undefined ? ' (unset: upstream defaults it to 80%)' : ''} → a Resource cpu metric`], unmapped: [] };
}

const resource = (name: string, target: MetricTarget, container?: string): MetricSpec =>
  container ? { type: 'ContainerResource', containerResource: { name, container, target } } : { type: 'Resource', resource: { name, target } };

const external = (name: string, metricType: string | undefined, value: string): MetricSpec => ({
  type: 'External',
  external: { metric: { name }, target: metricType === 'Value' ? { type: 'Value', value } : { type: 'AverageValue', averageValue: value } },
});

/** KEDA's keys whose effect ours has no equivalent for, with what happens instead. */
const SCALED_OBJECT_UNMAPPED: Record<string, string> = {
  pollingInterval: 'ours reads every sync period (deploy param syncPeriodSeconds), or at once on a CloudWatch alarm (CloudWatchMetric spec.alarmName)',
  cooldownPeriod: "KEDA's wait before scaling to zero; ours keeps at least minReplicas (use behavior.scaleDown for slower scale-down)",
  idleReplicaCount: 'ours has no idle replica count',
  initialCooldownPeriod: 'ours has no initial cooldown',
};

function fromScaledObject(doc: Obj, metadata: { name: string; namespace: string }): ImportResult {
  const spec = isObj(doc.spec) ? doc.spec : {};
  const { name, namespace } = metadata;
  const mapped: string[] = [];
  const unmapped: string[] = [];
  const objects: ImportedObject[] = [];
  const ref = isObj(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
  const scaleTargetRef = { apiVersion: str(ref.apiVersion) ?? 'apps/v1', kind: str(ref.kind) ?? 'Deployment', name: str(ref.name) ?? '' };
  if (ref.envSourceContainerName !== undefined) unmapped.push('scaleTargetRef.envSourceContainerName: ours reads no environment of the target');
  const min = typeof spec.minReplicaCount === 'number' ? spec.minReplicaCount : 0;
  for (const [k, why] of Object.entries(SCALED_OBJECT_UNMAPPED)) if (spec[k] !== undefined) unmapped.push(`${k}: ${why}`);
  const annotations = isObj(meta(doc).annotations) ? (meta(doc).annotations as Obj) : {};
  const ours = pauseAnnotations(annotations, mapped);
  if (annotations['autoscaling.keda.sh/paused-replicas'] !== undefined) {
    unmapped.push('annotation autoscaling.keda.sh/paused-replicas: ours pauses at the current count (shpa.dev/pause), never at a given one');
  }
  const schedules: MinReplicaSchedule[] = [];
  const advanced = isObj(spec.advanced) ? spec.advanced : {};
  const hpaConfig = isObj(advanced.horizontalPodAutoscalerConfig) ? advanced.horizontalPodAutoscalerConfig : {};
  if (hpaConfig.behavior !== undefined) mapped.push('advanced.horizontalPodAutoscalerConfig.behavior → spec.behavior');
  if (advanced.scalingModifiers !== undefined) unmapped.push('advanced.scalingModifiers: ours has no formula over metrics (the largest proposal wins, as upstream)');
  if (advanced.restoreToOriginalReplicaCount !== undefined) unmapped.push('advanced.restoreToOriginalReplicaCount: ours leaves the replicas as they are when the autoscaler is deleted');

  const metrics: MetricSpec[] = [];
  const triggers = Array.isArray(spec.triggers) ? spec.triggers : [];
  triggers.forEach((t: unknown, i: number) => {
    const trigger = isObj(t) ? t : {};
    const type = str(trigger.type) ?? '';
    const at = `triggers[${i}] (${type})`;
    const md = isObj(trigger.metadata) ? trigger.metadata : {};
    const metricType = str(trigger.metricType);
    const objectName = `${name}-${str(trigger.name) ?? i}`;
    const notes: string[] = [];
    if (trigger.authenticationRef !== undefined) notes.push('authenticationRef: ours signs with the worker\'s role (or spec.roleArn, a bearer token from Secrets Manager): set it on the object');
    const activation = str(md.activationThreshold ?? md.activationTargetMetricValue ?? md.activationQueueLength ?? md.activationValue);
    switch (type) {
      case 'cpu':
      case 'memory': {
        const value = str(md.value) ?? '';
        const mt = metricType ?? str(md.type) ?? 'Utilization';
        const target: MetricTarget = mt === 'Utilization' ? { type: 'Utilization', averageUtilization: Number(value) } : { type: 'AverageValue', averageValue: value };
        metrics.push(resource(type, target, str(md.containerName)));
        mapped.push(`${at} → a ${md.containerName ? 'ContainerResource' : 'Resource'} ${type} metric (${mt} ${value})`);
        break;
      }
      case 'prometheus': {
        const query = str(md.query);
        const server = str(md.serverAddress);
        if (!query || !server) {
          unmapped.push(`${at}: metadata.query and metadata.serverAddress are required`);
          return;
        }
        const amp = /^https:\/\/aps-workspaces\.([a-z0-9-]+)\.amazonaws\.com\/workspaces\/(ws-[0-9a-f-]+)\/?$/.exec(server);
        const endpoint: Partial<PrometheusMetricSpec> = amp ? { amp: { workspaceId: amp[2], region: str(md.awsRegion) ?? amp[1] } } : { server: { url: server } };
        if (md.namespace !== undefined) notes.push('metadata.namespace (a tenant header): ours sends none');
        if (md.customHeaders !== undefined) notes.push('metadata.customHeaders: ours sends none');
        if (md.ignoreNullValues !== undefined) notes.push('metadata.ignoreNullValues: an empty answer is always a metric failure in ours');
        const pm: PrometheusMetric = { apiVersion: 'shpa.dev/v1', kind: 'PrometheusMetric', metadata: { name: objectName, namespace }, spec: { query, ...endpoint } as PrometheusMetricSpec };
        objects.push(pm);
        metrics.push(external(objectName, metricType, str(md.threshold) ?? '0'));
        mapped.push(`${at} → PrometheusMetric ${namespace}/${objectName} (${amp ? 'AMP' : 'server'}), threshold ${str(md.threshold)}`);
        break;
      }
      case 'aws-cloudwatch': {
        const cwm = cloudWatchTrigger(md, objectName, namespace, notes);
        if ('error' in cwm) {
          unmapped.push(`${at}: ${cwm.error}`);
          return;
        }
        objects.push(cwm.object);
        metrics.push(external(objectName, metricType, str(md.targetMetricValue) ?? '0'));
        mapped.push(`${at} → CloudWatchMetric ${namespace}/${objectName}, target ${str(md.targetMetricValue)}`);
        break;
      }
      case 'aws-sqs-queue': {
        const url = str(md.queueURL);
        const queue = url ? /\/([^/]+)\/?$/.exec(url)?.[1] : undefined;
        if (!queue) {
          unmapped.push(`${at}: metadata.queueURL is required (queueURLFromEnv reads the target's environment, which ours does not)`);
          return;
        }
        const region = str(md.awsRegion) ?? /sqs\.([a-z0-9-]+)\.amazonaws\.com/.exec(url!)?.[1];
        const inFlight = str(md.scaleOnInFlight) !== 'false';
        const q = (id: string, metricName: string): CloudWatchQuery => ({
          id,
          metricStat: { metric: { namespace: 'AWS/SQS', metricName, dimensions: [{ name: 'QueueName', value: queue }] }, period: 60, stat: 'Average' },
          returnData: false,
        });
        const queries: CloudWatchQuery[] = inFlight
          ? [q('visible', 'ApproximateNumberOfMessagesVisible'), q('inflight', 'ApproximateNumberOfMessagesNotVisible'), { id: 'backlog', expression: 'visible + inflight', returnData: true }]
          : [{ ...q('visible', 'ApproximateNumberOfMessagesVisible'), returnData: true }];
        const roleArn = str(md.awsRoleArn);
        objects.push({ apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name: objectName, namespace }, spec: { queries, ...(region ? { region } : {}), ...(roleArn ? { roleArn } : {}) } });
        metrics.push(external(objectName, metricType, str(md.queueLength) ?? '5'));
        mapped.push(`${at} → CloudWatchMetric ${namespace}/${objectName} (AWS/SQS ${inFlight ? 'visible + in flight' : 'visible'}, read from CloudWatch: a minute or more behind KEDA's GetQueueAttributes), queueLength ${str(md.queueLength) ?? '5 (KEDA\'s default)'}`);
        break;
      }
      case 'cron': {
        // KEDA's cron trigger is a metric worth desiredReplicas while open; ours is a floor (docs/pause-and-schedules.md).
        const window = { name: `cron-${i}`, minReplicas: Number(str(md.desiredReplicas) ?? NaN), ...(str(md.timezone) ? { timezone: str(md.timezone)! } : {}), start: str(md.start) ?? '', end: str(md.end) ?? '' };
        schedules.push(window);
        mapped.push(`${at} → window ${window.name} of the shpa.dev/min-replica-schedules annotation (${window.start} to ${window.end}, minimum ${str(md.desiredReplicas)}: a floor, the other metrics still scale above it)`);
        return;
      }
      default:
        unmapped.push(`${at}: no equivalent in ours (ours reads metrics.k8s.io, custom and external metrics APIs, CloudWatch and PromQL)`);
        return;
    }
    if (activation !== undefined) {
      const last = metrics[metrics.length - 1];
      if (last.external) {
        last.external.activation = { value: activation };
        mapped.push(`${at} activation ${activation} → activation.value (ours acts at zero replicas only: docs/scale-to-zero.md)`);
      } else notes.push(`activation ${activation}: ours has activation thresholds on Object and External metrics only`);
    }
    for (const n of notes) unmapped.push(`${at} ${n}`);
  });
  // HPAScaleToZero: minReplicas 0 needs an Object or External metric.
  const toZero = min < 1 && metrics.some((m) => m.type === 'External');
  if (toZero) mapped.push(`minReplicaCount ${min} (KEDA's default 0) → minReplicas 0: scaled to zero on its External metrics (docs/scale-to-zero.md)`);
  else if (min < 1) unmapped.push(`minReplicaCount ${min} (KEDA's default 0, scale to zero): ours scales to zero only with an External or Object metric, minReplicas 1`);
  if (metrics.length === 0) unmapped.push('no trigger mapped: the HorizontalPodAutoscaler would have no metric; it is left out');
  else {
    const fallback = withKedaFallback(spec, metrics);
    mapped.push(...fallback.mapped);
    unmapped.push(...fallback.unmapped);
    if (schedules.length > 0) ours[MIN_REPLICA_SCHEDULES_ANNOTATION] = JSON.stringify(schedules);
    const hpa: HorizontalPodAutoscaler = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: Object.keys(ours).length > 0 ? { ...metadata, annotations: ours } : metadata,
      spec: {
        scaleTargetRef,
        minReplicas: toZero ? 0 : Math.max(1, min),
        maxReplicas: typeof spec.maxReplicaCount === 'number' ? spec.maxReplicaCount : 100,
        metrics: fallback.metrics,
        ...(isObj(hpaConfig.behavior) ? { behavior: hpaConfig.behavior as HorizontalPodAutoscaler['spec']['behavior'] } : {}),
      },
    };
    objects.push(hpa);
  }
  return { source: `ScaledObject ${namespace}/${name}`, objects, mapped, unmapped };
}

/** KEDA's pause annotations as ours: paused-scale-in → scale down, paused-scale-out → scale up, paused → both (still recommending). */
function pauseAnnotations(annotations: Obj, mapped: string[]): Record<string, string> {
  const ours: Record<string, string> = {};
  const pairs: [keda: string, shpa: string][] = [
    ['autoscaling.keda.sh/paused', PAUSE_ANNOTATION],
    ['autoscaling.keda.sh/paused-scale-in', PAUSE_SCALE_DOWN_ANNOTATION],
    ['autoscaling.keda.sh/paused-scale-out', PAUSE_SCALE_UP_ANNOTATION],
  ];
  for (const [keda, shpa] of pairs) {
    const value = str(annotations[keda]);
    if (value === undefined) continue;
    ours[shpa] = value;
    mapped.push(`annotation ${keda} → ${shpa} (ours keeps evaluating and says what it would do)`);
  }
  return ours;
}

function meta(doc: Obj): Obj {
  return isObj(doc.metadata) ? doc.metadata : {};
}

/** KEDA's aws-cloudwatch trigger as a CloudWatchMetric: one metricStat (dimensions paired by position), or its expression. */
function cloudWatchTrigger(md: Obj, name: string, namespace: string, notes: string[]): { object: CloudWatchMetric } | { error: string } {
  const period = Number(str(md.metricStatPeriod) ?? '300');
  const region = str(md.awsRegion);
  const roleArn = str(md.awsRoleArn);
  const common = {
    ...(region ? { region } : {}),
    ...(roleArn ? { roleArn } : {}),
    ...(md.metricEndTimeOffset !== undefined ? { endTimeOffsetSeconds: Number(str(md.metricEndTimeOffset)) } : {}),
    ...(md.minMetricValue !== undefined ? { defaultValue: Number(str(md.minMetricValue)) } : {}),
  };
  if (md.minMetricValue !== undefined) notes.push('metadata.minMetricValue → spec.defaultValue (used when there is no datapoint; KEDA also uses it as a floor)');
  const expression = str(md.expression);
  if (expression) {
    return { object: { apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name, namespace }, spec: { queries: [{ id: 'q', expression, period }], ...common } } };
  }
  const ns = str(md.namespace);
  const metricName = str(md.metricName);
  if (!ns || !metricName) return { error: 'metadata.namespace and metadata.metricName (or metadata.expression) are required' };
  const names = (str(md.dimensionName) ?? '').split(';').filter(Boolean);
  const values = (str(md.dimensionValue) ?? '').split(';').filter(Boolean);
  if (names.length !== values.length) return { error: `dimensionName has ${names.length} names and dimensionValue ${values.length} values` };
  const dimensions = names.map((n, i) => ({ name: n, value: values[i] }));
  const query: CloudWatchQuery = {
    id: 'q',
    metricStat: { metric: { namespace: ns, metricName, ...(dimensions.length ? { dimensions } : {}) }, period, stat: str(md.metricStat) ?? 'Average', ...(md.metricUnit ? { unit: str(md.metricUnit)! } : {}) },
  };
  return { object: { apiVersion: 'shpa.dev/v1', kind: 'CloudWatchMetric', metadata: { name, namespace }, spec: { queries: [query], ...common } } };
}
