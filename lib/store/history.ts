// The compact form of an autoscaler's stored state, and the rule that decides
// whether a cycle's result is worth a write.
//
// Upstream appends one recommendation per cycle and only ever takes the max (or min)
// of those after a cutoff. For that, only the LATEST timestamp of each distinct value
// matters, so we keep one [replicas, lastSeenMs] pair per value. The latest value's
// pair is "open" when the last write recorded it: every later cycle that recorded the
// same value skipped the write, and the load re-extends its last-seen time to the
// cluster's latest cycle marker (see docs/store.md).
import type { DemandHistory, HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerStatus, MetricStatus, MetricValueStatus, ScalingHistory } from '#hpa';
import { parseQuantity, toFloat } from '#hpa/api';
import type { DirectionHolds } from '#sync/ports';

export type RecPair = [replicas: number, lastSeenMs: number];
export type EventPair = [timestampMs: number, change: number];

export interface CompactState {
  status?: HorizontalPodAutoscalerStatus;
  /** null: no recommendation recorded yet (the controller seeds one). */
  rec: RecPair[] | null;
  /** The latest pair was recorded by the write that stored it, and assumed every cycle since. */
  open: boolean;
  /** Offset of the open pair's time from the cluster's cycle marker when it was written. */
  offsetMs: number;
  up: EventPair[];
  down: EventPair[];
  /** When currentMetrics were last written. */
  metricsAtMs: number;
  /** Directions held still until these times (epoch ms): a history that could not be trusted (lib/sync/history-holds.ts). */
  holds?: DirectionHolds;
  /** spec.predictive's demand history (lib/store/demand-codec.ts), stored with the state. */
  demand?: DemandHistory;
  /** Its newest bucket and value when compacted: a new bucket, or a higher value in it, is worth a write. */
  demandMark?: string;
}

export interface WritePolicy {
  /** Changed metric values are written no sooner than this after the last write of them... */
  metricsMinIntervalMs: number;
  /** ...and only when they moved by at least this fraction, */
  metricsSignificantChange: number;
  /** unless they are older than this. */
  metricsMaxAgeMs: number;
}

export const DEFAULT_WRITE_POLICY: WritePolicy = {
  metricsMinIntervalMs: 60_000,
  metricsSignificantChange: 0.1,
  metricsMaxAgeMs: 300_000,
};

/** The longest window any stabilization of this spec looks back (seconds). */
export function historyHorizonSeconds(behavior: HorizontalPodAutoscalerBehavior | undefined, legacyDownscaleWindow: number): number {
  const up = behavior?.scaleUp?.stabilizationWindowSeconds ?? 0;
  const down = behavior?.scaleDown?.stabilizationWindowSeconds ?? legacyDownscaleWindow;
  return Math.max(up, down, legacyDownscaleWindow);
}

const ms = (t: string): number => Date.parse(t);
const iso = (t: number): string => new Date(t).toISOString();

