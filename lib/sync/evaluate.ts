// One autoscaler through one cycle: validate its spec, read what it needs (and only that,
// so a slow call holds up only what depends on it), reconcile (lib/hpa), then write.
//
// Write order for a rescale: the spec is checked unchanged since the load; the state (status,
// history with the new scale event, and the scale as pending) is saved conditionally; only
// when that write won is /scale written, with the resourceVersion read (a `kubectl scale`
// since is a conflict, as upstream's Update of the scale). A failed write of the scale is
// saved over the tentative state; a write whose answer was lost keeps it pending, and the next
// cycle settles it from the target itself (pending.ts).
import {
  type AutoscalerSelector,
  completeReconcile,
  type Fetched,
  type HorizontalPodAutoscaler,
  type HorizontalPodAutoscalerCondition,
  type HorizontalPodAutoscalerStatus,
  type MetricData,
  type MetricSpec,
  planReconcile,
  type PodInfo,
  type PodSelectorIndex,
  type ReconcilePlan,
  type ReconcileResult,
  type ScaleInfo,
  ScheduleCache,
  withScaledToZeroCondition,
} from '#hpa';
import { isObjectAnswer, isObjectQuery, metricKindsText, type CheckedMetricObjects, type MetricObject } from '../metrics/providers/index.js';
import type { SyncOptions } from './config.js';
import { Deadline, DeadlineExceededError } from './deadline.js';
import { recordEvents, type NewEvent } from './event-log.js';
import { historyHolds } from './history-holds.js';
import { carryShadow, observeShadow } from './shadow.js';
import { errorMetricData, metricSourceText, planQuery, toMetricData } from './metric-queries.js';
import { inFlightMs, resolvePending } from './pending.js';
import { ClusterApiError, VersionConflictError, type AutoscalerRecord, type AutoscalerStateUpdate, type AutoscalerStore, type ClusterAccess, type LiveHpaStatus, type PendingScale } from './ports.js';
import type { CycleReads } from './reads.js';
import { errorText, type AutoscalerReport, type StageError } from './report.js';
import { checkSpec, invalidSpecStatus } from './spec-check.js';
import type { SpecVersions } from './spec-versions.js';
import type { Unit } from './units.js';
import { writeBack, type WriteBackContext } from './write-back.js';
import { redactAll } from '../api/redact.js';

/** Cron programs and schedule annotations, parsed once for the container's life (lib/hpa keeps no state of its own). */
const scheduleCache = new ScheduleCache();

export interface EvalContext {
  store: AutoscalerStore;
  cluster: ClusterAccess;
  reads: CycleReads;
  deadline: Deadline;
  options: SyncOptions;
  now: Date;
  periodMs: number;
  /** An evaluation between ticks: its recommendation is written even when unchanged (docs/store.md). */
  partial: boolean;
  /** Each provider's valid metric objects per namespace, by name; and why the others are not ("is invalid: …", "is refused: …"). */
  metricObjects: readonly CheckedMetricObjects[];
  /** The spec checks before a rescale, read together. */
  specVersions: SpecVersions;
  /** The last known pod selectors of the autoscalers of a namespace: one array for all of them. */
  otherSelectors(namespace: string): readonly AutoscalerSelector[];
}

/** What writing back a cluster-defined autoscaler's status and events needs of the cycle. */
const backTo = (ctx: EvalContext): WriteBackContext => ({ cluster: ctx.cluster, calls: ctx.reads.calls, signal: ctx.deadline.signal, now: ctx.now });

/** Reads end this long before the deadline, so that writes have their time. */
const readsMargin = (ctx: EvalContext) => ctx.options.writeBudgetMs;

