// Upstream replica_calculator.go groupPods and removeMetricsForPods, plus the exact
// RFC 3339 time arithmetic they need (nanosecond precision, Go's zero time included).
import type { Milli } from './api/quantity.js';
import type { PodInfo } from './types.js';

/** Go's zero time.Time, as RFC 3339: a real instant, not "unset". */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Bad input the calculator cannot read (a malformed timestamp), named by its field. */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** An instant: whole seconds since the Unix epoch plus nanoseconds (0..999999999). */
export interface Instant {
  readonly s: number;
  readonly ns: number;
}

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;
/** Parses an RFC 3339 time exactly; undefined when malformed. */
export function parseInstant(text: string): Instant | undefined {
  const m = RFC3339.exec(text.toUpperCase());
  if (!m) return undefined;
  const ms = Date.parse(m[1] + m[3]);
  if (Number.isNaN(ms)) return undefined;
  return { s: ms / 1000, ns: m[2] ? Number(m[2].padEnd(9, '0')) : 0 };
}

export function instantOf(date: Date): Instant {
  const ms = date.getTime();
  const s = Math.floor(ms / 1000);
  return { s, ns: (ms - s * 1000) * 1e6 };
}

/** a + seconds < b, exactly (seconds may be fractional, as a metrics window can be). */
function isBeforeShifted(a: Instant, seconds: number, b: Instant): boolean {
  const whole = Math.floor(seconds);
  let s = a.s + whole;
  let ns = a.ns + Math.round((seconds - whole) * 1e9);
  if (ns >= 1e9) {
    s += 1;
    ns -= 1e9;
  }
  return s < b.s || (s === b.s && ns < b.ns);
}

/** One pod's value as the metrics client returns it (PodMetric), in milli-units. */
export interface PodSample {
  value: Milli;
  /** Resource metrics only: the sample's timestamp and window, used by the CPU readiness rules. */
  timestamp?: string;
  windowSeconds?: number;
}

export interface PodGroups {
  readyPodCount: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

export interface GroupSettings {
  cpuInitializationPeriodSeconds: number;
  initialReadinessDelaySeconds: number;
  now: Instant;
}

/** Times parsed in one grouping, by text: pods share timestamps (no state outlives the call). */
type Instants = Map<string, Instant>;

function instantAt(text: string | undefined, field: string, parsed: Instants): Instant {
  const key = text ?? ZERO_TIME;
  let instant = parsed.get(key);
  if (!instant) {
    instant = parseInstant(key);
    if (!instant) throw new InputError(field, `invalid RFC 3339 time ${JSON.stringify(text)}`);
    parsed.set(key, instant);
  }
  return instant;
}

/** Upstream groupPods: which pods count, which are unready, missing or ignored. */
export function groupPods(pods: PodInfo[], metrics: Map<string, PodSample>, resource: string, settings: GroupSettings): PodGroups {
  const groups: PodGroups = { readyPodCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  const parsed: Instants = new Map();
  for (let i = 0; i < pods.length; i++) {
    const pod = pods[i];
    // Deleted and failed pods are ignored entirely.
    if (pod.deletionTimestamp !== undefined || pod.phase === 'Failed') {
      groups.ignored.add(pod.name);
      continue;
    }
    if (pod.phase === 'Pending') {
      groups.unready.add(pod.name);
      continue;
    }
    const metric = metrics.get(pod.name);
    if (metric === undefined) {
      groups.missing.add(pod.name);
      continue;
    }
    if (resource === 'cpu' && isUnreadyForCpu(pod, metric, settings, i, parsed)) {
      groups.unready.add(pod.name);
      continue;
    }
    groups.readyPodCount++;
  }
  return groups;
}

// Upstream: a CPU sample is unready while the pod may still be initializing.
function isUnreadyForCpu(pod: PodInfo, metric: PodSample, settings: GroupSettings, index: number, parsed: Instants): boolean {
  if (pod.ready === undefined || pod.startTime === undefined) return true;
  const start = instantAt(pod.startTime, `pods[${index}].startTime`, parsed);
  // A Ready condition without lastTransitionTime carries Go's zero time.
  const transition = instantAt(pod.readyTransitionTime, `pods[${index}].readyTransitionTime`, parsed);
  if (isBeforeShifted(settings.now, -settings.cpuInitializationPeriodSeconds, start)) {
    // Within the initialization period: unready, or no full metric window since the last transition.
    if (pod.ready === 'False') return true;
    const sampled = instantAt(metric.timestamp, `podMetrics[${JSON.stringify(pod.name)}].timestamp`, parsed);
    return isBeforeShifted(sampled, -(metric.windowSeconds ?? 0), transition);
  }
  // After it: unready only if it never became ready since the initial readiness delay.
  return pod.ready === 'False' && isBeforeShifted(transition, -settings.initialReadinessDelaySeconds, start);
}

export function removeMetricsForPods(metrics: Map<string, PodSample>, pods: Set<string>): void {
  for (const name of pods) metrics.delete(name);
}
