// A scale is recorded in the state before /scale is written (docs/store.md). When the answer
// to either write is lost, the table may say "scaled 2→6" while the workload has 2, or the
// scale happened with no answer. The next cycle reads the scale and settles it: the target
// has the new size (it happened), or the target is unchanged since the read (it never
// happened: its scale event is taken out of the history), or it changed otherwise (someone
// else scaled it meanwhile: kept, and said). "Unchanged" proves nothing while the write may
// still be on its way: the cycle that decided it may outlive its lease (a frozen or skewed
// worker) and its last /scale write retries for the Kubernetes time budget. Until then the
// scale stays pending and the autoscaler is not evaluated: deciding again on the old size
// would remove a scale event that is about to happen, then meet a 409.
import type { ScaleInfo, ScalingHistory } from '#hpa';
import { leaseMs } from './deadline.js';
import type { NewEvent } from './event-log.js';
import type { PendingScale } from './ports/autoscaler-store.js';

/** How long after its decision a scale may still reach its target: the deciding cycle's lease, then one Kubernetes call's retries (clusterBudgetMs). */
export const inFlightMs = (periodMs: number, clusterBudgetMs: number): number => leaseMs(periodMs) + clusterBudgetMs;

export type PendingResolution =
  | {
      outcome: 'confirmed' | 'notApplied' | 'unconfirmed';
      history: ScalingHistory;
      /** lastScaleTime to restore when the scale never happened (undefined: remove it). */
      lastScaleTime?: string;
      event?: NewEvent;
    }
  /** Too early to tell: the autoscaler is not evaluated this cycle, for this reason. */
  | { outcome: 'inFlight'; reason: string };

/** Settles a pending scale from the target as read at `now`; inFlightFor: how long a scale may still be on its way (inFlightMs). */
export function resolvePending(p: PendingScale, scale: ScaleInfo, history: ScalingHistory, target: string, now: Date, inFlightFor: number): PendingResolution {
  if (scale.specReplicas === p.to) return { outcome: 'confirmed', history };
  if (p.resourceVersion !== undefined && scale.resourceVersion === p.resourceVersion) {
    const until = Date.parse(p.at) + inFlightFor;
    if (now.getTime() < until) {
      return {
        outcome: 'inFlight',
        reason: `the rescale to ${p.to} decided at ${p.at} by another cycle may still be in flight (${target} still has ${scale.specReplicas}, unchanged since): not evaluated until ${new Date(until).toISOString()}, then settled from the target`,
      };
    }
    const up = p.to > p.from;
    const change = Math.abs(p.to - p.from);
    const drop = (events: ScalingHistory['scaleUpEvents']) => {
      const i = events.findIndex((e) => Date.parse(e.timestamp) === Date.parse(p.at) && e.change === change);
      return i < 0 ? events : [...events.slice(0, i), ...events.slice(i + 1)];
    };
    return {
      outcome: 'notApplied',
      history: up ? { ...history, scaleUpEvents: drop(history.scaleUpEvents) } : { ...history, scaleDownEvents: drop(history.scaleDownEvents) },
      lastScaleTime: p.previousScaleTime,
      event: {
        type: 'Warning',
        reason: 'ScaleNotApplied',
        message: `the rescale to ${p.to} decided at ${p.at} never reached ${target} (it still has ${scale.specReplicas}, unchanged since): its scale event is removed from the history`,
      },
    };
  }
  return {
    outcome: 'unconfirmed',
    history,
    event: {
      type: 'Warning',
      reason: 'ScaleUnconfirmed',
      message: `could not confirm the rescale to ${p.to} decided at ${p.at}: ${target} has changed since and has ${scale.specReplicas}; the scale event is kept`,
    },
  };
}