export async function evaluateUnit(unit: Unit, ctx: EvalContext): Promise<void> {
  const { record, report } = unit;
  const checked = checkSpec(record.hpa, ctx.options.settings.featureGates);
  if (!checked.valid) return invalid(unit, checked.errors, ctx);
  const hpa = checked.hpa;
  const ref = hpa.spec.scaleTargetRef;
  const target = `${ref.kind}/${ref.name}`;

  let scale: Fetched<ScaleInfo>;
  try {
    scale = await ctx.deadline.race(`reading the scale of ${target}`, ctx.reads.scale(record.namespace, ref), readsMargin(ctx));
  } catch (e) {
    return skipped(report, e);
  }

  // A scale recorded last cycle and not yet confirmed: settle it from the target before deciding anything.
  let history = record.history;
  let status = hpa.status;
  const extraEvents: NewEvent[] = [];
  let pendingSettled = false;
  let pending: PendingScale | undefined = record.pending;
  if (pending && scale.value) {
    const r = resolvePending(pending, scale.value, history, target, ctx.now, inFlightMs(ctx.periodMs, ctx.options.clusterBudgetMs));
    if (r.outcome === 'inFlight') {
      // Nothing is concluded, nothing written: a later cycle settles it.
      report.outcome = 'skipped';
      report.stored = 'skipped';
      report.currentReplicas = scale.value.specReplicas;
      report.warnings.push(r.reason);
      report.notable = true;
      return;
    }
    history = r.history;
    if (r.outcome === 'notApplied' && status) {
      status = { ...status };
      if (r.lastScaleTime) status.lastScaleTime = r.lastScaleTime;
      else delete status.lastScaleTime;
    }
    if (r.event) {
      extraEvents.push(r.event);
      report.warnings.push(r.event.message);
    }
    pending = undefined;
    pendingSettled = true;
  }
  if (record.stateProblem) {
    report.warnings.push(`${record.stateProblem}; continuing from an empty history, as upstream's controller does after a restart`);
    extraEvents.push({ type: 'Warning', reason: 'HistoryReset', message: `${record.stateProblem}: continuing from an empty history` });
  }
  const held = historyHolds(record, hpa, ctx.options.settings, ctx.now);
  if (held.found) {
    report.warnings.push(held.found);
    extraEvents.push({ type: 'Warning', reason: 'HistoryUntrusted', message: held.found });
  }

  let inputs: { pods: PodInfo[]; podIndex: PodSelectorIndex; metrics: MetricData[]; messages: string[]; sources: string[] };
  try {
    inputs = await readInputs(unit, hpa, scale, ctx);
  } catch (e) {
    return skipped(report, e);
  }
  if (inputs.messages.length > 0) report.metricMessages = inputs.messages;

  let plan: ReconcilePlan;
  try {
    plan = planReconcile({
      hpa: status ? { ...hpa, status } : withoutStatus(hpa),
      scale,
      pods: inputs.pods,
      podIndex: inputs.podIndex,
      metrics: inputs.metrics,
      history,
      scheduleCache,
      otherHpaSelectors: ctx.otherSelectors(record.namespace),
      settings: ctx.options.settings,
      now: ctx.now,
      ...(held.why ? { holds: { ...(held.holds.up ? { up: new Date(held.holds.up) } : {}), ...(held.holds.down ? { down: new Date(held.holds.down) } : {}), why: held.why } } : {}),
    });
  } catch (e) {
    // A lib/hpa bug must fail its own autoscaler, never the cycle.
    return fail(report, 'failed', 'reconcile', errorText(e));
  }
  // Each metric's source, for the decision line (a spec metric without a decision entry has none).
  plan.decision.metrics.forEach((m) => {
    const source = inputs.sources[m.index];
    if (source !== undefined) m.source = source;
  });

  report.currentReplicas = plan.decision.currentReplicas;
  // Beside a live autoscaler: ours against its status (dry-run), or a check that it is gone (taken over).
  const shadow = await observeShadow({ hpa, previous: record.hpa.status?.shadow, dryRun: report.dryRun, desiredReplicas: plan.desiredReplicas, now: ctx.now, read: liveHpaReader(record.namespace, ctx) });
  if (shadow.event) extraEvents.push(shadow.event);
  if (shadow.warning) report.warnings.push(shadow.warning);
  if (shadow.report) {
    report.shadow = shadow.report;
    report.notable = true;
  }
  const shown = (s: HorizontalPodAutoscalerStatus) => ({
    ...(shadow.summary ? { ...s, shadow: shadow.summary } : carryShadow(s, record.hpa.status?.shadow, report.dryRun, ctx.now)),
    metricSources: inputs.sources,
  });
  const selector = scale.value?.selector;
  // While shadowing, every decision is counted in status.shadow, read back from the stored state: each one is written
  // (one write a tick, for the shadow period only), or the summary would count only the decisions that changed something.
  const force = ctx.partial || pendingSettled || record.stateProblem !== undefined || record.untrustedHistory !== undefined || shadow.summary !== undefined;
  // Saves the state of `result`, then (for a cluster-defined autoscaler) its status and events; the version written.
  const commit = async (result: ReconcileResult, p: PendingScale | undefined, version: number, forced = force): Promise<number | undefined> => {
    const update: AutoscalerStateUpdate = {
      status: shown(withHistoryCondition(result.status, record, held.found, hpa, ctx)),
      history: result.history,
      log: logWith(unit, result, extraEvents, plan, ctx),
      pending: p,
      selector,
      holds: held.holds,
    };
    const v = await saveState(unit, update, version, forced, ctx);
    if (v !== undefined) await writeBack(unit, update.status, update.log, backTo(ctx));
    return v;
  };

  if (!plan.rescale || report.dryRun) {
    const result = report.dryRun && plan.rescale ? dryRunResult(plan, status) : completeReconcile(plan);
    describe(report, result, plan.rescale ? 'dryRun' : 'unchanged', status?.conditions);
    await commit(result, pending, record.version);
    return;
  }

  // Record, then act (see the top of this file).
  try {
    ctx.deadline.check(`writing the scale of ${target}`, ctx.options.writeBudgetMs);
  } catch (e) {
    return skipped(report, e);
  }
  const changed = await specChangedSinceLoad(unit, ctx);
  if (changed) {
    describe(report, completeReconcile(plan), 'conflict', status?.conditions);
    report.events = [];
    report.retrySoon = true;
    return fail(report, 'conflict', 'check', changed);
  }
  const tentative = withScaledToZeroCondition(plan, completeReconcile(plan), ctx.options.settings.featureGates);
  const toPend: PendingScale = {
    from: plan.decision.currentReplicas ?? 0,
    to: plan.desiredReplicas,
    at: tentative.status.lastScaleTime ?? ctx.now.toISOString(),
    ...(scale.value?.resourceVersion ? { resourceVersion: scale.value.resourceVersion } : {}),
    ...(status?.lastScaleTime ? { previousScaleTime: status.lastScaleTime } : {}),
  };
  describe(report, tentative, 'scaled', status?.conditions);
  const version = await saveState(
    unit,
    { status: shown(withHistoryCondition(tentative.status, record, held.found, hpa, ctx)), history: tentative.history, log: logWith(unit, tentative, extraEvents, plan, ctx), pending: toPend, selector, holds: held.holds },
    record.version,
    true,
    ctx,
  );
  if (version === undefined) {
    // Nothing was written: the decision is reported, the scale left alone.
    report.events = [];
    return;
  }
  try {
    ctx.reads.calls.updateScale++;
    await ctx.cluster.updateScale(record.namespace, ref, plan.desiredReplicas, scale.value?.resourceVersion, ctx.deadline.signal);
    report.patched = true;
    await writeBack(unit, shown(withHistoryCondition(tentative.status, record, held.found, hpa, ctx)), logWith(unit, tentative, extraEvents, plan, ctx), backTo(ctx));
  } catch (e) {
    const message = errorText(e);
    if (e instanceof ClusterApiError && e.outcomeUnknown) {
      // The write may have happened: the state keeps it pending, and the next cycle reads the target to settle it.
      report.warnings.push(`the answer to the scale write was lost (${message}): the next cycle confirms whether it happened`);
      report.errors.push({ stage: 'updateScale', message: `${message} (outcome unknown: checked next cycle)` });
      report.outcome = 'failed';
      return;
    }
    // Upstream: FailedRescale, AbleToScale False FailedUpdateScale; a conflict is re-evaluated at once (its requeue).
    const result = completeReconcile(plan, message);
    describe(report, result, 'failed', status?.conditions);
    report.errors.push({ stage: 'updateScale', message });
    if (e instanceof ClusterApiError && e.statusCode === 409) report.retrySoon = true;
    await commit(result, undefined, version, true);
  }
}

