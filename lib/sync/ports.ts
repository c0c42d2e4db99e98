// The adapter interfaces one shard cycle depends on. lib/store, lib/cluster and
// lib/metrics implement them; tests and the local stack pass the same or local ones.
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline
// no longer has time for, so a hung call is cancelled, not only abandoned.
import type { TickPhase } from './tick-phase.js';
import type { DelayLearning } from './publish-delay.js';
import type {
  CrossVersionObjectReference,
  Fetched,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerStatus,
  MetricIdentifier,
  MetricSample,
  ObjectMeta,
  PodInfo,
  PodMetric,
  PodMetricSample,
  ScaleInfo,
  ScalingHistory,
} from '#hpa';
import type { CloudWatchMetric } from '../api/cloudwatch-types.js';
import type { PrometheusMetric } from '../api/prometheus-types.js';
import type { SQSQueueMetric } from '../api/sqs-types.js';
import type { DecisionLogEntry } from './event-log.js';
import type { ShardRef } from './shards.js';

export interface Clock {
  now(): Date;
}

/** How to reach a cluster. */
export interface ClusterRecord {
  name: string;
  region: string;
  /** IAM role to assume for clusters in other accounts. */
  roleArn?: string;
  /** API server URL override (skips DescribeCluster); with caData. Local stacks only. */
  endpoint?: string;
  caData?: string;
}

/** A cluster as the functions sync it. */
export interface ClusterConfig extends ClusterRecord {
  /** K: shards the cluster is cut into (1, 2, 4, 8, 16). */
  shards: number;
  /** Namespaces the function may act in; undefined: all. */
  namespaces?: string[];
}

export type AutoscalerSource = 'table' | 'cluster';

/** A scale recorded in the state before /scale was written, confirmed by the next cycle (lib/sync/pending.ts). */
export interface PendingScale {
  from: number;
  to: number;
  /** When it was decided: the scale event's timestamp. */
  at: string;
  /** The target's resourceVersion read before the write. */
  resourceVersion?: string;
  /** status.lastScaleTime before this scale, restored if it never happened. */
  previousScaleTime?: string;
}

/** One autoscaler: its spec (from the table or the cluster) with its stored state. */
export interface AutoscalerRecord {
  cluster: string;
  namespace: string;
  name: string;
  source: AutoscalerSource;
  /** The spec as stored or listed, status from the stored state. Not yet validated: the sync does that. */
  hpa: HorizontalPodAutoscaler;
  /** table: the spec item's version; cluster: the object's metadata.generation. */
  specVersion: string;
  history: ScalingHistory;
  /** Optimistic-concurrency version of the state: every state write is conditional on it (0: none yet). */
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Recent events, newest last (lib/sync/event-log.ts). */
  log?: DecisionLogEntry[];
  pending?: PendingScale;
  /** The target's pod selector when last read: what other autoscalers of the namespace check theirs against. */
  selector?: string;
  /** Why the stored state could not be trusted; the history then starts empty. */
  stateProblem?: string;
  /** Parts of the stored history some entries of which could not be trusted (dropped), each with what was wrong. */
  untrustedHistory?: UntrustedHistory;
  /** Directions held still until these times (epoch ms), as stored (lib/sync/history-holds.ts). */
  holds?: DirectionHolds;
}

export interface UntrustedHistory {
  up?: string;
  down?: string;
  recommendations?: string;
}

export interface DirectionHolds {
  up?: number;
  down?: number;
}

/** The stored state of an autoscaler defined as a Kubernetes object: no spec in the table. */
export type ClusterStateRecord = Omit<AutoscalerRecord, 'hpa' | 'specVersion' | 'source'> & {
  uid: string;
  status?: HorizontalPodAutoscalerStatus;
  /** The object's spec when the state was last written (for `shpa get`, which does not read the cluster). */
  lastSpec?: unknown;
};

/** A stored item that could not be decoded: reported, never fatal to the cycle. */
export interface BrokenRecord {
  cluster: string;
  namespace: string;
  name: string;
  error: string;
}

