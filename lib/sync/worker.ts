// One work message, as the worker function handles it: exactly one cycle of one shard, no
// sleeping. A tick that is late (too near the next one to run), a duplicate or out of order (SQS
// delivers at least once, in any order), or that finds the shard's previous cycle still
// running is dropped and counted; an evaluation that finds the shard busy is sent again a
// second later. Nothing is scaled twice for one decision, whatever the delivery order:
// the lease serializes cycles and every state write is conditional.
import type { SyncOptions } from './config.js';
import { runShardCycle, type CycleTrigger } from './cycle.js';
import { Deadline, leaseMs } from './deadline.js';
import { evaluationsByShard } from './event-sources.js';
import { MAX_EVALUATE_ATTEMPTS, MAX_EVENT_AGE_MS, type EvaluateMessage, type EvaluateTarget, type WorkMessage } from './messages.js';
import type { AutoscalerStore, ClusterIndex, EvaluationTimes, LeaseOutcome } from './ports/autoscaler-store.js';
import type { Clock } from './ports/clock.js';
import type { ClusterAccess, ClusterConfig } from './ports/cluster-access.js';
import type { MetricsAccess } from './ports/metrics-access.js';
import type { WorkQueue } from './ports/work-queue.js';
import { errorText, isDeferred, type CycleReport } from './report.js';
import { parseShardId, shardCountAt, shardId, type ShardRef } from './shards.js';

/** Where a worker finds a cluster's configuration (the deploy's parameter, or a local registry). */
export interface ClusterDirectory {
  get(name: string): Promise<ClusterConfig | undefined>;
}

export interface WorkerDeps {
  store: AutoscalerStore;
  metrics: MetricsAccess;
  /** The API of a cluster (kept by the caller between invocations); beginCycle forgets discovery. */
  cluster(config: ClusterConfig): ClusterAccess & { beginCycle?(): void };
  clusters: ClusterDirectory;
  queue: WorkQueue;
  clock: Clock;
}

export interface WorkerConfig {
  periodSeconds: number;
  options: SyncOptions;
}

export type MessageResult =
  | { outcome: 'synced'; shard: string; report: CycleReport; requeued: number }
  /** Dropped: late, duplicate or stale; counted, never retried. */
  | { outcome: 'dropped'; shard: string; why: 'late' | 'duplicate' | 'future' | 'unknownCluster' | 'staleShard' | 'tooOld' | 'gaveUp'; detail: string }
  /** An evaluation for a shard count no longer in use, sent on to the shards in use. */
  | { outcome: 'rerouted'; shard: string; to: string[]; detail: string }
  /**
   * An evaluation a storm of identical ones made redundant: a cycle that started after its event
   * already evaluated its autoscalers (dropped), or two did within the last second (sent again a
   * second later, so that the burst costs one more cycle, not one each).
   */
  | { outcome: 'coalesced'; shard: string; /** Absent: dropped, covered; false: could not be sent again (the next tick covers it). */ requeued?: boolean; detail: string }
  /** The shard's previous cycle still runs: a tick is skipped, an evaluation sent again. */
  | { outcome: 'busy'; shard: string; holder: string; requeued: boolean; detail: string }
  /** The cycle could not run or load: the invocation should fail (and the message be retried). */
  | { outcome: 'failed'; shard: string; error: string; report?: CycleReport };

/** A tick from further in the future than this was not sent by our dispatcher (clock skew, a hand-made message). */
const FUTURE_TICK_MS = 5_000;
const RETRY_DELAY_SECONDS = 1;

/** One message as it passes from stage to stage. */
interface Handling {
  deps: WorkerDeps;
  config: WorkerConfig;
  msg: WorkMessage;
  owner: string;
  now: Date;
  /** A shard may tick faster than the deploy's period (its autoscalers' spec.syncPeriodSeconds): its tick says how often. */
  periodSeconds: number;
  periodMs: number;
  ref: ShardRef;
  shard: string;
}
interface Admitted extends Handling {
  cluster: ClusterConfig;
  trigger: CycleTrigger;
  /** The cycle's, with the write budget: the lease is taken within it, released within its afterWrites(). */
  deadline: Deadline;
}
interface Leased extends Admitted {
  index: ClusterIndex;
  lease: Extract<LeaseOutcome, { outcome: 'acquired' }>;
}
const stopped = (x: object): x is MessageResult => 'outcome' in x;