/** How the shadow reads the live HPA: within the reads' deadline, as every other read. */
function liveHpaReader(namespace: string, ctx: EvalContext): ((name: string) => Promise<LiveHpaStatus | undefined>) | undefined {
  const get = ctx.cluster.getLiveHpa?.bind(ctx.cluster);
  if (!get) return undefined;
  return (name) => ctx.deadline.race(`reading HorizontalPodAutoscaler ${namespace}/${name}`, get(namespace, name, ctx.deadline.signal), readsMargin(ctx));
}

/** Pods (when a metric needs them) and every metric's data, each awaited only as far as this autoscaler needs it. */
async function readInputs(unit: Unit, hpa: HorizontalPodAutoscaler, scale: Fetched<ScaleInfo>, ctx: EvalContext) {
  const { record } = unit;
  const specs = hpa.spec.metrics ?? [];
  const waiting = new Set<string>();
  const track = <T>(what: string, p: Promise<T>): Promise<T> => {
    waiting.add(what);
    return p.finally(() => waiting.delete(what));
  };
  const pods = specs.some(needsPods) ? track(`the pods of namespace ${record.namespace}`, ctx.reads.pods(record.namespace)) : Promise.resolve<Fetched<PodInfo[]>>({ value: [] });
  const messages: string[] = [];
  const objects = ctx.metricObjects.map(({ provider, valid }) => ({ provider, objects: valid.get(record.namespace) ?? new Map<string, MetricObject>() }));
  const metric = async (spec: MetricSpec): Promise<MetricData> => {
    if (spec.type === 'External' && spec.external) {
      const at = `${record.namespace}/${spec.external.metric.name}`;
      for (const { provider, invalid } of ctx.metricObjects) {
        const problem = invalid.get(at);
        if (problem) return errorMetricData(provider.queryType, `${provider.kind} ${at} ${problem}`);
      }
    }
    const planned = planQuery(spec, { cluster: record.cluster, namespace: record.namespace, scale, objects });
    if ('error' in planned) return errorMetricData(planned.answerType, planned.error);
    const q = planned.query;
    if (q.type === 'PodResource' || q.type === 'Pods') {
      // Upstream's replica calculator lists the pods first; without them pod-based metrics fail.
      const list = await pods;
      if (list.error !== undefined) return errorMetricData(q.type, `unable to get pods while calculating replica count: ${list.error}`);
    }
    const objectQuery = isObjectQuery(q);
    const what = objectQuery ? `${q.source.kind} ${record.namespace}/${q.source.metadata.name}` : `the ${q.type} metric`;
    const answer = await track(what, objectQuery ? ctx.reads.objectAnswer(q) : ctx.reads.metric(q));
    if ((answer.type === 'External' || isObjectAnswer(answer)) && answer.messages) messages.push(...answer.messages);
    // Most clusters serve no external metrics API: the likelier mistake is a metric object that is missing or misnamed.
    if (q.type === 'External' && answer.type === 'External' && answer.result.error !== undefined) {
      return errorMetricData('External', `no ${metricKindsText('or')} "${q.metric.name}" in namespace ${record.namespace}, so the cluster's external metrics API was asked: ${answer.result.error}`);
    }
    return toMetricData(answer);
  };
  const all = Promise.all([pods, Promise.all(specs.map(metric))]);
  try {
    const [podList, metrics] = await ctx.deadline.race('reading metrics', all, readsMargin(ctx));
    const list = podList.value ?? [];
    const sources = specs.map((spec) => metricSourceText(spec, record.namespace, objects));
    return { pods: list, podIndex: ctx.reads.podIndex(record.namespace, list), metrics, messages, sources };
  } catch (e) {
    if (e instanceof DeadlineExceededError && waiting.size > 0) throw new DeadlineExceededError(`${[...waiting].join(', ')} answered (still waiting)`);
    throw e;
  }
}

