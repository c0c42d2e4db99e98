// Change events as evaluations: a spec written to the table (its stream), a CloudWatch alarm
// changing state, an "evaluate now" event. Each becomes one message per shard concerned,
// naming what to evaluate; the worker does the rest through the same cycle as a tick.
import { MAX_TARGETS_PER_MESSAGE, type EvaluateMessage, type EvaluateTarget } from './messages.js';
import type { ClusterConfig } from './ports/cluster-access.js';
import type { WorkMessageEntry } from './ports/work-queue.js';
import { parseShardId, shardId, shardOfAutoscaler, shardsOf, shardsOfNamespace } from './shards.js';

export interface Planned {
  messages: (WorkMessageEntry & { groupId: string })[];
  /** What was not turned into an evaluation, and why. */
  ignored: string[];
}

/** A spec written to the table (from its stream; lib/store reads the keys). */
export interface SpecChange {
  cluster: string;
  namespace: string;
  name: string;
  kind: 'hpa' | 'cwm';
  /** When DynamoDB wrote it: the reaction time starts there. */
  at: Date;
}

// The shard count an event is sent with is the deploy's floor: when the dispatcher has cut the
// cluster finer (lib/sizing), the worker sends it on to the shards in use (evaluationsByShard).
export function fromSpecChanges(changes: SpecChange[], clusters: ClusterConfig[]): Planned {
  const byShard = new Map<string, { targets: EvaluateTarget[]; at: number }>();
  const ignored: string[] = [];
  for (const c of changes) {
    const cluster = clusters.find((x) => x.name === c.cluster);
    if (!cluster) {
      ignored.push(`${c.namespace}/${c.name}: cluster ${c.cluster} is not configured for this deploy`);
      continue;
    }
    const shards = c.kind === 'hpa' ? [shardOfAutoscaler(cluster.name, cluster.shards, c.namespace, c.name)] : shardsOfNamespace(cluster.name, cluster.shards, c.namespace);
    for (const shard of shards.map(shardId)) {
      const entry = byShard.get(shard) ?? { targets: [], at: 0 };
      entry.targets.push({ kind: c.kind, namespace: c.namespace, name: c.name });
      entry.at = Math.max(entry.at, c.at.getTime());
      byShard.set(shard, entry);
    }
  }
  const messages = [...byShard].flatMap(([shard, e]) => evaluations(shard, e.targets, 'spec change', new Date(e.at)));
  return { messages, ignored };
}

/** An EventBridge event, as much of it as we read. */
export interface BusEventLike {
  source?: string;
  'detail-type'?: string;
  time?: string;
  detail?: unknown;
}

export const EVALUATE_SOURCE = 'shpa.dev';
export const EVALUATE_DETAIL_TYPE = 'Evaluate Autoscaler';

const isAlarmChange = (event: BusEventLike) => event.source === 'aws.cloudwatch' && event['detail-type'] === 'CloudWatch Alarm State Change';