/**
 * The stages of one message: find its cluster, admit it (not from the future, not late, not too old),
 * take the shard's lease (at the shard count in use), coalesce a redundant evaluation, run the cycle and
 * release the lease, then send again what a conflict on a scale asks to re-evaluate.
 */
export async function handleWorkMessage(deps: WorkerDeps, config: WorkerConfig, msg: WorkMessage, owner: string): Promise<MessageResult> {
  const periodSeconds = msg.kind === 'tick' ? Math.min(msg.periodSeconds, config.periodSeconds) : config.periodSeconds;
  const h: Handling = { deps, config, msg, owner, now: deps.clock.now(), periodSeconds, periodMs: periodSeconds * 1000, ref: parseShardId(msg.shard), shard: msg.shard };
  const admitted = await admit(h);
  if (stopped(admitted)) return admitted;
  try {
    const leased = await takeLease(admitted);
    if (stopped(leased)) return leased;
    if (msg.kind === 'evaluate') {
      const coalesced = await coalesceAndRelease(leased, msg);
      if (coalesced) return coalesced;
    }
    const report = await runCycle(leased);
    if (report.failed) return { outcome: 'failed', shard: h.shard, error: report.errors.map((e) => e.message).join('; '), report };
    return { outcome: 'synced', shard: h.shard, report, requeued: await requeueConflicts(leased, report) };
  } finally {
    admitted.deadline.dispose();
  }
}

/** The message's cluster and trigger, and the cycle's deadline; or why it is not run. */
async function admit(h: Handling): Promise<Admitted | MessageResult> {
  const { deps, config, msg, shard, ref, now, periodMs } = h;
  let cluster: ClusterConfig | undefined;
  try {
    cluster = await deps.clusters.get(ref.cluster);
  } catch (e) {
    // Local stacks read it from the table: a DynamoDB outage must be said and counted like any other.
    return { outcome: 'failed', shard, error: `reading the cluster registry (cluster ${ref.cluster}): ${errorText(e)}` };
  }
  if (!cluster) return { outcome: 'dropped', shard, why: 'unknownCluster', detail: `cluster ${ref.cluster} is not configured for this deploy` };
  const budget = config.options.writeBudgetMs;
  if (msg.kind === 'evaluate') {
    if (now.getTime() - Date.parse(msg.at) > MAX_EVENT_AGE_MS) return { outcome: 'dropped', shard, why: 'tooOld', detail: `${msg.reason} at ${msg.at} is too old to act on` };
    return { ...h, cluster, trigger: { kind: 'evaluate', targets: msg.targets, reason: msg.reason }, deadline: new Deadline(new Date(now.getTime() + periodMs / 2), deps.clock, budget) };
  }
  const tick = Date.parse(msg.tick);
  if (tick - now.getTime() > FUTURE_TICK_MS) return { outcome: 'dropped', shard, why: 'future', detail: `tick ${msg.tick} is in the future` };
  // Half a period to run in, and never into the next tick.
  const deadline = new Deadline(new Date(Math.min(now.getTime() + periodMs / 2, tick + periodMs - 1000)), deps.clock, budget);
  // Too late to do anything before the next tick: dropped as late, not run into its deadline (and blamed on a dependency).
  if (!deadline.leavesTimeToWrite()) {
    deadline.dispose();
    return { outcome: 'dropped', shard, why: 'late', detail: `tick ${msg.tick} is ${Math.round((now.getTime() - tick) / 1000)} s old: less than ${budget} ms would be left before the next tick` };
  }
  return { ...h, cluster, trigger: { kind: 'tick', tick: new Date(tick) }, deadline };
}

