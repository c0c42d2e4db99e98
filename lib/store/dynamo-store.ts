// AutoscalerStore on DynamoDB, plus the spec, cluster and lease management the CLI needs.
// Every write is conditional on the version read; see docs/store.md for the layout and
// what the store guarantees after each kind of failure.
import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  paginateQuery,
  type PutCommandInput,
} from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import type { HorizontalPodAutoscaler, ScalingHistory } from '#hpa';
import { addMetricObject, type AnyMetricObject, emptyMetricObjects, pickMetricObjects } from '#api';
import { stableKey } from '../shared/stable-key.js';
import {
  type AlarmIndexStore,
  type AutoscalerRecord,
  type AutoscalerStateUpdate,
  type AutoscalerStore,
  type BrokenRecord,
  type ClusterConfig,
  type ClusterIndex,
  type ClusterSnapshot,
  type ClusterStateRecord,
  type DispatchStore,
  type LeaseOutcome,
  type LeaseRequest,
  type ReleaseOptions,
  type SaveOptions,
  type ShardCountRecord,
  type ShardRecord,
  type ShardRef,
  type ShardSnapshot,
  type SharedMetricAnswer,
  VersionConflictError,
} from '#sync/ports';
import { bucketOf, bucketsOf, decodePhase, logNeedsWrite, NAMESPACE_BUCKETS, ownsAutoscaler, partOf, SHARD_COUNTS, TICK_PERIODS } from '#sync/messaging';
import { createDynamoClient, type DynamoClientOptions } from './dynamo-client.js';
import { DEFAULT_WRITE_POLICY, compactState, expandHistory, historyHorizonSeconds, needsWrite, type CompactState, type WritePolicy } from './history.js';
import {
  CLUSTERS_PK,
  KIND_CLOUDWATCH,
  KIND_HPA,
  KIND_PROMETHEUS,
  bucketIndexKey,
  bucketPk,
  kindOfPrefix,
  parseSk,
  shardCycleKey,
  specSk,
  stateSk,
  type ItemKey,
  type SpecItem,
  type SpecKind,
} from './items.js';
import { ShardCycles, type ShardCycleItem } from './shard-cycles.js';
import { decodeSharedAnswers, encodeSharedPages, parseSharedPageSk, SHARED_ANSWERS_SK, sharedPageSk } from './shared-answers.js';
import { decodeState, encodeState, type DecodedState, type StateFields } from './state-codec.js';
import { DEFAULT_TABLE_NAME } from './table.js';
import { WritePacer, writeUnitsOf, type PaceOptions } from './write-pacer.js';
import { errorText } from '../shared/error-text.js';

/** A page of kept answers expires this long after its last write: what an old shard layout left goes by itself. */
const SHARED_PAGE_TTL_S = 86_400;

export type ApplyOutcome = 'created' | 'configured' | 'unchanged';
export type StoredSpec = HorizontalPodAutoscaler | AnyMetricObject;
export type { DynamoClientOptions };

/** A cluster in the registry: who put it there decides who may change it. */
export interface RegisteredCluster extends ClusterConfig {
  /** "stack": mirrored from a deployed stack's clusters parameter; "cli": `shpa cluster add`. */
  managedBy: 'stack' | 'cli';
}

export interface DynamoStoreOptions extends DynamoClientOptions {
  client?: DynamoDBClient;
  tableName?: string;
  writePolicy?: Partial<WritePolicy>;
  /** The controller's --horizontal-pod-autoscaler-downscale-stabilization (seconds), for history pruning. */
  legacyDownscaleWindowSeconds?: number;
  /** Write units per partition key (write-pacer.ts): 800 a second after a burst of 200. */
  pace?: PaceOptions;
}

const EMPTY_HISTORY: ScalingHistory = { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] };
/** Every attribute of a state item but its key and write token: what a state write sets or removes. */
const STATE_ATTRIBUTES = ['uid', 'v', 'sv', 'st', 'rec', 'open', 'off', 'up', 'dn', 'mt', 'ut', 'pend', 'log', 'sel', 'src', 'cs', 'oc', 'ttl', 'hold', 'dem'] as const;

export function createDynamoStore(o: DynamoStoreOptions): DynamoStore {
  return new DynamoStore(o.client ?? createDynamoClient(o), o);
}

/** What was loaded of one autoscaler's state: what the next saveState is judged and conditioned against. */
interface Seen {
  version: number;
  rawVersion: unknown;
  uid: string;
  stored?: CompactState;
}

/** A bucket's items, sorted by kind. */
interface BucketItems {
  specs: SpecItem[];
  states: Map<string, Record<string, unknown>>;
  shared?: Map<string, SharedMetricAnswer>;
}

