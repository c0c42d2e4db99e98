// The shard's cycle item: its lease (owner, exp), the latest tick started (tick), the
// marker of the latest cycle (at), the autoscalers its deadline left for the next (left) and
// when evaluation cycles of the last period started, per autoscaler (ev: what lets a storm of
// identical evaluations coalesce) and the alarms its CloudWatchMetric objects name (al: where
// the events function sends an alarm's state change) and the phase of its pod metrics within the
// period (ph: where the dispatcher puts its ticks) and the period its autoscalers ask to tick at
// (pp, spec.syncPeriodSeconds). One conditional UpdateItem takes it, one
// releases it.
// Values a hand edit, another tool or a skewed clock left behind (from the future, of the
// wrong type, missing) are repaired with a warning, never obeyed: an absurd expiry must not
// keep a shard from syncing, a future marker must not stretch stabilization windows.
// Every call takes the caller's signal (the cycle's deadline): a call it cancels between
// retries still says what the last attempt met (throttled, a 500), not only "aborted".
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FinalizeHandler, FinalizeHandlerArguments, MetadataBearer, MiddlewareStack } from '@smithy/types';
import type { EvaluationTimes, LeaseOutcome, LeaseRequest, ReleaseOptions } from '#sync/ports';
import { decodePhase } from '#sync/messaging';
import { shardCycleKey } from './items.js';
import { FUTURE_TOLERANCE_MS } from './state-codec.js';
import { errorText } from '../shared/error-text.js';

/** A lease expiring later than this many lease lengths from now was not written by us. */
const ABSURD_LEASES = 10;

export interface ShardCycleItem {
  shard: string;
  owner?: string;
  /** Lease expiry (epoch ms), as stored: may be of the wrong type. */
  exp?: unknown;
  tick?: unknown;
  at?: unknown;
  what?: unknown;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The deferred autoscalers as stored (one "namespace/name" a line), or why they cannot be used. */
function deferredList(v: unknown): { list: string[] } | { problem: string } | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') return { problem: `are not text (${JSON.stringify(v)?.slice(0, 80)})` };
  const list = v.split('\n').filter(Boolean);
  return list.every((k) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(k)) ? { list } : { problem: 'are not namespace/name lines' };
}

/** The evaluation times as stored (JSON {"namespace/name": [latest, previous?]} in epoch ms), or why they cannot be used. */
function evaluatedTimes(v: unknown, latest: number): { times: EvaluationTimes } | { problem: string } | undefined {
  if (v === undefined) return undefined;
  let raw: unknown;
  try {
    raw = typeof v === 'string' ? JSON.parse(v) : undefined;
  } catch {
    raw = undefined;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: 'are not a JSON object' };
  const isTime = (t: unknown) => typeof t === 'number' && Number.isFinite(t) && t >= 0 && t <= latest;
  for (const t of Object.values(raw)) {
    if (!Array.isArray(t) || t.length < 1 || t.length > 2 || !t.every(isTime)) return { problem: `hold ${JSON.stringify(t)}, not one or two times before now` };
  }
  return { times: raw as EvaluationTimes };
}

/** A sane epoch-ms number no later than `latest`, else why not. */
function saneTime(v: unknown, latest: number): { ms: number } | { problem: string } | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return { problem: `is not a time (${JSON.stringify(v)})` };
  if (v > latest) return { problem: `is in the future (${v > 8.64e15 ? v : iso(v)})` };
  return { ms: v };
}

