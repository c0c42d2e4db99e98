// One whole sync of one HPA (upstream horizontal.go reconcileAutoscaler), as a pure function.
// Phase 1 (planReconcile) runs up to the /scale write; phase 2 (completeReconcile) takes
// the write's outcome, because upstream's status, events and history depend on it.
import { checkActivation, type MetricActivation } from './activation.js';
import { normalizeLegacy, normalizeWithBehavior, recordScaleEvent, type NormalizeResult, type NormalizeRule, type NormalizeStep } from './behavior.js';
import { applyDefaults } from './api/defaults.js';
import { fallbackCondition, trackFallback, type FallbackDecision, type FallbackOutcome } from './fallback.js';
import { parseGroupVersion } from './api/name-rules.js';
import { pauseCondition, pauseState, type Direction, type PauseState } from './pause.js';
import { parseQuantity, toFloat } from './api/quantity.js';
import { computeReplicasForMetric, type MetricData, type MetricOutcome, type ReplicaCalcContext } from './replica-calculator.js';
import { PodSelectorIndex, type AutoscalerSelector } from './pod-index.js';
import { ScheduleCache, scheduleCondition, scheduledMinimum, type ScheduledMinimum } from './schedules.js';
import { learnDemand, predictiveCondition, predictiveFloor, readPredictive, type PredictiveReading } from './predictive.js';
import type { DemandHistory } from './forecast.js';
import type {
  ConditionStatus,
  ControllerSettings,
  Fetched,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerConditionType,
  HorizontalPodAutoscalerStatus,
  MetricSpec,
  MetricStatus,
  MetricTarget,
  MetricValueStatus,
  PodInfo,
  ScaleInfo,
  ScalingHistory,
  Tolerances,
} from './types.js';

export interface ReconcileInput {
  /** As stored: validated; API defaults are applied inside (idempotent). */
  hpa: HorizontalPodAutoscaler;
  /** The target's scale subresource, or the error reading it. */
  scale: Fetched<ScaleInfo>;
  /** Pods of the HPA's namespace (or already selected); the scale's selector picks among them. */
  pods: PodInfo[];
  /** Metric values aligned by index with the defaulted spec.metrics. */
  metrics: MetricData[];
  history: ScalingHistory;
  /**
   * The HPAs of the controller with their last seen selectors: another one selecting any of our
   * pods makes the selector ambiguous. Our own entry and other namespaces' are skipped, so a
   * cycle passes one array per namespace, the same for each of its HPAs (worked out once).
   */
  otherHpaSelectors?: readonly AutoscalerSelector[];
  /** `pods` with each selector's matches worked out once for the namespace (optional: a cycle's shortcut). */
  podIndex?: PodSelectorIndex;
  settings: ControllerSettings;
  now: Date;
  /**
   * Ours: directions held still until these times, with why (a stored history that could not be
   * trusted, lib/sync/history-holds.ts). Upstream has no such input.
   */
  holds?: { up?: Date; down?: Date; why: string };
  /** Ours: what reading min-replica schedules keeps between syncs; one per caller (a worker), reused each sync. */
  scheduleCache?: ScheduleCache;
  /**
   * Ours (spec.predictive): the demand learned so far (lib/hpa/forecast.ts), owned by the caller: updated in
   * place with this sync's recommendation and returned as ReconcileResult.demand. Ignored without spec.predictive.
   */
  demand?: DemandHistory;
}

export interface HpaEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** What the sync decided for one metric. */
export interface MetricDecision {
  index: number;
  type: string;
  /** e.g. "cpu", "qps", or upstream's metric description. */
  name: string;
  target?: MetricTarget;
  current?: MetricValueStatus;
  proposal?: number;
  timestamp?: string;
  error?: { reason: string; message: string };
  /** Where the value was read (metrics.k8s.io, a CloudWatchMetric, a PrometheusMetric…): set by the caller, which read it. */
  source?: string;
  /** KEP-5679: the metric's fallback state, when it configures one (proposal is then the fallback count while active). */
  fallback?: FallbackDecision;
  /** Ours: at zero replicas, the metric's activation threshold and whether its value is above it (lib/hpa/activation.ts). */
  activation?: MetricActivation;
}

/** The explanation of one sync: logged as one line per autoscaler per cycle. */
export interface Decision {
  currentReplicas?: number;
  metrics: MetricDecision[];
  /** The max over valid metrics, before normalization. */
  recommendation?: number;
  /** Which metric gave the recommendation. */
  winner?: string;
  /** Each stabilization/policy/clamp step that changed it. */
  steps: NormalizeStep[];
  desiredReplicas: number;
  rescale: boolean;
  rescaleReason?: string;
  /** Why nothing was computed (e.g. FailedGetScale, ScalingDisabled, InvalidSelector). */
  skipped?: { reason: string; message: string };
  /** Ours, with spec.predictive: the forecast minimum (replicas when it acts, else why not) and whether it was applied. */
  predictive?: PredictiveDecision;
}

/** The forecast at one sync, as the decision line and `shpa describe` show it. */
export interface PredictiveDecision {
  mode: 'ForecastOnly' | 'ForecastAndScale';
  /** The predictive minimum, when the forecast acts. */
  replicas?: number;
  /** NotEnoughHistory, NoPattern or NotWorthActing when it does not act. */
  reason?: string;
  horizonSeconds: number;
  historySeconds: number;
  /** It raised the minimum of this sync. */
  applied: boolean;
}

