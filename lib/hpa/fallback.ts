// KEP-5679 (kubernetes/enhancements keps/sig-autoscaling/5679-external-metric-fallback): a metric
// that keeps failing for failureDurationSeconds proposes its fallback replica count instead.
// Upstream's design covers External metrics; the same block on Resource, ContainerResource, Pods
// and Object metrics is our extension. The first failure time is read back from the stored
// status (status.currentMetrics), so a restart of the worker changes nothing.
// Types only from the replica calculator: validation imports this module, and the functions that
// only validate (dispatcher, events) must not carry the calculator (test/deploy/bundle.test.ts).
import type { MetricOutcome } from './replica-calculator.js';
import type {
  LabelSelector,
  MetricFallback,
  MetricFallbackStatus,
  MetricSourceType,
  MetricSpec,
  MetricStatus,
  ConditionStatus,
  Timestamp,
} from './types.js';

/** KEP-5679: failureDurationSeconds defaults to 180 and may not be lower. */
export const DEFAULT_FAILURE_DURATION_SECONDS = 180;
export const MIN_FAILURE_DURATION_SECONDS = 180;

/** What a metric's fallback decided this sync, for the decision line. */
export interface FallbackDecision {
  status: 'Normal' | 'Fallback';
  firstFailureTime?: Timestamp;
  /** The fallback replica count, while the fallback is active. */
  replicas?: number;
}

export interface FallbackOutcome {
  /** The metric's entry for status.currentMetrics: identity and fallback fields even when the metric failed. */
  status: MetricStatus;
  /** Set while the fallback is active: the metric's proposal (KEP-5679: it enters the usual max over metrics). */
  replicas?: number;
  /** "external metric 'queue_depth'": how events and the condition name the metric. */
  label: string;
  /** Names the proposal in the ScalingActive message and the rescale reason. */
  metricName: string;
  /** Activation (KEP-5679 ExternalMetricFallbackActivated) or recovery (ours). */
  events: { type: 'Normal'; reason: string; message: string }[];
  /** Absent when the gate is off: the stored fields were only carried over. */
  decision?: FallbackDecision;
}

/** The metric with this fallback block on its source (a new object). */
export function withFallback(spec: MetricSpec, fallback: MetricFallback): MetricSpec {
  const key = SOURCE_KEYS[spec.type] as SourceKey | undefined;
  const source = key && spec[key];
  return key && source ? { ...spec, [key]: { ...source, fallback: { ...fallback } } } : spec;
}

/** The metric's fallback block, whatever its type. */
export function fallbackOf(spec: MetricSpec): MetricFallback | undefined {
  return sourceOf(spec)?.fallback;
}

/**
 * The stored status entry of metrics[index], matched by identity (type, name, container, described
 * object, selector), not by position, so reordering the metrics keeps each one's failure time. Of
 * several metrics with one identity, the n-th takes the n-th entry.
 */
export function storedMetricStatus(metrics: readonly MetricSpec[], index: number, stored: readonly MetricStatus[] | undefined): MetricStatus | undefined {
  if (!stored?.length) return undefined;
  const key = specIdentity(metrics[index]);
  const nth = metrics.slice(0, index).filter((m) => specIdentity(m) === key).length;
  return stored.filter((s) => statusIdentity(s) === key)[nth];
}

/**
 * The fallback state of metrics[index] after this sync's outcome, its stored entry found in
 * `stored`; undefined when it configures no fallback (or, with the gate off, has no stored
 * fallback fields to keep).
 */
