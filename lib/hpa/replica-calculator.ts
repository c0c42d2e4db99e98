// Upstream pkg/controller/podautoscaler/replica_calculator.go and the per-metric
// dispatch of horizontal.go (computeReplicasForMetric and its helpers).
import { groupPods, InputError, instantOf, removeMetricsForPods, ZERO_TIME, type PodSample } from './pod-groups.js';
import {
  formatMilli,
  INT32_MAX,
  INT32_MIN,
  INT64_MAX,
  INT64_MIN,
  MILLI_ZERO,
  milliFromBig,
  MilliTotal,
  milliToBig,
  parseMilli,
  QuantityError,
  saturateInt64,
  type Milli,
} from './api/quantity.js';
import type {
  Fetched,
  LabelSelector,
  MetricIdentifier,
  MetricSample,
  MetricSpec,
  MetricStatus,
  MetricTarget,
  MetricValueStatus,
  ObjectMetricSource,
  PodInfo,
  PodMetric,
  PodMetricSample,
  Timestamp,
  Tolerances,
} from './types.js';

export interface ReplicaCalcContext {
  /** Replicas from the scale's spec. */
  currentReplicas: number;
  /** Replicas from the scale's status (per-pod Object/External targets). */
  statusReplicas: number;
  /** Pods the HPA's selector matched. */
  pods: PodInfo[];
  tolerances: Tolerances;
  cpuInitializationPeriodSeconds: number;
  initialReadinessDelaySeconds: number;
  now: Date;
  /** The HPA's namespace, as upstream names it in Object/External error messages (default ""). */
  namespace?: string;
}

/** The metric values for one MetricSpec; only the field matching its type is read. */
export interface MetricData {
  podMetrics?: Fetched<PodMetric[]>;
  podCustomMetrics?: Fetched<PodMetricSample[]>;
  objectMetric?: Fetched<MetricSample>;
  externalMetrics?: Fetched<MetricSample[]>;
}

export interface MetricProposal {
  replicas: number;
  timestamp: Timestamp;
  /** Upstream's metric name for messages, e.g. "cpu resource utilization (percentage of request)". */
  metricName: string;
  /** The entry for status.currentMetrics. */
  status: MetricStatus;
  /** Utilization targets only: current average utilization in percent. */
  utilization?: number;
  /** Current raw value in milli-units (average for per-pod targets), saturated at int64. */
  rawMilli: bigint;
}

export type MetricOutcome =
  | { ok: true; proposal: MetricProposal }
  | {
      ok: false;
      /** reason: FailedGetResourceMetric, FailedGetContainerResourceMetric, FailedGetPodsMetric, FailedGetObjectMetric, FailedGetExternalMetric or InvalidMetricSourceType. */
      reason: string;
      /** The ScalingActive condition message: "the HPA was unable to compute the replica count: …". */
      message: string;
      /** Upstream's Warning event for this metric (reason as above): the error behind the condition. */
      eventMessage: string;
      /** The error computeReplicasForMetric returns, as named after "first error is: " in FailedComputeMetricsReplicas. */
      error: string;
    };

/** An upstream error from the replica calculator, carrying its exact text. */
class CalcError extends Error {}

/** A metric that failed, with upstream's condition error and the wrapped error it returns. */
class Failure extends Error {
  constructor(readonly outcome: MetricOutcome & { ok: false }) {
    super(outcome.error);
  }
}

const UNABLE_PREFIX = 'the HPA was unable to compute the replica count: ';

export function computeReplicasForMetric(metric: MetricSpec, ctx: ReplicaCalcContext, data: MetricData): MetricOutcome {
  const reason = failureReason(metric.type);
  try {
    return { ok: true, proposal: dispatch(metric, ctx, data) };
  } catch (err) {
    if (err instanceof Failure) return err.outcome;
    if (err instanceof QuantityError) {
      const detail = `${locateQuantity(metric, ctx, data, err.input)}: ${err.message}`;
      return failure(reason, detail, detail);
    }
    if (err instanceof InputError) return failure(reason, err.message, err.message);
    throw err;
  }
}