export class DynamoStore implements AutoscalerStore, DispatchStore, AlarmIndexStore {
  readonly tableName: string;
  readonly doc: DynamoDBDocumentClient;
  /** Write capacity units consumed so far, as DynamoDB reported them. */
  writeUnits = 0;
  writes = 0;
  private readonly policy: WritePolicy;
  private readonly legacyWindow: number;
  private readonly seen = new Map<string, Seen>();
  private readonly cycles: ShardCycles;
  /** Writes paced per partition key: no key past DynamoDB's 1,000 write units a second. */
  readonly pacer: WritePacer;
  /** Pages of kept answers the loads saw, by partition and owner ("pk|owner"): those past a smaller count are emptied. */
  private readonly sharedPages = new Map<string, number>();
  /** Partitions where a load saw an older release's single answers item: it is left to expire at the next save. */
  private readonly legacyShared = new Set<string>();

  constructor(
    readonly client: DynamoDBClient,
    o: Omit<DynamoStoreOptions, 'client'> = {},
  ) {
    this.tableName = o.tableName ?? DEFAULT_TABLE_NAME;
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    this.policy = { ...DEFAULT_WRITE_POLICY, ...o.writePolicy };
    this.legacyWindow = o.legacyDownscaleWindowSeconds ?? 300;
    this.cycles = new ShardCycles(this.doc, this.tableName);
    this.pacer = new WritePacer(o.pace);
  }

  // ---- AutoscalerStore (the sync) ----

  async readIndex(cluster: string, signal?: AbortSignal): Promise<ClusterIndex> {
    return decodeIndex(await this.getItem(bucketIndexKey(cluster), signal));
  }

  async readIndexes(clusters: string[], signal?: AbortSignal): Promise<Map<string, ClusterIndex>> {
    const out = new Map<string, ClusterIndex>();
    for (const item of await this.batchGet(clusters.map(bucketIndexKey), 'cluster indexes', {}, signal)) out.set(String(item.pk).slice('c#'.length), decodeIndex(item));
    for (const c of clusters) if (!out.has(c)) out.set(c, decodeIndex(undefined));
    return out;
  }

