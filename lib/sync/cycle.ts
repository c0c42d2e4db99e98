// One cycle of one shard: load its autoscalers (the table's partitions of the shard and the
// cluster's objects), then evaluate each of them concurrently (evaluate.ts): every one waits
// only for its own inputs, so one slow namespace, target or metric source holds up only the
// autoscalers that depend on it. A tick evaluates them all; an event, those it names.
import type { CloudWatchMetric } from '../api/cloudwatch-types.js';
import type { SyncOptions } from './config.js';
import { Deadline, DeadlineExceededError } from './deadline.js';
import { evaluateUnit, type EvalContext } from './evaluate.js';
import type { EvaluateTarget } from './messages.js';
import type { AutoscalerStore, Clock, ClusterAccess, ClusterConfig, KubernetesAutoscaler, MetricQuery, MetricReadOptions, MetricsAccess } from './ports.js';
import { CycleReads } from './reads.js';
import { countOutcomes, emptyCalls, errorText, type CycleReport } from './report.js';
import { bucketOf, bucketsOf, shardId, type ShardRef } from './shards.js';
import { checkCloudWatchMetrics } from './spec-check.js';
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
  periodSeconds: number;
  options: SyncOptions;
}

export async function runShardCycle(deps: CycleDeps, req: ShardCycleRequest): Promise<CycleReport> {
  const now = deps.clock.now();
  const t0 = performance.now();
  const deadline = new Deadline(req.deadline, deps.clock);
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
  try {
    const { sources } = req.options;
    calls.loadShard++;
    const [loaded, objects] = await Promise.all([
      settle(deadline.race(`loading shard ${report.shard}`, deps.store.loadShard(req.shard, { now, markerMs: req.markerMs, signal: deadline.signal }))),
      sources.cluster ? listObjects(deps, req, deadline, calls) : Promise.resolve(undefined),
    ]);
    if ('error' in loaded) {
      report.failed = true;
      report.errors.push({ stage: loaded.deadline ? 'deadline' : 'load', message: loaded.error });
      return report;
    }
    if (objects && 'error' in objects) report.errors.push({ stage: 'source', message: objects.error });
    const listed = objects && !('error' in objects) ? objects.value : undefined;
    const shard = buildUnits({ cluster: req.cluster, shard: req.shard, snapshot: loaded.value, objects: listed, tableSource: sources.table, dryRun: req.options.dryRun });
    const selected = req.trigger.kind === 'tick' ? new Set(shard.units) : selectTargets(shard.units, req.trigger.targets, shard.cloudWatchMetrics);

    const reads = new CycleReads(deps.cluster, deps.metrics, now, deadline.signal, calls, req.options.concurrency, readOptions(req, now));
    const { valid, invalid } = checkCloudWatchMetrics(shard.cloudWatchMetrics);
    const cloudWatch = byNamespace(valid);
    reads.startCloudWatch(cloudWatchQueries([...selected], cloudWatch, req.cluster.name));
    const ctx: EvalContext = {
      store: deps.store,
      cluster: deps.cluster,
      reads,
      deadline,
      options: req.options,
      now,
      periodMs: req.periodSeconds * 1000,
      partial: req.trigger.kind === 'evaluate',
      cloudWatch,
      invalidCloudWatch: invalid,
      otherSelectors: selectorsOf(shard.units),
    };
    // Autoscalers of a cluster that could not be listed keep their state untouched: nothing is concluded.
    if (objects && 'error' in objects) {
      for (const s of loaded.value.clusterStates) {
        report.autoscalers.push({
          cluster: req.cluster.name,
          namespace: s.namespace,
          name: s.name,
          source: 'cluster',
          outcome: 'skipped',
          dryRun: false,
          patched: false,
          stored: 'skipped',
          errors: [{ stage: 'source', message: `not evaluated: ${objects.error}` }],
          warnings: [],
          notable: true,
        });
      }
    }
    report.autoscalers.push(...shard.broken);
    await Promise.all(
      shard.units.map(async (unit) => {
        if (!selected.has(unit)) return;
        report.autoscalers.push(unit.report);
        if (unit.refused) return refuse(unit);
        try {
          await evaluateUnit(unit, ctx);
        } catch (e) {
          // An unexpected throw (a bug) stays with its own autoscaler.
          unit.report.outcome = 'failed';
          unit.report.errors.push({ stage: 'reconcile', message: errorText(e) });
          unit.report.notable = true;
        }
      }),
    );
    for (const orphan of shard.orphans) {
      try {
        await deps.store.expireState(req.cluster.name, orphan, now, deadline.signal);
      } catch (e) {
        report.warnings.push(`state of ${orphan.namespace}/${orphan.name} (its object is gone) not yet marked for expiry: ${errorText(e)}`);
      }
    }
  } finally {
    deadline.dispose();
    report.autoscalers.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
    report.counts = countOutcomes(report.autoscalers);
    report.durationMs = Math.round(performance.now() - t0);
  }
  return report;
}

