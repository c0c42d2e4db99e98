// The autoscalers of one shard cycle: specs from the table and objects from the cluster,
// each with its stored state, and which of them the cycle evaluates. One autoscaler has one
// source of truth: when the same namespace/name is both a table spec (`shpa apply`) and a
// ServerlessHorizontalPodAutoscaler object, the object in the cluster wins (it is what
// kubectl and GitOps show) and the table's copy is refused with an error saying so.
import type { HorizontalPodAutoscaler } from '#hpa';
import { type AnyMetricObject, type CloudWatchMetric, METRIC_KINDS, type MetricObjectLists } from '#api';
import type { EvaluateTarget } from './messages.js';
import type { AutoscalerRecord, ClusterStateRecord, ShardSnapshot } from './ports/autoscaler-store.js';
import type { AutoscalerObjects, ClusterConfig, KubernetesAutoscaler } from './ports/cluster-access.js';
import type { AutoscalerReport, StageError } from './report.js';
import { bucketOf, bucketsOf, ownsAutoscaler, type ShardRef } from './shards.js';

/** The per-autoscaler dry-run annotation. */
export const DRY_RUN_ANNOTATION = 'shpa.dev/dry-run';

export interface Unit {
  record: AutoscalerRecord;
  /** The Kubernetes object of an autoscaler defined in the cluster: its status and events are written there. */
  object?: KubernetesAutoscaler;
  report: AutoscalerReport;
  /** Set when it cannot be evaluated at all (refused source, namespace outside the allowlist). */
  refused?: StageError & { outcome: 'failed' | 'notAllowed' };
}

export interface ShardUnits extends MetricObjectLists {
  units: Unit[];
  /** Reports of stored items that cannot be read. */
  broken: AutoscalerReport[];
  /** States of cluster-defined autoscalers whose object is gone. */
  orphans: ClusterStateRecord[];
  /** Autoscalers of each of the shard's buckets, every part of it (what the dispatcher sizes by). */
  bucketCounts: Map<number, number>;
  /** Every autoscaler of the shard's buckets, its own and, past 16 shards, the other parts' (whose selectors upstream checks against). */
  peers: Unit[];
}

