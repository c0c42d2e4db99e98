// One cycle of one shard: load its autoscalers (the table's partitions of the shard and the
// cluster's objects), then evaluate them (evaluate.ts), a window at a time in priority order:
// every one waits only for its own inputs, so one slow namespace, target or metric source
// holds up only the autoscalers that depend on it, and what the deadline leaves is the end of
// the line. A tick evaluates them all; an event, those it names.
import pLimit from 'p-limit';
import { type CloudWatchMetric, emptyMetricObjects } from '#api';
import { type CheckedMetricObjects, isObjectAnswer } from '#metrics';
import type { CrossVersionObjectReference } from '#hpa';
import type { SyncOptions } from './config.js';
import { Deadline, DeadlineExceededError } from './deadline.js';
import { evaluateUnit, type EvalContext } from './evaluate.js';
import type { EvaluateTarget } from './messages.js';
import type { AutoscalerStore, ClusterIndex, ShardSnapshot, SharedMetricAnswer } from './ports/autoscaler-store.js';
import type { Clock } from './ports/clock.js';
import type { AutoscalerObjects, ClusterAccess, ClusterConfig, KubernetesAutoscaler } from './ports/cluster-access.js';
import type { MetricReadOptions, MetricsAccess, ObjectMetricQuery } from './ports/metrics-access.js';
import { CycleReads } from './reads.js';
import { countOutcomes, emptyCalls, errorText, isDeferred, type CycleReport } from './report.js';
import { bucketOf, bucketsOf, partOf, shardId, type ShardRef } from './shards.js';
import { checkMetricObjects } from './spec-check.js';
import { SpecVersions } from './spec-versions.js';
import { isDue, ownPeriod, shardTickPeriod } from './sync-periods.js';
import { gateOf, learnTickPhase, type TickPhase } from './tick-phase.js';
import { buildUnits, selectTargets, type Unit } from './units.js';

export interface CycleDeps {
  store: AutoscalerStore;
  /** The shard's cluster. */
  cluster: ClusterAccess;
  /** A plain MetricsAccess will do; lib/metrics' also takes the cycle's read options. */
  metrics: MetricsAccess;
  clock: Clock;
}

export type CycleTrigger = { kind: 'tick'; tick: Date } | { kind: 'evaluate'; targets: EvaluateTarget[]; reason: string };

export interface ShardCycleRequest {
  shard: ShardRef;
  cluster: ClusterConfig;
  trigger: CycleTrigger;
  /** When the cycle must be over: reads stop early enough for the writes to fit. */
  deadline: Date;
  /** The previous cycle's marker (from the shard's lease). */
  markerMs?: number;
  /** Autoscalers ("namespace/name") the previous tick left unevaluated: evaluated first. */
  first?: readonly string[];
  /** The cluster's index as the worker read it (the load reads it when absent). */
  index?: ClusterIndex;
  /** The tick's period: the deploy's, or faster for a shard whose autoscalers ask for it (spec.syncPeriodSeconds). */
  periodSeconds: number;
  /** The deploy's period (syncPeriodSeconds param); absent: periodSeconds. */
  deployPeriodSeconds?: number;
  /** What the shard's earlier ticks learned of when its pod metrics change (from its lease). */
  phase?: TickPhase;
  options: SyncOptions;
}

/** One cycle's record, which its stages read and fill in: the report is what it returns. */
interface Cycle {
  deps: CycleDeps;
  req: ShardCycleRequest;
  now: Date;
  t0: number;
  deadline: Deadline;
  calls: ReturnType<typeof emptyCalls>;
  report: CycleReport;
}

/** The shard as loaded: the table's snapshot and what the cluster listed (or why it could not). */
interface Loaded {
  snapshot: ShardSnapshot;
  listed?: Listed;
  listError?: string;
}

/** The shard's units, those this cycle evaluates, and the counts' recording under way. */
interface Selection {
  shard: ReturnType<typeof buildUnits>;
  selected: Set<Unit>;
  counted: Promise<void>;
}

