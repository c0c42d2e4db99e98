// AutoscalerStore on DynamoDB, plus the spec and cluster management the CLI needs.
// Every write is conditional on the version read; see docs/store.md for the layout.
import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  type PutCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { AwsCredentialIdentity } from '@smithy/types';
import type { HorizontalPodAutoscaler, ScalingHistory } from '../hpa/types.js';
import type { CloudWatchMetric } from '../metrics/cloudwatch-types.js';
import { stableKey } from '../metrics/stable-key.js';
import {
  VersionConflictError,
  type AutoscalerRecord,
  type AutoscalerStateUpdate,
  type AutoscalerStore,
  type ClusterRecord,
  type ClusterSnapshot,
} from '../sync/ports.js';
import {
  DEFAULT_WRITE_POLICY,
  compactState,
  expandHistory,
  historyHorizonSeconds,
  needsWrite,
  type CompactState,
  type WritePolicy,
} from './history.js';
import {
  CLUSTERS_PK,
  CYCLE_SK,
  KIND_CLOUDWATCH,
  KIND_HPA,
  LEASES_PK,
  clusterPk,
  decodeState,
  encodeState,
  kindOfPrefix,
  parseSk,
  specSk,
  stateSk,
  type ItemKey,
  type SpecItem,
  type SpecKind,
} from './items.js';
import { DEFAULT_TABLE_NAME } from './table.js';

export type ApplyOutcome = 'created' | 'configured' | 'unchanged';
export type StoredSpec = HorizontalPodAutoscaler | CloudWatchMetric;

export interface DynamoClientOptions {
  endpoint?: string;
  region?: string;
  credentials?: AwsCredentialIdentity;
  /** Attempts per request, throttling and transient errors retried with backoff (SDK standard mode). */
  maxAttempts?: number;
}

export interface DynamoStoreOptions extends DynamoClientOptions {
  client?: DynamoDBClient;
  tableName?: string;
  writePolicy?: Partial<WritePolicy>;
  /** The controller's --horizontal-pod-autoscaler-downscale-stabilization (seconds), for history pruning. */
  legacyDownscaleWindowSeconds?: number;
  /** saveState calls closer than this to the cluster's cycle marker belong to the same cycle. */
  cycleGapMs?: number;
}

const EMPTY_HISTORY: ScalingHistory = { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] };

export function createDynamoClient(o: DynamoClientOptions): DynamoDBClient {
  return new DynamoDBClient({
    region: o.region ?? 'us-east-1',
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.credentials ? { credentials: o.credentials } : {}),
    maxAttempts: o.maxAttempts ?? 6,
    retryMode: 'standard',
  });
}

export function createDynamoStore(o: DynamoStoreOptions): DynamoStore {
  return new DynamoStore(o.client ?? createDynamoClient(o), o);
}

/** What loadCluster saw of one autoscaler, to judge the next saveState against. */
interface Seen {
  uid: string;
  stored?: CompactState;
}

export class DynamoStore implements AutoscalerStore {
  readonly tableName: string;
  readonly doc: DynamoDBDocumentClient;
  /** Write capacity units consumed so far, as DynamoDB reported them. */
  writeUnits = 0;
  writes = 0;
  private readonly policy: WritePolicy;
  private readonly legacyWindow: number;
  private readonly cycleGapMs: number;
  private readonly seen = new Map<string, Map<string, Seen>>();
  private readonly markers = new Map<string, number>();
  private readonly markerWrites = new Map<string, { at: number; done: Promise<number> }>();

  constructor(
    readonly client: DynamoDBClient,
    o: Omit<DynamoStoreOptions, 'client'> = {},
  ) {
    this.tableName = o.tableName ?? DEFAULT_TABLE_NAME;
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    this.policy = { ...DEFAULT_WRITE_POLICY, ...o.writePolicy };
    this.legacyWindow = o.legacyDownscaleWindowSeconds ?? 300;
    this.cycleGapMs = o.cycleGapMs ?? 2000;
  }

  // ---- AutoscalerStore (the sync) ----