/** Metrics whose replica count reads the pods: resource metrics, Pods metrics, and Value targets (ready pod count). */
function needsPods(m: MetricSpec): boolean {
  if (m.type === 'Resource' || m.type === 'ContainerResource' || m.type === 'Pods') return true;
  const target = m.object?.target ?? m.external?.target;
  return target?.type === 'Value';
}

async function specChangedSinceLoad(unit: Unit, ctx: EvalContext): Promise<string | undefined> {
  const { record } = unit;
  ctx.reads.calls.specChecks++;
  try {
    const now =
      record.source === 'table'
        ? await ctx.specVersions.of(record.namespace, record.name)
        : await ctx.cluster.autoscalerGeneration(record.namespace, record.name, ctx.deadline.signal).then((g) => (g === undefined ? undefined : String(g)));
    if (now === record.specVersion) return undefined;
    return now === undefined
      ? 'the autoscaler was deleted since it was read: not acted on'
      : `the spec changed since it was read (version ${record.specVersion}, now ${now}): not acted on; the new spec is evaluated next`;
  } catch (e) {
    return `could not check that the spec is unchanged (${errorText(e)}): not acted on`;
  }
}

/** Saves a state; the version written, or undefined when nothing was (the report says why). */
async function saveState(unit: Unit, update: AutoscalerStateUpdate, version: number, force: boolean, ctx: EvalContext): Promise<number | undefined> {
  const { record, report } = unit;
  try {
    ctx.reads.calls.saveState++;
    // The status goes through the logs' redaction before it is stored (conditions carry metric errors).
    const v = await ctx.store.saveState({ ...record, version }, { ...update, status: redactAll(update.status) }, ctx.now, { markerMs: ctx.now.getTime(), force, signal: ctx.deadline.signal });
    if (v !== version) report.stored = 'written';
    return v;
  } catch (e) {
    if (e instanceof VersionConflictError) {
      report.outcome = 'conflict';
      report.stored = 'conflict';
    } else if (e instanceof DeadlineExceededError || ctx.deadline.signal.aborted) {
      report.outcome = 'skipped';
      report.stored = 'skipped';
    } else {
      report.outcome = 'failed';
      report.stored = 'failed';
    }
    // Named: a bare "socket hang up" says neither what was written nor where.
    const what = e instanceof VersionConflictError ? errorText(e) : `writing the state of ${record.namespace}/${record.name} to DynamoDB (UpdateItem): ${errorText(e)}`;
    report.errors.push({ stage: ctx.deadline.signal.aborted ? 'deadline' : 'saveState', message: what });
    report.notable = true;
    return undefined;
  }
}

