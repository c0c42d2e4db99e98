// A history that cannot be trusted never loosens a limit. Upstream's rate limits read the scale
// events of the policies' periods, and its stabilization the recommendations of its windows: an
// entry dropped because it was corrupt would let a cycle move further than the spec allows. So a
// direction whose part of the stored history could not be trusted (or all of them, when the state
// could not be trusted at all) is held still for as long as what was lost could still limit it,
// counted from when it was found: as if the limit of that period were already spent. The holds
// are stored with the state, so a restart keeps them, and they end by themselves.
import { defaultBehavior } from '#hpa/api';
import type { ControllerSettings, HorizontalPodAutoscaler, HPAScalingRules } from '#hpa';
import type { AutoscalerRecord, DirectionHolds } from './ports/autoscaler-store.js';

export interface HistoryHolds {
  /** The holds still ahead, to store and to reconcile with. */
  holds: DirectionHolds;
  /** What this cycle found, said once (a warning and an event); undefined when nothing new. */
  found?: string;
  /** Why the holds ahead exist, for the condition that says so. */
  why?: string;
}

type Direction = 'up' | 'down';

const longestPeriod = (r: HPAScalingRules | undefined) => Math.max(0, ...(r?.policies ?? []).map((p) => p.periodSeconds));

/** How long each kind of loss can still limit a direction (seconds), from the spec as the controller runs it. */
function spans(hpa: HorizontalPodAutoscaler, settings: ControllerSettings) {
  const b = hpa.spec.behavior ? defaultBehavior(hpa.spec.behavior) : undefined;
  return {
    // Without a behavior upstream records no scale events and its scale-up limit reads none.
    events: { up: longestPeriod(b?.scaleUp), down: longestPeriod(b?.scaleDown) },
    windows: {
      up: b?.scaleUp?.stabilizationWindowSeconds ?? 0,
      down: b?.scaleDown?.stabilizationWindowSeconds ?? settings.downscaleStabilizationWindowSeconds,
    },
  };
}

export function historyHolds(record: AutoscalerRecord, hpa: HorizontalPodAutoscaler, settings: ControllerSettings, now: Date): HistoryHolds {
  const nowMs = now.getTime();
  const s = spans(hpa, settings);
  const lost: Record<Direction, number> = { up: 0, down: 0 };
  const said: string[] = [];
  const u = record.untrustedHistory;
  if (record.stateProblem) {
    for (const d of ['up', 'down'] as const) lost[d] = Math.max(s.events[d], s.windows[d]);
    said.push('it starts empty');
  } else if (u) {
    if (u.up) {
      lost.up = s.events.up;
      said.push(`scale-up events dropped (${u.up})`);
    }
    if (u.down) {
      lost.down = s.events.down;
      said.push(`scale-down events dropped (${u.down})`);
    }
    if (u.recommendations) {
      lost.up = Math.max(lost.up, s.windows.up);
      lost.down = Math.max(lost.down, s.windows.down);
      said.push(`recommendations dropped (${u.recommendations})`);
    }
  }
  const holds: DirectionHolds = {};
  const held: string[] = [];
  for (const d of ['up', 'down'] as const) {
    const stored = record.holds?.[d] !== undefined && record.holds[d]! > nowMs ? record.holds[d]! : 0;
    const until = Math.max(stored, lost[d] > 0 ? nowMs + lost[d] * 1000 : 0);
    if (until > 0) holds[d] = until;
    if (lost[d] > 0) held.push(`scale ${d} held until ${new Date(until).toISOString()}`);
  }
  const why = 'the stored history could not be trusted, and what was lost could still limit this direction';
  if (said.length === 0) return { holds, ...(Object.keys(holds).length > 0 ? { why } : {}) };
  const effect = held.length > 0 ? `${held.join(', ')}, as if the limits of what was lost were spent` : 'no direction held: what was lost limits neither of this spec';
  return { holds, found: `the stored history could not all be trusted (${said.join('; ')}): ${effect}`, why };
}