export function trackFallback(
  metrics: readonly MetricSpec[],
  index: number,
  outcome: MetricOutcome,
  stored: readonly MetricStatus[] | undefined,
  now: Date,
  enabled: boolean,
): FallbackOutcome | undefined {
  const spec = metrics[index];
  const fallback = fallbackOf(spec);
  if (fallback === undefined) return undefined;
  const before = fallbackFields(storedMetricStatus(metrics, index, stored));
  const label = metricLabel(spec);
  const metricName = `fallback for ${label}`;
  if (!enabled) {
    // KEP-5679 downgrade: the fields stay at their last values, neither evaluated nor updated.
    if (before.fallbackStatus === undefined && before.firstFailureTime === undefined) return undefined;
    return { status: withFallbackFields(outcome.ok ? outcome.proposal.status : identitySlot(spec), before), label, metricName, events: [] };
  }
  if (outcome.ok) {
    // KEP-5679: success clears firstFailureTime; the status says Normal again.
    const events = before.fallbackStatus === 'Fallback' ? [recoveredEvent(spec, label, before.firstFailureTime, now)] : [];
    return { status: withFallbackFields(withDescribedObject(spec, outcome.proposal.status), { fallbackStatus: 'Normal' }), label, metricName, events, decision: { status: 'Normal' } };
  }
  // KEP-5679: firstFailureTime is set on the first consecutive failure and kept through the next ones.
  const firstFailureTime = validTime(before.firstFailureTime) ?? metaTime(now);
  const duration = fallback.failureDurationSeconds ?? DEFAULT_FAILURE_DURATION_SECONDS;
  // KEP-5679: the fallback activates once now - firstFailureTime >= failureDurationSeconds.
  const active = now.getTime() - Date.parse(firstFailureTime) >= duration * 1000;
  const fields: MetricFallbackStatus = { fallbackStatus: active ? 'Fallback' : 'Normal', firstFailureTime };
  const status = withFallbackFields(identitySlot(spec), fields);
  if (!active) return { status, label, metricName, events: [], decision: { status: 'Normal', firstFailureTime } };
  const events =
    before.fallbackStatus === 'Fallback'
      ? []
      : [
          {
            type: 'Normal' as const,
            reason: `${eventPrefix(spec.type)}FallbackActivated`,
            message: `Fallback activated for ${label} after ${goDuration(duration)} of consecutive failures, using fallback replica count: ${fallback.replicas}`,
          },
        ];
  return { status, replicas: fallback.replicas, label, metricName, events, decision: { status: 'Fallback', firstFailureTime, replicas: fallback.replicas } };
}

/** KEP-5679 ExternalMetricFallbackActive: True while any metric is in fallback, False otherwise. */
export function fallbackCondition(outcomes: readonly FallbackOutcome[]): { status: ConditionStatus; reason: string; message: string } {
  const active = outcomes.filter((o) => o.decision?.status === 'Fallback');
  if (active.length === 0) return { status: 'False', reason: 'NoFallbackActive', message: 'every metric with a fallback is being retrieved, or has failed for less than its failureDurationSeconds' };
  const names = active.map((o) => `${o.label} (${o.replicas})`).join(', ');
  return { status: 'True', reason: 'FallbackActive', message: `using the fallback replica count of ${names}` };
}

/** Go's time.Duration String() for whole seconds: "45s", "3m0s", "1h0m0s". */
export function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** "external metric 'queue_depth'", "resource metric 'cpu'", …: how events and conditions name a metric. */
function metricLabel(spec: MetricSpec): string {
  switch (spec.type) {
    case 'Resource':
      return `resource metric '${spec.resource?.name ?? ''}'`;
    case 'ContainerResource':
      return `container resource metric '${spec.containerResource?.name ?? ''}' of container '${spec.containerResource?.container ?? ''}'`;
    case 'Pods':
      return `pods metric '${spec.pods?.metric.name ?? ''}'`;
    case 'Object':
      return `object metric '${spec.object?.metric.name ?? ''}' of ${spec.object?.describedObject.kind ?? ''}/${spec.object?.describedObject.name ?? ''}`;
    default:
      return `external metric '${spec.external?.metric.name ?? ''}'`;
  }
}

// ---- internals ----

type Source = IdentityFields & { fallback?: MetricFallback };

function sourceOf(spec: MetricSpec): Source | undefined {
  const key = SOURCE_KEYS[spec.type] as SourceKey | undefined;
  return key && spec[key];
}

/** Upstream's reason for External; ours names the extension's types apart. */
function eventPrefix(type: MetricSourceType): string {
  return type === 'External' ? 'ExternalMetric' : 'Metric';
}

function recoveredEvent(spec: MetricSpec, label: string, firstFailureTime: Timestamp | undefined, now: Date): FallbackOutcome['events'][number] {
  const since = validTime(firstFailureTime);
  const after = since === undefined ? '' : ` after ${goDuration(Math.max(0, (now.getTime() - Date.parse(since)) / 1000))} of failures`;
  return {
    type: 'Normal',
    reason: `${eventPrefix(spec.type)}FallbackDeactivated`,
    message: `Fallback deactivated for ${label}: the metric was retrieved again${after}, normal evaluation resumes`,
  };
}