async function invalid(unit: Unit, errors: string[], ctx: EvalContext): Promise<void> {
  const { record, report } = unit;
  const { status, event } = invalidSpecStatus(record.hpa.status, errors, ctx.now, record.hpa.metadata.generation);
  report.outcome = 'invalid';
  report.conditions = status.conditions;
  report.errors.push({ stage: 'validate', message: errors.join('; ') });
  report.notable = true;
  const log = recordEvents(record.log ?? [], [event], ctx.now, ctx.periodMs);
  // An invalid spec still keeps the holds of a history that could not be trusted.
  const holds = record.holds && Object.fromEntries(Object.entries(record.holds).filter(([, t]) => t > ctx.now.getTime()));
  const version = await saveState(unit, { status, history: record.history, log, pending: record.pending, ...(holds ? { holds } : {}) }, record.version, false, ctx);
  if (version !== undefined) await writeBack(unit, status, log, backTo(ctx));
}

function dryRunResult(plan: ReconcilePlan, status: HorizontalPodAutoscalerStatus | undefined): ReconcileResult {
  // The decision and the recommendations are kept as if it acted, but no scale event is recorded (none happened).
  const result = completeReconcile(plan);
  const out = { ...result.status };
  if (status?.lastScaleTime) out.lastScaleTime = status.lastScaleTime;
  else delete out.lastScaleTime;
  out.conditions = result.conditions.map((c) =>
    c.type === 'AbleToScale' && c.reason === 'SucceededRescale'
      ? { ...c, reason: 'DryRun', message: `dry-run: the HPA controller would update the target scale to ${plan.desiredReplicas}` }
      : c,
  );
  // Ours: the blocked rescale leaves an event, in words that repeat (and so aggregate) while the decision stands.
  const message = `New size: ${plan.desiredReplicas}; reason: ${plan.decision.rescaleReason ?? ''}; not written: dry-run (the shpa.dev/dry-run annotation or the deploy's dryRun)`;
  return {
    ...result,
    status: out,
    conditions: out.conditions,
    events: [{ type: 'Normal', reason: 'DryRun', message }],
    scaled: false,
    history: { ...result.history, scaleUpEvents: plan.input.history.scaleUpEvents, scaleDownEvents: plan.input.history.scaleDownEvents },
  };
}

