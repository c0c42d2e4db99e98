// One sync cycle over a set of clusters: load → read scales and pods → fetch all
// metrics at once → reconcile each autoscaler → record, then patch → report.
//
// Write order, per autoscaler that must rescale: the state (status, history with
// the new scale event) is saved first, conditional on the version read; only when
// that write won is /scale patched. If the patch then fails, the failure is saved
// over it. A crash between the two leaves a recorded scale event that did not
// happen, which makes the next decisions more conservative (rate policies count
// it), never a scale the history does not know about; and a lost race (someone
// changed the autoscaler meanwhile) never acts on a stale spec.
import pLimit from 'p-limit';
import { applyDefaults } from '../hpa/defaults.js';
import { completeReconcile, planReconcile, type ReconcileInput, type ReconcilePlan, type ReconcileResult } from '../hpa/reconcile.js';
import type { MetricData } from '../hpa/replica-calculator.js';
import type { ControllerSettings, Fetched, HorizontalPodAutoscaler, PodInfo, ScaleInfo } from '../hpa/types.js';
import type { CloudWatchMetric } from '../metrics/cloudwatch-types.js';
import { Deadline, DeadlineExceededError } from './deadline.js';
import { errorMetricData, planQuery, queryKey, toMetricData } from './metric-queries.js';
import {
  VersionConflictError,
  type AutoscalerRecord,
  type AutoscalerStateUpdate,
  type AutoscalerStore,
  type Clock,
  type ClusterAccess,
  type ClusterRecord,
  type ClusterSnapshot,
  type MetricAnswer,
  type MetricQuery,
  type MetricsAccess,
} from './ports.js';
import { countOutcomes, errorText, type AutoscalerReport, type ClusterReport, type CycleCalls, type CycleReport, type StageError } from './report.js';

/** The per-autoscaler dry-run annotation. */
export const DRY_RUN_ANNOTATION = 'shpa.dev/dry-run';

export interface SyncOptions {
  settings: ControllerSettings;
  /** Global dry-run: compute, log and store decisions, never patch. */
  dryRun: boolean;
  /** Concurrent API calls per cluster. */
  concurrency: number;
  /** Time that must be left to start one autoscaler's writes (save, patch, save again on failure). */
  writeBudgetMs: number;
}

export interface CycleDeps {
  store: AutoscalerStore;
  /** The cluster API for a cluster record (the caller caches clients between cycles). */
  cluster(record: ClusterRecord): ClusterAccess;
  metrics: MetricsAccess;
  clock: Clock;
}

export interface CycleRequest {
  clusters: ClusterRecord[];
  deadline: Date;
  options: SyncOptions;
}

/** One autoscaler moving through the cycle. */
interface Work {
  record: AutoscalerRecord;
  hpa: HorizontalPodAutoscaler;
  access: ClusterAccess;
  limit: ReturnType<typeof pLimit>;
  cloudWatch: Map<string, CloudWatchMetric>;
  scale?: Fetched<ScaleInfo>;
  /** Index into the cycle's distinct queries, or the metric's own error, per defaulted spec.metrics entry. */
  metrics: ({ query: number } | { data: MetricData })[];
  report: AutoscalerReport;
}

/** Selectors of the autoscalers of each cluster/namespace. */
type Selectors = Map<string, NonNullable<ReconcileInput['otherHpaSelectors']>>;

/** What every autoscaler's reconcile and writes share. */
interface SettleContext {
  deps: CycleDeps;
  options: SyncOptions;
  deadline: Deadline;
  calls: CycleCalls;
  answers: MetricAnswer[];
  pods: Map<string, Fetched<PodInfo[]>>;
  selectors: Selectors;
  /** One clock reading per cycle: the store keys history on it, so every autoscaler must see the same time. */
  now: Date;
}

