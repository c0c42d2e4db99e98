// Test helpers for the features read against `now` (pause, schedules): an autoscaler on one
// External metric whose value is the replica count it asks for (AverageValue 1 per pod), and a
// loop that syncs it period after period, carrying status, history and the target's replicas.
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { reconcile, type HpaEvent, type ReconcileInput } from '../../lib/hpa/reconcile.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerCondition, MinReplicaSchedule, ScalingHistory } from '../../lib/hpa/types.js';
import type { NormalizeStep } from '../../lib/hpa/behavior.js';

export interface AutoscalerOpts {
  min?: number;
  max?: number;
  annotations?: Record<string, string>;
  schedules?: MinReplicaSchedule[];
  behavior?: HorizontalPodAutoscalerBehavior;
}

export function autoscaler(o: AutoscalerOpts = {}): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'shop', ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: o.min ?? 1,
      maxReplicas: o.max ?? 50,
      metrics: [{ type: 'External', external: { metric: { name: 'jobs' }, target: { type: 'AverageValue', averageValue: '1' } } }],
      ...(o.behavior ? { behavior: o.behavior } : {}),
      ...(o.schedules ? { minReplicaSchedules: o.schedules } : {}),
    },
  };
}

/** One sync: `replicas` running, the metric asking for `wants` replicas. */
export function syncInput(hpa: HorizontalPodAutoscaler, replicas: number, wants: number, now: Date, history?: ScalingHistory): ReconcileInput {
  return {
    hpa,
    scale: { value: { specReplicas: replicas, statusReplicas: replicas, selector: 'app=web' } },
    pods: [],
    metrics: [{ externalMetrics: { value: [{ value: String(wants), timestamp: now.toISOString() }] } }],
    history: history ?? { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
    settings: DEFAULT_CONTROLLER_SETTINGS,
    now,
  };
}

export interface Tick {
  at: string;
  replicas: number;
  conditions: HorizontalPodAutoscalerCondition[];
  events: HpaEvent[];
  steps: NormalizeStep[];
}

/**
 * Syncs every `periodSeconds` from `from` to `to` (inclusive); `wants(t)` is what the metric asks
 * for, `edit(hpa, t)` may change the object between syncs (an annotation removed...).
 */
export function drive(
  hpa: HorizontalPodAutoscaler,
  opts: { from: string; to: string; periodSeconds?: number; replicas: number; wants: (t: Date) => number; edit?: (hpa: HorizontalPodAutoscaler, t: Date) => HorizontalPodAutoscaler },
): Tick[] {
  const ticks: Tick[] = [];
  let current = hpa;
  let replicas = opts.replicas;
  let history: ScalingHistory | undefined;
  for (let t = Date.parse(opts.from); t <= Date.parse(opts.to); t += (opts.periodSeconds ?? 15) * 1000) {
    const now = new Date(t);
    if (opts.edit) current = { ...opts.edit(current, now), status: current.status };
    const r = reconcile(syncInput(current, replicas, opts.wants(now), now, history));
    if (r.scaled) replicas = r.status.desiredReplicas;
    history = r.history;
    current = { ...current, status: r.status };
    ticks.push({ at: now.toISOString(), replicas, conditions: r.conditions, events: r.events, steps: r.decision.steps });
  }
  return ticks;
}

/** The replica count at the tick of `at` (an ISO time that is a tick). */
export function replicasAt(ticks: Tick[], at: string): number {
  const t = ticks.find((x) => x.at === new Date(at).toISOString());
  if (!t) throw new Error(`no tick at ${at}`);
  return t.replicas;
}