/** The log after this cycle: upstream's events, with the rescale's sizes and the rule that limited it. */
function logWith(unit: Unit, result: ReconcileResult, extra: NewEvent[], plan: ReconcilePlan, ctx: EvalContext) {
  const limited = result.conditions.find((c) => c.type === 'ScalingLimited' && c.status === 'True')?.reason;
  const events: NewEvent[] = [
    ...extra,
    ...result.events.map((e) => ({
      ...e,
      ...(e.reason === 'SuccessfulRescale' || e.reason === 'FailedRescale' ? { from: plan.decision.currentReplicas, to: plan.desiredReplicas } : {}),
      ...(limited ? { limit: limited } : {}),
    })),
  ];
  return recordEvents(unit.record.log ?? [], events, ctx.now, ctx.periodMs);
}

/**
 * Ours: HistoryIntact False while a reset or partly dropped history still matters (for the
 * longest stabilization window of the spec, or a hold), then removed.
 */
function withHistoryCondition(status: HorizontalPodAutoscalerStatus, record: AutoscalerRecord, found: string | undefined, hpa: HorizontalPodAutoscaler, ctx: EvalContext): HorizontalPodAutoscalerStatus {
  const conditions = [...(status.conditions ?? [])];
  const i = conditions.findIndex((c) => c.type === 'HistoryIntact');
  const problem = record.stateProblem
    ? { reason: 'StateReset', message: `${record.stateProblem}; the autoscaler continues from an empty history, as after a controller restart${found ? `; ${found}` : ''}` }
    : found
      ? { reason: 'HistoryUntrusted', message: found }
      : undefined;
  if (problem) {
    const cond: HorizontalPodAutoscalerCondition = {
      type: 'HistoryIntact',
      status: 'False',
      ...problem,
      lastTransitionTime: ctx.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ...(hpa.metadata.generation !== undefined ? { observedGeneration: hpa.metadata.generation } : {}),
    };
    if (i >= 0) conditions[i] = cond;
    else conditions.push(cond);
    return { ...status, conditions };
  }
  if (i < 0) return status;
  const b = hpa.spec.behavior;
  const horizonMs = 1000 * Math.max(b?.scaleUp?.stabilizationWindowSeconds ?? 0, b?.scaleDown?.stabilizationWindowSeconds ?? 0, ctx.options.settings.downscaleStabilizationWindowSeconds);
  const holdMs = Math.max(0, record.holds?.up ?? 0, record.holds?.down ?? 0) - ctx.now.getTime();
  if (ctx.now.getTime() - Date.parse(conditions[i].lastTransitionTime ?? '') < horizonMs || holdMs > 0) return status;
  conditions.splice(i, 1);
  return { ...status, conditions };
}