export async function runCycle(deps: CycleDeps, req: CycleRequest): Promise<CycleReport> {
  const { clock } = deps;
  const started = clock.now();
  const t0 = performance.now();
  const deadline = new Deadline(req.deadline, clock);
  const calls: CycleCalls = { loadCluster: 0, getScale: 0, listPods: 0, fetchAll: 0, metricQueries: 0, updateScale: 0, saveState: 0 };
  const clusters: ClusterReport[] = [];
  const reports: AutoscalerReport[] = [];
  const work: Work[] = [];
  const pods = new Map<string, Fetched<PodInfo[]>>();

  // 1 + 2. Per cluster, in parallel: load, then every scale and each namespace's pods.
  await Promise.all(
    req.clusters.map(async (cluster) => {
      const report: ClusterReport = { name: cluster.name, autoscalers: 0 };
      clusters.push(report);
      let snapshot: ClusterSnapshot;
      let access: ClusterAccess;
      try {
        calls.loadCluster++;
        snapshot = await deadline.race(`loading cluster ${cluster.name}`, () => deps.store.loadCluster(cluster.name));
        access = deps.cluster(cluster);
      } catch (e) {
        report.error = { stage: e instanceof DeadlineExceededError ? 'deadline' : 'load', message: errorText(e) };
        return;
      }
      report.autoscalers = snapshot.autoscalers.length + snapshot.broken.length;
      for (const b of snapshot.broken) {
        reports.push({
          ...baseReport(b.cluster, b.namespace, b.name, false),
          outcome: 'broken',
          errors: [{ stage: 'load', message: b.error }],
        });
      }
      const limit = pLimit(req.options.concurrency);
      const namespaces = new Set<string>();
      const units = snapshot.autoscalers.map((record) => {
        const unit = newWork(record, access, limit, snapshot.cloudWatchMetrics, req.options.dryRun);
        reports.push(unit.report);
        namespaces.add(record.namespace);
        return unit;
      });
      await Promise.all([
        ...units.map((unit) =>
          limit(async () => {
            calls.getScale++;
            try {
              const value = await deadline.race('reading the scale', () =>
                access.getScale(unit.record.namespace, unit.hpa.spec.scaleTargetRef),
              );
              unit.scale = { value };
            } catch (e) {
              // Past the deadline the autoscaler is skipped, not failed: nothing is concluded from it.
              if (e instanceof DeadlineExceededError) fail(unit.report, 'skipped', 'deadline', e);
              else unit.scale = { error: errorText(e) };
            }
          }),
        ),
        ...[...namespaces].map((ns) =>
          limit(async () => {
            calls.listPods++;
            try {
              pods.set(podsKey(cluster.name, ns), {
                value: await deadline.race(`listing pods of ${ns}`, () => access.listPods(ns)),
              });
            } catch (e) {
              pods.set(podsKey(cluster.name, ns), { error: errorText(e) });
            }
          }),
        ),
      ]);
      work.push(...units.filter((u) => u.scale !== undefined));
    }),
  );

  // 3. Every metric of the cycle in one fetchAll, identical queries once.
  const queries: MetricQuery[] = [];
  const byKey = new Map<string, number>();
  for (const unit of work) planMetrics(unit, pods, queries, byKey);
  let answers: MetricAnswer[] = [];
  if (queries.length > 0) {
    calls.fetchAll++;
    calls.metricQueries = queries.length;
    try {
      answers = await deadline.race('fetching metrics', () => deps.metrics.fetchAll(queries, clock.now()));
      if (answers.length !== queries.length) {
        throw new Error(`metrics returned ${answers.length} answers for ${queries.length} queries`);
      }
    } catch (e) {
      if (e instanceof DeadlineExceededError) {
        for (const unit of work) fail(unit.report, 'skipped', 'deadline', e);
        work.length = 0;
      } else {
        // A metrics outage: every metric reports the error, so upstream's rules forbid scaling down on it.
        const message = `unable to fetch metrics: ${errorText(e)}`;
        answers = queries.map((q) => ({ type: q.type, result: { error: message } }) as MetricAnswer);
      }
    }
  }

  // 4 + 5. Reconcile, record, patch: per cluster's limit, each autoscaler isolated.
  const ctx: SettleContext = { deps, options: req.options, deadline, calls, answers, pods, selectors: namespaceSelectors(work), now: started };
  // An unexpected throw (a lib/hpa bug) fails its own autoscaler, never the cycle.
  await Promise.all(work.map((unit) => unit.limit(() => settle(unit, ctx).catch((e: unknown) => fail(unit.report, 'failed', 'reconcile', e)))));

  reports.sort((a, b) => key(a).localeCompare(key(b)));
  return {
    startedAt: started.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    clusters: clusters.sort((a, b) => a.name.localeCompare(b.name)),
    autoscalers: reports,
    counts: countOutcomes(reports),
    calls,
  };
}

