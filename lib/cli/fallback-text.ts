// The fallback line under a metric in `shpa describe` (KEP-5679 state, read from the stored status).
import { DEFAULT_FAILURE_DURATION_SECONDS, fallbackOf, goDuration, type MetricSpec, type MetricStatus, storedMetricStatus } from '#hpa';
import { age } from './format.js';

/** "10 replicas after 3m0s of failures; Fallback, failing since … (4m)", or undefined when the metric has no fallback. */
export function fallbackText(metrics: readonly MetricSpec[], index: number, statuses: readonly MetricStatus[] | undefined, now: Date): string | undefined {
  const fallback = fallbackOf(metrics[index]);
  if (!fallback) return undefined;
  const rule = `${fallback.replicas} replicas after ${goDuration(fallback.failureDurationSeconds ?? DEFAULT_FAILURE_DURATION_SECONDS)} of failures`;
  const s = storedMetricStatus(metrics, index, statuses);
  const entry = s && (s.resource ?? s.containerResource ?? s.pods ?? s.object ?? s.external);
  if (!entry?.fallbackStatus) return `${rule}; not evaluated yet`;
  const since = entry.firstFailureTime ? `, failing since ${entry.firstFailureTime} (${age(now.getTime() - Date.parse(entry.firstFailureTime))})` : '';
  return `${rule}; ${entry.fallbackStatus === 'Fallback' ? 'Fallback (in use)' : 'Normal'}${since}`;
}