function failureReason(type: string): string {
  switch (type) {
    case 'Resource':
      return 'FailedGetResourceMetric';
    case 'ContainerResource':
      return 'FailedGetContainerResourceMetric';
    case 'Pods':
      return 'FailedGetPodsMetric';
    case 'Object':
      return 'FailedGetObjectMetric';
    case 'External':
      return 'FailedGetExternalMetric';
    default:
      return 'InvalidMetricSourceType';
  }
}

function failure(reason: string, conditionError: string, error: string): MetricOutcome & { ok: false } {
  return { ok: false, reason, message: UNABLE_PREFIX + conditionError, eventMessage: conditionError, error };
}

function fail(reason: string, conditionError: string, error: string): never {
  throw new Failure(failure(reason, conditionError, error));
}

/**
 * Turns an upstream calculator error into the metric's failure: the condition carries
 * conditionPrefix + the error, and the returned error wraps that in errorPrefix.
 */
function failFrom(err: unknown, reason: string, conditionPrefix: string, errorPrefix: string): unknown {
  if (!(err instanceof CalcError)) return err;
  const conditionError = conditionPrefix + err.message;
  return new Failure(failure(reason, conditionError, errorPrefix + conditionError));
}

// horizontal.go computeReplicasForMetric: one case per metric source type.
function dispatch(metric: MetricSpec, ctx: ReplicaCalcContext, data: MetricData): MetricProposal {
  switch (metric.type) {
    case 'Resource': {
      const src = metric.resource;
      if (!src) return missingSource('FailedGetResourceMetric', 'resource');
      const value = resourceStatusValue(ctx, data, src.name, '', src.target, 'FailedGetResourceMetric', `failed to get ${src.name} resource metric value: `);
      return {
        ...value.proposal,
        metricName: value.metricName,
        status: { type: 'Resource', resource: { name: src.name, current: value.current } },
      };
    }
    case 'ContainerResource': {
      const src = metric.containerResource;
      if (!src) return missingSource('FailedGetContainerResourceMetric', 'containerResource');
      const value = resourceStatusValue(ctx, data, src.name, src.container, src.target, 'FailedGetContainerResourceMetric', `failed to get ${src.container} container metric value: `);
      return {
        ...value.proposal,
        metricName: value.metricName,
        status: { type: 'ContainerResource', containerResource: { name: src.name, container: src.container, current: value.current } },
      };
    }
    case 'Pods':
      return podsMetric(metric, ctx, data);
    case 'Object':
      return objectMetric(metric, ctx, data);
    case 'External':
      return externalMetric(metric, ctx, data);
    default: {
      const text = `unknown metric source type ${JSON.stringify(String(metric.type))}`;
      return fail('InvalidMetricSourceType', text, text);
    }
  }
}

function missingSource(reason: string, field: string): never {
  const text = `invalid metric source: ${field} is required for this metric type`;
  return fail(reason, text, text);
}

type Calculated = Omit<MetricProposal, 'metricName' | 'status'>;

// horizontal.go computeStatusForResourceMetricGeneric (Resource and ContainerResource).
function resourceStatusValue(
  ctx: ReplicaCalcContext,
  data: MetricData,
  resource: string,
  container: string,
  target: MetricTarget,
  reason: string,
  errorPrefix: string,
): { proposal: Calculated; metricName: string; current: MetricValueStatus } {
  const kind = container === '' ? 'resource' : 'container resource';
  if (target.averageValue !== undefined) {
    const targetUsage = milliToBig(parseMilli(target.averageValue));
    let proposal: Calculated;
    try {
      proposal = rawResourceReplicas(ctx, data, resource, container, targetUsage);
    } catch (err) {
      throw failFrom(err, reason, `failed to get ${resource} usage: `, errorPrefix);
    }
    return { proposal, metricName: `${resource} ${kind}`, current: { averageValue: formatMilli(proposal.rawMilli) } };
  }
  if (target.averageUtilization === undefined) {
    const text = 'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set';
    return fail(reason, text, errorPrefix + text);
  }
  let proposal: Calculated;
  try {
    proposal = resourceReplicas(ctx, data, resource, container, target.averageUtilization);
  } catch (err) {
    throw failFrom(err, reason, `failed to get ${resource} utilization: `, errorPrefix);
  }
  return {
    proposal,
    metricName: `${resource} ${kind} utilization (percentage of request)`,
    current: { averageUtilization: proposal.utilization, averageValue: formatMilli(proposal.rawMilli) },
  };
}