/** The cluster's index and the shard's lease, at the shard count in use; or why the cycle does not run. */
async function takeLease(a: Admitted): Promise<Leased | MessageResult> {
  const { deps, msg, shard, ref, cluster, trigger, now, periodMs, deadline } = a;
  // One DynamoDB call may retry for 4 × 3 s: past the deadline it is cancelled and said, never cut off by the Lambda timeout.
  const failed = (what: string, e: unknown): MessageResult => ({ outcome: 'failed', shard, error: `${what}: ${dynamoError(e, deadline.signal, deadline.at.getTime() - now.getTime())}` });
  let index: ClusterIndex;
  let lease: LeaseOutcome;
  try {
    index = await deps.store.readIndex(cluster.name, deadline.signal);
  } catch (e) {
    return failed(`reading the index of cluster ${cluster.name}`, e);
  }
  // The shard count changes with the cluster (lib/sizing): a message of another count names a shard that no longer exists.
  const count = shardCountAt(index, cluster.shards, trigger.kind === 'tick' ? trigger.tick.getTime() : undefined);
  if (count !== ref.count) {
    if (msg.kind === 'tick') return { outcome: 'dropped', shard, why: 'staleShard', detail: `cluster ${cluster.name} is cut into ${count} shards at this tick` };
    return reroute(deps, msg, count);
  }
  try {
    // A tick's lease ends two periods after the tick itself, so a cycle that never released it holds up one tick, not two.
    const forMs = trigger.kind === 'tick' ? leaseMs(periodMs) - Math.max(0, now.getTime() - trigger.tick.getTime()) : leaseMs(periodMs);
    lease = await deps.store.acquireShard(shard, { owner: a.owner, now, leaseMs: forMs, signal: deadline.signal, ...(trigger.kind === 'tick' ? { tick: trigger.tick } : {}) });
  } catch (e) {
    return failed(`taking the lease of shard ${shard}`, e);
  }
  if (lease.outcome === 'acquired') return { ...a, index, lease };
  return leaseRefused(a, lease);
}

/** A duplicate is dropped; a shard still busy skips a tick (or runs it a second later) and sends an evaluation again. */
async function leaseRefused(a: Admitted, lease: Exclude<LeaseOutcome, { outcome: 'acquired' }>): Promise<MessageResult> {
  const { deps, msg, shard, trigger } = a;
  if (lease.outcome === 'duplicate') {
    return { outcome: 'dropped', shard, why: 'duplicate', detail: `a cycle for tick ${lease.lastTick} (not older than ${trigger.kind === 'tick' ? trigger.tick.toISOString() : ''}) already ran` };
  }
  const detail = `the previous cycle of shard ${shard} (${lease.owner}, lease until ${lease.expiresAt}) is still running`;
  if (msg.kind === 'tick') {
    // An evaluation is over in a moment: the tick runs a second later rather than not at all.
    const requeued = lease.holding === 'evaluate' && (await resend(deps, msg));
    return { outcome: 'busy', shard, holder: lease.owner, requeued, detail };
  }
  if (msg.attempt >= MAX_EVALUATE_ATTEMPTS) return { outcome: 'dropped', shard, why: 'gaveUp', detail: `${detail} after ${msg.attempt} attempts: the next tick evaluates it` };
  const requeued = await resend(deps, { ...msg, attempt: msg.attempt + 1 });
  return { outcome: 'busy', shard, holder: lease.owner, requeued, detail };
}

/** An evaluation made redundant by a burst: the lease is given back at once. */
async function coalesceAndRelease(l: Leased, msg: EvaluateMessage): Promise<MessageResult | undefined> {
  const coalesced = await coalesce(l.deps, msg, l.lease, l.now);
  if (!coalesced) return undefined;
  const released = await l.deps.store.releaseShard(l.shard, l.owner, {}).then(
    () => '',
    (e: unknown) => `; releasing the lease of shard ${l.shard}: ${errorText(e)} (it expires by itself)`,
  );
  return { ...coalesced, detail: coalesced.detail + released };
}