  async recordBucketCounts(cluster: string, counts: ReadonlyMap<number, number>, signal?: AbortSignal): Promise<void> {
    if (counts.size === 0) return;
    const names: Record<string, string> = {};
    const values: Record<string, number> = {};
    const set = [...counts].map(([b, n]) => {
      names[`#${countAttribute(b)}`] = countAttribute(b);
      values[`:${countAttribute(b)}`] = n;
      return `#${countAttribute(b)} = :${countAttribute(b)}`;
    });
    await this.doc.send(
      new UpdateCommand({ TableName: this.tableName, Key: bucketIndexKey(cluster), UpdateExpression: `SET ${set.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values }),
      { abortSignal: signal },
    );
  }

  async recordShardCount(cluster: string, record: ShardCountRecord, signal?: AbortSignal): Promise<boolean> {
    const names: Record<string, string> = { '#k': 'k', '#ks': 'ks' };
    const values: Record<string, number> = { ':k': record.k, ':ks': record.since };
    const set = ['#k = :k', '#ks = :ks'];
    const add = (attribute: string, value: number | undefined) => {
      if (value === undefined) return;
      names[`#${attribute}`] = attribute;
      values[`:${attribute}`] = value;
      set.push(`#${attribute} = :${attribute}`);
    };
    add('kp', record.previous);
    add('pm', record.planned);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: bucketIndexKey(cluster),
          UpdateExpression: `SET ${set.join(', ')}`,
          // A minute is planned once: a duplicate dispatcher invocation keeps the first one's count.
          ...(record.planned !== undefined ? { ConditionExpression: 'attribute_not_exists(#pm) OR #pm < :pm' } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
        { abortSignal: signal },
      );
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  async loadShard(shard: ShardRef, opts: { now: Date; markerMs?: number; index?: ClusterIndex; signal?: AbortSignal }): Promise<ShardSnapshot> {
    const owned = new Set(bucketsOf(shard));
    const index = opts.index ?? (await this.readIndex(shard.cluster, opts.signal));
    const buckets = index.buckets.filter((b) => owned.has(b));
    const limit = pLimit(8);
    const owner = parseSharedPageSk(sharedPageSk(partOf(shard), 0))!.owner;
    const parts = await Promise.all(buckets.map((b) => limit(() => this.readBucket(shard.cluster, b, opts.signal, owner))));
    const snapshot: ShardSnapshot = { autoscalers: [], clusterStates: [], ...emptyMetricObjects(), broken: [], buckets, index, sharedAnswers: new Map() };
    for (const part of parts) {
      this.decodeBucket(shard.cluster, part, opts.now.getTime(), opts.markerMs, snapshot, (ns, name) => ownsAutoscaler(shard, ns, name));
      // Kept where the shard's first bucket was when written (K or the buckets may have changed since): the newest of each wins.
      for (const [key, a] of part.shared ?? []) if ((snapshot.sharedAnswers.get(key)?.end ?? -1) < a.end) snapshot.sharedAnswers.set(key, a);
    }
    return snapshot;
  }

  /**
   * Writes the shard's answers as pages (shared-answers.ts), each expiring a day after its write (TTL: the worker
   * may not delete); pages the last load saw beyond the new count are emptied, and an older release's single item
   * the load saw is left to expire.
   */
  async saveSharedAnswers(shard: ShardRef, bucket: number, answers: ReadonlyMap<string, SharedMetricAnswer>, signal?: AbortSignal): Promise<void> {
    const pk = bucketPk(shard.cluster, bucket);
    const part = partOf(shard);
    const pages = encodeSharedPages(answers);
    const owner = `${pk}|${parseSharedPageSk(sharedPageSk(part, 0))!.owner}`;
    const before = this.sharedPages.get(owner) ?? 0;
    for (let i = pages.length; i < before; i++) pages.push('{}');
    const nowS = Math.floor(Date.now() / 1000);
    const write = (sk: string, cw: string | undefined, ttl: number) =>
      this.paced(pk, (cw?.length ?? 0) + 100, signal, () =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk, sk },
            UpdateExpression: cw === undefined ? 'SET #ttl = :ttl' : 'SET #cw = :cw, #ttl = :ttl',
            ExpressionAttributeNames: { '#ttl': 'ttl', ...(cw === undefined ? {} : { '#cw': 'cw' }) },
            ExpressionAttributeValues: { ':ttl': ttl, ...(cw === undefined ? {} : { ':cw': cw }) },
            ReturnConsumedCapacity: 'TOTAL',
          }),
          { abortSignal: signal },
        ),
      );
    await Promise.all(pages.map((cw, i) => write(sharedPageSk(part, i), cw, nowS + SHARED_PAGE_TTL_S)));
    this.sharedPages.set(owner, pages.length);
    if (this.legacyShared.delete(pk)) await write(SHARED_ANSWERS_SK, undefined, nowS);
  }

  async saveState(record: AutoscalerRecord, update: AutoscalerStateUpdate, now: Date, opts: SaveOptions): Promise<number> {
    const nowMs = now.getTime();
    const uid = record.hpa.metadata.uid ?? '';
    const horizon = historyHorizonSeconds(record.hpa.spec.behavior, this.legacyWindow);
    // Ours: the demand of spec.predictive (updated in place by the sync), dropped with spec.predictive.
    const demand = record.hpa.spec.predictive ? (update.demand ?? record.demand) : undefined;
    const next = compactState(record.history, { ...update, ...(demand ? { demand } : {}) }, nowMs - horizon * 1000, opts.markerMs, nowMs);
    const key = this.recordKey(record.cluster, record.namespace, record.name);
    const before = this.seen.get(key);
    const known = before && before.version === record.version ? before : undefined;
    const prev = known && known.uid === uid ? known.stored : undefined;
    const extras =
      logNeedsWrite(record.log ?? [], update.log, nowMs) ||
      JSON.stringify(update.pending) !== JSON.stringify(record.pending) ||
      (update.selector !== undefined && update.selector !== record.selector);
    if (!opts.force && prev && !extras && !needsWrite(prev, next, nowMs, this.staggered(key))) return record.version;

    const fields: StateFields = {
      ...next,
      uid,
      specVersion: record.specVersion,
      log: update.log,
      ...(update.pending ? { pending: update.pending } : {}),
      ...((update.selector ?? record.selector) !== undefined ? { selector: update.selector ?? record.selector } : {}),
      ...(record.source === 'cluster' ? { source: 'cluster' as const } : {}),
    };
    const version = record.version + 1;
    const itemKey = { pk: bucketPk(record.cluster, bucketOf(record.namespace)), sk: stateSk(record.namespace, record.name) };
    const item: Record<string, unknown> = { ...encodeState(itemKey, version, fields, now) };
    // The spec of a Kubernetes object, kept so that `shpa get` can show it without the cluster.
    if (record.source === 'cluster') item.cs = JSON.stringify(record.hpa.spec);
    // And its creationTimestamp: AGE is the object's, not the last state write's.
    if (record.source === 'cluster' && record.hpa.metadata.creationTimestamp) item.oc = record.hpa.metadata.creationTimestamp;
    if (record.source === 'cluster' && record.version === 0) await this.addBucket(record.cluster, bucketOf(record.namespace), opts.signal);
    const raw = known ? known.rawVersion : record.version;
    await this.conditionalUpdate(item as ItemKey & Record<string, unknown>, STATE_ATTRIBUTES, raw, () => new VersionConflictError(`${record.cluster}/${record.namespace}/${record.name}`, record.version), opts.signal);
    this.seen.set(key, { version, rawVersion: version, uid, stored: next });
    return version;
  }

  async specVersions(cluster: string, autoscalers: { namespace: string; name: string }[], signal?: AbortSignal): Promise<Map<string, string | undefined>> {
    const out = new Map<string, string | undefined>(autoscalers.map((a) => [`${a.namespace}/${a.name}`, undefined]));
    const keys = [...new Map(autoscalers.map((a) => [`${a.namespace}/${a.name}`, { pk: bucketPk(cluster, bucketOf(a.namespace)), sk: specSk(KIND_HPA, a.namespace, a.name) }])).values()];
    const projection = { ProjectionExpression: 'sk, #v', ExpressionAttributeNames: { '#v': 'v' } };
    for (const item of await this.batchGet(keys, 'spec versions', projection, signal)) {
      const parsed = parseSk(String(item.sk));
      if (parsed) out.set(`${parsed.namespace}/${parsed.name}`, String(item.v));
    }
    return out;
  }

  async expireState(cluster: string, state: ClusterStateRecord, now: Date, signal?: AbortSignal): Promise<void> {
    // TTL deletes it (the worker may not delete items); the loader already ignores expired ones.
    const ttl = Math.floor(now.getTime() / 1000) + 3600;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: bucketPk(cluster, bucketOf(state.namespace)), sk: stateSk(state.namespace, state.name) },
          UpdateExpression: 'SET #ttl = :ttl',
          ConditionExpression: '#uid = :uid AND attribute_not_exists(#ttl)',
          ExpressionAttributeNames: { '#ttl': 'ttl', '#uid': 'uid' },
          ExpressionAttributeValues: { ':ttl': ttl, ':uid': state.uid },
        }),
        { abortSignal: signal },
      );
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
    }
  }

  acquireShard(shardId: string, req: LeaseRequest): Promise<LeaseOutcome> {
    return this.cycles.acquire(shardId, req);
  }

  releaseShard(shardId: string, owner: string, opts: ReleaseOptions): Promise<void> {
    return this.cycles.release(shardId, owner, opts);
  }

  // ---- AlarmIndexStore (the events function) ----

  async shardRecords(shardIds: string[], signal?: AbortSignal): Promise<Map<string, ShardRecord>> {
    const projection = { ProjectionExpression: 'pk, #al, #ph, #pp', ExpressionAttributeNames: { '#al': 'al', '#ph': 'ph', '#pp': 'pp' } };
    const items = await this.batchGet(shardIds.map(shardCycleKey), 'shard cycle items', projection, signal);
    const out = new Map<string, ShardRecord>(shardIds.map((id) => [id, {}]));
    for (const item of items) {
      const alarms = alarmList(item.al);
      const phase = decodePhase(item.ph);
      const period = TICK_PERIODS.includes(item.pp as number) ? (item.pp as number) : undefined;
      out.set(String(item.pk).slice('shard#'.length), { ...(alarms ? { alarms } : {}), ...(phase ? { phase } : {}), ...(period ? { tickPeriodSeconds: period } : {}) });
    }
    return out;
  }

  /** The shard's cycle item as stored (`shpa lease get`). */
  readShardCycle(shardId: string): Promise<ShardCycleItem | undefined> {
    return this.cycles.read(shardId);
  }

  /** Clears the shard's lease whoever holds it (`shpa lease clear`). */
  clearShardLease(shardId: string): Promise<boolean> {
    return this.cycles.clear(shardId);
  }

  // ---- Specs (the CLI) ----

  /** Every autoscaler (with the state of Kubernetes-object ones, their spec as last seen) and CloudWatchMetric of a cluster. */
  async loadCluster(cluster: string): Promise<ClusterSnapshot> {
    const snapshot = await this.loadShard({ cluster, index: 0, count: 1 }, { now: new Date() });
    const fromCluster = snapshot.clusterStates.flatMap((s): AutoscalerRecord[] => {
      if (!s.lastSpec) return [];
      const hpa: HorizontalPodAutoscaler = {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: s.name, namespace: s.namespace, uid: s.uid, creationTimestamp: s.createdAt },
        spec: s.lastSpec as HorizontalPodAutoscaler['spec'],
        ...(s.status ? { status: s.status } : {}),
      };
      const { uid: _uid, status: _status, lastSpec: _spec, ...rest } = s;
      return [{ ...rest, hpa, source: 'cluster', specVersion: '' }];
    });
    return { ...emptyMetricObjects(), ...pickMetricObjects(snapshot), autoscalers: [...snapshot.autoscalers, ...fromCluster], broken: snapshot.broken };
  }

  /** Stores a validated, defaulted object; never touches an autoscaler's state. */
  async applySpec(cluster: string, obj: StoredSpec, now: Date): Promise<ApplyOutcome> {
    const namespace = obj.metadata.namespace ?? 'default';
    const { status: _status, ...desired } = { ...obj, metadata: { ...obj.metadata, namespace } } as HorizontalPodAutoscaler;
    const pk = bucketPk(cluster, bucketOf(namespace));
    const key = { pk, sk: specSk(obj.kind, namespace, obj.metadata.name) };
    if (obj.kind === KIND_HPA) {
      const state = await this.getItem({ pk, sk: stateSk(namespace, obj.metadata.name) });
      if (state?.src === 'cluster' && state.ttl === undefined) {
        throw new Error(
          `${namespace}/${obj.metadata.name} is a ServerlessHorizontalPodAutoscaler object in cluster ${cluster}: change it there (kubectl apply), or delete that object first; one autoscaler cannot be defined in both places`,
        );
      }
    }
    const existing = await this.getItem<SpecItem>(key);
    const old = existing && decodeSpec(existing);
    if (old && stableKey(userFields(old)) === stableKey(userFields(desired))) return 'unchanged';
    const metadata = {
      ...desired.metadata,
      uid: old?.metadata.uid ?? randomUUID(),
      creationTimestamp: old?.metadata.creationTimestamp ?? now.toISOString(),
      // Upstream's HPA strategy (HPAGeneration): 1 on create, +1 only when the spec changes.
      generation: (old?.metadata.generation ?? 0) + (old && stableKey(old.spec) === stableKey(desired.spec) ? 0 : 1),
    };
    delete metadata.resourceVersion;
    const version = existing?.v ?? 0;
    const item: SpecItem = {
      ...key,
      kind: obj.kind,
      doc: JSON.stringify({ ...desired, metadata }),
      v: version + 1,
      ct: existing?.ct ?? now.toISOString(),
      ut: now.toISOString(),
    };
    // The index first: a worker that sees the spec must also find its bucket, and the dispatcher how many autoscalers it holds
    // (lib/sizing), before any tick has loaded them; a put that then fails leaves one too many until the next tick records the count.
    if (!existing) await this.addBucket(cluster, bucketOf(namespace), undefined, obj.kind === KIND_HPA ? 1 : 0);
    await this.conditionalPut({ ...item }, version, () => new VersionConflictError(`${cluster}/${namespace}/${obj.metadata.name}`, version));
    return old ? 'configured' : 'created';
  }

  async getSpec(cluster: string, kind: SpecKind, namespace: string, name: string): Promise<StoredSpec | undefined> {
    const item = await this.getItem<SpecItem>({ pk: bucketPk(cluster, bucketOf(namespace)), sk: specSk(kind, namespace, name) });
    return item && decodeSpec(item);
  }

  /** One autoscaler of the table with its status and history (two consistent reads, in parallel). */
  async getAutoscaler(cluster: string, namespace: string, name: string): Promise<AutoscalerRecord | undefined> {
    const pk = bucketPk(cluster, bucketOf(namespace));
    const [spec, state] = await Promise.all([this.getItem<SpecItem>({ pk, sk: specSk(KIND_HPA, namespace, name) }), this.getItem({ pk, sk: stateSk(namespace, name) })]);
    if (!spec) return undefined;
    const nowMs = Date.now();
    return this.toRecord(cluster, spec, decodeSpec(spec) as HorizontalPodAutoscaler, state && decodeState(state, nowMs), undefined);
  }

  /** Deletes a spec (and an autoscaler's state); false when there was none. */
  async deleteSpec(cluster: string, kind: SpecKind, namespace: string, name: string): Promise<boolean> {
    const pk = bucketPk(cluster, bucketOf(namespace));
    if (!(await this.deleteExisting({ pk, sk: specSk(kind, namespace, name) }))) return false;
    // A state left behind by a failure here is ignored (its uid matches no spec).
    if (kind === KIND_HPA) {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk, sk: stateSk(namespace, name) } }));
      await this.addBucket(cluster, bucketOf(namespace), undefined, -1);
    }
    return true;
  }

  // ---- Clusters (the registry) ----

  async putCluster(rec: RegisteredCluster, now: Date): Promise<ApplyOutcome> {
    const key = { pk: CLUSTERS_PK, sk: rec.name };
    const existing = await this.getItem(key);
    const old = existing && decodeCluster(existing);
    if (old && stableKey(old) === stableKey(rec)) return 'unchanged';
    const version = existing ? Number(existing.v) : 0;
    await this.conditionalPut({ ...key, ...rec, v: version + 1, ct: existing?.ct ?? now.toISOString(), ut: now.toISOString() }, version, () => new VersionConflictError(`cluster ${rec.name}`, version));
    return old ? 'configured' : 'created';
  }

  async getCluster(name: string): Promise<RegisteredCluster | undefined> {
    const item = await this.getItem({ pk: CLUSTERS_PK, sk: name });
    return item && decodeCluster(item);
  }

  async listClusters(): Promise<RegisteredCluster[]> {
    const out: RegisteredCluster[] = [];
    const pages = paginateQuery(
      { client: this.doc },
      { TableName: this.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': CLUSTERS_PK }, ConsistentRead: true },
    );
    for await (const page of pages) for (const item of page.Items ?? []) out.push(decodeCluster(item));
    return out;
  }

  removeCluster(name: string): Promise<boolean> {
    return this.deleteExisting({ pk: CLUSTERS_PK, sk: name });
  }

  // ---- internals ----

  private recordKey(cluster: string, namespace: string, name: string): string {
    return `${cluster}/${namespace}/${name}`;
  }

  /** Adds the bucket to the cluster's index, and `autoscalers` (may be negative) to its count. */
  private async addBucket(cluster: string, bucket: number, signal?: AbortSignal, autoscalers = 0): Promise<void> {
    const counted = autoscalers !== 0;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: bucketIndexKey(cluster),
        UpdateExpression: counted ? 'ADD #b :b, #n :n' : 'ADD #b :b',
        ExpressionAttributeNames: { '#b': 'b', ...(counted ? { '#n': countAttribute(bucket) } : {}) },
        ExpressionAttributeValues: { ':b': new Set([bucket]), ...(counted ? { ':n': autoscalers } : {}) },
      }),
      { abortSignal: signal },
    );
  }

  /** A bucket's items; of the kept answers, the pages of `owner` (the shard's part of the bucket) and an older release's item. */
  private async readBucket(cluster: string, bucket: number, signal?: AbortSignal, owner = 'all'): Promise<BucketItems> {
    const out: BucketItems = { specs: [], states: new Map() };
    const pages = paginateQuery(
      { client: this.doc },
      { TableName: this.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': bucketPk(cluster, bucket) }, ConsistentRead: true },
      { abortSignal: signal },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        if (typeof item.sk === 'string' && item.sk.startsWith(SHARED_ANSWERS_SK)) {
          this.readSharedItem(bucketPk(cluster, bucket), item, owner, out);
          continue;
        }
        const parsed = parseSk(String(item.sk));
        const kind = parsed && kindOfPrefix(parsed.prefix);
        if (kind === 'state') out.states.set(`${parsed!.namespace}/${parsed!.name}`, item);
        else if (kind) out.specs.push(item as SpecItem);
      }
    }
    return out;
  }

  /** A page of kept answers (or an older release's single item): merged into the bucket's, the newest of each answer winning. */
  private readSharedItem(pk: string, item: Record<string, unknown>, owner: string, out: BucketItems): void {
    if (expired(item, Date.now())) return;
    const page = parseSharedPageSk(String(item.sk));
    if (page && page.owner !== owner) return;
    if (page) this.sharedPages.set(`${pk}|${page.owner}`, Math.max(this.sharedPages.get(`${pk}|${page.owner}`) ?? 0, page.page + 1));
    else if (item.sk === SHARED_ANSWERS_SK) this.legacyShared.add(pk);
    else return;
    out.shared ??= new Map();
    for (const [key, a] of decodeSharedAnswers(item.cw)) if ((out.shared.get(key)?.end ?? -1) < a.end) out.shared.set(key, a);
  }

  /**
   * A part of a bucket cut below its namespaces (past 16 shards) sees the bucket's other autoscalers only as peers
   * (their selectors): their states are not decoded, which in a namespace of thousands is most of the load's CPU.
   */
  private decodeBucket(cluster: string, part: BucketItems, nowMs: number, markerMs: number | undefined, snapshot: ShardSnapshot, owns: (namespace: string, name: string) => boolean): void {
    const claimed = new Set<string>();
    for (const item of part.specs) {
      const { namespace, name } = parseSk(item.sk)!;
      try {
        const doc = decodeSpec(item);
        if (addMetricObject(snapshot, doc)) continue;
        claimed.add(`${namespace}/${name}`);
        const raw = owns(namespace, name) ? part.states.get(`${namespace}/${name}`) : undefined;
        const state = raw && !expired(raw, nowMs) ? decodeState(raw, nowMs) : undefined;
        snapshot.autoscalers.push(this.toRecord(cluster, item, doc, state, markerMs));
      } catch (e) {
        snapshot.broken.push({ cluster, namespace, name, error: errorText(e) });
      }
    }
    for (const [k, raw] of part.states) {
      if (claimed.has(k) || raw.src !== 'cluster' || expired(raw, nowMs)) continue;
      const [namespace, name] = k.split('/');
      if (!owns(namespace, name)) continue;
      const state = this.toClusterState(cluster, namespace, name, decodeState(raw, nowMs), markerMs);
      const spec = typeof raw.cs === 'string' ? guardJson(raw.cs) : undefined;
      if (spec !== undefined) state.lastSpec = spec;
      if (typeof raw.oc === 'string') state.createdAt = raw.oc;
      snapshot.clusterStates.push(state);
    }
  }

  /** An autoscaler of the table: its state only when it belongs to this spec (same uid). */
  private toRecord(cluster: string, item: SpecItem, doc: HorizontalPodAutoscaler, state: DecodedState | undefined, markerMs: number | undefined): AutoscalerRecord {
    const { namespace, name } = parseSk(item.sk)!;
    const uid = doc.metadata.uid ?? '';
    // A state left by a deleted autoscaler of the same name is overwritten, conditionally.
    const mine = state && state.uid === uid ? state : undefined;
    const record: AutoscalerRecord = {
      cluster,
      namespace,
      name,
      source: 'table',
      hpa: doc,
      specVersion: String(item.v),
      history: EMPTY_HISTORY,
      version: state?.version ?? 0,
      createdAt: item.ct,
      updatedAt: mine?.updatedAt && mine.updatedAt > item.ut ? mine.updatedAt : item.ut,
    };
    this.applyState(record, mine, markerMs, state);
    return record;
  }

  private toClusterState(cluster: string, namespace: string, name: string, state: DecodedState, markerMs: number | undefined): ClusterStateRecord {
    const record: AutoscalerRecord = {
      cluster,
      namespace,
      name,
      source: 'cluster',
      hpa: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name, namespace }, spec: { scaleTargetRef: { kind: '', name: '' }, maxReplicas: 0 } },
      specVersion: state.state?.specVersion ?? '',
      history: EMPTY_HISTORY,
      version: state.version,
      createdAt: state.updatedAt ?? '',
      updatedAt: state.updatedAt ?? '',
    };
    this.applyState(record, state, markerMs, state);
    const { hpa, specVersion: _sv, source: _src, ...rest } = record;
    return { ...rest, uid: state.uid ?? '', ...(hpa.status ? { status: hpa.status } : {}) };
  }

  /** Fills a record from a trusted state, or from what survives of an untrusted one. */
  private applyState(record: AutoscalerRecord, mine: DecodedState | undefined, markerMs: number | undefined, any: DecodedState | undefined): void {
    const key = this.recordKey(record.cluster, record.namespace, record.name);
    this.seen.set(key, { version: record.version, rawVersion: any ? any.rawVersion : 0, uid: mine?.uid ?? '', stored: mine?.state });
    if (!mine) return;
    if (mine.state) {
      const s = mine.state;
      if (s.status) record.hpa = { ...record.hpa, status: s.status };
      record.history = expandHistory(s, markerMs);
      if (s.log.length > 0) record.log = s.log;
      if (s.pending) record.pending = s.pending;
      if (s.selector !== undefined) record.selector = s.selector;
      if (s.holds) record.holds = s.holds;
      if (s.demand) record.demand = s.demand;
      if (s.untrusted) record.untrustedHistory = s.untrusted;
      return;
    }
    // Untrusted: upstream after a restart keeps the object's status but has no history.
    record.stateProblem = `stored state of ${record.namespace}/${record.name} cannot be trusted: ${mine.problem}`;
    if (mine.salvage.status) record.hpa = { ...record.hpa, status: mine.salvage.status };
    if (mine.salvage.log.length > 0) record.log = mine.salvage.log;
  }

  /** Consistent reads of many items, 100 a call; what DynamoDB leaves unprocessed (throttling) is asked again, 5 rounds at most. */
  private async batchGet(keys: ItemKey[], what: string, projection: { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> }, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    for (let i = 0; i < keys.length; i += 100) {
      let batch = keys.slice(i, i + 100);
      for (let round = 0; batch.length > 0; round++) {
        if (round === 5) throw new Error(`DynamoDB left ${batch.length} ${what} unread after 5 rounds (throttled)`);
        const r = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: batch, ConsistentRead: true, ...projection } } }), { abortSignal: signal });
        items.push(...(r.Responses?.[this.tableName] ?? []));
        batch = (r.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as ItemKey[];
      }
    }
    return items;
  }

  private async getItem<T = Record<string, unknown>>(key: ItemKey, signal?: AbortSignal): Promise<T | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }), { abortSignal: signal })).Item as T | undefined;
  }

  /** False when there was no such item. */
  private async deleteExisting(key: ItemKey): Promise<boolean> {
    try {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' }));
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  private async put(input: PutCommandInput, signal?: AbortSignal): Promise<void> {
    const r = await this.doc.send(new PutCommand({ ...input, ReturnConsumedCapacity: 'TOTAL' }), { abortSignal: signal });
    this.writes++;
    this.writeUnits += r.ConsumedCapacity?.CapacityUnits ?? 0;
  }

  /**
   * Puts `item` if the stored one is still at `version` (absent for 0; any stored value, even a
   * corrupt one, compares as read). A lost condition is a conflict, unless the item holds this
   * write's random token `w`: the SDK retried a write whose first attempt succeeded but whose
   * answer was lost.
   */
  private async conditionalPut(item: ItemKey & Record<string, unknown>, version: unknown, conflict: () => Error, signal?: AbortSignal): Promise<void> {
    const token = randomUUID();
    const condition =
      version === 0 ? { ConditionExpression: 'attribute_not_exists(pk)' } : { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' }, ExpressionAttributeValues: { ':v': version } };
    try {
      await this.put({ TableName: this.tableName, Item: { ...item, w: token }, ...condition }, signal);
      return;
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
    }
    if ((await this.getItem({ pk: item.pk, sk: item.sk }, signal))?.w !== token) throw conflict();
  }

  /**
   * Sets `item`'s attributes (and removes the other `attributes` it does not hold) if the stored
   * version is still `version`: an UpdateItem, so that the sync, which may write only state
   * attributes (IAM dynamodb:Attributes), can never replace an item whole. Lost conditions and
   * lost answers as conditionalPut.
   */
  private async conditionalUpdate(item: ItemKey & Record<string, unknown>, attributes: readonly string[], version: unknown, conflict: () => Error, signal?: AbortSignal): Promise<void> {
    const token = randomUUID();
    const names: Record<string, string> = { '#v': 'v', '#w': 'w' };
    const values: Record<string, unknown> = { ':w': token };
    const set = ['#w = :w'];
    const remove: string[] = [];
    for (const a of attributes) {
      names[`#${a}`] = a;
      if (item[a] === undefined) remove.push(`#${a}`);
      else {
        values[`:${a}`] = item[a];
        set.push(`#${a} = :${a}`);
      }
    }
    const condition = version === 0 ? 'attribute_not_exists(pk)' : '#v = :expected';
    if (version !== 0) values[':expected'] = version;
    try {
      await this.paced(item.pk, JSON.stringify(values).length, signal, () =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnConsumedCapacity: 'TOTAL',
          }),
          { abortSignal: signal },
        ),
      );
      return;
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
    }
    if ((await this.getItem({ pk: item.pk, sk: item.sk }, signal))?.w !== token) throw conflict();
  }

  /** A write of about `bytes`, paced on its partition key (write-pacer.ts), its units counted. */
  private async paced<T extends { ConsumedCapacity?: { CapacityUnits?: number } }>(pk: string, bytes: number, signal: AbortSignal | undefined, write: () => Promise<T>): Promise<T> {
    const units = writeUnitsOf(bytes);
    await this.pacer.take(pk, units, signal);
    let consumed: number | undefined;
    try {
      const r = await write();
      consumed = r.ConsumedCapacity?.CapacityUnits;
      this.writes++;
      this.writeUnits += consumed ?? 0;
      return r;
    } finally {
      this.pacer.settle(pk, units, consumed);
    }
  }

  /** Metric refreshes spread over the second half of the maximum age, so they do not all fall in one cycle. */
  private staggered(key: string): WritePolicy {
    const half = Math.floor(this.policy.metricsMaxAgeMs / 2);
    const h = createHash('sha1').update(key).digest().readUInt32BE(0);
    return { ...this.policy, metricsMaxAgeMs: this.policy.metricsMaxAgeMs - (half > 0 ? h % half : 0) };
  }
}