// ---- replica_calculator.go ----

function isWithin(t: Tolerances, usageRatio: number): boolean {
  return 1.0 - t.scaleDown <= usageRatio && usageRatio <= 1.0 + t.scaleUp;
}

/** int32(math.Ceil(x)), saturated at the int32 limits where Go's conversion would overflow. */
function ceilInt32(x: number): number {
  const c = Math.ceil(x);
  if (Number.isNaN(c)) return 0;
  return c > INT32_MAX ? INT32_MAX : c < INT32_MIN ? INT32_MIN : c;
}

/** int64(math.Ceil(x)), saturated at the int64 limits. */
function ceilInt64(x: number): bigint {
  const c = Math.ceil(x);
  if (Number.isNaN(c)) return 0n;
  if (c >= 9223372036854775807) return INT64_MAX;
  if (c <= -9223372036854775808) return INT64_MIN;
  return BigInt(c);
}

function groupSettings(ctx: ReplicaCalcContext) {
  return {
    cpuInitializationPeriodSeconds: ctx.cpuInitializationPeriodSeconds,
    initialReadinessDelaySeconds: ctx.initialReadinessDelaySeconds,
    now: instantOf(ctx.now),
  };
}

/** A metrics API answer's items: the call's error, or no items at all, is an upstream error (prefix as its caller wraps it). */
function itemsOf<T>(answer: Fetched<T[]> | undefined, api: string, prefix: string): T[] {
  if (answer?.error !== undefined) throw new CalcError(prefix + answer.error);
  const items = answer?.value ?? [];
  if (items.length === 0) throw new CalcError(`${prefix}no metrics returned from ${api} metrics API`);
  return items;
}

/** metrics client GetResourceMetric: per-pod sums over containers (or the one named container). */
function resourceMetrics(data: MetricData, resource: string, container: string): { samples: Map<string, PodSample>; timestamp: Timestamp } {
  const items = itemsOf(data.podMetrics, 'resource', `unable to get metrics for resource ${resource}: `);
  const samples = new Map<string, PodSample>();
  for (const m of items) {
    const value = container === '' ? podUsage(m, resource) : containerUsage(m, resource, container);
    if (value !== undefined) samples.set(m.pod, { value, timestamp: m.timestamp, windowSeconds: m.windowSeconds });
  }
  return { samples, timestamp: items[0].timestamp };
}

// getPodMetrics: a pod with no containers, or a container without the resource, has no sample.
function podUsage(m: PodMetric, resource: string): Milli | undefined {
  const containers = m.containers;
  if (containers.length === 0) return undefined;
  const first = containers[0].usage[resource];
  if (first === undefined) return undefined;
  if (containers.length === 1) return parseMilli(first);
  const total = new MilliTotal();
  for (const c of containers) {
    const usage = c.usage[resource];
    if (usage === undefined) return undefined;
    total.add(parseMilli(usage));
  }
  return total.saturated;
}

// getContainerMetrics: the named container's usage, if reported.
function containerUsage(m: PodMetric, resource: string, container: string): Milli | undefined {
  for (const c of m.containers) {
    if (c.name === container) {
      const usage = c.usage[resource];
      return usage === undefined ? undefined : parseMilli(usage);
    }
  }
  return undefined;
}

const ZERO_SAMPLE: PodSample = { value: MILLI_ZERO };

function requirePods(ctx: ReplicaCalcContext): void {
  if (ctx.pods.length === 0) throw new CalcError('no pods returned by selector while calculating replica count');
}