function newWork(
  record: AutoscalerRecord,
  access: ClusterAccess,
  limit: ReturnType<typeof pLimit>,
  cloudWatchMetrics: CloudWatchMetric[],
  globalDryRun: boolean,
): Work {
  const dryRun = globalDryRun || record.hpa.metadata.annotations?.[DRY_RUN_ANNOTATION] === 'true';
  const report = baseReport(record.cluster, record.namespace, record.name, dryRun);
  let hpa = record.hpa;
  try {
    hpa = applyDefaults(record.hpa);
  } catch (e) {
    fail(report, 'failed', 'reconcile', e);
  }
  const cloudWatch = new Map(
    cloudWatchMetrics.filter((m) => (m.metadata.namespace ?? 'default') === record.namespace).map((m) => [m.metadata.name, m]),
  );
  return { record, hpa, access, limit, cloudWatch, metrics: [], report };
}

function planMetrics(unit: Work, pods: Map<string, Fetched<PodInfo[]>>, queries: MetricQuery[], byKey: Map<string, number>): void {
  if (unit.report.outcome === 'failed') return;
  const { record } = unit;
  const podList = pods.get(podsKey(record.cluster, record.namespace));
  const ctx = { cluster: record.cluster, namespace: record.namespace, scale: unit.scale!, cloudWatch: unit.cloudWatch };
  for (const spec of unit.hpa.spec.metrics ?? []) {
    const planned = planQuery(spec, ctx);
    if ('error' in planned) {
      unit.metrics.push({ data: errorMetricData(planned.answerType, planned.error) });
      continue;
    }
    // Upstream's replica calculator lists the pods first; without them pod-based metrics fail.
    if (podList?.error !== undefined && (planned.query.type === 'PodResource' || planned.query.type === 'Pods')) {
      unit.metrics.push({
        data: errorMetricData(planned.query.type, `unable to get pods while calculating replica count: ${podList.error}`),
      });
      continue;
    }
    const k = queryKey(planned.query);
    let index = byKey.get(k);
    if (index === undefined) {
      index = queries.push(planned.query) - 1;
      byKey.set(k, index);
    }
    unit.metrics.push({ query: index });
  }
}

/** Selectors of every autoscaler whose scale was read, per cluster/namespace. */
function namespaceSelectors(work: Work[]): Selectors {
  const out: Selectors = new Map();
  for (const unit of work) {
    const selector = unit.scale?.value?.selector;
    if (!selector) continue;
    const k = podsKey(unit.record.cluster, unit.record.namespace);
    const list = out.get(k) ?? [];
    list.push({ namespace: unit.record.namespace, name: unit.record.name, selector });
    out.set(k, list);
  }
  return out;
}

async function settle(unit: Work, ctx: SettleContext): Promise<void> {
  const { deps, options, deadline, calls, answers, pods, selectors, now } = ctx;
  const { record, report } = unit;
  if (report.outcome === 'failed' || report.outcome === 'skipped') return;
  const nsKey = podsKey(record.cluster, record.namespace);
  let plan: ReconcilePlan;
  try {
    const messages: string[] = [];
    const metrics = unit.metrics.map((m) => {
      if ('data' in m) return m.data;
      const answer = answers[m.query];
      if ((answer.type === 'External' || answer.type === 'CloudWatch') && answer.messages) messages.push(...answer.messages);
      return toMetricData(answer);
    });
    if (messages.length > 0) report.metricMessages = messages;
    plan = planReconcile({
      hpa: record.hpa,
      scale: unit.scale!,
      pods: pods.get(nsKey)?.value ?? [],
      metrics,
      history: record.history,
      otherHpaSelectors: (selectors.get(nsKey) ?? []).filter((s) => s.name !== record.name),
      settings: options.settings,
      now,
    });
  } catch (e) {
    fail(report, 'failed', 'reconcile', e);
    return;
  }
  report.currentReplicas = plan.decision.currentReplicas;
  const act = plan.rescale && !report.dryRun;

  if (!act) {
    const result = report.dryRun && plan.rescale ? dryRunResult(plan, record) : completeReconcile(plan);
    describe(report, result, plan.rescale ? 'dryRun' : 'unchanged');
    if (!changed(result, record)) return;
    try {
      deadline.check('saving state');
      calls.saveState++;
      await deps.store.saveState(record, update(result), now);
      report.stored = 'written';
    } catch (e) {
      storeFailure(report, e);
    }
    return;
  }

  // Record, then act (see the top of this file).
  try {
    deadline.check('writing the scale', options.writeBudgetMs);
  } catch (e) {
    fail(report, 'skipped', 'deadline', e);
    return;
  }
  const tentative = completeReconcile(plan);
  let version: number;
  try {
    calls.saveState++;
    version = await deps.store.saveState(record, update(tentative), now);
  } catch (e) {
    // Nothing was written: the decision is reported, the scale left alone.
    describe(report, tentative, 'failed');
    report.events = [];
    storeFailure(report, e);
    return;
  }
  try {
    calls.updateScale++;
    await unit.access.updateScale(record.namespace, unit.hpa.spec.scaleTargetRef, plan.desiredReplicas);
    describe(report, tentative, 'scaled');
    report.patched = true;
    report.stored = 'written';
  } catch (e) {
    const message = errorText(e);
    const result = completeReconcile(plan, message);
    describe(report, result, 'failed');
    report.errors.push({ stage: 'updateScale', message });
    try {
      calls.saveState++;
      await deps.store.saveState({ ...record, version }, update(result), now);
      report.stored = 'written';
    } catch (e2) {
      storeFailure(report, e2);
    }
  }
}