export class ShardCycles {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async acquire(shard: string, req: LeaseRequest, retried = false): Promise<LeaseOutcome> {
    const now = req.now.getTime();
    const names: Record<string, string> = { '#owner': 'owner', '#exp': 'exp', '#what': 'what' };
    const values: Record<string, unknown> = {
      ':owner': req.owner,
      ':exp': now + req.leaseMs,
      ':now': now,
      ':absurd': now + ABSURD_LEASES * req.leaseMs,
      ':N': 'N',
      ':what': req.tick ? 'tick' : 'evaluate',
    };
    // Free, expired, ours, or an expiry we could not have written (wrong type, absurdly far).
    let condition = '(attribute_not_exists(#exp) OR NOT attribute_type(#exp, :N) OR #exp <= :now OR #exp > :absurd OR #owner = :owner)';
    let update = 'SET #owner = :owner, #exp = :exp, #what = :what';
    if (req.tick) {
      names['#tick'] = 'tick';
      values[':tick'] = req.tick.getTime();
      values[':future'] = now + FUTURE_TOLERANCE_MS;
      // Only a newer tick; a tick mark from the future or of the wrong type is replaced.
      condition += ' AND (attribute_not_exists(#tick) OR NOT attribute_type(#tick, :N) OR #tick < :tick OR #tick > :future)';
      update += ', #tick = :tick';
    }
    let old: Record<string, unknown> | undefined;
    try {
      const command = new UpdateCommand({
        TableName: this.tableName,
        Key: shardCycleKey(shard),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_OLD',
      });
      const r = await sayingLastAttempt(command, req.signal, () => this.doc.send(command, { abortSignal: req.signal }));
      old = r.Attributes;
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      return this.refused(shard, req, retried);
    }
    const warnings: string[] = [];
    if (old?.exp !== undefined && old.owner !== req.owner) {
      const exp = saneTime(old.exp, now + ABSURD_LEASES * req.leaseMs);
      if (exp && 'problem' in exp) {
        warnings.push(`shard ${shard}: lease of ${String(old.owner)} had an expiry that ${exp.problem}: taken over`);
      } else if (exp && 'ms' in exp && exp.ms <= now) {
        // Never released: its worker died, or its cycle still runs (frozen, a skewed clock) and may still write.
        warnings.push(`shard ${shard}: lease of ${String(old.owner)} expired ${(now - exp.ms) / 1000} s ago (${iso(exp.ms)}) without being released: taken over; its cycle may still be running`);
      }
    }
    if (req.tick && old?.tick !== undefined) {
      const tick = saneTime(old.tick, now + FUTURE_TOLERANCE_MS);
      if (tick && 'problem' in tick) warnings.push(`shard ${shard}: last tick ${tick.problem}: replaced`);
    }
    const marker = saneTime(old?.at, now + FUTURE_TOLERANCE_MS);
    if (marker && 'problem' in marker) warnings.push(`shard ${shard}: cycle marker ${marker.problem}: ignored, and replaced at the end of this cycle`);
    const deferred = deferredList(old?.left);
    if (deferred && 'problem' in deferred) warnings.push(`shard ${shard}: the autoscalers left by the last tick ${deferred.problem}: ignored`);
    const evaluated = evaluatedTimes(old?.ev, now + FUTURE_TOLERANCE_MS);
    if (evaluated && 'problem' in evaluated) warnings.push(`shard ${shard}: the times of the last evaluations ${evaluated.problem}: ignored`);
    const phase = decodePhase(old?.ph);
    return {
      outcome: 'acquired',
      markerMs: marker && 'ms' in marker ? marker.ms : undefined,
      ...(deferred && 'list' in deferred ? { deferred: deferred.list } : {}),
      ...(evaluated && 'times' in evaluated ? { evaluated: evaluated.times } : {}),
      ...(phase ? { phase } : {}),
      warnings,
    };
  }

  /** Why an acquire failed: a newer or equal tick already started, or a live lease. */
  private async refused(shard: string, req: LeaseRequest, retried: boolean): Promise<LeaseOutcome> {
    const item = await this.read(shard, req.signal);
    if (req.tick && typeof item?.tick === 'number' && item.tick >= req.tick.getTime()) return { outcome: 'duplicate', lastTick: iso(item.tick) };
    // Released between our write and our read: try once more.
    if (!retried && typeof item?.exp !== 'number') return this.acquire(shard, req, true);
    const exp = typeof item?.exp === 'number' ? iso(item.exp) : String(item?.exp);
    return { outcome: 'held', owner: String(item?.owner), expiresAt: exp, ...(item?.what === 'tick' || item?.what === 'evaluate' ? { holding: item.what } : {}) };
  }