// Upstream calculateRequests / calculatePodRequestsFromContainers (pod-level requests are not modelled).
function calculateRequests(pods: PodInfo[], container: string, resource: string): Map<string, Milli> {
  const requests = new Map<string, Milli>();
  for (const pod of pods) requests.set(pod.name, podRequest(pod, container, resource));
  return requests;
}

function podRequest(pod: PodInfo, container: string, resource: string): Milli {
  const total = new MilliTotal();
  for (const c of pod.containers) {
    if (container === '' || container === c.name) {
      const q = c.requests[resource];
      if (q === undefined) throw new CalcError(`missing request for ${resource} in container ${c.name} of Pod ${pod.name}`);
      total.add(parseMilli(q));
    }
    // Container names are unique inside a pod (upstream returns at the first match, even for "").
    if (container === c.name) return total.saturated;
  }
  if (container !== '') throw new CalcError(`container ${container} not found in Pod ${pod.name}`);
  return total.saturated;
}

// metrics/utilization.go GetResourceUtilizationRatio, with exact totals.
function resourceUtilizationRatio(metrics: Map<string, PodSample>, requests: Map<string, Milli>, targetUtilization: number) {
  const metricsTotal = new MilliTotal();
  const requestsTotal = new MilliTotal();
  let entries = 0;
  metrics.forEach((metric, pod) => {
    const request = requests.get(pod);
    // Metrics for pods without requests are extraneous.
    if (request === undefined) return;
    metricsTotal.add(metric.value);
    requestsTotal.add(request);
    entries++;
  });
  const requested = requestsTotal.exact;
  if (requested === 0n) throw new CalcError('no metrics returned matched known pods');
  const used = metricsTotal.exact;
  const percentage = (used * 100n) / requested;
  const utilization = percentage > BigInt(INT32_MAX) ? INT32_MAX : percentage < BigInt(INT32_MIN) ? INT32_MIN : Number(percentage);
  return { usageRatio: utilization / targetUtilization, utilization, rawMilli: used / BigInt(entries) };
}

// metrics/utilization.go GetMetricUsageRatio: the plain average over every sample.
function metricUsageRatio(metrics: Map<string, PodSample>, targetUsage: bigint) {
  const total = new MilliTotal();
  metrics.forEach((metric) => total.add(metric.value));
  const usage = total.exact / BigInt(metrics.size);
  return { usageRatio: Number(usage) / Number(targetUsage), usage };
}

// GetResourceReplicas.
function resourceReplicas(ctx: ReplicaCalcContext, data: MetricData, resource: string, container: string, targetUtilization: number): Calculated {
  const { samples: metrics, timestamp } = resourceMetrics(data, resource, container);
  requirePods(ctx);
  const groups = groupPods(ctx.pods, metrics, resource, groupSettings(ctx));
  removeMetricsForPods(metrics, groups.ignored);
  removeMetricsForPods(metrics, groups.unready);
  if (metrics.size === 0) throw new CalcError('did not receive metrics for targeted pods (pods might be unready)');
  const requests = calculateRequests(ctx.pods, container, resource);

  const { usageRatio, utilization, rawMilli } = resourceUtilizationRatio(metrics, requests, targetUtilization);
  const scaleUpWithUnready = groups.unready.size > 0 && usageRatio > 1.0;
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    const replicas = isWithin(ctx.tolerances, usageRatio) ? ctx.currentReplicas : ceilInt32(usageRatio * groups.readyPodCount);
    return { replicas, utilization, rawMilli, timestamp };
  }

  if (groups.missing.size > 0) {
    if (usageRatio < 1.0) {
      // Scale down: missing pods count at 100% of their request (or the target when above 100%).
      const fallback = BigInt(Math.max(100, targetUtilization));
      for (const pod of groups.missing) metrics.set(pod, { value: milliFromBig(saturateInt64((milliToBig(requests.get(pod) ?? MILLI_ZERO) * fallback) / 100n)) });
    } else if (usageRatio > 1.0) {
      // Scale up: missing pods count at 0.
      for (const pod of groups.missing) metrics.set(pod, ZERO_SAMPLE);
    }
  }
  // Scale up: unready pods count at 0.
  if (scaleUpWithUnready) for (const pod of groups.unready) metrics.set(pod, ZERO_SAMPLE);

  const newUsageRatio = resourceUtilizationRatio(metrics, requests, targetUtilization).usageRatio;
  return { replicas: rebalancedReplicas(ctx, usageRatio, newUsageRatio, metrics.size), utilization, rawMilli, timestamp };
}

