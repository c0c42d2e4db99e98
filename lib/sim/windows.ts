// What the report shows of pauses and scheduled minimums at one sample: the effective minimum,
// and the windows open and directions paused (drawn as spans). Nothing for an autoscaler using neither.
import { type HorizontalPodAutoscaler, pauseState, type ScheduleCache, scheduledMinimum } from '#hpa';
import type { Sample } from '../report/recorder.js';

export function windowSample(hpa: HorizontalPodAutoscaler, now: Date, cache?: ScheduleCache): Pick<Sample, 'minimum' | 'spans'> {
  const m = scheduledMinimum(hpa, now, cache);
  const pause = pauseState(hpa.metadata.annotations, now);
  const spans: NonNullable<Sample['spans']> = [
    ...(m?.open ?? []).map((w) => ({ kind: 'window' as const, label: `window ${w.schedule.name} (minReplicas ${w.schedule.minReplicas})` })),
    ...(['up', 'down'] as const).filter((d) => pause.active[d]).map((d) => ({ kind: 'pause' as const, label: `scale ${d} paused` })),
  ];
  return { ...(m ? { minimum: m.minReplicas } : {}), ...(spans.length > 0 ? { spans } : {}) };
}
