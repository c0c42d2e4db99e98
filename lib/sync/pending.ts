// A scale is recorded in the state before /scale is written (docs/store.md). When the answer
// to either write is lost, the table may say "scaled 2→6" while the workload has 2, or the
// scale happened with no answer. The next cycle reads the scale and settles it: the target
// has the new size (it happened), or the target is unchanged since the read (it never
// happened: its scale event is taken out of the history), or it changed otherwise (someone
// else scaled it meanwhile: kept, and said).
import type { ScaleInfo, ScalingHistory } from '../hpa/types.js';
import type { NewEvent } from './event-log.js';
import type { PendingScale } from './ports.js';

export type PendingOutcome = 'confirmed' | 'notApplied' | 'unconfirmed';

export interface PendingResolution {
  outcome: PendingOutcome;
  history: ScalingHistory;
  /** lastScaleTime to restore when the scale never happened (undefined: remove it). */
  lastScaleTime?: string;
  event?: NewEvent;
}

export function resolvePending(p: PendingScale, scale: ScaleInfo, history: ScalingHistory, target: string): PendingResolution {
  if (scale.specReplicas === p.to) return { outcome: 'confirmed', history };
  if (p.resourceVersion !== undefined && scale.resourceVersion === p.resourceVersion) {
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