/** The recomputed proposal, unless it is within tolerance or would reverse the direction. */
function rebalancedReplicas(ctx: ReplicaCalcContext, usageRatio: number, newUsageRatio: number, counted: number): number {
  if (isWithin(ctx.tolerances, newUsageRatio) || (usageRatio < 1.0 && newUsageRatio > 1.0) || (usageRatio > 1.0 && newUsageRatio < 1.0)) {
    return ctx.currentReplicas;
  }
  const newReplicas = ceilInt32(newUsageRatio * counted);
  if ((newUsageRatio < 1.0 && newReplicas > ctx.currentReplicas) || (newUsageRatio > 1.0 && newReplicas < ctx.currentReplicas)) {
    return ctx.currentReplicas;
  }
  return newReplicas;
}

// GetRawResourceReplicas.
function rawResourceReplicas(ctx: ReplicaCalcContext, data: MetricData, resource: string, container: string, targetUsage: bigint): Calculated {
  const { samples, timestamp } = resourceMetrics(data, resource, container);
  const { replicas, usage } = plainMetricReplicas(ctx, samples, targetUsage, resource);
  return { replicas, rawMilli: usage, timestamp };
}

// calcPlainMetricReplicas.
function plainMetricReplicas(ctx: ReplicaCalcContext, metrics: Map<string, PodSample>, targetUsage: bigint, resource: string) {
  requirePods(ctx);
  const groups = groupPods(ctx.pods, metrics, resource, groupSettings(ctx));
  removeMetricsForPods(metrics, groups.ignored);
  removeMetricsForPods(metrics, groups.unready);
  if (metrics.size === 0) throw new CalcError('did not receive metrics for targeted pods (pods might be unready)');

  const { usageRatio, usage } = metricUsageRatio(metrics, targetUsage);
  const scaleUpWithUnready = groups.unready.size > 0 && usageRatio > 1.0;
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (isWithin(ctx.tolerances, usageRatio)) return { replicas: ctx.currentReplicas, usage };
    return { replicas: ceilInt32(usageRatio * groups.readyPodCount), usage };
  }

  if (groups.missing.size > 0) {
    if (usageRatio < 1.0) {
      // Scale down: missing pods count at exactly the target.
      const atTarget = { value: milliFromBig(targetUsage) };
      for (const pod of groups.missing) metrics.set(pod, atTarget);
    } else if (usageRatio > 1.0) {
      for (const pod of groups.missing) metrics.set(pod, ZERO_SAMPLE);
    }
  }
  if (scaleUpWithUnready) for (const pod of groups.unready) metrics.set(pod, ZERO_SAMPLE);

  const newUsageRatio = metricUsageRatio(metrics, targetUsage).usageRatio;
  return { replicas: rebalancedReplicas(ctx, usageRatio, newUsageRatio, metrics.size), usage };
}

// getReadyPodsCount: Running pods whose Ready condition is True (deleted ones included, as upstream).
function readyPodsCount(ctx: ReplicaCalcContext): number {
  if (ctx.pods.length === 0) throw new CalcError('unable to calculate ready pods: no pods returned by selector while calculating replica count');
  let ready = 0;
  for (const pod of ctx.pods) if (pod.phase === 'Running' && pod.ready === 'True') ready++;
  return ready;
}

