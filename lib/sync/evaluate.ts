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
  type ScalingHistory,
  ScheduleCache,
  withScaledToZeroCondition,
} from '#hpa';
import { type CheckedMetricObjects, isObjectAnswer, isObjectQuery, metricKindsText, type MetricObject } from '#metrics';
import type { SyncOptions } from './config.js';
import { Deadline, DeadlineExceededError } from './deadline.js';
import { recordEvents, type NewEvent } from './event-log.js';
import { historyHolds } from './history-holds.js';
import { demandOf, keepDemand } from './predictive-demand.js';
import { carryShadow, observeShadow } from './shadow.js';
import { errorMetricData, metricSourceText, planQuery, toMetricData } from './metric-queries.js';
import { inFlightMs, resolvePending } from './pending.js';
import { type ClusterAccess, ClusterApiError, type LiveHpaStatus } from './ports/cluster-access.js';
import { type AutoscalerRecord, type AutoscalerStateUpdate, type AutoscalerStore, type PendingScale, VersionConflictError } from './ports/autoscaler-store.js';
import type { CycleReads } from './reads.js';
import { errorText, type AutoscalerReport, type StageError } from './report.js';
import { checkSpec, invalidSpecStatus } from './spec-check.js';
import type { SpecVersions } from './spec-versions.js';
import type { Unit } from './units.js';
import { writeBack, type WriteBackContext } from './write-back.js';
import { redactAll } from '#api';

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


/** One autoscaler's evaluation as it passes from stage to stage. */
interface Evaluation {
  unit: Unit;
  ctx: EvalContext;
  /** The spec, validated and defaulted. */
  hpa: HorizontalPodAutoscaler;
  /** "Kind/name" of the target, for messages. */
  target: string;
  scale: Fetched<ScaleInfo>;
  /** As loaded, then as settling a pending scale leaves them. */
  history: ScalingHistory;
  status: HorizontalPodAutoscalerStatus | undefined;
  pending: PendingScale | undefined;
  pendingSettled: boolean;
  /** Events of ours that go with this cycle's (a settled scale, a reset or untrusted history, the shadow). */
  extraEvents: NewEvent[];
  held: ReturnType<typeof historyHolds>;
}
/** After reading its inputs and planning. */
interface Planned extends Evaluation {
  inputs: Inputs;
  plan: ReconcilePlan;
}
/** After looking beside a live autoscaler: ready to commit. */
interface Decided extends Planned {
  /** The status as stored and shown: with the shadow's summary and each metric's source. */
  shown(status: HorizontalPodAutoscalerStatus): HorizontalPodAutoscalerStatus;
  /** Written even when unchanged (docs/store.md). */
  force: boolean;
}
type Inputs = { pods: PodInfo[]; podIndex: PodSelectorIndex; metrics: MetricData[]; messages: string[]; sources: string[] };

/**
 * The stages of one evaluation, as upstream's reconcileAutoscaler reads: validate, read the scale,
 * settle what the last cycle left pending, read inputs and plan, look beside a live autoscaler, then
 * commit the unchanged decision or rescale. Each stage returns false when the evaluation stops there.
 */
export async function evaluateUnit(unit: Unit, ctx: EvalContext): Promise<void> {
  const checked = checkSpec(unit.record.hpa, ctx.options.settings.featureGates);
  if (!checked.valid) return invalid(unit, checked.errors, ctx);
  const read = await readScale(unit, checked.hpa, ctx);
  if (!read || !settlePending(read)) return;
  noteHistory(read);
  const planned = await readAndPlan(read);
  if (!planned) return;
  const ev = await lookBeside(planned);
  if (!ev.plan.rescale || unit.report.dryRun) return commitUnchanged(ev);
  return rescale(ev);
}

/** The target's scale, read first: every later stage needs it. */
async function readScale(unit: Unit, hpa: HorizontalPodAutoscaler, ctx: EvalContext): Promise<Evaluation | undefined> {
  const { record, report } = unit;
  const ref = hpa.spec.scaleTargetRef;
  const target = `${ref.kind}/${ref.name}`;
  let scale: Fetched<ScaleInfo>;
  try {
    scale = await ctx.deadline.read(`reading the scale of ${target}`, ctx.reads.scale(record.namespace, ref));
  } catch (e) {
    skipped(report, e);
    return undefined;
  }
  const status = hpa.status;
  return {
    unit, ctx, hpa, target, scale, status,
    history: record.history,
    pending: record.pending,
    pendingSettled: false,
    extraEvents: [],
    held: historyHolds(record, hpa, ctx.options.settings, ctx.now),
  };
}

