// The store port (lib/store implements it): autoscalers with their state, leases, the shard index and cycle records.
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline no longer has time for.
import type { MetricObjectLists } from '#api';
import type { DecisionLogEntry } from './decision-log.js';
import type { DelayLearning } from './publish-delay.js';
import type { ShardRef } from './shard-ref.js';
import type { TickPhase } from './tick-phase.js';
import type { DemandHistory, HorizontalPodAutoscaler, HorizontalPodAutoscalerStatus, MetricSample, ScalingHistory } from '#hpa';

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
  /** Ours: spec.predictive's demand history as stored (lib/hpa/forecast.ts); the sync updates it in place. */
  demand?: DemandHistory;
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
  /** The object's publication delay learning (CloudWatch, lib/metrics/publish-delay.ts): kept with the answer so it survives containers. */
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

export interface ShardSnapshot extends MetricObjectLists {
  /** Autoscalers whose spec is in the table, with their state. */
  autoscalers: AutoscalerRecord[];
  /** States of autoscalers defined as Kubernetes objects. */
  clusterStates: ClusterStateRecord[];
  broken: BrokenRecord[];
  /** The non-empty buckets read, of the index the load used. */
  buckets: number[];
  index: ClusterIndex;
  /** Metric answers the shard's cycles kept (saveSharedAnswers), by query key. */
  sharedAnswers: Map<string, SharedMetricAnswer>;
}

/** Everything a cluster-wide read needs (the CLI). */
export interface ClusterSnapshot extends MetricObjectLists {
  autoscalers: AutoscalerRecord[];
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
  /** Ours: spec.predictive's demand history after this sync (default: the record's). */
  demand?: DemandHistory;
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
      /** What the shard's ticks learned of when its pod metrics change (lib/sync/tick-phase.ts). */
      phase?: TickPhase;
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