// getUsageRatioReplicaCount: with 0 current replicas, scale to ceil(ratio) (scale to zero included).
function usageRatioReplicaCount(ctx: ReplicaCalcContext, usageRatio: number): number {
  if (ctx.currentReplicas === 0) return ceilInt32(usageRatio);
  if (isWithin(ctx.tolerances, usageRatio)) return ctx.currentReplicas;
  return ceilInt32(usageRatio * readyPodsCount(ctx));
}

function targetMilli(target: MetricTarget, field: 'value' | 'averageValue'): bigint | undefined {
  const q = target[field];
  return q === undefined ? undefined : milliToBig(parseMilli(q));
}

function identifier(id: MetricIdentifier): MetricIdentifier {
  return id.selector === undefined ? { name: id.name } : { name: id.name, selector: id.selector };
}

// computeStatusForPodsMetric + GetMetricReplicas.
function podsMetric(metric: MetricSpec, ctx: ReplicaCalcContext, data: MetricData): MetricProposal {
  const src = metric.pods;
  if (!src) return missingSource('FailedGetPodsMetric', 'pods');
  const reason = 'FailedGetPodsMetric';
  const errorPrefix = 'failed to get pods metric value: ';
  const target = targetMilli(src.target, 'averageValue');
  if (target === undefined) {
    const text = 'invalid pods metric source: no average value target was set';
    return fail(reason, text, errorPrefix + text);
  }
  const name = src.metric.name;
  let calc: { replicas: number; usage: bigint; timestamp: Timestamp };
  try {
    const { samples, timestamp } = customMetrics(data, name);
    calc = { ...plainMetricReplicas(ctx, samples, target, ''), timestamp };
  } catch (err) {
    throw failFrom(err, reason, '', errorPrefix);
  }
  return {
    replicas: calc.replicas,
    timestamp: calc.timestamp,
    rawMilli: calc.usage,
    metricName: `pods metric ${name}`,
    status: { type: 'Pods', pods: { metric: identifier(src.metric), current: { averageValue: formatMilli(calc.usage) } } },
  };
}

/** metrics client GetRawMetric (custom.metrics.k8s.io, one value per pod), as GetMetricReplicas wraps its errors. */
function customMetrics(data: MetricData, name: string): { samples: Map<string, PodSample>; timestamp: Timestamp } {
  const items = itemsOf(data.podCustomMetrics, 'custom', `unable to get metric ${name}: `);
  const samples = new Map<string, PodSample>();
  for (const m of items) samples.set(m.pod, { value: parseMilli(m.value) });
  return { samples, timestamp: items[0].timestamp };
}

/** metrics client GetObjectMetric, as GetObject(PerPod)MetricReplicas wrap its errors. */
function objectUsage(data: MetricData, ctx: ReplicaCalcContext, src: ObjectMetricSource): { usage: bigint; timestamp: Timestamp } {
  const answer = data.objectMetric;
  const ref = src.describedObject;
  // Upstream's argument order puts the error last: "…: Kind on ns name/err".
  const prefix = `unable to get metric ${src.metric.name}: ${ref.kind} on ${ctx.namespace ?? ''} ${ref.name}/`;
  if (answer?.error !== undefined) throw new CalcError(prefix + answer.error);
  if (answer?.value === undefined) throw new CalcError(`${prefix}no metrics returned from custom metrics API`);
  return { usage: milliToBig(parseMilli(answer.value.value)), timestamp: answer.value.timestamp };
}