/** A bucket's autoscaler count in the index item: n00 … n15. */
const countAttribute = (bucket: number) => `n${String(bucket).padStart(2, '0')}`;

/** The index item as the sync uses it; values of the wrong type or range are left out, never obeyed. */
function decodeIndex(item: Record<string, unknown> | undefined): ClusterIndex {
  const valid = (b: unknown): b is number => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b < NAMESPACE_BUCKETS;
  const set = item?.b;
  const buckets = set instanceof Set ? [...set].filter(valid).sort((a, b) => a - b) : [];
  const counts = Array.from({ length: NAMESPACE_BUCKETS }, (_, b) => {
    const n = item?.[countAttribute(b)];
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0;
  });
  const index: ClusterIndex = { buckets, counts };
  const isK = (k: unknown): k is number => typeof k === 'number' && (SHARD_COUNTS as readonly number[]).includes(k);
  if (isK(item?.k) && typeof item?.ks === 'number' && Number.isFinite(item.ks)) {
    index.shards = { k: item.k, since: item.ks, ...(isK(item.kp) ? { previous: item.kp } : {}), ...(typeof item.pm === 'number' && Number.isFinite(item.pm) ? { planned: item.pm } : {}) };
  }
  return index;
}

/** Display-only JSON: undefined when it does not parse. */
function guardJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** An item DynamoDB's TTL will delete: already gone as far as readers go. */
function expired(item: Record<string, unknown>, nowMs: number): boolean {
  return typeof item.ttl === 'number' && item.ttl * 1000 <= nowMs;
}