/**
 * A metric answer kept in the table for the whole deployment until a newer datapoint can exist:
 * whichever Lambda environment runs a shard's next tick reads it with the shard, so a query is
 * read from CloudWatch once per period, not once per environment.
 */
export interface SharedMetricAnswer {
  /** The end of the query window it answers (epoch seconds): it stands while the window does. */
  end: number;
  samples?: MetricSample[];
  /** An answer that is itself an error (no datapoint in the window): kept like a value. */
  error?: string;
  messages?: string[];
  /** The object's publication delay learning (CloudWatch, lib/sync/publish-delay.ts): kept with the answer so it survives containers. */
  learn?: DelayLearning;
}

/** The shard count a cluster is cut into from a tick on (epoch ms), and the one before it. */
export interface ShardCountRecord {
  k: number;
  since: number;
  previous?: number;
  /** The latest minute (epoch ms) a dispatcher planned: a second invocation for it keeps its count (one evaluation per tick). */
  planned?: number;
}

/**
 * A cluster's index item: the buckets that hold anything, how many autoscalers each held at its
 * shard's last tick (what the dispatcher sizes shards by), and the shard count in use.
 */
export interface ClusterIndex {
  buckets: number[];
  /** Autoscalers per bucket (16 entries; 0 where none was recorded). */
  counts: number[];
  shards?: ShardCountRecord;
}

export interface ShardSnapshot {
  /** Autoscalers whose spec is in the table, with their state. */
  autoscalers: AutoscalerRecord[];
  /** States of autoscalers defined as Kubernetes objects. */
  clusterStates: ClusterStateRecord[];
  cloudWatchMetrics: CloudWatchMetric[];
  prometheusMetrics?: PrometheusMetric[];
  broken: BrokenRecord[];
  /** The non-empty buckets read, of the index the load used. */
  buckets: number[];
  index: ClusterIndex;
  /** Metric answers the shard's cycles kept (saveSharedAnswers), by query key. */
  sharedAnswers: Map<string, SharedMetricAnswer>;
}

/** Everything a cluster-wide read needs (the CLI). */
export interface ClusterSnapshot {
  autoscalers: AutoscalerRecord[];
  cloudWatchMetrics: CloudWatchMetric[];
  prometheusMetrics?: PrometheusMetric[];
  broken: BrokenRecord[];
}

/** What a cycle writes back for one autoscaler. */
export interface AutoscalerStateUpdate {
  status: HorizontalPodAutoscalerStatus;
  history: ScalingHistory;
  log: DecisionLogEntry[];
  /** A scale about to be written to the target; undefined: none pending. */
  pending?: PendingScale;
  /** The target's pod selector as read this cycle. */
  selector?: string;
  /** Directions held still, until when (epoch ms). */
  holds?: DirectionHolds;
}

export interface SaveOptions {
  /** The time open recommendation pairs are kept relative to: this cycle's time. */
  markerMs: number;
  /** Write even when nothing material changed (an evaluation between ticks, a pending scale resolved). */
  force?: boolean;
  signal?: AbortSignal;
}

export interface LeaseRequest {
  owner: string;
  now: Date;
  /** How long the lease lasts unless released. */
  leaseMs: number;
  /** A tick's time: only taken when newer than the last tick started. */
  tick?: Date;
  signal?: AbortSignal;
}

export type LeaseOutcome =
  | {
      outcome: 'acquired';
      /** The marker of the previous cycle (see docs/store.md); undefined when none can be trusted. */
      markerMs?: number;
      /** Autoscalers ("namespace/name") the previous tick's deadline left unevaluated: first in line this tick. */
      deferred?: string[];
      /** When the latest two evaluation cycles of each autoscaler ("namespace/name") started, within the last period (epoch ms, latest first). */
      evaluated?: EvaluationTimes;
      /** Repairs made on the way (a lease or marker from the future, values of the wrong type). */
      warnings: string[];
    }
  | { outcome: 'held'; owner: string; expiresAt: string; /** What the holder runs: an evaluation is over in a moment. */ holding?: 'tick' | 'evaluate' }
  | { outcome: 'duplicate'; lastTick: string };