// computeStatusForObjectMetric + GetObjectMetricReplicas / GetObjectPerPodMetricReplicas.
function objectMetric(metric: MetricSpec, ctx: ReplicaCalcContext, data: MetricData): MetricProposal {
  const src = metric.object;
  if (!src) return missingSource('FailedGetObjectMetric', 'object');
  const reason = 'FailedGetObjectMetric';
  const errorPrefix = 'failed to get object metric value: ';
  const name = src.metric.name;
  const value = src.target.type === 'Value' ? targetMilli(src.target, 'value') : undefined;
  if (value !== undefined) {
    let usage: bigint;
    let replicas: number;
    try {
      usage = objectUsage(data, ctx, src).usage;
      replicas = usageRatioReplicaCount(ctx, Number(usage) / Number(value));
    } catch (err) {
      throw failFrom(err, reason, '', errorPrefix);
    }
    return {
      replicas,
      // Upstream quirk: GetObjectMetricReplicas drops the metric's timestamp and returns the zero time.
      timestamp: ZERO_TIME,
      rawMilli: usage,
      metricName: `${src.describedObject.kind} metric ${name}`,
      status: { type: 'Object', object: { describedObject: src.describedObject, metric: identifier(src.metric), current: { value: formatMilli(usage) } } },
    };
  }
  const average = src.target.type === 'AverageValue' ? targetMilli(src.target, 'averageValue') : undefined;
  if (average !== undefined) {
    let sample: { usage: bigint; timestamp: Timestamp };
    try {
      sample = objectUsage(data, ctx, src);
    } catch (err) {
      throw failFrom(err, reason, '', `${errorPrefix}failed to get ${name} object metric: `);
    }
    const usage = Number(sample.usage);
    let replicas = ctx.statusReplicas;
    if (!isWithin(ctx.tolerances, usage / (Number(average) * replicas))) replicas = ceilInt32(usage / Number(average));
    const perPod = ceilInt64(usage / ctx.statusReplicas);
    return {
      replicas,
      timestamp: sample.timestamp,
      rawMilli: perPod,
      // Upstream quirks: the per-pod Object status has no describedObject (Go's zero value) and an "external metric" name.
      metricName: `external metric ${name}(${formatLabelSelector(src.metric.selector)})`,
      status: { type: 'Object', object: { describedObject: { kind: '', name: '' }, metric: identifier(src.metric), current: { averageValue: formatMilli(perPod) } } },
    };
  }
  const text = 'invalid object metric source: neither a value target nor an average value target was set';
  return fail(reason, text, errorPrefix + text);
}

/** metrics client GetExternalMetric (one value per series), as GetExternal(PerPod)MetricReplicas wrap its errors. */
function externalValues(data: MetricData, ctx: ReplicaCalcContext, name: string, selectorText: string): { values: Milli[]; timestamp: Timestamp } {
  const items = itemsOf(data.externalMetrics, 'external', `unable to get external metric ${ctx.namespace ?? ''}/${name}/${selectorText}: `);
  const values: Milli[] = [];
  for (const m of items) values.push(parseMilli(m.value));
  return { values, timestamp: items[0].timestamp };
}

// computeStatusForExternalMetric + GetExternalMetricReplicas / GetExternalPerPodMetricReplicas.
function externalMetric(metric: MetricSpec, ctx: ReplicaCalcContext, data: MetricData): MetricProposal {
  const src = metric.external;
  if (!src) return missingSource('FailedGetExternalMetric', 'external');
  const reason = 'FailedGetExternalMetric';
  const name = src.metric.name;
  const selectorText = formatLabelSelector(src.metric.selector);
  const errorPrefix = `failed to get ${name} external metric value: `;
  const metricName = `external metric ${name}(${selectorText})`;
  const average = targetMilli(src.target, 'averageValue');
  if (average !== undefined) {
    let fetchedValues: { values: Milli[]; timestamp: Timestamp };
    try {
      fetchedValues = externalValues(data, ctx, name, selectorText);
    } catch (err) {
      throw failFrom(err, reason, '', `${errorPrefix}failed to get ${name} external metric: `);
    }
    let total = 0n;
    for (const v of fetchedValues.values) {
      // Upstream takes any negative running sum for an int64 overflow and saturates it at MaxInt64,
      // which turns a negative metric (metric math can give one) into maxReplicas. Only a real
      // overflow saturates here, in either direction.
      total = saturateInt64(total + milliToBig(v));
      if (total === INT64_MAX || total === INT64_MIN) break;
    }
    const usage = Number(total);
    let replicas = ctx.statusReplicas;
    if (!isWithin(ctx.tolerances, usage / (Number(average) * replicas))) replicas = ceilInt32(usage / Number(average));
    // Upstream: a total at MaxInt64 is reported as is, not divided by the replicas.
    const perPod = usage >= 9223372036854775807 ? INT64_MAX : ceilInt64(usage / ctx.statusReplicas);
    return {
      replicas,
      timestamp: fetchedValues.timestamp,
      rawMilli: perPod,
      metricName,
      status: { type: 'External', external: { metric: identifier(src.metric), current: { averageValue: formatMilli(perPod) } } },
    };
  }
  const value = targetMilli(src.target, 'value');
  if (value !== undefined) {
    let usage = 0n;
    let replicas: number;
    try {
      for (const v of externalValues(data, ctx, name, selectorText).values) {
        const big = milliToBig(v);
        // Upstream caps a positive overflow at MaxInt64.
        if (big > 0n && usage > INT64_MAX - big) {
          usage = INT64_MAX;
          break;
        }
        usage = BigInt.asIntN(64, usage + big);
      }
      replicas = usageRatioReplicaCount(ctx, Number(usage) / Number(value));
    } catch (err) {
      throw failFrom(err, reason, '', `${errorPrefix}failed to get external metric ${name}: `);
    }
    return {
      replicas,
      // Upstream quirk: GetExternalMetricReplicas drops the metric's timestamp and returns the zero time.
      timestamp: ZERO_TIME,
      rawMilli: usage,
      metricName,
      status: { type: 'External', external: { metric: identifier(src.metric), current: { value: formatMilli(usage) } } },
    };
  }
  const text = 'invalid external metric source: neither a value target nor an average value target was set';
  return fail(reason, text, errorPrefix + text);
}

