// The line `shpa describe` adds for an autoscaler with spec.predictive: its settings and what the
// last sync's forecast said (the PredictiveMinimum condition), as `kubectl describe` shows the condition.
import type { HorizontalPodAutoscaler } from '#hpa';

const span = (s: number) => (s % 86_400 === 0 ? `${s / 86_400}d` : s % 3600 === 0 ? `${s / 3600}h` : `${s}s`);

/** ["Predictive:", …] for an autoscaler with spec.predictive; none otherwise. */
export function predictiveRows(h: HorizontalPodAutoscaler): [string, string][] {
  const p = h.spec?.predictive;
  if (!p) return [];
  const settings = [
    p.mode,
    `buffer ${p.schedulingBufferSeconds ?? 300}s`,
    `history ${span(p.historySeconds ?? 1_209_600)} (acts after ${span(p.minHistorySeconds ?? 86_400)})`,
    p.maxReplicasBehavior ?? 'HonorMaxReplicas',
  ].join(', ');
  const c = h.status?.conditions?.find((x) => x.type === 'PredictiveMinimum');
  const now = c ? `${c.status === 'True' ? 'raising the minimum' : c.reason}: ${c.message ?? ''}` : 'no sync yet';
  return [['Predictive:', `${settings}\n${now}`]];
}
