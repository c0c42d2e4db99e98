import { describe, expect, it } from 'vitest';
import { FieldPath } from '../../lib/hpa/api/field-path.js';
import { reconcile } from '../../lib/hpa/reconcile.js';
import { openWindow, scheduledMinimum, validateSchedules } from '../../lib/hpa/schedules.js';
import type { MinReplicaSchedule } from '../../lib/hpa/types.js';
import { autoscaler, drive, replicasAt, syncInput } from './drive.js';

const window = (start: string, end: string, timezone?: string, minReplicas = 10): MinReplicaSchedule => ({ name: 'w', minReplicas, start, end, ...(timezone ? { timezone } : {}) });

describe('when a window is open', () => {
  const businessHours = window('0 9 * * 1-5', '0 18 * * 1-5', 'Europe/Berlin');
  const overnight = window('0 22 * * *', '0 6 * * *');
  const explicit = window('2026-12-24T18:00:00Z', '2026-12-26T00:00:00Z');
  const cases: { name: string; w: MinReplicaSchedule; at: string; open: boolean; since?: string; until?: string }[] = [
    { name: 'business hours, Thursday 09:30 Berlin', w: businessHours, at: '2026-11-26T08:30:00Z', open: true, since: '2026-11-26T08:00:00.000Z', until: '2026-11-26T17:00:00.000Z' },
    { name: 'business hours, 08:59 Berlin', w: businessHours, at: '2026-11-26T07:59:00Z', open: false },
    { name: 'business hours, at 09:00 exactly', w: businessHours, at: '2026-11-26T08:00:00Z', open: true },
    { name: 'business hours, at 18:00 exactly (the end is honoured)', w: businessHours, at: '2026-11-26T17:00:00Z', open: false },
    { name: 'business hours, Saturday', w: businessHours, at: '2026-11-28T10:00:00Z', open: false },
    { name: 'spanning midnight, 23:00', w: overnight, at: '2026-11-26T23:00:00Z', open: true, since: '2026-11-26T22:00:00.000Z', until: '2026-11-27T06:00:00.000Z' },
    { name: 'spanning midnight, 05:59 the next day', w: overnight, at: '2026-11-27T05:59:00Z', open: true, since: '2026-11-26T22:00:00.000Z' },
    { name: 'spanning midnight, 06:00', w: overnight, at: '2026-11-27T06:00:00Z', open: false },
    { name: 'spanning midnight, 21:59', w: overnight, at: '2026-11-27T21:59:00Z', open: false },
    { name: 'explicit times, before', w: explicit, at: '2026-12-24T17:59:59Z', open: false },
    { name: 'explicit times, during', w: explicit, at: '2026-12-25T12:00:00Z', open: true, since: '2026-12-24T18:00:00.000Z', until: '2026-12-26T00:00:00.000Z' },
    { name: 'explicit times, at the end', w: explicit, at: '2026-12-26T00:00:00Z', open: false },
    // DST, Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST; 2026-10-25 03:00 CEST → 02:00 CET.
    { name: 'DST spring: a start in the skipped hour opens at 03:00 CEST', w: window('30 2 * * *', '30 4 * * *', 'Europe/Berlin'), at: '2026-03-29T01:10:00Z', open: true, since: '2026-03-29T01:00:00.000Z', until: '2026-03-29T02:30:00.000Z' },
    { name: 'DST spring: the day before, 02:30 CET', w: window('30 2 * * *', '30 4 * * *', 'Europe/Berlin'), at: '2026-03-28T01:40:00Z', open: true, since: '2026-03-28T01:30:00.000Z' },
    { name: 'DST autumn: 09:00 local is 08:00 UTC after the change', w: businessHours, at: '2026-10-26T07:30:00Z', open: false },
    { name: 'DST autumn: open at 08:00 UTC', w: businessHours, at: '2026-10-26T08:00:00Z', open: true, since: '2026-10-26T08:00:00.000Z' },
    { name: 'DST autumn: a repeated hour opens once', w: window('30 2 * * *', '45 2 * * *', 'Europe/Berlin'), at: '2026-10-25T01:35:00Z', open: false },
    { name: 'New York, after its spring change: 09:00 EDT is 13:00 UTC', w: window('0 9 * * *', '0 17 * * *', 'America/New_York'), at: '2026-03-09T13:00:00Z', open: true },
  ];
  it.each(cases)('$name', (c) => {
    const w = openWindow(c.w, new Date(c.at));
    expect(w !== undefined).toBe(c.open);
    if (c.since) expect(w?.since.toISOString()).toBe(c.since);
    if (c.until) expect(w?.until?.toISOString()).toBe(c.until);
  });

  it('the effective minimum is the largest open window, capped at maxReplicas, and names the next one', () => {
    const hpa = autoscaler({ min: 2, max: 12, schedules: [{ ...overnight, name: 'night', minReplicas: 4 }, { ...businessHours, name: 'day', minReplicas: 20 }, { ...explicit, name: 'xmas', minReplicas: 6 }] });
    const day = scheduledMinimum(hpa, new Date('2026-11-26T10:00:00Z'))!;
    expect([day.minReplicas, day.raisedBy?.schedule.name, day.next?.schedule.name, day.next?.at.toISOString()]).toEqual([12, 'day', 'night', '2026-11-26T22:00:00.000Z']);
    const none = scheduledMinimum(autoscaler({ min: 2 }), new Date('2026-11-26T10:00:00Z'));
    expect(none).toBeUndefined();
  });
});