/** The status entry of a metric that gave no value: type and identity, no current value. */
function identitySlot(spec: MetricSpec): MetricStatus {
  switch (spec.type) {
    case 'Resource':
      return { type: 'Resource', resource: { name: spec.resource?.name ?? '', current: {} } };
    case 'ContainerResource':
      return { type: 'ContainerResource', containerResource: { name: spec.containerResource?.name ?? '', container: spec.containerResource?.container ?? '', current: {} } };
    case 'Pods':
      return { type: 'Pods', pods: { metric: identifier(spec.pods?.metric), current: {} } };
    case 'Object':
      return { type: 'Object', object: { describedObject: spec.object?.describedObject ?? { kind: '', name: '' }, metric: identifier(spec.object?.metric), current: {} } };
    default:
      return { type: 'External', external: { metric: identifier(spec.external?.metric), current: {} } };
  }
}

/**
 * Upstream's status of an Object metric with an AverageValue target names no describedObject
 * (computeStatusForObjectMetric leaves it empty); with a fallback the entry must be found again, so it names it.
 */
function withDescribedObject(spec: MetricSpec, status: MetricStatus): MetricStatus {
  if (!status.object || status.object.describedObject.kind !== '' || !spec.object) return status;
  return { ...status, object: { ...status.object, describedObject: spec.object.describedObject } };
}

function identifier(id: { name: string; selector?: LabelSelector } | undefined): { name: string; selector?: LabelSelector } {
  return id?.selector === undefined ? { name: id?.name ?? '' } : { name: id.name, selector: id.selector };
}

function withFallbackFields(status: MetricStatus, fields: MetricFallbackStatus): MetricStatus {
  const key = statusKey(status);
  const entry = key && status[key];
  if (!key || !entry) return status;
  const next = { ...entry, fallbackStatus: fields.fallbackStatus, firstFailureTime: fields.firstFailureTime };
  if (next.fallbackStatus === undefined) delete next.fallbackStatus;
  if (next.firstFailureTime === undefined) delete next.firstFailureTime;
  return { ...status, [key]: next };
}

function fallbackFields(status: MetricStatus | undefined): MetricFallbackStatus {
  const key = status && statusKey(status);
  const entry = key ? status[key] : undefined;
  return { fallbackStatus: entry?.fallbackStatus, firstFailureTime: entry?.firstFailureTime };
}

/** metav1.Time's RFC 3339 form: whole seconds, as the API server stores it. */
function metaTime(d: Date): Timestamp {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** A stored time that does not parse is treated as absent: the failure run starts again now. */
function validTime(t: Timestamp | undefined): Timestamp | undefined {
  return t !== undefined && Number.isFinite(Date.parse(t)) ? t : undefined;
}

type SourceKey = 'resource' | 'containerResource' | 'pods' | 'object' | 'external';
const SOURCE_KEYS: Record<MetricSourceType, SourceKey> = {
  Resource: 'resource',
  ContainerResource: 'containerResource',
  Pods: 'pods',
  Object: 'object',
  External: 'external',
};

function statusKey(status: MetricStatus): SourceKey | undefined {
  return status.type === '' ? undefined : SOURCE_KEYS[status.type];
}

/** What names a metric, in its spec and in its status entry alike. */
interface IdentityFields {
  name?: string;
  container?: string;
  metric?: { name: string; selector?: LabelSelector };
  describedObject?: { kind: string; name: string };
}

function identity(type: string, e: IdentityFields | undefined): string {
  const o = e?.describedObject;
  return JSON.stringify([type, e?.name ?? e?.metric?.name ?? '', e?.container ?? '', o?.kind ?? '', o?.name ?? '', selectorText(e?.metric?.selector)]);
}

function specIdentity(spec: MetricSpec): string {
  return identity(String(spec.type), sourceOf(spec));
}

function statusIdentity(status: MetricStatus): string {
  const key = statusKey(status);
  return key ? identity(status.type, status[key]) : '';
}

/** The selector as a key: labels sorted, expressions' values sorted; an empty selector and none are one key. */
function selectorText(selector: LabelSelector | undefined): string {
  const labels = Object.entries(selector?.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const expressions = (selector?.matchExpressions ?? []).map((e) => [e.key, e.operator, [...(e.values ?? [])].sort()]);
  return labels.length === 0 && expressions.length === 0 ? '' : JSON.stringify([labels, expressions]);
}