/** The cycle's metric reads: answered by the reads' deadline; an alarm's readers read what it evaluated. */
function readOptions(req: ShardCycleRequest, now: Date): MetricReadOptions {
  const readBy = new Date(req.deadline.getTime() - req.options.writeBudgetMs);
  if (req.trigger.kind !== 'evaluate') return { readBy };
  const alarms = new Map<string, Date>();
  for (const t of req.trigger.targets) if (t.kind === 'alarm') alarms.set(t.alarmName, t.evaluatedUntil ? new Date(t.evaluatedUntil) : now);
  return alarms.size > 0 ? { readBy, alarms } : { readBy };
}

function refuse(unit: Unit): void {
  const { report, refused } = unit;
  report.outcome = refused!.outcome;
  report.errors.push({ stage: refused!.stage, message: refused!.message });
  report.notable = true;
}

type Listed = { autoscalers: KubernetesAutoscaler[]; cloudWatchMetrics: CloudWatchMetric[] };

async function listObjects(deps: CycleDeps, req: ShardCycleRequest, deadline: Deadline, calls: ReturnType<typeof emptyCalls>): Promise<{ value: Listed } | { error: string }> {
  // With an allowlist the function may only list its namespaces (RoleBindings): those of this shard.
  const owned = new Set(bucketsOf(req.shard));
  const namespaces = req.cluster.namespaces?.filter((ns) => owned.has(bucketOf(ns)));
  if (namespaces?.length === 0) return { value: { autoscalers: [], cloudWatchMetrics: [] } };
  calls.listAutoscalerObjects++;
  const r = await settle(deadline.race('listing autoscaler objects', deps.cluster.listAutoscalerObjects(namespaces, deadline.signal), 0));
  if ('error' in r) return { error: `cannot list ServerlessHorizontalPodAutoscaler objects of cluster ${req.cluster.name}: ${r.error}` };
  return { value: r.value };
}

function byNamespace(metrics: CloudWatchMetric[]): Map<string, Map<string, CloudWatchMetric>> {
  const out = new Map<string, Map<string, CloudWatchMetric>>();
  for (const m of metrics) {
    const ns = m.metadata.namespace ?? 'default';
    if (!out.has(ns)) out.set(ns, new Map());
    out.get(ns)!.set(m.metadata.name, m);
  }
  return out;
}

/** Every CloudWatch query the selected autoscalers may make, known from their specs: one batched fetch for the cycle. */
function cloudWatchQueries(units: Unit[], cloudWatch: Map<string, Map<string, CloudWatchMetric>>, cluster: string): Extract<MetricQuery, { type: 'CloudWatch' }>[] {
  const out: Extract<MetricQuery, { type: 'CloudWatch' }>[] = [];
  for (const u of units) {
    const specMetrics: unknown = u.record.hpa.spec?.metrics;
    if (!Array.isArray(specMetrics)) continue;
    for (const m of specMetrics as { type?: unknown; external?: { metric?: { name?: unknown } } }[]) {
      const source = m?.type === 'External' ? cloudWatch.get(u.record.namespace)?.get(String(m.external?.metric?.name ?? '')) : undefined;
      if (source) out.push({ type: 'CloudWatch', cluster, namespace: u.record.namespace, source });
    }
  }
  return out;
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