export async function runShardCycle(deps: CycleDeps, req: ShardCycleRequest): Promise<CycleReport> {
  const cycle = openCycle(deps, req);
  try {
    const loaded = await loadShard(cycle);
    if (!loaded) return cycle.report;
    const selection = selectUnits(cycle, loaded);
    const metricObjects = checkMetricObjects(selection.shard, req.options.metricAccess);
    const reads = startReads(cycle, loaded, selection, metricObjects);
    const keeping = keepSharedAnswers(cycle, loaded.snapshot, reads);
    reportUnlisted(cycle, loaded, selection);
    await evaluateInPriorityOrder(cycle, selection, evalContext(cycle, reads, metricObjects, selection.shard.peers));
    await finishCycle(cycle, selection, reads, keeping);
  } finally {
    closeCycle(cycle);
  }
  return cycle.report;
}

function openCycle(deps: CycleDeps, req: ShardCycleRequest): Cycle {
  const now = deps.clock.now();
  const calls = emptyCalls();
  const report: CycleReport = {
    shard: shardId(req.shard),
    trigger: req.trigger.kind,
    ...(req.trigger.kind === 'tick' ? { tick: req.trigger.tick.toISOString() } : { reason: req.trigger.reason }),
    startedAt: now.toISOString(),
    durationMs: 0,
    autoscalers: [],
    counts: countOutcomes([]),
    calls,
    errors: [],
    warnings: [],
    failed: false,
  };
  return { deps, req, now, t0: performance.now(), deadline: new Deadline(req.deadline, deps.clock, req.options.writeBudgetMs), calls, report };
}

/** Loads the shard's partitions of the table and lists the cluster's objects, together; a failed load fails the cycle. */
async function loadShard(cycle: Cycle): Promise<Loaded | undefined> {
  const { deps, req, deadline, calls, report, now } = cycle;
  calls.loadShard++;
  const [loaded, objects] = await Promise.all([
    settle(deadline.race(`loading shard ${report.shard}`, deps.store.loadShard(req.shard, { now, markerMs: req.markerMs, ...(req.index ? { index: req.index } : {}), signal: deadline.signal }))),
    req.options.sources.cluster ? listObjects(deps, req, deadline, calls) : Promise.resolve(undefined),
  ]);
  if ('error' in loaded) {
    report.failed = true;
    report.errors.push({ stage: loaded.deadline ? 'deadline' : 'load', message: loaded.error });
    return undefined;
  }
  if (objects && 'error' in objects) {
    report.errors.push({ stage: 'source', message: objects.error });
    return { snapshot: loaded.value, listError: objects.error };
  }
  return { snapshot: loaded.value, ...(objects ? { listed: objects.value } : {}) };
}

/** Builds the units and selects those the trigger asks for; a tick records the buckets' counts meanwhile. */
function selectUnits(cycle: Cycle, loaded: Loaded): Selection {
  const { deps, req, report } = cycle;
  const { sources } = req.options;
  const shard = buildUnits({ cluster: req.cluster, shard: req.shard, snapshot: loaded.snapshot, objects: loaded.listed, tableSource: sources.table, dryRun: req.options.dryRun });
  if (loaded.listError === undefined) report.alarms = alarmsNamed(shard.cloudWatchMetrics);
  // What the dispatcher sizes shards by, known from the load: recorded beside the evaluations, never cut by their deadline.
  const counting = req.trigger.kind === 'tick' && (!sources.cluster || loaded.listed) ? recordCounts(cycle, loaded.snapshot, shard.bucketCounts) : Promise.resolve();
  const counted = counting.catch((e: unknown) => {
    report.warnings.push(`recording the shard's autoscaler counts: ${errorText(e)} (the next tick records them)`);
  });
  const selected = req.trigger.kind === 'tick' ? dueUnits(shard.units, req.trigger.tick.getTime(), req) : selectTargets(shard.units, req.trigger.targets, shard.cloudWatchMetrics);
  if (req.trigger.kind === 'tick') report.tickPeriodSeconds = shardTickPeriod(shard.units.map((u) => ownPeriod(u.record.hpa.spec)), req.deployPeriodSeconds ?? req.periodSeconds);
  return { shard, selected, counted };
}