/** One pair per distinct value with its latest time, oldest first, without those older than the horizon. */
export function collapseRecommendations(history: ScalingHistory, cutoffMs: number): RecPair[] | null {
  if (history.recommendations === null) return null;
  const latest = new Map<number, number>();
  for (const r of history.recommendations) {
    const t = ms(r.timestamp);
    if ((latest.get(r.replicas) ?? -Infinity) < t) latest.set(r.replicas, t);
  }
  // Strictly older than the cutoff: no later cycle's window can include it.
  return [...latest].filter(([, t]) => t >= cutoffMs).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

/** The upstream-shaped history a cycle works on; the open pair extended to the latest cycle. */
export function expandHistory(state: CompactState, markerMs: number | undefined): ScalingHistory {
  let rec = state.rec;
  if (rec && rec.length > 0 && state.open && markerMs !== undefined) {
    const [value, seen] = rec[rec.length - 1];
    rec = [...rec.slice(0, -1), [value, Math.max(seen, markerMs + state.offsetMs)]];
  }
  return {
    recommendations: rec ? rec.map(([replicas, t]) => ({ replicas, timestamp: iso(t) })) : null,
    scaleUpEvents: state.up.map(([t, change]) => ({ timestamp: iso(t), change })),
    scaleDownEvents: state.down.map(([t, change]) => ({ timestamp: iso(t), change })),
  };
}

/**
 * The compact state to store after a cycle. `before` is the history the cycle started
 * from (as expanded); a recommendation newer than all of it means this cycle recorded one.
 */
export function compactState(
  before: ScalingHistory,
  after: { status: HorizontalPodAutoscalerStatus; history: ScalingHistory; holds?: DirectionHolds; demand?: DemandHistory },
  cutoffMs: number,
  markerMs: number,
  metricsAtMs: number,
): CompactState {
  const newestBefore = Math.max(-Infinity, ...(before.recommendations ?? []).map((r) => ms(r.timestamp)));
  const rec = collapseRecommendations(after.history, cutoffMs);
  const last = rec?.[rec.length - 1];
  const open = last !== undefined && last[1] > newestBefore;
  return {
    status: after.status,
    rec,
    open,
    offsetMs: open ? last[1] - markerMs : 0,
    up: after.history.scaleUpEvents.map((e) => [ms(e.timestamp), e.change]),
    down: after.history.scaleDownEvents.map((e) => [ms(e.timestamp), e.change]),
    metricsAtMs,
    ...(after.holds ? { holds: after.holds } : {}),
    ...(after.demand ? { demand: after.demand, demandMark: demandMark(after.demand) } : {}),
  };
}

/** The demand's newest bucket and its value: the demand is updated in place, so what was stored is compared by this. */
export function demandMark(h: DemandHistory): string {
  return `${h.firstBucket + h.values.length}:${h.values[h.values.length - 1] ?? ''}`;
}

/**
 * Whether `next` differs from what is stored (`prev`) in anything that matters: replica
 * counts, scale time, conditions' status or reason (and the winning metric), the recommendation history beyond
 * the open value's last-seen time, scale events; metric values only as WritePolicy says.
 */
export function needsWrite(prev: CompactState | undefined, next: CompactState, nowMs: number, policy: WritePolicy = DEFAULT_WRITE_POLICY): boolean {
  if (!prev || !prev.status || !next.status) return true;
  const a = prev.status;
  const b = next.status;
  if (
    a.currentReplicas !== b.currentReplicas ||
    a.desiredReplicas !== b.desiredReplicas ||
    a.lastScaleTime !== b.lastScaleTime ||
    a.observedGeneration !== b.observedGeneration
  )
    return true;
  // ScalingActive's message names the winning metric (ValidMetricFound): a change of winner is a change to keep.
  const cond = (s: HorizontalPodAutoscalerStatus) =>
    JSON.stringify((s.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.type === 'ScalingActive' && c.status === 'True' ? c.message : '']));
  if (cond(a) !== cond(b)) return true;
  if (historyChanged(prev, next)) return true;
  if (JSON.stringify(prev.up) !== JSON.stringify(next.up) || JSON.stringify(prev.down) !== JSON.stringify(next.down)) return true;
  if (JSON.stringify(prev.holds ?? {}) !== JSON.stringify(next.holds ?? {})) return true;
  // Ours: a bucket of the demand closed (at most one write per bucket), or its newest rose (usually with a scale).
  if (prev.demandMark !== next.demandMark) return true;
  return metricsNeedWrite(a.currentMetrics ?? [], b.currentMetrics ?? [], nowMs - prev.metricsAtMs, policy);
}

function historyChanged(prev: CompactState, next: CompactState): boolean {
  if ((prev.rec === null) !== (next.rec === null)) return true;
  if (prev.open !== next.open) return true;
  const p = prev.rec ?? [];
  const n = next.rec ?? [];
  // Pairs that only aged out of every window are not a change.
  const cutoff = n.length > 0 ? n[0][1] : Infinity;
  const kept = p.filter(([, t], i) => t >= cutoff || (i === p.length - 1 && prev.open));
  if (kept.length !== n.length) return true;
  return kept.some(([v, t], i) => {
    const [nv, nt] = n[i];
    if (v !== nv) return true;
    // The open pair's time advances every cycle by design; anything else is a change.
    return t !== nt && !(i === n.length - 1 && prev.open && next.open);
  });
}

function metricsNeedWrite(a: MetricStatus[], b: MetricStatus[], ageMs: number, policy: WritePolicy): boolean {
  if (a.length !== b.length) return true;
  let differs = false;
  let significant = false;
  for (let i = 0; i < a.length; i++) {
    const [ka, va] = metricParts(a[i]);
    const [kb, vb] = metricParts(b[i]);
    if (ka !== kb) return true;
    for (const f of ['value', 'averageValue', 'averageUtilization'] as const) {
      if (va[f] === vb[f]) continue;
      differs = true;
      const x = toNumber(va[f]);
      const y = toNumber(vb[f]);
      if (x === undefined || y === undefined || Math.abs(y - x) >= policy.metricsSignificantChange * Math.max(Math.abs(x), Math.abs(y))) significant = true;
    }
  }
  if (!differs) return false;
  return ageMs >= policy.metricsMaxAgeMs || (significant && ageMs >= policy.metricsMinIntervalMs);
}

function metricParts(m: MetricStatus): [string, MetricValueStatus] {
  const src = m.resource ?? m.containerResource ?? m.pods ?? m.object ?? m.external;
  const { current, ...identity } = src ?? { current: {} };
  return [`${m.type}:${JSON.stringify(identity)}`, current];
}

function toNumber(v: string | number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  try {
    return toFloat(parseQuantity(v));
  } catch {
    return undefined;
  }
}