/** By autoscaler ("namespace/name"): the start of its latest evaluation cycle, and of the one before when recent. */
export type EvaluationTimes = Record<string, [number] | [number, number]>;

export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly key: string,
    readonly expectedVersion: number,
  ) {
    super(`autoscaler ${key} was changed by another writer (expected version ${expectedVersion})`);
  }
}

export interface AutoscalerStore {
  /** The cluster's index item, read consistently. */
  readIndex(cluster: string, signal?: AbortSignal): Promise<ClusterIndex>;
  /** The shard's autoscalers, states and CloudWatchMetric objects: one Query per non-empty bucket (of `index`, read when not given). */
  loadShard(shard: ShardRef, opts: { now: Date; markerMs?: number; index?: ClusterIndex; signal?: AbortSignal }): Promise<ShardSnapshot>;
  /** Records how many autoscalers these buckets hold (bucket → count). */
  recordBucketCounts(cluster: string, counts: ReadonlyMap<number, number>, signal?: AbortSignal): Promise<void>;
  /** Conditional on record.version; throws VersionConflictError when it lost a race. Returns the new version. */
  saveState(record: AutoscalerRecord, update: AutoscalerStateUpdate, now: Date, opts: SaveOptions): Promise<number>;
  /**
   * The spec items' current versions (table autoscalers), read consistently so an apply since the load is seen:
   * by "namespace/name", undefined for one that no longer exists. Many at once (a BatchGetItem per 100).
   */
  specVersions(cluster: string, autoscalers: { namespace: string; name: string }[], signal?: AbortSignal): Promise<Map<string, string | undefined>>;
  /** The state of an autoscaler whose Kubernetes object is gone: left to expire. */
  expireState(cluster: string, state: ClusterStateRecord, now: Date, signal?: AbortSignal): Promise<void>;
  /** Keeps the shard's metric answers (the whole set, replacing what was kept) in the partition of one of its buckets. */
  saveSharedAnswers(shard: ShardRef, bucket: number, answers: ReadonlyMap<string, SharedMetricAnswer>, signal?: AbortSignal): Promise<void>;
  /** Takes the shard's lease (and, for a tick, its last-tick mark). */
  acquireShard(shardId: string, req: LeaseRequest): Promise<LeaseOutcome>;
  /**
   * Releases a lease this owner holds, recording the cycle's marker when given, and the autoscalers
   * its deadline left for the next tick when given ([] clears them; undefined leaves them as they are).
   */
  releaseShard(shardId: string, owner: string, opts: ReleaseOptions): Promise<void>;
}

export interface ReleaseOptions {
  markerMs?: number;
  deferred?: string[];
  evaluated?: EvaluationTimes;
  /** The alarms the shard's CloudWatchMetric objects name: what sends an alarm's state change to this shard only. */
  alarms?: string[];
  /** When the shard's pod metrics are sampled within the period: where the dispatcher puts its ticks. */
  phase?: TickPhase;
  /** The period the shard should tick at (its autoscalers' spec.syncPeriodSeconds); null: the deploy's. */
  tickPeriodSeconds?: number | null;
  signal?: AbortSignal;
}

/** What a shard's last cycles recorded for the other functions, each absent until recorded (or unreadable). */
export interface ShardRecord {
  /** The alarms its CloudWatchMetric objects name. */
  alarms?: string[];
  /** When its pod metrics are sampled within the period. */
  phase?: TickPhase;
  /** The period it should tick at, when faster than the deploy's. */
  tickPeriodSeconds?: number;
}

/** What the events function reads to send an alarm's state change only to the shards that name it. */
export interface AlarmIndexStore {
  readIndexes(clusters: string[], signal?: AbortSignal): Promise<Map<string, ClusterIndex>>;
  /** What each shard's cycles recorded, by shard id (every id given has an entry). */
  shardRecords(shardIds: string[], signal?: AbortSignal): Promise<Map<string, ShardRecord>>;
}

/** What the dispatcher reads and writes: every cluster's index, and the shard count it chose. */
export interface DispatchStore {
  readIndexes(clusters: string[], signal?: AbortSignal): Promise<Map<string, ClusterIndex>>;
  shardRecords(shardIds: string[], signal?: AbortSignal): Promise<Map<string, ShardRecord>>;
  /** Records the count of a minute (record.planned); false when another invocation already planned that minute. */
  recordShardCount(cluster: string, record: ShardCountRecord, signal?: AbortSignal): Promise<boolean>;
}