/** Starts the cycle's reads: the one batched fetch of every metric object query the selected autoscalers may make, and their scale targets. */
function startReads(cycle: Cycle, loaded: Loaded, { selected }: Selection, metricObjects: readonly CheckedMetricObjects[]): CycleReads {
  const { deps, req, now, deadline, calls } = cycle;
  const reads = new CycleReads(deps.cluster, deps.metrics, now, deadline.signal, calls, { ...readOptions(req, deadline, now), shared: loaded.snapshot.sharedAnswers });
  reads.startObjectReads(objectQueries([...selected], metricObjects, req.cluster.name));
  reads.expectTargets(targetsOf([...selected]), partOf(req.shard).parts > 1);
  // A tick a second before its shard's settled one waits for its pod metrics to change (lib/sync/fresh-gate.ts).
  const gate = req.trigger.kind === 'tick' ? gateOf(req.phase, req.trigger.tick.getTime(), req.periodSeconds, now.getTime()) : undefined;
  if (gate) reads.startGate(req.cluster.name, gate, deps.clock);
  return reads;
}

function evalContext(cycle: Cycle, reads: CycleReads, metricObjects: readonly CheckedMetricObjects[], peers: Unit[]): EvalContext {
  const { deps, req, deadline, now } = cycle;
  return {
    store: deps.store,
    cluster: deps.cluster,
    reads,
    deadline,
    options: req.options,
    now,
    periodMs: req.periodSeconds * 1000,
    partial: req.trigger.kind === 'evaluate',
    metricObjects,
    specVersions: new SpecVersions(deps.store, req.cluster.name, deadline.signal),
    otherSelectors: selectorsOf(peers),
  };
}

/** Autoscalers of a cluster that could not be listed keep their state untouched: nothing is concluded. And those whose records are broken say so. */
function reportUnlisted(cycle: Cycle, loaded: Loaded, { shard }: Selection): void {
  const { report, req } = cycle;
  if (loaded.listError !== undefined) {
    for (const s of loaded.snapshot.clusterStates) {
      report.autoscalers.push({
        cluster: req.cluster.name,
        namespace: s.namespace,
        name: s.name,
        source: 'cluster',
        outcome: 'skipped',
        dryRun: false,
        patched: false,
        stored: 'skipped',
        errors: [{ stage: 'source', message: `not evaluated: ${loaded.listError}` }],
        warnings: [],
        notable: true,
      });
    }
  }
  report.autoscalers.push(...shard.broken);
}

/**
 * A window of autoscalers at a time, in priority order: when the deadline comes, what is left
 * is the end of the line, never started, and goes first at the next tick.
 */
async function evaluateInPriorityOrder(cycle: Cycle, { shard, selected }: Selection, ctx: EvalContext): Promise<void> {
  const { req, report, deadline } = cycle;
  const window = pLimit(req.options.concurrency);
  await Promise.all(
    inPriorityOrder(shard.units.filter((u) => selected.has(u)), req.first).map(async (unit) => {
      report.autoscalers.push(unit.report);
      if (unit.refused) return refuse(unit);
      try {
        await window(async () => {
          deadline.checkWrite(`evaluating ${unit.record.namespace}/${unit.record.name}`);
          await evaluateUnit(unit, ctx);
        });
      } catch (e) {
        if (e instanceof DeadlineExceededError) return deferUnit(unit);
        // An unexpected throw (a bug) stays with its own autoscaler.
        unit.report.outcome = 'failed';
        unit.report.errors.push({ stage: 'reconcile', message: errorText(e) });
        unit.report.notable = true;
      }
    }),
  );
}