export function baseReport(record: Pick<AutoscalerRecord, 'cluster' | 'namespace' | 'name' | 'source'>, dryRun: boolean): AutoscalerReport {
  return {
    cluster: record.cluster,
    namespace: record.namespace,
    name: record.name,
    source: record.source,
    outcome: 'unchanged',
    dryRun,
    patched: false,
    stored: 'unchanged',
    errors: [],
    warnings: [],
    notable: false,
  };
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;

export function buildUnits(args: {
  cluster: ClusterConfig;
  shard: ShardRef;
  snapshot: ShardSnapshot;
  /** The cluster's objects; undefined when the cluster is not a source or could not be listed. */
  objects?: AutoscalerObjects;
  tableSource: boolean;
  dryRun: boolean;
}): ShardUnits {
  const { cluster, shard, snapshot, objects, tableSource, dryRun } = args;
  const owned = new Set(bucketsOf(shard));
  const inShard = (ns: string) => owned.has(bucketOf(ns));
  const allowed = (ns: string) => !cluster.namespaces || cluster.namespaces.includes(ns);
  const units: Unit[] = [];

  const fromCluster = new Map<string, KubernetesAutoscaler>();
  for (const o of objects?.autoscalers ?? []) if (inShard(o.metadata.namespace)) fromCluster.set(key(o.metadata.namespace, o.metadata.name), o);
  const states = new Map(snapshot.clusterStates.map((s) => [key(s.namespace, s.name), s]));
  const tableRecords = new Map(snapshot.autoscalers.map((r) => [key(r.namespace, r.name), r]));

  for (const record of tableSource ? snapshot.autoscalers : []) {
    const unit: Unit = { record, report: baseReport(record, isDryRun(record.hpa, dryRun)) };
    const k = key(record.namespace, record.name);
    if (fromCluster.has(k)) {
      unit.refused = {
        outcome: 'failed',
        stage: 'source',
        message: `${k} is defined twice: as a ServerlessHorizontalPodAutoscaler object in cluster ${cluster.name} and in the table (shpa apply); the object in the cluster wins: remove the table's copy with "shpa delete hpa ${record.name} -n ${record.namespace} --cluster ${cluster.name}"`,
      };
    } else if (!allowed(record.namespace)) {
      unit.refused = notAllowed(cluster, record.namespace);
    }
    units.push(unit);
  }

  for (const [k, object] of fromCluster) {
    const record = recordOf(cluster.name, object, states.get(k), tableRecords.get(k));
    units.push({ record, object, report: baseReport(record, isDryRun(record.hpa, dryRun)) });
  }

  const broken = snapshot.broken.map((b) => ({
    ...baseReport({ ...b, source: 'table' as const }, false),
    outcome: 'broken' as const,
    errors: [{ stage: 'load' as const, message: b.error }],
    notable: true,
  }));
  // Only a successful list proves an object gone.
  const orphans = objects ? snapshot.clusterStates.filter((s) => !fromCluster.has(key(s.namespace, s.name))) : [];

  // One metric object of a kind per namespace/name: the object in the cluster wins here too.
  const merge = (stored: readonly AnyMetricObject[] = [], listed: readonly AnyMetricObject[] = []): AnyMetricObject[] => {
    const metrics = new Map<string, AnyMetricObject>();
    for (const m of stored) metrics.set(key(m.metadata.namespace ?? 'default', m.metadata.name), m);
    for (const m of listed) {
      const ns = m.metadata.namespace ?? 'default';
      if (inShard(ns)) metrics.set(key(ns, m.metadata.name), m);
    }
    return [...metrics.values()];
  };
  // Past 16 shards a bucket is cut by autoscaler name: the shard evaluates its part, and knows the whole bucket.
  const mine = (ns: string, name: string) => ownsAutoscaler(shard, ns, name);
  const bucketCounts = new Map(bucketsOf(shard).map((b) => [b, 0]));
  for (const u of units) bucketCounts.set(bucketOf(u.record.namespace), (bucketCounts.get(bucketOf(u.record.namespace)) ?? 0) + 1);
  return {
    units: units.filter((u) => mine(u.record.namespace, u.record.name)),
    peers: units,
    bucketCounts,
    broken: broken.filter((b) => mine(b.namespace, b.name)),
    orphans: orphans.filter((o) => mine(o.namespace, o.name)),
    ...(Object.fromEntries(METRIC_KINDS.map((k) => [k.field, merge(snapshot[k.field], objects?.[k.field])])) as unknown as MetricObjectLists),
  };
}

function notAllowed(cluster: ClusterConfig, namespace: string): Unit['refused'] {
  return {
    outcome: 'notAllowed',
    stage: 'source',
    message: `namespace ${namespace} is not in the namespaces allowed for cluster ${cluster.name} (${cluster.namespaces!.join(', ')}): not acted on; add it to the deploy's namespaces parameter and its RoleBinding`,
  };
}

function isDryRun(hpa: HorizontalPodAutoscaler, global: boolean): boolean {
  return global || hpa.metadata.annotations?.[DRY_RUN_ANNOTATION] === 'true';
}

/** An autoscaler object as a record: its stored state when it is the same object (uid), none otherwise. */
function recordOf(cluster: string, o: KubernetesAutoscaler, state: ClusterStateRecord | undefined, tableRecord: AutoscalerRecord | undefined): AutoscalerRecord {
  const m = o.metadata;
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      ...(m.labels ? { labels: m.labels } : {}),
      ...(m.annotations ? { annotations: m.annotations } : {}),
      ...(m.creationTimestamp ? { creationTimestamp: m.creationTimestamp } : {}),
      ...(m.generation !== undefined ? { generation: m.generation } : {}),
    },
    spec: o.spec as HorizontalPodAutoscaler['spec'],
  };
  const mine = state && state.uid === m.uid ? state : undefined;
  const record: AutoscalerRecord = {
    cluster,
    namespace: m.namespace,
    name: m.name,
    source: 'cluster',
    hpa: mine?.status ? { ...hpa, status: mine.status } : hpa,
    specVersion: String(m.generation ?? 0),
    history: mine?.history ?? { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
    // A state of another object of this name (or of a table spec) is overwritten, conditionally.
    version: state?.version ?? tableRecord?.version ?? 0,
    createdAt: m.creationTimestamp ?? '',
    updatedAt: mine?.updatedAt ?? m.creationTimestamp ?? '',
  };
  if (mine?.log) record.log = mine.log;
  if (mine?.pending) record.pending = mine.pending;
  if (mine?.selector !== undefined) record.selector = mine.selector;
  if (mine?.stateProblem) record.stateProblem = mine.stateProblem;
  if (mine?.untrustedHistory) record.untrustedHistory = mine.untrustedHistory;
  if (mine?.holds) record.holds = mine.holds;
  return record;
}

/** The units an evaluation concerns: named autoscalers, readers of a CloudWatchMetric object, or of the metrics an alarm names. */
export function selectTargets(units: Unit[], targets: EvaluateTarget[], metrics: CloudWatchMetric[]): Set<Unit> {
  const names = new Set<string>();
  const readers = new Set<string>();
  for (const t of targets) {
    if (t.kind === 'hpa') names.add(key(t.namespace, t.name));
    else if (t.kind === 'cwm') readers.add(key(t.namespace, t.name));
    else for (const m of metrics) if (m.spec.alarmName === t.alarmName) readers.add(key(m.metadata.namespace ?? 'default', m.metadata.name));
  }
  const selected = new Set<Unit>();
  for (const u of units) {
    const { namespace, name } = u.record;
    // The spec is not validated yet: read it defensively.
    const specMetrics: unknown = u.record.hpa.spec?.metrics;
    const reads =
      Array.isArray(specMetrics) &&
      specMetrics.some((m: { type?: unknown; external?: { metric?: { name?: unknown } } } | null) => m?.type === 'External' && readers.has(key(namespace, String(m.external?.metric?.name ?? ''))));
    if (names.has(key(namespace, name)) || reads) selected.add(u);
  }
  return selected;
}