/** A scale recorded last cycle and not yet confirmed: settled from the target before deciding anything. */
function settlePending(ev: Evaluation): boolean {
  const { unit, ctx, scale } = ev;
  const { report } = unit;
  if (!ev.pending || !scale.value) return true;
  const r = resolvePending(ev.pending, scale.value, ev.history, ev.target, ctx.now, inFlightMs(ctx.periodMs, ctx.options.clusterBudgetMs));
  if (r.outcome === 'inFlight') {
    // Nothing is concluded, nothing written: a later cycle settles it.
    report.outcome = 'skipped';
    report.stored = 'skipped';
    report.currentReplicas = scale.value.specReplicas;
    report.warnings.push(r.reason);
    report.notable = true;
    return false;
  }
  ev.history = r.history;
  if (r.outcome === 'notApplied' && ev.status) {
    ev.status = { ...ev.status };
    if (r.lastScaleTime) ev.status.lastScaleTime = r.lastScaleTime;
    else delete ev.status.lastScaleTime;
  }
  if (r.event) {
    ev.extraEvents.push(r.event);
    report.warnings.push(r.event.message);
  }
  ev.pending = undefined;
  ev.pendingSettled = true;
  return true;
}

/** A reset state or an untrusted history: said in the report and as an event. */
function noteHistory(ev: Evaluation): void {
  const { record, report } = ev.unit;
  if (record.stateProblem) {
    report.warnings.push(`${record.stateProblem}; continuing from an empty history, as upstream's controller does after a restart`);
    ev.extraEvents.push({ type: 'Warning', reason: 'HistoryReset', message: `${record.stateProblem}: continuing from an empty history` });
  }
  if (ev.held.found) {
    report.warnings.push(ev.held.found);
    ev.extraEvents.push({ type: 'Warning', reason: 'HistoryUntrusted', message: ev.held.found });
  }
}

/** Pods and metrics, then lib/hpa's plan; undefined when the evaluation stops (reads failed or late, a lib/hpa bug). */
async function readAndPlan(ev: Evaluation): Promise<Planned | undefined> {
  const { unit, ctx, hpa, held } = ev;
  const { record, report } = unit;
  let inputs: Inputs;
  let plan: ReconcilePlan;
  try {
    inputs = await readInputs(unit, hpa, ev.scale, ctx);
  } catch (e) {
    skipped(report, e);
    return undefined;
  }
  if (inputs.messages.length > 0) report.metricMessages = inputs.messages;
  try {
    plan = planReconcile({
      hpa: ev.status ? { ...hpa, status: ev.status } : withoutStatus(hpa),
      scale: ev.scale,
      pods: inputs.pods,
      podIndex: inputs.podIndex,
      metrics: inputs.metrics,
      history: ev.history,
      scheduleCache,
      otherHpaSelectors: ctx.otherSelectors(record.namespace),
      settings: ctx.options.settings,
      now: ctx.now,
      ...demandOf(record),
      ...(held.why ? { holds: { ...(held.holds.up ? { up: new Date(held.holds.up) } : {}), ...(held.holds.down ? { down: new Date(held.holds.down) } : {}), why: held.why } } : {}),
    });
  } catch (e) {
    // A lib/hpa bug must fail its own autoscaler, never the cycle.
    fail(report, 'failed', 'reconcile', errorText(e));
    return undefined;
  }
  keepDemand(record, plan);
  // Each metric's source, for the decision line (a spec metric without a decision entry has none).
  plan.decision.metrics.forEach((m) => {
    const source = inputs.sources[m.index];
    if (source !== undefined) m.source = source;
  });
  report.currentReplicas = plan.decision.currentReplicas;
  return { ...ev, inputs, plan };
}