/** Says what the deadline left, learns the tick's phase, waits for the shared answers and counts, and marks orphaned states for expiry. */
async function finishCycle(cycle: Cycle, { shard, counted }: Selection, reads: CycleReads, keeping: Promise<void>): Promise<void> {
  const { deps, req, report, now, deadline } = cycle;
  sayDeferred(report, req);
  // A tick's pod metrics, against the last tick's, say when the shard's data changes: where its next ticks go.
  const gated = await reads.gateResult();
  if (gated) report.storeWait = { namespace: gated.namespace, waitedMs: (gated.openedAtMs ?? gated.unchangedAtMs ?? gated.firstAtMs) - gated.firstAtMs, reads: gated.reads, changed: gated.openedAtMs !== undefined };
  if (req.trigger.kind === 'tick') report.phase = learnTickPhase(req.phase, reads.podAnswers, req.trigger.tick.getTime(), req.periodSeconds, now.getTime(), gated);
  await keeping;
  await counted;
  for (const orphan of shard.orphans) {
    try {
      await deps.store.expireState(req.cluster.name, orphan, now, deadline.signal);
    } catch (e) {
      report.warnings.push(`state of ${orphan.namespace}/${orphan.name} (its object is gone) not yet marked for expiry: ${errorText(e)}`);
    }
  }
}

function closeCycle(cycle: Cycle): void {
  const { report } = cycle;
  cycle.deadline.dispose();
  report.autoscalers.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  report.counts = countOutcomes(report.autoscalers);
  report.durationMs = Math.round(performance.now() - cycle.t0);
}

/** What the deadline left is said once in the cycle line; left twice in a row (a shard more than its worker evaluates, a read that hangs), it is an error. */
function sayDeferred(report: CycleReport, req: ShardCycleRequest): void {
  const deferred = report.autoscalers.filter(isDeferred);
  if (deferred.length === 0) return;
  const leftBefore = new Set(req.first);
  for (const a of deferred) {
    if (!leftBefore.has(`${a.namespace}/${a.name}`)) continue;
    a.deferredAgain = true;
    a.notable = true;
    a.errors.push({ stage: 'deadline', message: 'not evaluated at two ticks in a row: the deadline came first both times' });
  }
  const names = deferred.map((a) => `${a.namespace}/${a.name}`);
  report.warnings.push(
    `the cycle deadline left ${deferred.length} of ${report.autoscalers.length} autoscalers unevaluated; ${req.trigger.kind === 'tick' ? 'they go first at the next tick' : 'the next tick evaluates them'}: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}`,
  );
}

/**
 * Keeps the cycle's metric object answers in the table when they changed (once a metric period), so
 * that whichever environment runs the shard's next tick reads them with the shard instead of
 * from their source. A tick asks for every query of the shard: what it did not answer is dropped;
 * an evaluation asks for a few, and the rest is kept as it was. A failure is a warning.
 */
function keepSharedAnswers(cycle: Cycle, loaded: ShardSnapshot, reads: CycleReads): Promise<void> {
  return saveSharedAnswers(cycle, loaded, reads).catch((e: unknown) => {
    cycle.report.warnings.push(`keeping the shard's metric answers for the next tick: ${errorText(e)} (the next tick reads them again)`);
  });
}

async function saveSharedAnswers({ deps, req, deadline }: Cycle, loaded: ShardSnapshot, reads: CycleReads): Promise<void> {
  const answers = await reads.objectAnswers();
  const home = loaded.buckets[0];
  if (!answers || home === undefined) return;
  const next = new Map(req.trigger.kind === 'evaluate' ? loaded.sharedAnswers : []);
  for (const a of answers.values()) if (isObjectAnswer(a) && a.shared) next.set(a.shared.key, a.shared.answer);
  const same = next.size === loaded.sharedAnswers.size && [...next].every(([k, a]) => sameAnswer(loaded.sharedAnswers.get(k), a));
  if (same) return;
  await deps.store.saveSharedAnswers(req.shard, home, next, deadline.signal);
}