/** Phase 1: everything up to writing the scale. */
export interface ReconcilePlan {
  input: ReconcileInput;
  /** The replica count to write through /scale when rescale is true. */
  desiredReplicas: number;
  rescale: boolean;
  decision: Decision;
  readonly state: PlanState;
}

export interface ReconcileResult {
  status: HorizontalPodAutoscalerStatus;
  history: ScalingHistory;
  events: HpaEvent[];
  /** The scale subresource was written successfully. */
  scaled: boolean;
  /** status differs from the input status by value. */
  statusChanged: boolean;
  conditions: HorizontalPodAutoscalerCondition[];
  decision: Decision;
  /** Ours, with spec.predictive: the demand history with this sync's recommendation learned (the input's, updated). */
  demand?: DemandHistory;
}

/** The conditions being written, with the time and generation each is set at. */
export interface ConditionDraft {
  conditions: HorizontalPodAutoscalerCondition[];
  now: Date;
  /** `now` as upstream writes it: Date#toISOString is slow enough to matter at thousands of syncs, so once per sync. */
  nowIso: string;
  generation: number | undefined;
}

/** Carried from phase 1 to phase 2. */
interface PlanState extends ConditionDraft {
  hpa: HorizontalPodAutoscaler;
  events: HpaEvent[];
  history: ScalingHistory;
  /** Replicas read from the scale (undefined when reading it failed). */
  currentReplicas?: number;
  metricStatuses?: MetricStatus[];
  /** Stop after phase 1: status keeps its desiredReplicas (upstream returns early). */
  earlyExit: boolean;
  /** Ours: the demand learned, with spec.predictive. */
  demand?: DemandHistory;
}

const zeroStatus: HorizontalPodAutoscalerStatus = { currentReplicas: 0, desiredReplicas: 0 };

/** Input the library cannot act on (a corrupt stored history, a malformed tolerance): names the HPA and the field. */
export class ReconcileInputError extends Error {
  override readonly name = 'ReconcileInputError';
  constructor(
    readonly hpa: string,
    message: string,
  ) {
    super(`${hpa}: ${message}`);
  }
}

export function planReconcile(input: ReconcileInput): ReconcilePlan {
  try {
    return plan(input);
  } catch (e) {
    const m = input.hpa?.metadata;
    throw new ReconcileInputError(`${m?.namespace ?? 'default'}/${m?.name ?? '?'}`, errorText(e));
  }
}

/** The plan record: what upstream's reconcileAutoscaler keeps in locals, passed from stage to stage. */
interface PlanRecord {
  readonly input: ReconcileInput;
  readonly state: PlanState;
  readonly decision: Decision;
  /** Ours: pause annotations and scheduled minimums, both read against `now` only. */
  readonly pause: PauseState;
  readonly scheduled: ScheduledMinimum | undefined;
  /** Ours: the forecast of spec.predictive. */
  readonly predictive: PredictiveReading | undefined;
  currentReplicas: number;
  /** spec.maxReplicas, or a forecast minimum above it with IncreaseMaxReplicas. */
  maxReplicas: number;
  /** spec.minReplicas, or an open window's higher minimum. */
  minReplicas: number;
  /** The window that raised the minimum, by name. */
  raisedBy?: string;
  /** The forecast raised the minimum (above spec.minReplicas and any open window). */
  predicted?: boolean;
  desiredReplicas: number;
  rescaleReason: string;
  rescale: boolean;
  /** The recommendation before holds: what ScalingPaused says the target would scale to. */
  recommended?: number;
}

/**
 * Upstream reconcileAutoscaler's order, one stage per step: read the scale, the minimum (ours: a
 * window's), then either a limit (disabled at zero, above max, below min) or the metrics, activation
 * (ours), the window's minimum (ours), normalization and the holds (ours: pause, untrusted history).
 */
function plan(input: ReconcileInput): ReconcilePlan {
  const p = openPlan(input);
  const read = readScale(p);
  if ('error' in read) return stopPlan(p, 'FailedGetScale', read.error);
  applyMinimum(p);
  applyPredictiveMinimum(p);
  const specMinReplicas = p.state.hpa.spec.minReplicas ?? 1;
  if (p.currentReplicas === 0 && specMinReplicas !== 0 && !scaledToZeroByUs(input.hpa.status)) {
    disableScaling(p);
  } else if (p.currentReplicas > p.maxReplicas) {
    clampToMaximum(p);
  } else if (p.currentReplicas < p.minReplicas) {
    raiseToMinimum(p);
  } else {
    const computed = computeReplicasForMetrics(input, p.state.hpa, read.scale, p.state, p.decision);
    if (computed === undefined) {
      const skipped = p.decision.skipped;
      p.state.events.push({ type: 'Warning', reason: 'FailedComputeMetricsReplicas', message: skipped?.message ?? '' });
      return stopPlan(p, skipped?.reason ?? 'FailedComputeMetricsReplicas', skipped?.message ?? '');
    }
    learnFromMetrics(p);
    const rescaleMetric = proposeFromMetrics(p, computed);
    holdAtZero(p);
    applyScheduledMinimum(p);
    nameRescaleReason(p, rescaleMetric);
    normalizeRecommendation(p);
    holdStill(p, [...holdsOfPause(p.pause), ...holdsOfHistory(input.holds)]);
  }
  if (p.rescale && p.recommended === undefined) {
    // Upstream's min/max clamps: a pause holds them too (a history hold does not: upstream's limits never apply to them).
    p.recommended = p.desiredReplicas;
    holdStill(p, holdsOfPause(p.pause));
  }
  return closePlan(p);
}