function withoutStatus(hpa: HorizontalPodAutoscaler): HorizontalPodAutoscaler {
  const { status: _status, ...rest } = hpa;
  return rest;
}

function describe(report: AutoscalerReport, result: ReconcileResult, outcome: AutoscalerReport['outcome'], loaded: HorizontalPodAutoscalerCondition[] | undefined): void {
  report.outcome = outcome;
  report.decision = result.decision;
  report.desiredReplicas = result.decision.desiredReplicas;
  report.conditions = result.conditions;
  report.events = result.events;
  // What stopped the evaluation (FailedGetScale, FailedGetExternalMetric, ...) is an error to see and count;
  // a failed metric among others that worked is a warning (upstream decides on the others).
  // (Described twice when a scale write fails: each warning is said once.)
  const warn = (w: string) => void (report.warnings.includes(w) || report.warnings.push(w));
  const { skipped } = result.decision;
  if (skipped && !report.errors.some((e) => e.stage === 'reconcile')) report.errors.push({ stage: 'reconcile', message: `${skipped.reason}: ${skipped.message}` });
  else for (const m of result.decision.metrics) if (m.error) warn(`${m.name}: ${m.error.reason}: ${m.error.message}`);
  const partial = report.metricMessages?.filter((m) => m.startsWith('PartialData'));
  if (partial?.length) warn(`decided on partial data: CloudWatch marked the answer PartialData, and the latest complete datapoint that came was used (${partial.join('; ')})`);
  for (const m of report.metricMessages ?? []) if (m.startsWith('NegativeValue')) warn(`decided on a negative value: ${m.slice('NegativeValue: '.length)}`);
  // A line when the decision changes something or says something new: not each tick two metrics disagree.
  if (
    result.decision.desiredReplicas !== result.decision.currentReplicas ||
    // A move a pause held is a decision too (lib/hpa/pause.ts): one line each cycle it is held.
    result.decision.steps.some((s) => s.rule === 'pauseScaleUp' || s.rule === 'pauseScaleDown') ||
    report.errors.length > 0 ||
    report.warnings.length > 0 ||
    conditionsChanged(loaded, result.conditions) ||
    winnerChanged(loaded, result.conditions)
  ) {
    report.notable = true;
  }
}

function conditionsChanged(before: HorizontalPodAutoscalerCondition[] | undefined, after: HorizontalPodAutoscalerCondition[]): boolean {
  const key = (list: HorizontalPodAutoscalerCondition[] | undefined) => JSON.stringify((list ?? []).map((c) => [c.type, c.status, c.reason]));
  return key(before) !== key(after);
}

/** Upstream's ScalingActive ValidMetricFound message names the metric the replica count came from: it changed hands. */
function winnerChanged(before: HorizontalPodAutoscalerCondition[] | undefined, after: HorizontalPodAutoscalerCondition[]): boolean {
  const winner = (list: HorizontalPodAutoscalerCondition[] | undefined) => list?.find((c) => c.type === 'ScalingActive' && c.reason === 'ValidMetricFound')?.message;
  const was = winner(before);
  const now = winner(after);
  return was !== undefined && now !== undefined && was !== now;
}

function skipped(report: AutoscalerReport, e: unknown): void {
  // Past the deadline the autoscaler is skipped, not failed: nothing is concluded from it, nothing written.
  const late = e instanceof DeadlineExceededError;
  if (late) report.stored = 'skipped';
  fail(report, late ? 'skipped' : 'failed', late ? 'deadline' : 'reconcile', errorText(e));
}

function fail(report: AutoscalerReport, outcome: AutoscalerReport['outcome'], stage: StageError['stage'], message: string): void {
  report.outcome = outcome;
  report.errors.push({ stage, message });
  report.notable = true;
}