/** Throws an error naming the item when it cannot be read: it is reported, and `shpa delete` removes it. */
function decodeSpec(item: SpecItem): StoredSpec {
  const where = `stored ${String(item.kind ?? 'item')} ${item.sk.split('#').slice(1).join('/')}`;
  let doc: StoredSpec;
  try {
    doc = JSON.parse(item.doc) as StoredSpec;
  } catch (e) {
    throw new Error(`${where} cannot be read: ${errorText(e)}`);
  }
  if (typeof doc !== 'object' || doc === null || typeof doc.metadata?.name !== 'string' || typeof doc.spec !== 'object') {
    throw new Error(`${where} cannot be read: not an object with metadata.name and spec`);
  }
  if (doc.kind !== item.kind) throw new Error(`${where} cannot be read: its document is of kind ${String(doc.kind)}`);
  doc.metadata.resourceVersion = String(item.v);
  return doc;
}

/** What the user wrote: the server-set metadata left out. */
function userFields(o: StoredSpec): unknown {
  const { uid: _u, creationTimestamp: _c, generation: _g, resourceVersion: _r, ...metadata } = o.metadata;
  return { apiVersion: o.apiVersion, kind: o.kind, metadata, spec: o.spec };
}

function decodeCluster(item: Record<string, unknown>): RegisteredCluster {
  const rec: RegisteredCluster = {
    name: String(item.sk),
    region: String(item.region),
    shards: typeof item.shards === 'number' ? item.shards : 1,
    managedBy: item.managedBy === 'stack' ? 'stack' : 'cli',
  };
  if (typeof item.roleArn === 'string') rec.roleArn = item.roleArn;
  if (typeof item.endpoint === 'string') rec.endpoint = item.endpoint;
  if (typeof item.caData === 'string') rec.caData = item.caData;
  if (Array.isArray(item.namespaces)) rec.namespaces = item.namespaces.map(String);
  return rec;
}

export type { BrokenRecord };

/** A shard's recorded alarm names (a JSON list of names); anything else counts as not recorded, so that shard still gets alarms. */
function alarmList(v: unknown): string[] | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    const list: unknown = JSON.parse(v);
    return Array.isArray(list) && list.every((x) => typeof x === 'string') ? list : undefined;
  } catch {
    return undefined;
  }
}