  /**
   * Ends our lease; with a marker, records it (overwriting any marker from the future); with a
   * deferred list, records or (empty) clears it; with evaluation times, records (or, empty, clears) them.
   */
  async release(shard: string, owner: string, opts: ReleaseOptions): Promise<void> {
    const names: Record<string, string> = { '#owner': 'owner', '#exp': 'exp' };
    const values: Record<string, unknown> = { ':owner': owner };
    const set: string[] = [];
    const remove = ['#exp'];
    /** An attribute to write: undefined leaves it as it is, null removes it. */
    const put = (attribute: string, value: string | number | null | undefined) => {
      if (value === undefined) return;
      names[`#${attribute}`] = attribute;
      if (value === null) {
        remove.push(`#${attribute}`);
      } else {
        values[`:${attribute}`] = value;
        set.push(`#${attribute} = :${attribute}`);
      }
    };
    put('at', opts.markerMs);
    put('left', opts.deferred && (opts.deferred.length > 0 ? opts.deferred.join('\n') : null));
    put('ev', opts.evaluated && (Object.keys(opts.evaluated).length > 0 ? JSON.stringify(opts.evaluated) : null));
    put('pp', opts.tickPeriodSeconds);
    put('ph', opts.phase && JSON.stringify(opts.phase));
    put('al', opts.alarms && JSON.stringify(opts.alarms));
    const update = `${set.length > 0 ? `SET ${set.join(', ')} ` : ''}REMOVE ${remove.join(', ')}`;
    try {
      const command = new UpdateCommand({
        TableName: this.tableName,
        Key: shardCycleKey(shard),
        UpdateExpression: update,
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      });
      await sayingLastAttempt(command, opts.signal, () => this.doc.send(command, { abortSignal: opts.signal }));
    } catch (e) {
      // Taken over since (our lease had expired): nothing of ours to release.
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
    }
  }

  async read(shard: string, signal?: AbortSignal): Promise<ShardCycleItem | undefined> {
    const command = new GetCommand({ TableName: this.tableName, Key: shardCycleKey(shard), ConsistentRead: true });
    const r = await sayingLastAttempt(command, signal, () => this.doc.send(command, { abortSignal: signal }));
    if (!r.Item) return undefined;
    return { shard, owner: typeof r.Item.owner === 'string' ? r.Item.owner : undefined, exp: r.Item.exp, tick: r.Item.tick, at: r.Item.at, what: r.Item.what };
  }

  /** Clears a lease whoever holds it (an operator's command); false when there was none. */
  async clear(shard: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: shardCycleKey(shard),
          UpdateExpression: 'REMOVE #exp, #owner',
          ConditionExpression: 'attribute_exists(#exp) OR attribute_exists(#owner)',
          ExpressionAttributeNames: { '#exp': 'exp', '#owner': 'owner' },
        }),
      );
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }
}

const isAbort = (e: unknown) => e instanceof Error && e.name === 'AbortError';

/**
 * Sends `command` (by `send`). When the signal cancels it while the SDK backs off after a failed
 * attempt, the SDK throws a bare "Request aborted": the error then also says what that attempt
 * met. The middleware sits inside the SDK's retries, so it sees each attempt.
 */
async function sayingLastAttempt<I extends object, O extends MetadataBearer, T>(
  command: { middlewareStack: MiddlewareStack<I, O> },
  signal: AbortSignal | undefined,
  send: () => Promise<T>,
): Promise<T> {
  let failed: unknown;
  command.middlewareStack.add(
    (next: FinalizeHandler<I, O>) => async (args: FinalizeHandlerArguments<I>) => {
      try {
        return await next(args);
      } catch (e) {
        if (!isAbort(e)) failed = e;
        throw e;
      }
    },
    { step: 'finalizeRequest', priority: 'low', name: 'shpaLastAttemptError', override: true },
  );
  try {
    return await send();
  } catch (e) {
    if (!signal?.aborted || !isAbort(e) || !(failed instanceof Error)) throw e;
    throw new Error(`${errorText(e)} after an attempt that failed: ${failed.message}`, { cause: e });
  }
}