describe('schedule validation', () => {
  const cases: { name: string; value: unknown; fields: string[] }[] = [
    { name: 'a good list', value: [window('0 9 * * 1-5', '0 18 * * 1-5', 'Europe/Berlin')], fields: [] },
    { name: 'six cron fields', value: [window('0 0 9 * * 1-5', '0 18 * * 1-5')], fields: ['spec.minReplicaSchedules[0].start'] },
    { name: 'a bad minute', value: [window('61 9 * * *', '0 18 * * *')], fields: ['spec.minReplicaSchedules[0].start'] },
    { name: 'an unknown timezone', value: [window('0 9 * * *', '0 18 * * *', 'Mars/Olympus')], fields: ['spec.minReplicaSchedules[0].timezone'] },
    { name: 'end before start', value: [window('2026-12-26T00:00:00Z', '2026-12-24T00:00:00Z')], fields: ['spec.minReplicaSchedules[0].end'] },
    { name: 'start equal to end', value: [window('31 * * * *', '31 * * * *')], fields: ['spec.minReplicaSchedules[0].end'] },
    { name: 'minimum above maxReplicas', value: [window('0 9 * * *', '0 18 * * *', undefined, 60)], fields: ['spec.minReplicaSchedules[0].minReplicas'] },
    { name: 'minimum 0', value: [window('0 9 * * *', '0 18 * * *', undefined, 0)], fields: ['spec.minReplicaSchedules[0].minReplicas'] },
    { name: 'duplicate names', value: [window('0 9 * * *', '0 18 * * *'), window('0 1 * * *', '0 2 * * *')], fields: ['spec.minReplicaSchedules[1].name'] },
    { name: 'an unknown field', value: [{ ...window('0 9 * * *', '0 18 * * *'), desiredReplicas: 3 }], fields: ['spec.minReplicaSchedules[0].desiredReplicas'] },
    { name: 'a cron start with an explicit end', value: [window('0 9 * * *', '2026-12-24T00:00:00Z')], fields: ['spec.minReplicaSchedules[0].end'] },
    { name: 'not a list', value: { name: 'w' }, fields: ['spec.minReplicaSchedules'] },
  ];
  it.each(cases)('$name', (c) => {
    expect(validateSchedules(c.value, FieldPath.root('spec').child('minReplicaSchedules'), 50).map((e) => e.field)).toEqual(c.fields);
  });
});