/** Unchanged for the table: the same window, and the same publication delay learning (it moves while probing). */
function sameAnswer(a: SharedMetricAnswer | undefined, b: SharedMetricAnswer): boolean {
  return a?.end === b.end && JSON.stringify(a.learn) === JSON.stringify(b.learn);
}

/**
 * Records the autoscalers of each bucket the shard owns, where they changed: a tick that saw every
 * autoscaler of its buckets. Under its own limit, the write budget past the cycle's deadline (as the
 * lease's release), so that a tick the deadline cuts short still tells the dispatcher how big it is.
 */
async function recordCounts(c: Cycle, loaded: ShardSnapshot, now: ReadonlyMap<number, number>): Promise<void> {
  const { deps, req } = c;
  const changed = new Map([...now].filter(([b, n]) => loaded.index.counts[b] !== n));
  if (changed.size === 0) return;
  const limit = c.deadline.afterWrites();
  try {
    await deps.store.recordBucketCounts(req.cluster.name, changed, limit.signal);
  } finally {
    limit.dispose();
  }
}

/** The cycle's metric reads: answered by the reads' deadline; an alarm's readers read what it evaluated. */
function readOptions(req: ShardCycleRequest, deadline: Deadline, now: Date): MetricReadOptions {
  const readBy = deadline.readsEnd;
  if (req.trigger.kind !== 'evaluate') return { readBy, observedAt: req.trigger.tick };
  const alarms = new Map<string, Date>();
  for (const t of req.trigger.targets) if (t.kind === 'alarm') alarms.set(t.alarmName, t.evaluatedUntil ? new Date(t.evaluatedUntil) : now);
  return alarms.size > 0 ? { readBy, alarms } : { readBy };
}

/** The units in the order they are evaluated: those the last tick left first (in its order), then by namespace, so a namespace's reads are shared while fresh. */
function inPriorityOrder(units: Unit[], first: readonly string[] = []): Unit[] {
  const rank = new Map(first.map((k, i) => [k, i]));
  const key = (u: Unit) => `${u.record.namespace}/${u.record.name}`;
  return [...units].sort((a, b) => {
    const ra = rank.get(key(a)) ?? Infinity;
    const rb = rank.get(key(b)) ?? Infinity;
    if (ra !== rb) return ra - rb;
    return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  });
}

/** Left by the deadline before its evaluation could start: said once in the cycle line, not in a decision line each. */
function deferUnit(unit: Unit): void {
  unit.report.outcome = 'skipped';
  unit.report.stored = 'skipped';
  unit.report.errors.push({ stage: 'deadline', message: 'not evaluated: the cycle deadline came first' });
}

function refuse(unit: Unit): void {
  const { report, refused } = unit;
  report.outcome = refused!.outcome;
  report.errors.push({ stage: refused!.stage, message: refused!.message });
  report.notable = true;
}

type Listed = AutoscalerObjects;

async function listObjects(deps: CycleDeps, req: ShardCycleRequest, deadline: Deadline, calls: ReturnType<typeof emptyCalls>): Promise<{ value: Listed } | { error: string }> {
  // With an allowlist the function may only list its namespaces (RoleBindings): those of this shard.
  const owned = new Set(bucketsOf(req.shard));
  const namespaces = req.cluster.namespaces?.filter((ns) => owned.has(bucketOf(ns)));
  if (namespaces?.length === 0) return { value: { autoscalers: [], ...emptyMetricObjects() } };
  calls.listAutoscalerObjects++;
  const r = await settle(deadline.race('listing autoscaler objects', deps.cluster.listAutoscalerObjects(namespaces, deadline.signal), 0));
  if ('error' in r) return { error: `cannot list ServerlessHorizontalPodAutoscaler objects of cluster ${req.cluster.name}: ${r.error}` };
  return { value: r.value };
}