/**
 * Dry-run of a rescale: the decision and the recommendation history are kept as if it
 * acted, but no scale event is recorded (none happened) and AbleToScale says it only would have.
 */
function dryRunResult(plan: ReconcilePlan, record: AutoscalerRecord): ReconcileResult {
  const result = completeReconcile(plan);
  const status = { ...result.status };
  if (record.hpa.status?.lastScaleTime) status.lastScaleTime = record.hpa.status.lastScaleTime;
  else delete status.lastScaleTime;
  status.conditions = result.conditions.map((c) =>
    c.type === 'AbleToScale' && c.reason === 'SucceededRescale'
      ? { ...c, reason: 'DryRun', message: `dry-run: the HPA controller would update the target scale to ${plan.desiredReplicas}` }
      : c,
  );
  return {
    ...result,
    status,
    conditions: status.conditions,
    events: [],
    scaled: false,
    history: { ...result.history, scaleUpEvents: record.history.scaleUpEvents, scaleDownEvents: record.history.scaleDownEvents },
  };
}

function describe(report: AutoscalerReport, result: ReconcileResult, outcome: AutoscalerReport['outcome']): void {
  report.outcome = outcome;
  report.decision = result.decision;
  report.desiredReplicas = result.decision.desiredReplicas;
  report.conditions = result.conditions;
  report.events = result.events;
}

function changed(result: ReconcileResult, record: AutoscalerRecord): boolean {
  return result.statusChanged || JSON.stringify(result.history) !== JSON.stringify(record.history);
}

function update(result: ReconcileResult): AutoscalerStateUpdate {
  return { status: result.status, history: result.history };
}

function storeFailure(report: AutoscalerReport, e: unknown): void {
  if (e instanceof VersionConflictError) {
    report.outcome = 'conflict';
    report.stored = 'conflict';
  } else if (e instanceof DeadlineExceededError) {
    report.outcome = 'skipped';
    report.stored = 'skipped';
  } else {
    report.outcome = 'failed';
    report.stored = 'failed';
  }
  report.errors.push({ stage: e instanceof DeadlineExceededError ? 'deadline' : 'saveState', message: errorText(e) });
}

function fail(report: AutoscalerReport, outcome: 'failed' | 'skipped', stage: StageError['stage'], e: unknown): void {
  report.outcome = outcome;
  report.errors.push({ stage, message: errorText(e) });
}

function baseReport(cluster: string, namespace: string, name: string, dryRun: boolean): AutoscalerReport {
  return { cluster, namespace, name, outcome: 'unchanged', dryRun, patched: false, stored: 'unchanged', errors: [] };
}

function podsKey(cluster: string, namespace: string): string {
  return `${cluster}\u0000${namespace}`;
}

function key(r: AutoscalerReport): string {
  return `${r.cluster}\u0000${r.namespace}\u0000${r.name}`;
}