describe('scheduled minimums through reconcile (the complaints about KEDA cron)', () => {
  const nineToTen = [{ name: 'morning', minReplicas: 10, start: '0 9 * * *', end: '0 10 * * *' }];

  it('goes straight to the window minimum when it opens, past the scale-up policies, with a schedule step and the window in the status', () => {
    const hpa = autoscaler({ min: 2, schedules: nineToTen });
    const r = reconcile(syncInput({ ...hpa, status: { currentReplicas: 2, desiredReplicas: 2 } }, 2, 2, new Date('2026-11-26T09:00:00Z')));
    expect([r.scaled, r.status.desiredReplicas]).toEqual([true, 10]);
    expect(r.decision.steps).toEqual([{ rule: 'schedule', from: 2, to: 10, detail: 'morning' }]);
    expect(r.decision.rescaleReason).toBe('Current number of replicas below the minimum of window morning');
    expect(r.conditions.find((c) => c.type === 'ScheduledMinimum')).toMatchObject({
      status: 'True',
      reason: 'WindowOpen',
      message: 'window morning (minReplicas 10, UTC) open since 2026-11-26T09:00:00Z until 2026-11-26T10:00:00Z: minimum 10 (spec.minReplicas 2)',
    });
    expect(r.events.map((e) => e.reason)).toEqual(['ScheduleWindowOpen', 'SuccessfulRescale']);
  });

  it('kedacore/keda#1941 (end time ignored): with no scale-down stabilization the minimum ends at the end time', () => {
    const hpa = autoscaler({ min: 2, schedules: nineToTen, behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } });
    const ticks = drive(hpa, { from: '2026-11-26T08:59:00Z', to: '2026-11-26T10:01:00Z', replicas: 2, wants: () => 1 });
    expect(replicasAt(ticks, '2026-11-26T08:59:45Z')).toBe(2);
    expect(replicasAt(ticks, '2026-11-26T09:00:00Z')).toBe(10);
    expect(replicasAt(ticks, '2026-11-26T09:59:45Z')).toBe(10);
    expect(replicasAt(ticks, '2026-11-26T10:00:00Z')).toBe(2);
    expect(ticks.find((t) => t.at === '2026-11-26T10:00:00.000Z')!.events.map((e) => e.reason)).toEqual(['ScheduleWindowClosed', 'SuccessfulRescale']);
  });

  it('kedacore/keda#6787 (cooldown not honoured): the scale-down stabilization window and policies govern the way down, no more, no less', () => {
    // 15:30 end, a 1-hour stabilization window, then at most 2 pods a minute.
    const behavior = { scaleDown: { stabilizationWindowSeconds: 3600, policies: [{ type: 'Pods' as const, value: 2, periodSeconds: 60 }] } };
    const hpa = autoscaler({ min: 1, schedules: [{ name: 'office', minReplicas: 10, start: '0 10 * * 1-5', end: '30 15 * * 1-5', timezone: 'Asia/Makassar' }], behavior });
    // Asia/Makassar is UTC+8: 10:00–15:30 local is 02:00–07:30 UTC.
    const ticks = drive(hpa, { from: '2026-11-26T01:59:00Z', to: '2026-11-26T08:40:00Z', periodSeconds: 30, replicas: 1, wants: () => 1 });
    expect(replicasAt(ticks, '2026-11-26T02:00:00Z')).toBe(10);
    expect(replicasAt(ticks, '2026-11-26T07:30:00Z')).toBe(10);
    // The last recommendation of 10 was recorded at 07:29:30, the last sync of the window: an hour later it leaves the window.
    expect(replicasAt(ticks, '2026-11-26T08:29:00Z')).toBe(10);
    expect(replicasAt(ticks, '2026-11-26T08:29:30Z')).toBe(8);
    expect(replicasAt(ticks, '2026-11-26T08:30:00Z')).toBe(8);
    expect(replicasAt(ticks, '2026-11-26T08:30:30Z')).toBe(6);
    expect(replicasAt(ticks, '2026-11-26T08:34:00Z')).toBe(1);
  });

  it('kedacore/keda#6709 (fluctuating around the target): a window holds exactly its minimum while the metrics ask for less', () => {
    const behavior = { scaleDown: { policies: [{ type: 'Percent' as const, value: 5, periodSeconds: 60 }] } };
    const hpa = autoscaler({ min: 0, max: 56, schedules: [{ name: 'day', minReplicas: 45, start: '0 3 * * 1-5', end: '0 15 * * 0-4', timezone: 'America/Los_Angeles' }], behavior });
    // A noisy metric below the floor: 0..40.
    const noise = (t: Date) => (t.getTime() / 15000) % 41;
    const ticks = drive(hpa, { from: '2026-11-26T11:00:00Z', to: '2026-11-26T14:00:00Z', replicas: 45, wants: noise });
    expect(new Set(ticks.map((t) => t.replicas))).toEqual(new Set([45]));
  });

  it('kedacore/keda#7095 (only scaled to 1 from zero): from zero replicas, the window minimum in one sync', () => {
    const hpa = autoscaler({ min: 0, schedules: [{ name: 'evening', minReplicas: 10, start: '30 20 * * *', end: '35 20 * * *', timezone: 'Asia/Kolkata' }] });
    const r = reconcile(syncInput({ ...hpa, status: { currentReplicas: 0, desiredReplicas: 0 } }, 0, 0, new Date('2026-11-26T15:00:00Z')));
    expect([r.scaled, r.status.desiredReplicas]).toEqual([true, 10]);
  });

  it('metrics above the window minimum still scale up, and the window floors the recommendation below it', () => {
    const hpa = autoscaler({ min: 2, schedules: nineToTen, behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } });
    const up = reconcile(syncInput({ ...hpa, status: { currentReplicas: 10, desiredReplicas: 10 } }, 10, 13, new Date('2026-11-26T09:30:00Z')));
    expect(up.status.desiredReplicas).toBe(13);
    const down = reconcile(syncInput({ ...hpa, status: { currentReplicas: 13, desiredReplicas: 13 } }, 13, 3, new Date('2026-11-26T09:30:00Z')));
    expect(down.status.desiredReplicas).toBe(10);
    expect(down.decision.steps[0]).toEqual({ rule: 'schedule', from: 3, to: 10, detail: 'morning' });
    expect(down.history.recommendations?.at(-1)?.replicas).toBe(10);
  });

  it('a target scaled to zero by hand stays off when a window opens (spec.minReplicas 1)', () => {
    const hpa = autoscaler({ min: 1, schedules: nineToTen });
    const r = reconcile(syncInput({ ...hpa, status: { currentReplicas: 0, desiredReplicas: 0 } }, 0, 5, new Date('2026-11-26T09:30:00Z')));
    expect([r.scaled, r.conditions.find((c) => c.type === 'ScalingActive')?.reason]).toEqual([false, 'ScalingDisabled']);
  });

  it('a malformed schedules annotation on a stored object raises nothing and says why', () => {
    const hpa = autoscaler({ min: 2, annotations: { 'shpa.dev/min-replica-schedules': '[{"name":"x"' } });
    const r = reconcile(syncInput({ ...hpa, status: { currentReplicas: 2, desiredReplicas: 2 } }, 2, 2, new Date('2026-11-26T09:30:00Z')));
    expect(r.status.desiredReplicas).toBe(2);
    expect(r.conditions.find((c) => c.type === 'ScheduledMinimum')).toMatchObject({ status: 'False', reason: 'InvalidSchedule' });
    expect(r.events.map((e) => [e.type, e.reason])).toEqual([['Warning', 'InvalidSchedule']]);
  });

  it('schedules removed after a malformed list: the condition says none is configured, Ready no longer reads it as misread', () => {
    const hpa = autoscaler({ min: 2 });
    const previous = { type: 'ScheduledMinimum' as const, status: 'False' as const, reason: 'InvalidSchedule', message: 'x' };
    const r = reconcile(syncInput({ ...hpa, status: { currentReplicas: 2, desiredReplicas: 2, conditions: [previous] } }, 2, 2, new Date('2026-11-26T09:30:00Z')));
    expect(r.conditions.find((c) => c.type === 'ScheduledMinimum')).toMatchObject({ status: 'False', reason: 'NoSchedules' });
  });

  it('the annotation form works as the spec field does', () => {
    const hpa = autoscaler({ min: 2, annotations: { 'shpa.dev/min-replica-schedules': JSON.stringify(nineToTen) } });
    const r = reconcile(syncInput({ ...hpa, status: { currentReplicas: 2, desiredReplicas: 2 } }, 2, 2, new Date('2026-11-26T09:30:00Z')));
    expect(r.status.desiredReplicas).toBe(10);
  });
});
