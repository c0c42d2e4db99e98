// One whole sync of one HPA (upstream horizontal.go reconcileAutoscaler), as a pure function.
// Phase 1 (planReconcile) runs up to the /scale write; phase 2 (completeReconcile) takes
// the write's outcome, because upstream's status, events and history depend on it.
import { checkActivation, type MetricActivation } from './activation.js';
import { normalizeLegacy, normalizeWithBehavior, recordScaleEvent, type NormalizeResult, type NormalizeStep } from './behavior.js';
import { applyDefaults } from './defaults.js';
import { fallbackCondition, trackFallback, type FallbackDecision, type FallbackOutcome } from './fallback.js';
import { parseGroupVersion } from './name-rules.js';
import { pauseCondition, pauseState, type Direction, type PauseState } from './pause.js';
import { parseQuantity, toFloat } from './quantity.js';
import { computeReplicasForMetric, type MetricData, type MetricOutcome } from './replica-calculator.js';
import { PodSelectorIndex, type AutoscalerSelector } from './pod-index.js';
import { scheduleCondition, scheduledMinimum, type ScheduledMinimum } from './schedules.js';
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
}

/** Carried from phase 1 to phase 2. */
interface PlanState {
  hpa: HorizontalPodAutoscaler;
  conditions: HorizontalPodAutoscalerCondition[];
  events: HpaEvent[];
  history: ScalingHistory;
  /** Replicas read from the scale (undefined when reading it failed). */
  currentReplicas?: number;
  metricStatuses?: MetricStatus[];
  /** Stop after phase 1: status keeps its desiredReplicas (upstream returns early). */
  earlyExit: boolean;
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

function plan(input: ReconcileInput): ReconcilePlan {
  const now = input.now;
  const hpa = applyDefaults(input.hpa);
  const state: PlanState = {
    hpa,
    conditions: (input.hpa.status?.conditions ?? []).map((c) => ({ ...c })),
    events: [],
    history: {
      recommendations: input.history.recommendations,
      scaleUpEvents: input.history.scaleUpEvents,
      scaleDownEvents: input.history.scaleDownEvents,
    },
    earlyExit: false,
  };
  const decision: Decision = { metrics: [], steps: [], desiredReplicas: hpa.status?.desiredReplicas ?? 0, rescale: false };
  const stop = (reason: string, message: string): ReconcilePlan => {
    noteOurConditions(input, state, pause, scheduled, undefined, setCondition);
    state.earlyExit = true;
    decision.skipped = { reason, message };
    return { input, desiredReplicas: decision.desiredReplicas, rescale: false, decision, state };
  };
  const setCondition = (type: HorizontalPodAutoscalerConditionType, status: ConditionStatus, reason: string, message: string) =>
    setConditionInList(state.conditions, type, status, reason, message, now, hpa.metadata.generation);
  // Ours: pause annotations and scheduled minimums, both read against `now` only.
  const pause = pauseState(hpa.metadata.annotations, now);
  const scheduled = scheduledMinimum(hpa, now);

  // Upstream: an unparsable scaleTargetRef.apiVersion or a failed scale read → AbleToScale False FailedGetScale.
  const gv = parseGroupVersion(hpa.spec.scaleTargetRef.apiVersion ?? '');
  const scaleError = ('error' in gv ? gv.error : undefined) ?? input.scale.error;
  if (scaleError !== undefined || input.scale.value === undefined) {
    const message = scaleError ?? 'scale not available';
    state.events.push({ type: 'Warning', reason: 'FailedGetScale', message });
    setCondition('AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${message}`);
    return stop('FailedGetScale', message);
  }
  const scale = input.scale.value;
  setCondition('AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
  const currentReplicas = scale.specReplicas;
  state.currentReplicas = currentReplicas;
  decision.currentReplicas = currentReplicas;
  // Upstream recordInitialRecommendation: seed the history with the current size.
  const recommendations = state.history.recommendations ?? [{ timestamp: isoTime(now), replicas: currentReplicas }];
  state.history = { ...state.history, recommendations };

  const specMinReplicas = hpa.spec.minReplicas ?? 1;
  // An open window raises the minimum everywhere upstream reads it, but not the "scaled to zero by
  // hand" check: that stays spec.minReplicas, so a window never re-enables a target switched off.
  const minReplicas = scheduled?.minReplicas ?? specMinReplicas;
  const raisedBy = scheduled?.raisedBy?.schedule.name;
  const maxReplicas = hpa.spec.maxReplicas;
  let desiredReplicas = 0;
  let rescaleReason = '';
  let rescale = true;
  const pauseHolds = holdsOfPause(pause);
  // The move of a held direction is not written: the decision says what it would have been.
  const holdStill = (holds: Hold[]) => {
    const held = heldStill(holds, now, currentReplicas, desiredReplicas);
    if (!held) return;
    decision.steps.push({ rule: held.rule, from: desiredReplicas, to: currentReplicas, detail: held.until });
    if (held.limits) setCondition('ScalingLimited', 'True', 'HistoryUntrusted', held.limits);
    desiredReplicas = currentReplicas;
  };
  let recommended: number | undefined;

  if (currentReplicas === 0 && specMinReplicas !== 0 && !scaledToZeroByUs(input.hpa.status)) {
    // Upstream: a target scaled to zero by hand disables autoscaling; one the HPA scaled to zero
    // (ScaledToZero True, 1.37 canScaleFromZero, kubernetes/kubernetes#135118) is scaled back up to minReplicas.
    rescale = false;
    setCondition('ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
    decision.skipped = { reason: 'ScalingDisabled', message: 'the replica count of the target is zero' };
  } else if (currentReplicas > maxReplicas) {
    rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
    desiredReplicas = maxReplicas;
    decision.steps.push({ rule: 'maxReplicas', from: currentReplicas, to: maxReplicas });
  } else if (currentReplicas < minReplicas) {
    // Upstream's below-minimum path, for a window's minimum too: straight to it, past the
    // scale-up policies, as a raised spec.minReplicas would (a scheduled minimum is there to be in place when the window opens).
    rescaleReason = raisedBy ? `Current number of replicas below the minimum of window ${raisedBy}` : 'Current number of replicas below Spec.MinReplicas';
    desiredReplicas = minReplicas;
    decision.steps.push({ rule: raisedBy ? 'schedule' : 'minReplicas', from: currentReplicas, to: minReplicas, ...(raisedBy ? { detail: raisedBy } : {}) });
  } else {
    const computed = computeReplicasForMetrics(input, hpa, scale, state, decision, setCondition);
    if (computed === undefined) {
      state.events.push({ type: 'Warning', reason: 'FailedComputeMetricsReplicas', message: decision.skipped?.message ?? '' });
      return stop(decision.skipped?.reason ?? 'FailedComputeMetricsReplicas', decision.skipped?.message ?? '');
    }
    let rescaleMetric = '';
    if (computed.replicas > desiredReplicas) {
      desiredReplicas = computed.replicas;
      rescaleMetric = computed.metric;
    }
    if (currentReplicas === 0 && !activated(input, hpa, decision, setCondition)) desiredReplicas = 0;
    // Ours: the window's minimum enters the recommendation recorded for stabilization, so that when it
    // closes the scale-down window and policies govern the way down, as for any drop of the metrics.
    if (raisedBy && desiredReplicas < minReplicas) {
      decision.steps.push({ rule: 'schedule', from: desiredReplicas, to: minReplicas, detail: raisedBy });
      desiredReplicas = minReplicas;
    }
    if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
    if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
    const normalized = normalize(hpa, input, state, currentReplicas, desiredReplicas, minReplicas);
    if (normalized.stabilized) {
      setCondition('AbleToScale', 'True', normalized.stabilized.reason, normalized.stabilized.message);
    } else {
      setCondition('AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');
    }
    setCondition('ScalingLimited', normalized.limited.status, normalized.limited.reason, normalized.limited.message);
    state.history = { ...state.history, recommendations: normalized.recommendations };
    decision.steps.push(...normalized.steps);
    desiredReplicas = normalized.replicas;
    recommended = desiredReplicas;
    holdStill([...pauseHolds, ...holdsOfHistory(input.holds)]);
    rescale = desiredReplicas !== currentReplicas;
  }
  if (rescale && recommended === undefined) {
    // Upstream's min/max clamps: a pause holds them too (a history hold does not: upstream's limits never apply to them).
    recommended = desiredReplicas;
    holdStill(pauseHolds);
    rescale = desiredReplicas !== currentReplicas;
  }
  noteOurConditions(input, state, pause, scheduled, recommended ?? currentReplicas, setCondition);

  decision.desiredReplicas = rescale ? desiredReplicas : currentReplicas;
  decision.rescale = rescale;
  if (rescale) decision.rescaleReason = rescaleReason;
  return { input, desiredReplicas, rescale, decision, state };
}

/** At zero replicas: false when the spec's activation thresholds hold the target there (a step and ScalingActive say so). */
function activated(
  input: ReconcileInput,
  hpa: HorizontalPodAutoscaler,
  decision: Decision,
  setCondition: (type: HorizontalPodAutoscalerConditionType, status: ConditionStatus, reason: string, message: string) => void,
): boolean {
  const byIndex = new Map(decision.metrics.map((m) => [m.index, m]));
  const specs = hpa.spec.metrics ?? [];
  const check = checkActivation(
    specs,
    input.metrics,
    specs.map((_, i) => byIndex.get(i)?.proposal),
    specs.map((_, i) => byIndex.get(i)?.name ?? `metric ${i}`),
    specs.map((_, i) => byIndex.get(i)?.fallback?.status === 'Fallback'),
  );
  if (check === undefined) return true;
  for (const [i, a] of check.metrics) {
    const entry = byIndex.get(i);
    if (entry) entry.activation = a;
  }
  if (check.active) return true;
  decision.steps.push({ rule: 'activation', from: decision.recommendation ?? 0, to: 0, detail: check.message });
  setCondition('ScalingActive', 'True', 'BelowActivationThreshold', check.message);
  return false;
}

/** A direction held still (until a time, or with no expiry); `limits` is the ScalingLimited message a held move sets. */
interface Hold {
  direction: Direction;
  until?: Date;
  rule: string;
  limits?: (until: string) => string;
}

/** Ours: the directions of an untrusted history held still (lib/sync/history-holds.ts). */
function holdsOfHistory(holds: ReconcileInput['holds']): Hold[] {
  if (!holds) return [];
  return (['up', 'down'] as const).flatMap((d) => {
    const until = holds[d];
    return until ? [{ direction: d, until, rule: d === 'up' ? 'historyHoldUp' : 'historyHoldDown', limits: (at: string) => `scale ${d} held until ${at}: ${holds.why}` }] : [];
  });
}

/** Ours: the paused directions (lib/hpa/pause.ts). */
function holdsOfPause(pause: PauseState): Hold[] {
  return (['up', 'down'] as const).flatMap((d) => {
    const p = pause.active[d];
    return p ? [{ direction: d, ...(p.until ? { until: p.until } : {}), rule: d === 'up' ? 'pauseScaleUp' : 'pauseScaleDown' }] : [];
  });
}

/** The first hold of the direction of a move, in force at `now`: the rule, until when, and the ScalingLimited message. */
function heldStill(holds: Hold[], now: Date, current: number, desired: number): { rule: string; until: string; limits?: string } | undefined {
  const dir = desired > current ? 'up' : desired < current ? 'down' : undefined;
  const hold = holds.find((h) => h.direction === dir && (!h.until || h.until.getTime() > now.getTime()));
  if (!hold) return undefined;
  const at = hold.until ? isoTime(hold.until) : 'no expiry';
  return { rule: hold.rule, until: at, ...(hold.limits ? { limits: hold.limits(at) } : {}) };
}

/** Ours: ScalingPaused and ScheduledMinimum with their events, only on an autoscaler that uses them. */
function noteOurConditions(
  input: ReconcileInput,
  state: PlanState,
  pause: PauseState,
  scheduled: ScheduledMinimum | undefined,
  wouldScaleTo: number | undefined,
  setCondition: (type: HorizontalPodAutoscalerConditionType, status: ConditionStatus, reason: string, message: string) => void,
): void {
  const previous = (type: HorizontalPodAutoscalerConditionType) => input.hpa.status?.conditions?.find((c) => c.type === type);
  const paused = pauseCondition(pause, previous('ScalingPaused'), state.currentReplicas, wouldScaleTo);
  const windows = scheduleCondition(scheduled, state.hpa.spec.minReplicas ?? 1, previous('ScheduledMinimum'));
  for (const [type, c] of [['ScalingPaused', paused], ['ScheduledMinimum', windows]] as const) {
    if (!c) continue;
    setCondition(type, c.condition.status, c.condition.reason, c.condition.message);
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
      setConditionInList(state.conditions, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${scaleWriteError}`, now, generation);
      status = withReplicasAndMetrics(base, currentReplicas, base.desiredReplicas, state.metricStatuses);
      decision.desiredReplicas = base.desiredReplicas;
    } else if (plan.rescale) {
      setConditionInList(state.conditions, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${plan.desiredReplicas}`, now, generation);
      events.push({ type: 'Normal', reason: 'SuccessfulRescale', message: `New size: ${plan.desiredReplicas}; reason: ${decision.rescaleReason ?? ''}` });
      history = { ...history, ...recordScaleEvent(history, state.hpa.spec.behavior, currentReplicas, plan.desiredReplicas, now) };
      status = withReplicasAndMetrics(base, currentReplicas, plan.desiredReplicas, state.metricStatuses);
      status.lastScaleTime = isoTime(now);
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
  setCondition: (type: HorizontalPodAutoscalerConditionType, status: ConditionStatus, reason: string, message: string) => void,
): { replicas: number; metric: string } | undefined {
  const fail = (reason: string, message: string, conditionMessage = message) => {
    setCondition('ScalingActive', 'False', reason, conditionMessage);
    decision.skipped = { reason, message };
    return undefined;
  };
  // Upstream validateAndParseSelector: missing, unparsable, or shared with another HPA.
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

  const podNames = new Set(pods.map((p) => p.name));
  const ctx = {
    namespace,
    currentReplicas: scale.specReplicas,
    statusReplicas: scale.statusReplicas,
    pods,
    tolerances: tolerancesFor(hpa, input.settings),
    cpuInitializationPeriodSeconds: input.settings.cpuInitializationPeriodSeconds,
    initialReadinessDelaySeconds: input.settings.initialReadinessDelaySeconds,
    now: input.now,
  };
  const specs = hpa.spec.metrics ?? [];
  const statuses: MetricStatus[] = specs.map(() => ({ type: '' }));
  let replicas = 0;
  let metric = '';
  let invalid = 0;
  let firstInvalid: Extract<MetricOutcome, { ok: false }> | undefined;
  const propose = (proposal: number, name: string) => {
    if (replicas === 0 || proposal > replicas) {
      replicas = proposal;
      metric = name;
      decision.winner = name;
    }
  };
  const fallbacks: FallbackOutcome[] = [];
  specs.forEach((spec, i) => {
    const data = onlySelectedPods(input.metrics[i] ?? {}, podNames);
    const outcome = computeReplicasForMetric(spec, ctx, data);
    const entry = describeMetric(spec, i);
    decision.metrics.push(entry);
    const fallback = trackFallback(specs, i, outcome, input.hpa.status?.currentMetrics, input.now, input.settings.featureGates.HPAExternalMetricFallback);
    if (fallback) {
      statuses[i] = fallback.status;
      if (fallback.decision) {
        entry.fallback = fallback.decision;
        fallbacks.push(fallback);
      }
    }
    if (!outcome.ok) {
      entry.error = { reason: outcome.reason, message: outcome.message };
      state.events.push({ type: 'Warning', reason: outcome.reason, message: outcome.eventMessage });
      if (fallback?.replicas !== undefined) {
        // KEP-5679: the fallback count is this metric's proposal, so the metric counts as valid.
        entry.proposal = fallback.replicas;
        propose(fallback.replicas, fallback.metricName);
      } else {
        if (invalid === 0) firstInvalid = outcome;
        invalid++;
      }
      state.events.push(...(fallback?.events ?? []));
      return;
    }
    const p = outcome.proposal;
    if (!fallback) statuses[i] = p.status;
    entry.current = currentOf(p.status);
    entry.proposal = p.replicas;
    entry.timestamp = p.timestamp;
    propose(p.replicas, p.metricName);
    state.events.push(...(fallback?.events ?? []));
  });
  state.metricStatuses = statuses;
  // KEP-5679 ExternalMetricFallbackActive, after ScalingActive; only on objects that configure a fallback.
  const setFallbackCondition = () => {
    if (fallbacks.length === 0) return;
    const c = fallbackCondition(fallbacks);
    setCondition('ExternalMetricFallbackActive', c.status, c.reason, c.message);
  };
  decision.recommendation = invalid < specs.length ? replicas : undefined;

  // Upstream: all metrics invalid, or some invalid while the rest would scale down → do nothing.
  if (invalid >= specs.length || (invalid > 0 && replicas < scale.specReplicas)) {
    const first = firstInvalid ?? { reason: 'InvalidMetricSourceType', message: 'no metrics', error: 'no metrics' };
    setCondition('ScalingActive', 'False', first.reason, first.message);
    setFallbackCondition();
    decision.skipped = {
      reason: first.reason,
      message: `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${first.error}`,
    };
    decision.winner = undefined;
    return undefined;
  }
  setCondition('ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metric}`);
  setFallbackCondition();
  return { replicas, metric };
}

function normalize(
  hpa: HorizontalPodAutoscaler,
  input: ReconcileInput,
  state: PlanState,
  currentReplicas: number,
  prenormalizedDesiredReplicas: number,
  minReplicas: number,
): NormalizeResult {
  const args = {
    currentReplicas,
    prenormalizedDesiredReplicas,
    minReplicas,
    maxReplicas: hpa.spec.maxReplicas,
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

// Date#toISOString is slow enough to matter at thousands of syncs; one clock reading serves the whole sync.
let lastIso: { ms: number; iso: string } = { ms: NaN, iso: '' };
function isoTime(d: Date): string {
  const ms = d.getTime();
  if (lastIso.ms !== ms) lastIso = { ms, iso: d.toISOString() };
  return lastIso.iso;
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
  now: Date,
  generation: number | undefined,
): void {
  let cond = list.find((c) => c.type === type);
  if (!cond) {
    cond = { type, status: '' as ConditionStatus };
    list.push(cond);
  }
  if (cond.status !== status) cond.lastTransitionTime = isoTime(now);
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
