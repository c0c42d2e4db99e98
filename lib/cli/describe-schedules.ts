// The lines `shpa describe` adds for an autoscaler that is paused or has scheduled minimums,
// worked out at the time of the describe (an expired pause shows as expired before any sync).
import { type HorizontalPodAutoscaler, openWindow, pauseState, pauseText, scheduledMinimum, schedulesOf } from '#hpa';

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

/** [label, value] rows: "Paused:" and "Schedules:"; none for an autoscaler that uses neither. */
export function pauseAndScheduleRows(h: HorizontalPodAutoscaler, now: Date): [string, string][] {
  const rows: [string, string][] = [];
  const pause = pauseState(h.metadata?.annotations, now);
  const said = [
    pauseText(pause.active),
    ...(['up', 'down'] as const).flatMap((d) => (pause.expired[d] ? [`scale ${d} pause expired at ${iso(pause.expired[d]!.until!)} (${pause.expired[d]!.annotation})`] : [])),
    ...pause.errors.map((e) => `${e.field}: ${JSON.stringify(e.value)} ignored: ${e.message}`),
  ].filter(Boolean);
  if (said.length > 0) rows.push(['Paused:', said.join('\n')]);
  if (!h.spec || !h.metadata) return rows;
  const { schedules, errors } = schedulesOf(h);
  const m = scheduledMinimum(h, now);
  if (!m) return rows;
  const lines = schedules.map((s) => {
    const open = openWindow(s, now);
    const state = open ? `open${open.until ? ` until ${iso(open.until)}` : ''}` : m.next?.schedule === s ? `next opens at ${iso(m.next.at)}` : 'closed';
    return `${s.name}: minReplicas ${s.minReplicas}, ${s.start} → ${s.end} (${s.timezone ?? 'UTC'}), ${state}`;
  });
  lines.push(...errors.map((e) => `${e.field}: ${e.message} (ignored)`));
  lines.push(`effective minimum now: ${m.minReplicas}${m.raisedBy ? ` (window ${m.raisedBy.schedule.name})` : ''}`);
  rows.push(['Schedules:', lines.join('\n')]);
  return rows;
}
