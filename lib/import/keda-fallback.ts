// KEDA's ScaledObject `fallback` (a count of failed polls, then a replica count) as our metric
// fallback (KEP-5679, docs/fallback.md): a duration of failures instead of a count.
import { type MetricFallback, type MetricSpec, MIN_FAILURE_DURATION_SECONDS, withFallback } from '#hpa';

/** KEDA's default pollingInterval, in seconds. */
const KEDA_POLLING_INTERVAL_SECONDS = 30;

type Obj = Record<string, unknown>;

/** The metrics with KEDA's fallback on each, and what was said about it; unchanged when the ScaledObject has none. */
export function withKedaFallback(spec: Obj, metrics: MetricSpec[]): { metrics: MetricSpec[]; mapped: string[]; unmapped: string[] } {
  const fb = spec.fallback;
  if (typeof fb !== 'object' || fb === null) return { metrics, mapped: [], unmapped: [] };
  const { replicas, failureThreshold, behavior } = fb as Obj;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 1 || typeof failureThreshold !== 'number' || failureThreshold < 0) {
    return { metrics, mapped: [], unmapped: ['fallback: needs replicas (an integer > 0) and failureThreshold (a number ≥ 0)'] };
  }
  const polling = typeof spec.pollingInterval === 'number' ? spec.pollingInterval : KEDA_POLLING_INTERVAL_SECONDS;
  const failureDurationSeconds = Math.max(MIN_FAILURE_DURATION_SECONDS, Math.ceil(failureThreshold * polling));
  const fallback: MetricFallback = { failureDurationSeconds, replicas };
  const unmapped = behavior !== undefined && behavior !== 'static' ? [`fallback.behavior ${String(behavior)}: ours always proposes the fixed replica count (KEDA's static)`] : [];
  return {
    metrics: metrics.map((m) => withFallback(m, fallback)),
    mapped: [
      `fallback (${failureThreshold} failures × ${polling} s polling) → each metric's fallback: ${replicas} replicas after ${failureDurationSeconds} s of failures (at least ${MIN_FAILURE_DURATION_SECONDS} s)`,
    ],
    unmapped,
  };
}