/** Stage 0: the defaulted spec, the state carried to phase 2, our pause and schedule readings. */
function openPlan(input: ReconcileInput): PlanRecord {
  const now = input.now;
  const hpa = applyDefaults(input.hpa);
  const state: PlanState = {
    hpa,
    conditions: (input.hpa.status?.conditions ?? []).map((c) => ({ ...c })),
    now,
    nowIso: now.toISOString(),
    generation: hpa.metadata.generation,
    events: [],
    history: {
      recommendations: input.history.recommendations,
      scaleUpEvents: input.history.scaleUpEvents,
      scaleDownEvents: input.history.scaleDownEvents,
    },
    earlyExit: false,
  };
  if (hpa.spec.predictive) state.demand = input.demand;
  const decision: Decision = { metrics: [], steps: [], desiredReplicas: hpa.status?.desiredReplicas ?? 0, rescale: false };
  const pause = pauseState(hpa.metadata.annotations, now);
  const scheduled = scheduledMinimum(hpa, now, input.scheduleCache);
  const predictive = readPredictive(hpa, state.demand, now);
  const maxReplicas = hpa.spec.maxReplicas;
  return { input, state, decision, pause, scheduled, predictive, currentReplicas: 0, minReplicas: 0, maxReplicas, desiredReplicas: 0, rescaleReason: '', rescale: true };
}