/** fmt "%+v" of a *metav1.LabelSelector (its generated String()), as upstream puts it in names and errors. */
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  if (selector === undefined) return 'nil';
  const labels = selector.matchLabels ?? {};
  const keys = Object.keys(labels).sort();
  let matchLabels = 'map[string]string{';
  for (const k of keys) matchLabels += `${k}: ${labels[k]},`;
  matchLabels += '}';
  let expressions = '[]LabelSelectorRequirement{';
  for (const e of selector.matchExpressions ?? []) {
    expressions += `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`;
  }
  expressions += '}';
  return `&LabelSelector{MatchLabels:${matchLabels},MatchExpressions:${expressions},}`;
}

/** The field path of a malformed quantity, found after the fact so the fast path pays nothing. */
function locateQuantity(metric: MetricSpec, ctx: ReplicaCalcContext, data: MetricData, input: string): string {
  const sources = [
    ['resource', metric.resource?.target],
    ['containerResource', metric.containerResource?.target],
    ['pods', metric.pods?.target],
    ['object', metric.object?.target],
    ['external', metric.external?.target],
  ] as const;
  for (const [key, target] of sources) {
    if (target?.value === input) return `metric.${key}.target.value`;
    if (target?.averageValue === input) return `metric.${key}.target.averageValue`;
  }
  const podMetrics = data.podMetrics?.value ?? [];
  for (let i = 0; i < podMetrics.length; i++) {
    const containers = podMetrics[i].containers;
    for (let j = 0; j < containers.length; j++) {
      for (const [res, q] of Object.entries(containers[j].usage)) if (q === input) return `podMetrics[${i}].containers[${j}].usage.${res}`;
    }
  }
  const custom = data.podCustomMetrics?.value ?? [];
  for (let i = 0; i < custom.length; i++) if (custom[i].value === input) return `podCustomMetrics[${i}].value`;
  if (data.objectMetric?.value?.value === input) return 'objectMetric.value';
  const external = data.externalMetrics?.value ?? [];
  for (let i = 0; i < external.length; i++) if (external[i].value === input) return `externalMetrics[${i}].value`;
  for (let i = 0; i < ctx.pods.length; i++) {
    const containers = ctx.pods[i].containers;
    for (let j = 0; j < containers.length; j++) {
      for (const [res, q] of Object.entries(containers[j].requests)) if (q === input) return `pods[${i}].containers[${j}].requests.${res}`;
    }
  }
  return 'quantity';
}