/** An error from the cluster API, with the HTTP status when there was one. */
export class ClusterApiError extends Error {
  override readonly name = 'ClusterApiError';
  constructor(
    message: string,
    readonly statusCode?: number,
    /** True when the request may have reached the server and acted (a timeout, a reset): its outcome is unknown. */
    readonly outcomeUnknown = false,
  ) {
    super(message);
  }
}

/** A ServerlessHorizontalPodAutoscaler as listed: spec unchecked. */
export interface KubernetesAutoscaler {
  metadata: ObjectMeta & { namespace: string; uid: string };
  spec: unknown;
  status?: unknown;
}

/** What the sync writes to a ServerlessHorizontalPodAutoscaler's status subresource. */
export interface KubernetesAutoscalerStatus extends HorizontalPodAutoscalerStatus {
  /** Display only, for the printer columns: "Deployment/web", "cpu: 72%/60%". */
  reference: string;
  targets: string;
}

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** What the live autoscaler (an autoscaling/v2 HPA, or the one a KEDA ScaledObject owns) says in its status. */
export interface LiveHpaStatus {
  desiredReplicas: number;
  currentReplicas: number;
  lastScaleTime?: string;
}

/** Kinds whose scale a LIST of their apps/v1 objects carries (what GET /scale of each returns). */
export type ListableScaleKind = 'Deployment' | 'StatefulSet' | 'ReplicaSet';

/** One cluster's API as a cycle uses it. Implementations retry within their budget. */
export interface ClusterAccess {
  getScale(namespace: string, ref: CrossVersionObjectReference, signal?: AbortSignal): Promise<ScaleInfo>;
  /**
   * The scale of every object of one apps/v1 kind in a namespace, by name, from one paginated LIST: what GET /scale would return for each.
   * An object whose selector does not convert is left out (its GET /scale is a 400, as upstream's): getScale gives its error.
   */
  listScales(namespace: string, kind: ListableScaleKind, signal?: AbortSignal): Promise<Map<string, ScaleInfo>>;
  /** Writes spec.replicas through /scale; with resourceVersion, a change since that read is a 409 conflict. */
  updateScale(namespace: string, ref: CrossVersionObjectReference, replicas: number, resourceVersion?: string, signal?: AbortSignal): Promise<void>;
  /** A namespace's pods; with a label selector, those it selects (a shard holding a part of the namespace). */
  listPods(namespace: string, signal?: AbortSignal, labelSelector?: string): Promise<PodInfo[]>;
  /** Our custom resources, in the given namespaces (all when undefined). */
  listAutoscalerObjects(
    namespaces: string[] | undefined,
    signal?: AbortSignal,
  ): Promise<{ autoscalers: KubernetesAutoscaler[]; cloudWatchMetrics: CloudWatchMetric[]; prometheusMetrics?: PrometheusMetric[] }>;
  /** metadata.generation of one autoscaler object, undefined when it no longer exists. */
  autoscalerGeneration(namespace: string, name: string, signal?: AbortSignal): Promise<number | undefined>;
  writeAutoscalerStatus(namespace: string, name: string, status: KubernetesAutoscalerStatus, signal?: AbortSignal): Promise<void>;
  /** Creates or updates (count, lastTimestamp) the Event for one log entry, as client-go's recorder does. */
  recordEvent(involved: ObjectReference, entry: DecisionLogEntry, signal?: AbortSignal): Promise<void>;
  /** The status of an autoscaling/v2 HorizontalPodAutoscaler, undefined when it does not exist (shadowing, lib/sync/shadow.ts). */
  getLiveHpa?(namespace: string, name: string, signal?: AbortSignal): Promise<LiveHpaStatus | undefined>;
}