/** The alarm an alarm state change is about; undefined for any other event. */
export function alarmOf(event: BusEventLike): string | undefined {
  const name = isAlarmChange(event) && isObj(event.detail) ? event.detail.alarmName : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * alarmShards: the shards, by cluster, whose CloudWatchMetric objects name the alarm (lib/sync/alarm-shards.ts);
 * without it, every shard of every cluster looks.
 */
export function fromBusEvent(event: BusEventLike, clusters: ClusterConfig[], now: Date, alarmShards?: ReadonlyMap<string, string[]>): Planned {
  const at = event.time && !Number.isNaN(Date.parse(event.time)) ? new Date(event.time) : now;
  const detail = (typeof event.detail === 'object' && event.detail !== null ? event.detail : {}) as Record<string, unknown>;
  if (isAlarmChange(event)) {
    const alarmName = alarmOf(event);
    if (alarmName === undefined) return { messages: [], ignored: ['alarm state change without detail.alarmName'] };
    const state = isObj(detail.state) ? detail.state : {};
    const target: EvaluateTarget = { kind: 'alarm', alarmName, evaluatedUntil: evaluatedUntil(state, at).toISOString() };
    const shards = alarmShards ? [...alarmShards.values()].flat() : clusters.flatMap((c) => shardsOf(c.name, c.shards).map(shardId));
    const messages = shards.flatMap((s) => evaluations(s, [target], `alarm ${alarmName} ${String(state.value ?? '')}`.trim(), at));
    return { messages, ignored: [] };
  }
  if (event.source === EVALUATE_SOURCE && event['detail-type'] === EVALUATE_DETAIL_TYPE) {
    const { cluster: name, namespace, name: hpa } = detail;
    const problem =
      typeof name !== 'string' ? 'detail.cluster is missing' : typeof namespace !== 'string' || namespace === '' ? 'detail.namespace is missing' : typeof hpa !== 'string' || hpa === '' ? 'detail.name is missing' : undefined;
    if (problem) return { messages: [], ignored: [`evaluate-now event: ${problem} (send {"cluster": ..., "namespace": ..., "name": ...})`] };
    const cluster = clusters.find((c) => c.name === name);
    if (!cluster) return { messages: [], ignored: [`evaluate-now event: cluster ${String(name)} is not configured for this deploy`] };
    const shard = shardId(shardOfAutoscaler(cluster.name, cluster.shards, namespace as string, hpa as string));
    return { messages: evaluations(shard, [{ kind: 'hpa', namespace: namespace as string, name: hpa as string }], 'evaluate-now', at), ignored: [] };
  }
  return { messages: [], ignored: [`event ${String(event.source)} / ${String(event['detail-type'])}: not one this function handles`] };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The end of the latest period an alarm evaluated: from its state's reasonData (evaluated
 * datapoints, each stamped with its period's start, and the period), else the time of the
 * state, else the event's. So its readers read the data the alarm saw, not an older window.
 */
function evaluatedUntil(state: Record<string, unknown>, eventTime: Date): Date {
  const fromData = evaluatedEnd(state.reasonData);
  if (fromData !== undefined) return new Date(fromData);
  const stateTime = typeof state.timestamp === 'string' ? Date.parse(state.timestamp) : Number.NaN;
  return Number.isNaN(stateTime) ? eventTime : new Date(stateTime);
}

function evaluatedEnd(reasonData: unknown): number | undefined {
  if (typeof reasonData !== 'string') return undefined;
  let data: unknown;
  try {
    data = JSON.parse(reasonData);
  } catch {
    return undefined;
  }
  if (!isObj(data) || typeof data.period !== 'number' || !(data.period > 0) || !Array.isArray(data.evaluatedDatapoints)) return undefined;
  const starts = data.evaluatedDatapoints.map((p: unknown) => (isObj(p) && typeof p.timestamp === 'string' ? Date.parse(p.timestamp) : Number.NaN)).filter((t) => !Number.isNaN(t));
  return starts.length > 0 ? Math.max(...starts) + data.period * 1000 : undefined;
}

function evaluations(shard: string, targets: EvaluateTarget[], reason: string, at: Date, attempt = 1): Planned['messages'] {
  const out: Planned['messages'] = [];
  for (let i = 0; i < targets.length; i += MAX_TARGETS_PER_MESSAGE) {
    const msg: EvaluateMessage = { kind: 'evaluate', shard, targets: targets.slice(i, i + MAX_TARGETS_PER_MESSAGE), reason, at: at.toISOString(), attempt };
    out.push({ kind: 'evaluate', body: JSON.stringify(msg), delaySeconds: 0, groupId: parseShardId(shard).cluster });
  }
  return out;
}

/** The messages that evaluate these targets of a cluster cut into `count` shards: named autoscalers in their namespace's shard, alarms in every shard. */
export function evaluationsByShard(cluster: string, count: number, targets: EvaluateTarget[], reason: string, at: Date, attempt: number): Planned['messages'] {
  const byShard = new Map<string, EvaluateTarget[]>();
  const add = (shard: string, t: EvaluateTarget) => byShard.set(shard, [...(byShard.get(shard) ?? []), t]);
  for (const t of targets) {
    if (t.kind === 'alarm') for (const s of shardsOf(cluster, count)) add(shardId(s), t);
    else if (t.kind === 'hpa') add(shardId(shardOfAutoscaler(cluster, count, t.namespace, t.name)), t);
    // A metric object's readers may sit in every part of its namespace's bucket.
    else for (const s of shardsOfNamespace(cluster, count, t.namespace)) add(shardId(s), t);
  }
  return [...byShard].flatMap(([shard, list]) => evaluations(shard, list, reason, at, attempt));
}