  async loadCluster(cluster: string): Promise<ClusterSnapshot> {
    const specs: SpecItem[] = [];
    const states = new Map<string, Record<string, unknown>>();
    let marker: number | undefined;
    const pages = paginateQuery(
      { client: this.doc },
      { TableName: this.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': clusterPk(cluster) }, ConsistentRead: true },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const sk = String(item.sk);
        if (sk === CYCLE_SK) {
          marker = markerTime(item);
          continue;
        }
        const parsed = parseSk(sk);
        const kind = parsed && kindOfPrefix(parsed.prefix);
        if (kind === 'state') states.set(`${parsed!.namespace}/${parsed!.name}`, item);
        else if (kind) specs.push(item as SpecItem);
      }
    }
    if (marker !== undefined) this.markers.set(cluster, marker);

    const snapshot: ClusterSnapshot = { autoscalers: [], cloudWatchMetrics: [], broken: [] };
    const seen = new Map<string, Seen>();
    for (const item of specs) {
      const { namespace, name } = parseSk(item.sk)!;
      try {
        const doc = decodeSpec(item);
        if (doc.kind === KIND_CLOUDWATCH) {
          snapshot.cloudWatchMetrics.push(doc);
          continue;
        }
        const { record, mine } = toRecord(cluster, item, doc, states.get(`${namespace}/${name}`), marker);
        seen.set(`${namespace}/${name}@${record.version}`, { uid: doc.metadata.uid ?? '', stored: mine });
        snapshot.autoscalers.push(record);
      } catch (e) {
        snapshot.broken.push({ cluster, namespace, name, error: (e as Error).message });
      }
    }
    this.seen.set(cluster, seen);
    return snapshot;
  }

  async saveState(record: AutoscalerRecord, update: AutoscalerStateUpdate, now: Date): Promise<number> {
    const nowMs = now.getTime();
    const uid = record.hpa.metadata.uid ?? '';
    const marker = await this.touchMarker(record.cluster, nowMs);
    const horizon = historyHorizonSeconds(record.hpa.spec.behavior, this.legacyWindow);
    const next = compactState(record.history, update, nowMs - horizon * 1000, marker, nowMs);
    const seenKey = `${record.namespace}/${record.name}`;
    const before = this.seen.get(record.cluster)?.get(`${seenKey}@${record.version}`);
    const prev = before && before.uid === uid ? before.stored : undefined;
    if (prev && !needsWrite(prev, next, nowMs, this.staggered(seenKey))) return record.version;

    const version = record.version + 1;
    const key = { pk: clusterPk(record.cluster), sk: stateSk(record.namespace, record.name) };
    await this.conditionalPut(encodeState(key, uid, version, next, now), record.version, () => new VersionConflictError(`${record.cluster}/${seenKey}`, record.version));
    let seen = this.seen.get(record.cluster);
    if (!seen) this.seen.set(record.cluster, (seen = new Map()));
    seen.set(`${seenKey}@${version}`, { uid, stored: next });
    return version;
  }

  acquireLease(name: string, owner: string, now: Date, ttlSeconds: number): Promise<boolean> {
    return conditionHolds(
      this.put({
        TableName: this.tableName,
        Item: { pk: LEASES_PK, sk: name, owner, exp: now.getTime() + ttlSeconds * 1000 },
        ConditionExpression: 'attribute_not_exists(pk) OR #exp <= :now OR #owner = :owner',
        ExpressionAttributeNames: { '#exp': 'exp', '#owner': 'owner' },
        ExpressionAttributeValues: { ':now': now.getTime(), ':owner': owner },
      }),
    );
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    // A failed condition: expired and taken by someone else, nothing of ours to release.
    await conditionHolds(
      this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: LEASES_PK, sk: name },
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }

  // ---- Specs (the CLI) ----

  /** Stores a validated, defaulted object; never touches an autoscaler's state. */
  async applySpec(cluster: string, obj: StoredSpec, now: Date): Promise<ApplyOutcome> {
    const namespace = obj.metadata.namespace ?? 'default';
    const { status: _status, ...desired } = { ...obj, metadata: { ...obj.metadata, namespace } } as HorizontalPodAutoscaler;
    const key = { pk: clusterPk(cluster), sk: specSk(obj.kind, namespace, obj.metadata.name) };
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
    await this.conditionalPut(item, version, () => new VersionConflictError(`${cluster}/${namespace}/${obj.metadata.name}`, version));
    return old ? 'configured' : 'created';
  }