/**
 * The autoscalers a tick evaluates: those whose own period (spec.syncPeriodSeconds, else the deploy's, whatever
 * period a neighbour makes the shard tick at) this tick crosses, and those the last tick's deadline left.
 */
function dueUnits(units: Unit[], tickMs: number, req: ShardCycleRequest): Set<Unit> {
  const first = new Set(req.first ?? []);
  const deploy = req.deployPeriodSeconds ?? req.periodSeconds;
  return new Set(units.filter((u) => first.has(`${u.record.namespace}/${u.record.name}`) || isDue(tickMs, req.periodSeconds, ownPeriod(u.record.hpa.spec) ?? deploy)));
}

/** The alarm names CloudWatchMetric objects give (not validated yet: only names that are text), sorted. */
function alarmsNamed(metrics: CloudWatchMetric[]): string[] {
  const names = new Set<string>();
  for (const m of metrics) if (typeof m.spec.alarmName === 'string' && m.spec.alarmName !== '') names.add(m.spec.alarmName);
  return [...names].sort();
}

/** Every metric object query the selected autoscalers may make, known from their specs: one batched fetch for the cycle. */
function objectQueries(units: Unit[], metricObjects: readonly CheckedMetricObjects[], cluster: string): ObjectMetricQuery[] {
  const out: ObjectMetricQuery[] = [];
  for (const u of units) {
    const specMetrics: unknown = u.record.hpa.spec?.metrics;
    if (!Array.isArray(specMetrics)) continue;
    const namespace = u.record.namespace;
    for (const m of specMetrics as { type?: unknown; external?: { metric?: { name?: unknown } } }[]) {
      if (m?.type !== 'External') continue;
      const name = String(m.external?.metric?.name ?? '');
      const named = metricObjects.flatMap(({ provider, valid }) => {
        const source = valid.get(namespace)?.get(name);
        return source ? [provider.query(cluster, namespace, source)] : [];
      });
      // Objects of several kinds named alike are an error the evaluation reports: none is read.
      if (named.length === 1) out.push(named[0]!);
    }
  }
  return out;
}

/** The scale targets the selected autoscalers name, read defensively (specs are validated later). */
function targetsOf(units: Unit[]): { namespace: string; ref: CrossVersionObjectReference }[] {
  return units.flatMap((u) => {
    const r = u.record.hpa.spec?.scaleTargetRef as Partial<CrossVersionObjectReference> | undefined;
    return !u.refused && typeof r?.kind === 'string' && typeof r.name === 'string' ? [{ namespace: u.record.namespace, ref: r as CrossVersionObjectReference }] : [];
  });
}

/**
 * Upstream checks each HPA's selector against the selectors its controller last saw for the
 * other HPAs of the namespace: here, the ones stored with their states. So an autoscaler never
 * waits for another's scale read. One array per namespace, each autoscaler's own entry in it
 * (reconcile skips it): lib/hpa works out who selects which pod once per array.
 */
function selectorsOf(units: Unit[]): EvalContext['otherSelectors'] {
  const byNs = new Map<string, { namespace: string; name: string; selector: string }[]>();
  const add = (namespace: string, name: string, selector: string | undefined) => {
    if (!selector) return;
    if (!byNs.has(namespace)) byNs.set(namespace, []);
    byNs.get(namespace)!.push({ namespace, name, selector });
  };
  for (const u of units) if (!u.refused) add(u.record.namespace, u.record.name, u.record.selector);
  return (namespace) => byNs.get(namespace) ?? [];
}

async function settle<T>(p: Promise<T>): Promise<{ value: T } | { error: string; deadline: boolean }> {
  try {
    return { value: await p };
  } catch (e) {
    return { error: errorText(e), deadline: e instanceof DeadlineExceededError };
  }
}