/** The shard's cycle; the lease is released after it whatever happened. */
async function runCycle(l: Leased): Promise<CycleReport> {
  const { deps, config, ref, cluster, trigger, lease, index, deadline, periodSeconds } = l;
  let report: CycleReport | undefined;
  try {
    // Inside the try: a cluster client that cannot be made still gives the lease back.
    const access = deps.cluster(cluster);
    access.beginCycle?.();
    report = await runShardCycle(
      { store: deps.store, cluster: access, metrics: deps.metrics, clock: deps.clock },
      {
        shard: ref,
        cluster,
        trigger,
        deadline: deadline.at,
        markerMs: lease.markerMs,
        index,
        ...(trigger.kind === 'tick' && lease.deferred ? { first: lease.deferred } : {}),
        ...(trigger.kind === 'tick' && lease.phase ? { phase: lease.phase } : {}),
        periodSeconds,
        deployPeriodSeconds: config.periodSeconds,
        options: config.options,
      },
    );
    report.warnings.unshift(...lease.warnings);
    return report;
  } finally {
    await release(l, report);
  }
}

/** Gives the lease back with what the cycle leaves for the next: its marker, what its deadline left, when each was evaluated. */
async function release(l: Leased, report: CycleReport | undefined): Promise<void> {
  const { deps, shard, owner, trigger, lease, now, periodMs } = l;
  // The marker dates this tick's cycle (docs/store.md), and what its deadline left goes first next tick; an evaluation or a failed load leaves both.
  const ranTick = trigger.kind === 'tick' && report !== undefined && !report.failed;
  const markerMs = ranTick ? now.getTime() : undefined;
  const deferred = ranTick ? report!.autoscalers.filter(isDeferred).map((a) => `${a.namespace}/${a.name}`) : undefined;
  const evaluated = evaluationTimes(lease.evaluated ?? {}, report, trigger, now, periodMs);
  // One more write after the cycle: the write budget past its deadline, still well within the invocation's time.
  const releaseDeadline = l.deadline.afterWrites();
  await deps.store
    .releaseShard(shard, owner, { markerMs, deferred, ...(evaluated ? { evaluated } : {}), ...(report?.alarms ? { alarms: report.alarms } : {}), ...(report?.phase ? { phase: report.phase } : {}), ...(ranTick ? { tickPeriodSeconds: report!.tickPeriodSeconds ?? null } : {}), signal: releaseDeadline.signal })
    .catch((e: unknown) => {
      report?.warnings.push(`releasing the lease of shard ${shard}: ${dynamoError(e, releaseDeadline.signal, releaseDeadline.at.getTime() - now.getTime())} (it expires by itself)`);
    })
    .finally(() => releaseDeadline.dispose());
}

/** A conflict on a target's scale: evaluated again at once, as upstream's controller requeues it. How many were sent. */
async function requeueConflicts(l: Leased, report: CycleReport): Promise<number> {
  const { msg, ref, now } = l;
  const retry = report.autoscalers.filter((a) => a.retrySoon).map((a): EvaluateTarget => ({ kind: 'hpa', namespace: a.namespace, name: a.name }));
  const attempt = msg.kind === 'evaluate' ? msg.attempt + 1 : 1;
  if (retry.length === 0 || attempt > MAX_EVALUATE_ATTEMPTS) return 0;
  const again: EvaluateMessage = { kind: 'evaluate', shard: shardId(ref), targets: retry, reason: 'retry after a conflict on the target scale', at: now.toISOString(), attempt };
  if (await resend(l.deps, again)) return retry.length;
  report.warnings.push(`could not send the re-evaluation of ${retry.length} autoscalers: the next tick covers them`);
  return 0;
}

/** In a burst, evaluations of one autoscaler at most this often: the events between them make one more. */
const EVALUATION_SPACING_MS = 1_000;
const EVENT_TIME_PRECISION_MS = 1_000;

/**
 * An evaluation of autoscalers that a cycle started after its event already covered is dropped.
 * One whose autoscalers were evaluated twice within the last second (a burst: two in a row are
 * not one) waits a second, sent again with its event time, so that the next cycle covers the
 * whole burst. Only evaluations naming autoscalers coalesce: one by CloudWatchMetric or alarm
 * names whatever reads it then.
 */