  async getSpec(cluster: string, kind: SpecKind, namespace: string, name: string): Promise<StoredSpec | undefined> {
    const item = await this.getItem<SpecItem>({ pk: clusterPk(cluster), sk: specSk(kind, namespace, name) });
    return item && decodeSpec(item);
  }

  /** One autoscaler with its status and history (three consistent reads, in parallel). */
  async getAutoscaler(cluster: string, namespace: string, name: string): Promise<AutoscalerRecord | undefined> {
    const pk = clusterPk(cluster);
    const [spec, state, marker] = await Promise.all([
      this.getItem<SpecItem>({ pk, sk: specSk(KIND_HPA, namespace, name) }),
      this.getItem({ pk, sk: stateSk(namespace, name) }),
      this.getItem({ pk, sk: CYCLE_SK }),
    ]);
    if (!spec) return undefined;
    return toRecord(cluster, spec, decodeSpec(spec) as HorizontalPodAutoscaler, state, marker ? markerTime(marker) : undefined).record;
  }

  /** Deletes a spec (and an autoscaler's state); false when there was none. */
  async deleteSpec(cluster: string, kind: SpecKind, namespace: string, name: string): Promise<boolean> {
    const pk = clusterPk(cluster);
    if (!(await this.deleteExisting({ pk, sk: specSk(kind, namespace, name) }))) return false;
    // A state item left behind by a failure here is ignored (its uid matches no spec).
    if (kind === KIND_HPA) await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk, sk: stateSk(namespace, name) } }));
    return true;
  }

  // ---- Clusters ----

  async putCluster(rec: ClusterRecord, now: Date): Promise<ApplyOutcome> {
    const key = { pk: CLUSTERS_PK, sk: rec.name };
    const existing = await this.getItem(key);
    const old = existing && decodeCluster(existing);
    if (old && stableKey(old) === stableKey(rec)) return 'unchanged';
    const version = existing ? Number(existing.v) : 0;
    await this.conditionalPut({ ...key, ...rec, v: version + 1, ct: existing?.ct ?? now.toISOString(), ut: now.toISOString() }, version, () => new VersionConflictError(`cluster ${rec.name}`, version));
    return old ? 'configured' : 'created';
  }

  async getCluster(name: string): Promise<ClusterRecord | undefined> {
    const item = await this.getItem({ pk: CLUSTERS_PK, sk: name });
    return item && decodeCluster(item);
  }

  async listClusters(): Promise<ClusterRecord[]> {
    const out: ClusterRecord[] = [];
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

  private async getItem<T = Record<string, unknown>>(key: ItemKey): Promise<T | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item as T | undefined;
  }

  /** False when there was no such item. */
  private deleteExisting(key: ItemKey): Promise<boolean> {
    return conditionHolds(this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' })));
  }

  private async put(input: PutCommandInput): Promise<void> {
    const r = await this.doc.send(new PutCommand({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
    this.writes++;
    this.writeUnits += r.ConsumedCapacity?.CapacityUnits ?? 0;
  }

  /**
   * Puts `item` if the stored one is still at `version` (absent for 0). A lost condition is a
   * conflict, unless the item holds this write's random token `w`: the SDK retried a write
   * whose first attempt succeeded but whose answer was lost.
   */
  private async conditionalPut<T extends ItemKey>(item: T, version: number, conflict: () => Error): Promise<void> {
    const token = randomUUID();
    const condition =
      version === 0 ? { ConditionExpression: 'attribute_not_exists(pk)' } : { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': version } };
    if (await conditionHolds(this.put({ TableName: this.tableName, Item: { ...item, w: token }, ...condition }))) return;
    if ((await this.getItem({ pk: item.pk, sk: item.sk }))?.w !== token) throw conflict();
  }

  /** Metric refreshes spread over the second half of the maximum age, so they do not all fall in one cycle. */
  private staggered(key: string): WritePolicy {
    const half = Math.floor(this.policy.metricsMaxAgeMs / 2);
    const h = createHash('sha1').update(key).digest().readUInt32BE(0);
    return { ...this.policy, metricsMaxAgeMs: this.policy.metricsMaxAgeMs - (half > 0 ? h % half : 0) };
  }

  /** The cluster's cycle marker: the time of the first saveState of its latest cycle. */
  private touchMarker(cluster: string, nowMs: number): Promise<number> {
    const known = this.markers.get(cluster);
    if (known !== undefined && nowMs - known < this.cycleGapMs) return Promise.resolve(known);
    // Parallel saves of one cycle share one marker write instead of racing their own.
    const inFlight = this.markerWrites.get(cluster);
    if (inFlight && nowMs - inFlight.at < this.cycleGapMs) return inFlight.done;
    const done = this.writeMarker(cluster, nowMs).finally(() => this.markerWrites.delete(cluster));
    this.markerWrites.set(cluster, { at: nowMs, done });
    return done;
  }

  private async writeMarker(cluster: string, nowMs: number): Promise<number> {
    // A failed condition: a later marker is already there (another writer's clock); ours still dates this cycle.
    await conditionHolds(
      this.put({
        TableName: this.tableName,
        Item: { pk: clusterPk(cluster), sk: CYCLE_SK, at: nowMs },
        ConditionExpression: 'attribute_not_exists(pk) OR #at < :at',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':at': nowMs },
      }),
    );
    this.markers.set(cluster, nowMs);
    return nowMs;
  }
}

/** True when the conditional write was made, false when its condition failed. */
async function conditionHolds(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/** The marker's time, or undefined when the item does not hold one. */
function markerTime(item: Record<string, unknown>): number | undefined {
  return typeof item.at === 'number' ? item.at : undefined;
}

/** Throws an error naming the item when it cannot be read: it is reported, and `shpa delete` removes it. */
function decodeSpec(item: SpecItem): StoredSpec {
  const where = `stored ${String(item.kind ?? 'item')} ${item.sk.split('#').slice(1).join('/')}`;
  let doc: StoredSpec;
  try {
    doc = JSON.parse(item.doc) as StoredSpec;
  } catch (e) {
    throw new Error(`${where} cannot be read: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || typeof doc.metadata?.name !== 'string' || typeof doc.spec !== 'object') {
    throw new Error(`${where} cannot be read: not an object with metadata.name and spec`);
  }
  if (doc.kind !== item.kind) throw new Error(`${where} cannot be read: its document is of kind ${String(doc.kind)}`);
  doc.metadata.resourceVersion = String(item.v);
  return doc;
}

/** An autoscaler as the sync sees it: the spec, with status and history only from a state of the same uid. */
function toRecord(
  cluster: string,
  item: SpecItem,
  doc: HorizontalPodAutoscaler,
  stateItem: Record<string, unknown> | undefined,
  marker: number | undefined,
): { record: AutoscalerRecord; mine?: CompactState } {
  const { namespace, name } = parseSk(item.sk)!;
  let state: ReturnType<typeof decodeState> | undefined;
  try {
    state = stateItem && decodeState(stateItem);
  } catch (e) {
    throw new Error(`stored state of ${namespace}/${name} cannot be read: ${(e as Error).message}`);
  }
  const mine = state && state.uid === doc.metadata.uid ? state : undefined;
  const record: AutoscalerRecord = {
    cluster,
    namespace,
    name,
    hpa: mine?.status ? { ...doc, status: mine.status } : doc,
    history: mine ? expandHistory(mine, marker) : EMPTY_HISTORY,
    // A state left by a deleted autoscaler of the same name is overwritten, conditionally.
    version: state?.v ?? 0,
    createdAt: item.ct,
    updatedAt: mine && mine.ut > item.ut ? mine.ut : item.ut,
  };
  return { record, mine };
}

/** What the user wrote: the server-set metadata left out. */
function userFields(o: StoredSpec): unknown {
  const { uid: _u, creationTimestamp: _c, generation: _g, resourceVersion: _r, ...metadata } = o.metadata;
  return { apiVersion: o.apiVersion, kind: o.kind, metadata, spec: o.spec };
}

function decodeCluster(item: Record<string, unknown>): ClusterRecord {
  const rec: ClusterRecord = { name: String(item.sk), region: String(item.region) };
  if (typeof item.roleArn === 'string') rec.roleArn = item.roleArn;
  if (typeof item.endpoint === 'string') rec.endpoint = item.endpoint;
  if (typeof item.caData === 'string') rec.caData = item.caData;
  return rec;
}