/** Upstream: an unparsable scaleTargetRef.apiVersion or a failed scale read → AbleToScale False FailedGetScale. */
function readScale(p: PlanRecord): { scale: ScaleInfo } | { error: string } {
  const { state, input } = p;
  const gv = parseGroupVersion(state.hpa.spec.scaleTargetRef.apiVersion ?? '');
  const scaleError = ('error' in gv ? gv.error : undefined) ?? input.scale.error;
  if (scaleError !== undefined || input.scale.value === undefined) {
    const message = scaleError ?? 'scale not available';
    state.events.push({ type: 'Warning', reason: 'FailedGetScale', message });
    setCondition(state, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${message}`);
    return { error: message };
  }
  const scale = input.scale.value;
  setCondition(state, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
  p.currentReplicas = scale.specReplicas;
  state.currentReplicas = scale.specReplicas;
  p.decision.currentReplicas = scale.specReplicas;
  // Upstream recordInitialRecommendation: seed the history with the current size.
  const recommendations = state.history.recommendations ?? [{ timestamp: state.nowIso, replicas: scale.specReplicas }];
  state.history = { ...state.history, recommendations };
  return { scale };
}

/**
 * An open window raises the minimum everywhere upstream reads it, but not the "scaled to zero by
 * hand" check: that stays spec.minReplicas, so a window never re-enables a target switched off.
 */
function applyMinimum(p: PlanRecord): void {
  p.minReplicas = p.scheduled?.minReplicas ?? p.state.hpa.spec.minReplicas ?? 1;
  p.raisedBy = p.scheduled?.raisedBy?.schedule.name;
}

/**
 * Ours (spec.predictive, ForecastAndScale): the forecast minimum raises the minimum as an open window does; it
 * never lowers it. With IncreaseMaxReplicas a forecast above maxReplicas raises the maximum with it.
 */
function applyPredictiveMinimum(p: PlanRecord): void {
  const r = p.predictive;
  if (!r) return;
  const floor = predictiveFloor(r);
  const m = r.minimum;
  const applied = floor !== undefined && floor > p.minReplicas;
  p.decision.predictive = {
    mode: r.spec.mode,
    ...(m.acting ? { replicas: m.replicas } : { reason: m.reason }),
    horizonSeconds: r.spec.schedulingBufferSeconds,
    historySeconds: Math.floor(m.historySeconds),
    applied,
  };
  if (!applied) return;
  p.minReplicas = floor;
  p.maxReplicas = Math.max(p.maxReplicas, floor);
  p.raisedBy = undefined;
  p.predicted = true;
}

/** Ours (spec.predictive): this sync's recommendation, before behavior, enters the demand history. */
function learnFromMetrics(p: PlanRecord): void {
  if (p.predictive) p.state.demand = learnDemand(p.state.hpa, p.state.demand, p.input.now, p.decision.recommendation);
}

/**
 * Upstream: a target scaled to zero by hand disables autoscaling; one the HPA scaled to zero
 * (ScaledToZero True, 1.37 canScaleFromZero, kubernetes/kubernetes#135118) is scaled back up to minReplicas.
 */
function disableScaling(p: PlanRecord): void {
  p.rescale = false;
  setCondition(p.state, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
  p.decision.skipped = { reason: 'ScalingDisabled', message: 'the replica count of the target is zero' };
}

function clampToMaximum(p: PlanRecord): void {
  const { maxReplicas } = p;
  p.rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
  p.desiredReplicas = maxReplicas;
  p.decision.steps.push({ rule: 'maxReplicas', from: p.currentReplicas, to: maxReplicas });
}

/**
 * Upstream's below-minimum path, for a window's minimum too: straight to it, past the scale-up policies,
 * as a raised spec.minReplicas would (a scheduled minimum is there to be in place when the window opens).
 */
function raiseToMinimum(p: PlanRecord): void {
  const { raisedBy } = p;
  p.rescaleReason = raisedBy ? `Current number of replicas below the minimum of window ${raisedBy}` : 'Current number of replicas below Spec.MinReplicas';
  if (p.predicted) p.rescaleReason = 'Current number of replicas below the predictive minimum';
  p.desiredReplicas = p.minReplicas;
  if (p.predicted) p.decision.steps.push({ rule: 'predictive', from: p.currentReplicas, to: p.minReplicas, detail: predictiveDetail(p) });
  else p.decision.steps.push({ rule: raisedBy ? 'schedule' : 'minReplicas', from: p.currentReplicas, to: p.minReplicas, ...(raisedBy ? { detail: raisedBy } : {}) });
}

/** The decision step's detail of a floor the forecast raised: "forecast for the next 300 s". */
function predictiveDetail(p: PlanRecord): string {
  return `forecast for the next ${p.predictive?.spec.schedulingBufferSeconds ?? 0} s`;
}

/** The metrics' proposal becomes the desired count; returns the metric that gave it ('' when none raised it). */
function proposeFromMetrics(p: PlanRecord, computed: { replicas: number; metric: string }): string {
  if (computed.replicas <= p.desiredReplicas) return '';
  p.desiredReplicas = computed.replicas;
  return computed.metric;
}

/** Ours: at zero replicas, the activation thresholds can hold the target there. */
function holdAtZero(p: PlanRecord): void {
  if (p.currentReplicas === 0 && !activated(p)) p.desiredReplicas = 0;
}

/**
 * Ours: the window's minimum enters the recommendation recorded for stabilization, so that when it
 * closes the scale-down window and policies govern the way down, as for any drop of the metrics.
 */
function applyScheduledMinimum(p: PlanRecord): void {
  if ((!p.raisedBy && !p.predicted) || p.desiredReplicas >= p.minReplicas) return;
  // Ours: a forecast minimum likewise (the way down after a predicted peak is the ordinary behavior).
  if (p.predicted) p.decision.steps.push({ rule: 'predictive', from: p.desiredReplicas, to: p.minReplicas, detail: predictiveDetail(p) });
  else p.decision.steps.push({ rule: 'schedule', from: p.desiredReplicas, to: p.minReplicas, detail: p.raisedBy ?? '' });
  p.desiredReplicas = p.minReplicas;
}

function nameRescaleReason(p: PlanRecord, rescaleMetric: string): void {
  if (p.desiredReplicas > p.currentReplicas) p.rescaleReason = `${rescaleMetric} above target`;
  if (p.desiredReplicas < p.currentReplicas) p.rescaleReason = 'All metrics below target';
}

/** Upstream normalizeDesiredReplicas(WithBehaviors): stabilization, policies, limits, and their conditions. */
function normalizeRecommendation(p: PlanRecord): void {
  const { state } = p;
  const normalized = normalize(state.hpa, p.input, state, p.currentReplicas, p.desiredReplicas, p.minReplicas, p.maxReplicas);
  if (normalized.stabilized) {
    setCondition(state, 'AbleToScale', 'True', normalized.stabilized.reason, normalized.stabilized.message);
  } else {
    setCondition(state, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');
  }
  setCondition(state, 'ScalingLimited', normalized.limited.status, normalized.limited.reason, normalized.limited.message);
  state.history = { ...state.history, recommendations: normalized.recommendations };
  p.decision.steps.push(...normalized.steps);
  p.desiredReplicas = normalized.replicas;
  p.recommended = normalized.replicas;
}

/** Ours: the move of a held direction is not written; the decision says what it would have been. */
function holdStill(p: PlanRecord, holds: Hold[]): void {
  const held = heldStill(holds, p.input.now, p.currentReplicas, p.desiredReplicas);
  if (held) {
    p.decision.steps.push({ rule: held.rule, from: p.desiredReplicas, to: p.currentReplicas, detail: held.until });
    if (held.limits) setCondition(p.state, 'ScalingLimited', 'True', 'HistoryUntrusted', held.limits);
    p.desiredReplicas = p.currentReplicas;
  }
  p.rescale = p.desiredReplicas !== p.currentReplicas;
}

/** Upstream's early return (status keeps its desiredReplicas), with our conditions noted. */
function stopPlan(p: PlanRecord, reason: string, message: string): ReconcilePlan {
  const { input, state, decision } = p;
  noteOurConditions(p, undefined);
  state.earlyExit = true;
  decision.skipped = { reason, message };
  return { input, desiredReplicas: decision.desiredReplicas, rescale: false, decision, state };
}

function closePlan(p: PlanRecord): ReconcilePlan {
  const { input, state, decision, rescale, desiredReplicas } = p;
  noteOurConditions(p, p.recommended ?? p.currentReplicas);
  decision.desiredReplicas = rescale ? desiredReplicas : p.currentReplicas;
  decision.rescale = rescale;
  if (rescale) decision.rescaleReason = p.rescaleReason;
  return { input, desiredReplicas, rescale, decision, state };
}

/** At zero replicas: false when the spec's activation thresholds hold the target there (a step and ScalingActive say so). */
function activated(p: PlanRecord): boolean {
  const { decision, input } = p;
  const byIndex = new Map(decision.metrics.map((m) => [m.index, m]));
  const check = checkActivation(
    (p.state.hpa.spec.metrics ?? []).map((spec, i) => {
      const entry = byIndex.get(i);
      return { spec, data: input.metrics[i] ?? {}, proposal: entry?.proposal, name: entry?.name ?? `metric ${i}`, fellBack: entry?.fallback?.status === 'Fallback' };
    }),
  );
  if (check === undefined) return true;
  for (const [i, a] of check.metrics) {
    const entry = byIndex.get(i);
    if (entry) entry.activation = a;
  }
  if (check.active) return true;
  decision.steps.push({ rule: 'activation', from: decision.recommendation ?? 0, to: 0, detail: check.message });
  setCondition(p.state, 'ScalingActive', 'True', 'BelowActivationThreshold', check.message);
  return false;
}

/** A direction held still (until a time, or with no expiry); `limits` is the ScalingLimited message a held move sets. */
interface Hold {
  direction: Direction;
  until?: Date;
  rule: Extract<NormalizeRule, 'historyHoldUp' | 'historyHoldDown' | 'pauseScaleUp' | 'pauseScaleDown'>;
  limits?: (until: string) => string;
}

/** Ours: the directions of an untrusted history held still (lib/sync/history-holds.ts). */
function holdsOfHistory(holds: ReconcileInput['holds']): Hold[] {
  if (!holds) return [];
  return (['up', 'down'] as const).flatMap((d): Hold[] => {
    const until = holds[d];
    return until ? [{ direction: d, until, rule: d === 'up' ? 'historyHoldUp' : 'historyHoldDown', limits: (at: string) => `scale ${d} held until ${at}: ${holds.why}` }] : [];
  });
}

/** Ours: the paused directions (lib/hpa/pause.ts). */
function holdsOfPause(pause: PauseState): Hold[] {
  return (['up', 'down'] as const).flatMap((d): Hold[] => {
    const p = pause.active[d];
    return p ? [{ direction: d, ...(p.until ? { until: p.until } : {}), rule: d === 'up' ? 'pauseScaleUp' : 'pauseScaleDown' }] : [];
  });
}

/** The first hold of the direction of a move, in force at `now`: the rule, until when, and the ScalingLimited message. */
function heldStill(holds: Hold[], now: Date, current: number, desired: number): { rule: Hold['rule']; until: string; limits?: string } | undefined {
  const dir = desired > current ? 'up' : desired < current ? 'down' : undefined;
  const hold = holds.find((h) => h.direction === dir && (!h.until || h.until.getTime() > now.getTime()));
  if (!hold) return undefined;
  const at = hold.until ? hold.until.toISOString() : 'no expiry';
  return { rule: hold.rule, until: at, ...(hold.limits ? { limits: hold.limits(at) } : {}) };
}

/** Ours: ScalingPaused, ScheduledMinimum and PredictiveMinimum with their events, only on an autoscaler that uses them. */
function noteOurConditions(p: PlanRecord, wouldScaleTo: number | undefined): void {
  const { input, state, pause, scheduled } = p;
  const previous = (type: HorizontalPodAutoscalerConditionType) => input.hpa.status?.conditions?.find((c) => c.type === type);
  const paused = pauseCondition(pause, previous('ScalingPaused'), state.currentReplicas, wouldScaleTo);
  const specMin = state.hpa.spec.minReplicas ?? 1;
  const windows = scheduleCondition(scheduled, specMin, previous('ScheduledMinimum'));
  const predicted = predictiveCondition(p.predictive, scheduled?.minReplicas ?? specMin, previous('PredictiveMinimum'));
  for (const [type, c] of [['ScalingPaused', paused], ['ScheduledMinimum', windows], ['PredictiveMinimum', predicted]] as const) {
    if (!c) continue;
    setCondition(state, type, c.condition.status, c.condition.reason, c.condition.message);
    state.events.push(...c.events);
  }
}

/** Pure: the plan is left as it was, so one plan can be completed both ways. */
export function completeReconcile(plan: ReconcilePlan, scaleWriteError?: string): ReconcileResult {
  const { input } = plan;
  const decision = { ...plan.decision };
  const state = { ...plan.state, conditions: plan.state.conditions.map((c) => ({ ...c })) };
  const now = input.now;
  const generation = input.hpa.metadata.generation;
  const oldStatus = input.hpa.status;
  const events = [...state.events];
  let history = state.history;
  let status: HorizontalPodAutoscalerStatus;
  let scaled = false;

  if (state.earlyExit) {
    // Upstream updates only the conditions, plus current replicas and metrics once the scale was read.
    status = { ...(oldStatus ?? zeroStatus), conditions: state.conditions };
    if (state.currentReplicas !== undefined) {
      status = withReplicasAndMetrics(status, state.currentReplicas, status.desiredReplicas, state.metricStatuses);
    }
  } else {
    const currentReplicas = state.currentReplicas ?? 0;
    const base = { ...(oldStatus ?? zeroStatus), conditions: state.conditions };
    if (plan.rescale && scaleWriteError !== undefined) {
      events.push({
        type: 'Warning',
        reason: 'FailedRescale',
        message: `New size: ${plan.desiredReplicas}; reason: ${decision.rescaleReason ?? ''}; error: ${scaleWriteError}`,
      });
      setCondition(state, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${scaleWriteError}`);
      status = withReplicasAndMetrics(base, currentReplicas, base.desiredReplicas, state.metricStatuses);
      decision.desiredReplicas = base.desiredReplicas;
    } else if (plan.rescale) {
      setCondition(state, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${plan.desiredReplicas}`);
      events.push({ type: 'Normal', reason: 'SuccessfulRescale', message: `New size: ${plan.desiredReplicas}; reason: ${decision.rescaleReason ?? ''}` });
      history = { ...history, ...recordScaleEvent(history, state.hpa.spec.behavior, currentReplicas, plan.desiredReplicas, now) };
      status = withReplicasAndMetrics(base, currentReplicas, plan.desiredReplicas, state.metricStatuses);
      status.lastScaleTime = state.nowIso;
      scaled = true;
    } else {
      status = withReplicasAndMetrics(base, currentReplicas, currentReplicas, state.metricStatuses);
    }
  }
  // Upstream 1.37 (HPAGeneration, kubernetes/kubernetes#138228): the generation this status was computed from.
  if (generation !== undefined) status.observedGeneration = generation;
  status = compactStatus(status);
  return {
    status,
    history,
    events,
    scaled,
    statusChanged: !statusEqual(oldStatus, status),
    conditions: status.conditions ?? [],
    decision,
    ...(state.demand ? { demand: state.demand } : {}),
  };
}

/** Both phases, for callers that know the write outcome up front (tests, simulator). */
export function reconcile(input: ReconcileInput, scaleWriteError?: string): ReconcileResult {
  return completeReconcile(planReconcile(input), scaleWriteError);
}

// ---- internals ----

/** Upstream computeReplicasForMetrics; undefined when the HPA cannot act (decision.skipped says why). */
function computeReplicasForMetrics(
  input: ReconcileInput,
  hpa: HorizontalPodAutoscaler,
  scale: ScaleInfo,
  state: PlanState,
  decision: Decision,
): { replicas: number; metric: string } | undefined {
  const pods = selectPods(input, hpa, scale, state, decision);
  if (pods === undefined) return undefined;
  const ctx: MetricContext = {
    namespace: hpa.metadata.namespace ?? 'default',
    currentReplicas: scale.specReplicas,
    statusReplicas: scale.statusReplicas,
    pods,
    tolerances: tolerancesFor(hpa, input.settings),
    cpuInitializationPeriodSeconds: input.settings.cpuInitializationPeriodSeconds,
    initialReadinessDelaySeconds: input.settings.initialReadinessDelaySeconds,
    now: input.now,
  };
  const specs = hpa.spec.metrics ?? [];
  const tally: MetricTally = { replicas: 0, metric: '', invalid: 0, statuses: specs.map(() => ({ type: '' })), fallbacks: [] };
  const podNames = new Set(pods.map((p) => p.name));
  specs.forEach((spec, i) => tallyMetric(input, specs, i, onlySelectedPods(input.metrics[i] ?? {}, podNames), ctx, tally, state, decision));
  state.metricStatuses = tally.statuses;
  decision.recommendation = tally.invalid < specs.length ? tally.replicas : undefined;

  // Upstream: all metrics invalid, or some invalid while the rest would scale down → do nothing.
  if (tally.invalid >= specs.length || (tally.invalid > 0 && tally.replicas < scale.specReplicas)) {
    const first = tally.firstInvalid ?? { reason: 'InvalidMetricSourceType', message: 'no metrics', error: 'no metrics' };
    setCondition(state, 'ScalingActive', 'False', first.reason, first.message);
    setFallbackCondition(state, tally.fallbacks);
    decision.skipped = {
      reason: first.reason,
      message: `invalid metrics (${tally.invalid} invalid out of ${specs.length}), first error is: ${first.error}`,
    };
    decision.winner = undefined;
    return undefined;
  }
  setCondition(state, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${tally.metric}`);
  setFallbackCondition(state, tally.fallbacks);
  return { replicas: tally.replicas, metric: tally.metric };
}

type MetricContext = ReplicaCalcContext;

/** The metrics' proposals so far: the highest and its metric, the invalid ones, the statuses and fallbacks. */
interface MetricTally {
  replicas: number;
  metric: string;
  invalid: number;
  firstInvalid?: Extract<MetricOutcome, { ok: false }>;
  statuses: MetricStatus[];
  fallbacks: FallbackOutcome[];
}

/** Upstream validateAndParseSelector: missing, unparsable, or shared with another HPA (ScalingActive False says which). */
function selectPods(input: ReconcileInput, hpa: HorizontalPodAutoscaler, scale: ScaleInfo, state: PlanState, decision: Decision): PodInfo[] | undefined {
  const fail = (reason: string, message: string, conditionMessage = message) => {
    setCondition(state, 'ScalingActive', 'False', reason, conditionMessage);
    decision.skipped = { reason, message };
    return undefined;
  };
  if (scale.selector === '') {
    state.events.push({ type: 'Warning', reason: 'SelectorRequired', message: 'selector is required' });
    return fail('InvalidSelector', 'selector is required', "the HPA target's scale is missing a selector");
  }
  const index = input.podIndex ?? new PodSelectorIndex(input.pods);
  let pods: PodInfo[];
  try {
    pods = index.select(scale.selector);
  } catch (e) {
    const message = `couldn't convert selector into a corresponding internal selector object: ${errorText(e)}`;
    state.events.push({ type: 'Warning', reason: 'InvalidSelector', message });
    return fail('InvalidSelector', message);
  }
  const namespace = hpa.metadata.namespace ?? 'default';
  const others = selectingHpas(input, namespace, pods, index);
  if (others.length > 0) {
    const keys = [`${namespace}/${hpa.metadata.name}`, ...others].join(' ');
    const message = `pods by selector ${scale.selector} are controlled by multiple HPAs: [${keys}]`;
    state.events.push({ type: 'Warning', reason: 'AmbiguousSelector', message });
    return fail('AmbiguousSelector', message);
  }
  return pods;
}

/** One metric: its proposal (or its KEP-5679 fallback count), status, decision entry and events, into the tally. */
function tallyMetric(
  input: ReconcileInput,
  specs: MetricSpec[],
  i: number,
  data: MetricData,
  ctx: MetricContext,
  tally: MetricTally,
  state: PlanState,
  decision: Decision,
): void {
  const spec = specs[i];
  const outcome = computeReplicasForMetric(spec, ctx, data);
  const entry = describeMetric(spec, i);
  decision.metrics.push(entry);
  const fallback = trackFallback(specs, i, outcome, input.hpa.status?.currentMetrics, input.now, input.settings.featureGates.HPAExternalMetricFallback);
  if (fallback) {
    tally.statuses[i] = fallback.status;
    if (fallback.decision) {
      entry.fallback = fallback.decision;
      tally.fallbacks.push(fallback);
    }
  }
  if (!outcome.ok) {
    entry.error = { reason: outcome.reason, message: outcome.message };
    state.events.push({ type: 'Warning', reason: outcome.reason, message: outcome.eventMessage });
    if (fallback?.replicas !== undefined) {
      // KEP-5679: the fallback count is this metric's proposal, so the metric counts as valid.
      entry.proposal = fallback.replicas;
      propose(tally, decision, fallback.replicas, fallback.metricName);
    } else {
      if (tally.invalid === 0) tally.firstInvalid = outcome;
      tally.invalid++;
    }
  } else {
    const p = outcome.proposal;
    if (!fallback) tally.statuses[i] = p.status;
    entry.current = currentOf(p.status);
    entry.proposal = p.replicas;
    entry.timestamp = p.timestamp;
    propose(tally, decision, p.replicas, p.metricName);
  }
  state.events.push(...(fallback?.events ?? []));
}

/** Upstream: the highest proposal wins (the first of equals). */
function propose(tally: MetricTally, decision: Decision, proposal: number, name: string): void {
  if (tally.replicas === 0 || proposal > tally.replicas) {
    tally.replicas = proposal;
    tally.metric = name;
    decision.winner = name;
  }
}

/** KEP-5679 ExternalMetricFallbackActive, after ScalingActive; only on objects that configure a fallback. */
function setFallbackCondition(state: PlanState, fallbacks: FallbackOutcome[]): void {
  if (fallbacks.length === 0) return;
  const c = fallbackCondition(fallbacks);
  setCondition(state, 'ExternalMetricFallbackActive', c.status, c.reason, c.message);
}

function normalize(
  hpa: HorizontalPodAutoscaler,
  input: ReconcileInput,
  state: PlanState,
  currentReplicas: number,
  prenormalizedDesiredReplicas: number,
  minReplicas: number,
  maxReplicas: number,
): NormalizeResult {
  const args = {
    currentReplicas,
    prenormalizedDesiredReplicas,
    minReplicas,
    maxReplicas,
    recommendations: state.history.recommendations ?? [],
    now: input.now,
  };
  const behavior = hpa.spec.behavior;
  if (!behavior) {
    return normalizeLegacy({
      ...args,
      downscaleStabilizationWindowSeconds: input.settings.downscaleStabilizationWindowSeconds,
      scaleUpLimitFactor: input.settings.scaleUpLimitFactor,
      scaleUpLimitMinimum: input.settings.scaleUpLimitMinimum,
    });
  }
  // Upstream maybeInitScaleDownStabilizationWindow: the controller's window when the spec has none.
  const scaleDown = behavior.scaleDown ?? {};
  const filled = {
    ...behavior,
    scaleDown: {
      ...scaleDown,
      stabilizationWindowSeconds: scaleDown.stabilizationWindowSeconds ?? input.settings.downscaleStabilizationWindowSeconds,
    },
  };
  return normalizeWithBehavior({
    ...args,
    behavior: filled,
    scaleUpEvents: state.history.scaleUpEvents,
    scaleDownEvents: state.history.scaleDownEvents,
  });
}

/** Upstream tolerancesForHpa: per-direction behavior tolerance when HPAConfigurableTolerance is on. */
function tolerancesFor(hpa: HorizontalPodAutoscaler, settings: ControllerSettings): Tolerances {
  const t = { ...settings.tolerance };
  const behavior = hpa.spec.behavior;
  if (!behavior || !settings.featureGates.HPAConfigurableTolerance) return t;
  if (behavior.scaleDown?.tolerance !== undefined) t.scaleDown = tolerance(behavior.scaleDown.tolerance, 'scaleDown');
  if (behavior.scaleUp?.tolerance !== undefined) t.scaleUp = tolerance(behavior.scaleUp.tolerance, 'scaleUp');
  return t;
}

function tolerance(value: string, direction: string): number {
  try {
    return toFloat(parseQuantity(value));
  } catch (e) {
    throw new Error(`spec.behavior.${direction}.tolerance: ${errorText(e)}`);
  }
}

/**
 * Other HPAs (same namespace) whose selector matches any of our pods, in the order given, as
 * upstream hpasControllingPodsUnderSelector (horizontal.go, release-1.35) finds them in its
 * selectors map; the index works the map out once per namespace, so this costs our pods only.
 */
function selectingHpas(input: ReconcileInput, namespace: string, pods: PodInfo[], index: PodSelectorIndex): string[] {
  const selectors = input.otherHpaSelectors ?? [];
  if (selectors.length === 0) return [];
  const owners = index.selectingAutoscalers(selectors, namespace);
  const found = new Set<number>();
  for (const p of pods) {
    for (const i of owners.get(p.name) ?? []) if (selectors[i].name !== input.hpa.metadata.name) found.add(i);
  }
  return [...found].sort((a, b) => a - b).map((i) => `${selectors[i].namespace}/${selectors[i].name}`);
}

/** The resource metrics API is asked per namespace: keep only the selected pods, as upstream's selector query would. */
function onlySelectedPods(data: MetricData, podNames: Set<string>): MetricData {
  const pm = data.podMetrics;
  if (!pm?.value) return data;
  return { ...data, podMetrics: { value: pm.value.filter((m) => podNames.has(m.pod)) } };
}

/** Upstream setCondition: on the status being written, at its time and generation. */
export function setCondition(
  draft: ConditionDraft,
  type: HorizontalPodAutoscalerConditionType,
  status: ConditionStatus,
  reason: string,
  message: string,
): void {
  setConditionInList(draft.conditions, type, status, reason, message, draft.nowIso, draft.generation);
}

/**
 * Upstream setConditionInList: update in place (lastTransitionTime only when the status flips), or append;
 * with the generation it was set from (1.37, kubernetes/kubernetes#138653).
 */
export function setConditionInList(
  list: HorizontalPodAutoscalerCondition[],
  type: HorizontalPodAutoscalerConditionType,
  status: ConditionStatus,
  reason: string,
  message: string,
  now: Date | string,
  generation: number | undefined,
): void {
  let cond = list.find((c) => c.type === type);
  if (!cond) {
    cond = { type, status: '' as ConditionStatus };
    list.push(cond);
  }
  if (cond.status !== status) cond.lastTransitionTime = typeof now === 'string' ? now : now.toISOString();
  cond.status = status;
  cond.reason = reason;
  cond.message = message;
  if (generation !== undefined) cond.observedGeneration = generation;
}

/** ScaledToZero True: the autoscaler itself scaled its target to zero. */
function scaledToZeroByUs(status: HorizontalPodAutoscalerStatus | undefined): boolean {
  return status?.conditions?.some((c) => c.type === 'ScaledToZero' && c.status === 'True') ?? false;
}

function withReplicasAndMetrics(
  status: HorizontalPodAutoscalerStatus,
  currentReplicas: number,
  desiredReplicas: number,
  metricStatuses: MetricStatus[] | undefined,
): HorizontalPodAutoscalerStatus {
  return { ...status, currentReplicas, desiredReplicas, currentMetrics: metricStatuses };
}

/** Drops empty optional fields so equal statuses compare equal (upstream's Semantic.DeepEqual treats nil and empty alike). */
function compactStatus(status: HorizontalPodAutoscalerStatus): HorizontalPodAutoscalerStatus {
  const out: HorizontalPodAutoscalerStatus = { currentReplicas: status.currentReplicas, desiredReplicas: status.desiredReplicas };
  if (status.observedGeneration !== undefined) out.observedGeneration = status.observedGeneration;
  if (status.lastScaleTime !== undefined) out.lastScaleTime = status.lastScaleTime;
  if (status.currentMetrics?.length) out.currentMetrics = status.currentMetrics;
  if (status.conditions?.length) out.conditions = status.conditions;
  return out;
}

function statusEqual(a: HorizontalPodAutoscalerStatus | undefined, b: HorizontalPodAutoscalerStatus): boolean {
  return deepEqual(compactStatus(a ?? zeroStatus), b);
}

/** Structural equality where an undefined property equals an absent one. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) if (!deepEqual(ra[k], rb[k])) return false;
  return true;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function describeMetric(spec: MetricSpec, index: number): MetricDecision {
  const source = spec.resource ?? spec.containerResource ?? spec.pods ?? spec.object ?? spec.external;
  const name = spec.resource?.name ?? spec.containerResource?.name ?? (source && 'metric' in source ? source.metric.name : undefined);
  return { index, type: String(spec.type), name: name ?? '', target: source?.target };
}

function currentOf(status: MetricStatus): MetricValueStatus | undefined {
  return (status.resource ?? status.containerResource ?? status.pods ?? status.object ?? status.external)?.current;
}