async function coalesce(deps: WorkerDeps, msg: EvaluateMessage, lease: Extract<LeaseOutcome, { outcome: 'acquired' }>, now: Date): Promise<Extract<MessageResult, { outcome: 'coalesced' }> | undefined> {
  if (!msg.targets.every((t) => t.kind === 'hpa')) return undefined;
  const at = Date.parse(msg.at);
  const nowMs = now.getTime();
  // The last tick's cycle evaluated every autoscaler of the shard but those its deadline left.
  const left = new Set(lease.deferred ?? []);
  const times = msg.targets.map((t) => {
    const key = `${t.namespace}/${t.name}`;
    const [latest = 0, previous = 0] = lease.evaluated?.[key] ?? [];
    return { covered: Math.max(latest, left.has(key) ? 0 : (lease.markerMs ?? 0)), previous };
  });
  const names = msg.targets.map((t) => `${t.namespace}/${t.name}`).join(', ');
  // Event times come in whole seconds (DynamoDB Streams' ApproximateCreationDateTime, EventBridge's time): a cycle covers an event only a second after its stated time.
  if (times.every((t) => t.covered >= at + EVENT_TIME_PRECISION_MS)) {
    return { outcome: 'coalesced', shard: msg.shard, detail: `${names}: evaluated by a cycle that started after this ${msg.reason} (${msg.at})` };
  }
  const burst = times.some((t) => nowMs - t.previous < EVALUATION_SPACING_MS);
  if (!burst) return undefined;
  const requeued = await resend(deps, msg);
  return {
    outcome: 'coalesced',
    shard: msg.shard,
    requeued,
    detail: `${names}: evaluated twice in the last second; ${requeued ? 'this one runs a second later, for the whole burst' : 'could not be sent again: the next tick covers it'}`,
  };
}

/** The cycle item's evaluation times after this cycle: its evaluated autoscalers at its start (the time before kept), those older than a period dropped. */
function evaluationTimes(before: EvaluationTimes, report: CycleReport | undefined, trigger: CycleTrigger, now: Date, periodMs: number): EvaluationTimes | undefined {
  if (trigger.kind !== 'evaluate' || !report || report.failed) return undefined;
  const nowMs = now.getTime();
  const out: EvaluationTimes = Object.fromEntries(Object.entries(before).filter(([, [latest]]) => latest > nowMs - periodMs));
  for (const a of report.autoscalers) {
    if (isDeferred(a) || a.outcome === 'skipped') continue;
    const key = `${a.namespace}/${a.name}`;
    out[key] = out[key] ? [nowMs, out[key][0]] : [nowMs];
  }
  return out;
}

/** A failed lease call; when its deadline cancelled it, said as the timeout it is. */
function dynamoError(e: unknown, signal: AbortSignal, allowedMs: number): string {
  return signal.aborted ? `DynamoDB timed out: no success within the ${allowedMs} ms the cycle allows (${errorText(e)})` : errorText(e);
}

/** An evaluation sent to a shard of an old count: sent again, at once, to the shards that now hold its autoscalers. */
async function reroute(deps: WorkerDeps, msg: EvaluateMessage, count: number): Promise<MessageResult> {
  const { cluster } = parseShardId(msg.shard);
  const messages = evaluationsByShard(cluster, count, msg.targets, msg.reason, new Date(msg.at), msg.attempt);
  const to = messages.map((m) => (JSON.parse(m.body) as EvaluateMessage).shard);
  try {
    await deps.queue.send(messages);
  } catch (e) {
    return { outcome: 'failed', shard: msg.shard, error: `sending the evaluation on to shards ${to.join(', ')} of cluster ${cluster} (now cut into ${count}): ${errorText(e)}` };
  }
  return { outcome: 'rerouted', shard: msg.shard, to, detail: `cluster ${cluster} is now cut into ${count} shards: sent on to ${to.join(', ')}` };
}

/** Sends a message again a second later; false when it could not be sent (the next tick covers it). */
// deps.queue is the work queue, whichever function runs this: an asynchronous invocation of the evaluator cannot be delayed.
async function resend(deps: WorkerDeps, msg: WorkMessage): Promise<boolean> {
  try {
    await deps.queue.send([{ kind: msg.kind, body: JSON.stringify(msg), delaySeconds: RETRY_DELAY_SECONDS, groupId: parseShardId(msg.shard).cluster }]);
    return true;
  } catch {
    return false;
  }
}