/** Beside a live autoscaler: ours against its status (dry-run), or a check that it is gone (taken over). */
async function lookBeside(ev: Planned): Promise<Decided> {
  const { unit, ctx, hpa, plan } = ev;
  const { record, report } = unit;
  const shadow = await observeShadow({ hpa, previous: record.hpa.status?.shadow, dryRun: report.dryRun, desiredReplicas: plan.desiredReplicas, now: ctx.now, read: liveHpaReader(record.namespace, ctx) });
  if (shadow.event) ev.extraEvents.push(shadow.event);
  if (shadow.warning) report.warnings.push(shadow.warning);
  if (shadow.report) {
    report.shadow = shadow.report;
    report.notable = true;
  }
  const shown = (s: HorizontalPodAutoscalerStatus) => ({
    ...(shadow.summary ? { ...s, shadow: shadow.summary } : carryShadow(s, record.hpa.status?.shadow, report.dryRun, ctx.now)),
    metricSources: ev.inputs.sources,
  });
  // While shadowing, every decision is counted in status.shadow, read back from the stored state: each one is written
  // (one write a tick, for the shadow period only), or the summary would count only the decisions that changed something.
  const force = ctx.partial || ev.pendingSettled || record.stateProblem !== undefined || record.untrustedHistory !== undefined || shadow.summary !== undefined;
  return { ...ev, shown, force };
}

/** What the store keeps of `result`: the status as shown, the history, the log and what stays pending. */
function stateOf(ev: Decided, result: ReconcileResult, pending: PendingScale | undefined): AutoscalerStateUpdate {
  const { unit, ctx, hpa, held } = ev;
  return {
    status: ev.shown(withHistoryCondition(result.status, unit.record, held.found, hpa, ctx)),
    history: result.history,
    log: logWith(unit, result, ev.extraEvents, ev.plan, ctx),
    pending,
    selector: ev.scale.value?.selector,
    holds: held.holds,
  };
}

/** Saves the state of `result`, then (for a cluster-defined autoscaler) its status and events; the version written. */
async function commit(ev: Decided, result: ReconcileResult, pending: PendingScale | undefined, version: number, force: boolean): Promise<number | undefined> {
  const update = stateOf(ev, result, pending);
  const v = await saveState(ev.unit, update, version, force, ev.ctx);
  if (v !== undefined) await writeBack(ev.unit, update.status, update.log, backTo(ev.ctx));
  return v;
}

/** No rescale (or one a dry-run holds): the decision is stored as it is. */
async function commitUnchanged(ev: Decided): Promise<void> {
  const { unit, plan, status } = ev;
  const dryRun = unit.report.dryRun && plan.rescale;
  const result = dryRun ? dryRunResult(plan, status) : completeReconcile(plan);
  describe(unit.report, result, plan.rescale ? 'dryRun' : 'unchanged', status?.conditions);
  await commit(ev, result, ev.pending, unit.record.version, ev.force);
}

/** Record, then act (see the top of this file): the spec checked unchanged, the state saved as pending, then /scale. */
async function rescale(ev: Decided): Promise<void> {
  const { unit, ctx, plan, status, scale, target } = ev;
  const { record, report } = unit;
  try {
    ctx.deadline.checkWrite(`writing the scale of ${target}`);
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
  const tentativeState = stateOf(ev, tentative, toPend);
  const version = await saveState(unit, tentativeState, record.version, true, ctx);
  if (version === undefined) {
    // Nothing was written: the decision is reported, the scale left alone.
    report.events = [];
    return;
  }
  await writeScale(ev, tentativeState, version);
}

/** PATCH /scale with the resourceVersion read; a failure is saved over the tentative state. */
async function writeScale(ev: Decided, tentative: AutoscalerStateUpdate, version: number): Promise<void> {
  const { unit, ctx, plan, status, scale } = ev;
  const { record, report } = unit;
  try {
    ctx.reads.calls.updateScale++;
    await ctx.cluster.updateScale(record.namespace, ev.hpa.spec.scaleTargetRef, plan.desiredReplicas, scale.value?.resourceVersion, ctx.deadline.signal);
    report.patched = true;
    await writeBack(unit, tentative.status, tentative.log, backTo(ctx));
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
    await commit(ev, result, undefined, version, true);
  }
}

/** How the shadow reads the live HPA: within the reads' deadline, as every other read. */
function liveHpaReader(namespace: string, ctx: EvalContext): ((name: string) => Promise<LiveHpaStatus | undefined>) | undefined {
  const get = ctx.cluster.getLiveHpa?.bind(ctx.cluster);
  if (!get) return undefined;
  return (name) => ctx.deadline.read(`reading HorizontalPodAutoscaler ${namespace}/${name}`, get(namespace, name, ctx.deadline.signal));
}

/** Pods (when a metric needs them) and every metric's data, each awaited only as far as this autoscaler needs it. */
async function readInputs(unit: Unit, hpa: HorizontalPodAutoscaler, scale: Fetched<ScaleInfo>, ctx: EvalContext): Promise<Inputs> {
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
    const [podList, metrics] = await ctx.deadline.read('reading metrics', all);
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