/** The cluster's metrics APIs (metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io). */
export interface ClusterMetricsApi {
  /** PodMetrics of a whole namespace. */
  /** With a label selector: of the pods it selects. */
  listPodMetrics(namespace: string, signal?: AbortSignal, labelSelector?: string): Promise<PodMetric[]>;
  getPodsMetric(namespace: string, metric: MetricIdentifier, podSelector: string, signal?: AbortSignal): Promise<PodMetricSample[]>;
  getObjectMetric(namespace: string, describedObject: CrossVersionObjectReference, metric: MetricIdentifier, signal?: AbortSignal): Promise<MetricSample>;
  getExternalMetric(namespace: string, metric: MetricIdentifier, signal?: AbortSignal): Promise<MetricSample[]>;
}

/** One metric a cycle needs; identical queries are fetched once. */
export type MetricQuery =
  /** selector: a list selector covering a part shard's targets (lib/sync/part-selectors.ts); none: the whole namespace. */
  | { type: 'PodResource'; cluster: string; namespace: string; selector?: string }
  | { type: 'Pods'; cluster: string; namespace: string; metric: MetricIdentifier; podSelector: string }
  | {
      type: 'Object';
      cluster: string;
      namespace: string;
      describedObject: CrossVersionObjectReference;
      metric: MetricIdentifier;
    }
  | { type: 'External'; cluster: string; namespace: string; metric: MetricIdentifier }
  | { type: 'CloudWatch'; cluster: string; namespace: string; source: CloudWatchMetric }
  | { type: 'Prometheus'; cluster: string; namespace: string; source: PrometheusMetric }
  | { type: 'SQS'; cluster: string; namespace: string; source: SQSQueueMetric };

/** Queries of our own metric objects: read in one batched fetch a cycle, answers kept for the deployment. */
export type ObjectMetricQuery = Extract<MetricQuery, { type: 'CloudWatch' | 'Prometheus' | 'SQS' }>;

export type MetricAnswer =
  | { type: 'PodResource'; result: Fetched<PodMetric[]> }
  | { type: 'Pods'; result: Fetched<PodMetricSample[]> }
  | { type: 'Object'; result: Fetched<MetricSample> }
  | { type: 'External'; result: Fetched<MetricSample[]>; messages?: string[] }
  | {
      type: 'CloudWatch' | 'Prometheus' | 'SQS';
      result: Fetched<MetricSample[]>;
      messages?: string[];
      /** The answer to keep for the deployment until its window moves (absent: not to be kept, e.g. partial data). */
      shared?: { key: string; answer: SharedMetricAnswer };
    };

/** How a cycle wants its metrics read. */
export interface MetricReadOptions {
  /** Answer by then (the cycle's read deadline): retries stop in time to report their last error. */
  readBy?: Date;
  /**
   * Alarms that asked for this cycle, by name, with the end of the period each evaluated: the
   * CloudWatchMetric objects naming one (spec.alarmName) are read fresh, up to that period.
   */
  alarms?: ReadonlyMap<string, Date>;
  /** Answers kept in the table by earlier cycles, by query key: used while their window stands. */
  shared?: ReadonlyMap<string, SharedMetricAnswer>;
  /** When the data read could first have been read (a tick's own time): publication delays are timed against it. */
  observedAt?: Date;
}

export interface MetricsAccess {
  /** Answers align with queries by index. Never throws for one metric. */
  fetchAll(queries: MetricQuery[], now: Date, signal?: AbortSignal, options?: MetricReadOptions): Promise<MetricAnswer[]>;
}

export interface WorkMessageEntry {
  /** The message's kind: ticks and evaluations go to queues of their own, so that events never delay a tick. */
  kind: 'tick' | 'evaluate';
  body: string;
  delaySeconds: number;
  groupId?: string;
}

/** Sends work messages (the SQS work queue). Throws UnsentMessagesError when it knows which were not sent. */
export interface WorkQueue {
  send(messages: WorkMessageEntry[], signal?: AbortSignal): Promise<void>;
}

/** Some messages of one send were not sent: each by its index in the list given, with why. */
export class UnsentMessagesError extends Error {
  constructor(
    message: string,
    readonly unsent: { index: number; error: string }[],
  ) {
    super(message);
    this.name = 'UnsentMessagesError';
  }
}
