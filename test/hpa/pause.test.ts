import { describe, expect, it } from 'vitest';
import { pauseState } from '../../lib/hpa/pause.js';
import { reconcile } from '../../lib/hpa/reconcile.js';
import type { HorizontalPodAutoscalerCondition } from '../../lib/hpa/types.js';
import { autoscaler, drive, syncInput } from './drive.js';

const now = new Date('2026-11-27T12:00:00Z');
const later = '2026-11-27T18:00:00Z';
const earlier = '2026-11-27T11:00:00Z';
// No scale-down stabilization, so that what the metric asks for is what would be written.
const behavior = { scaleDown: { stabilizationWindowSeconds: 0 } };

describe('pause annotations', () => {
  const cases: { name: string; annotations: Record<string, string>; up?: string; down?: string; expired?: string[]; error?: string }[] = [
    { name: 'scale down until a time', annotations: { 'shpa.dev/pause-scale-down': later }, down: later },
    { name: 'scale up with no expiry', annotations: { 'shpa.dev/pause-scale-up': 'true' }, up: 'none' },
    { name: 'both directions', annotations: { 'shpa.dev/pause': later }, up: later, down: later },
    { name: '"false" pauses nothing', annotations: { 'shpa.dev/pause': 'false' } },
    { name: 'a passed time is expired, not in force', annotations: { 'shpa.dev/pause-scale-down': earlier }, expired: ['down'] },
    { name: 'two annotations on one direction: the later end wins', annotations: { 'shpa.dev/pause': earlier, 'shpa.dev/pause-scale-down': later }, down: later, expired: ['up'] },
    { name: 'no expiry beats a time', annotations: { 'shpa.dev/pause': 'true', 'shpa.dev/pause-scale-up': later }, up: 'none', down: 'none' },
    { name: 'an offset is a zone', annotations: { 'shpa.dev/pause-scale-down': '2026-11-27T19:00:00+01:00' }, down: later },
    { name: 'a word is an error naming the annotation', annotations: { 'shpa.dev/pause-scale-down': 'tomorrow' }, error: 'metadata.annotations[shpa.dev/pause-scale-down]' },
    { name: 'a time without a zone is an error', annotations: { 'shpa.dev/pause': '2026-11-27T18:00:00' }, error: 'metadata.annotations[shpa.dev/pause]' },
    { name: '"True" is not "true"', annotations: { 'shpa.dev/pause-scale-up': 'True' }, error: 'metadata.annotations[shpa.dev/pause-scale-up]' },
  ];
  it.each(cases)('$name', (c) => {
    const s = pauseState(c.annotations, now);
    const until = (d: 'up' | 'down') => (s.active[d] ? (s.active[d]!.until ? s.active[d]!.until!.toISOString().replace('.000Z', 'Z') : 'none') : undefined);
    expect(until('up')).toBe(c.up);
    expect(until('down')).toBe(c.down);
    expect(Object.keys(s.expired).sort()).toEqual(c.expired ?? []);
    expect(s.errors.map((e) => e.field)).toEqual(c.error ? [c.error] : []);
  });
});

const pausedCondition = (reason: string): HorizontalPodAutoscalerCondition => ({ type: 'ScalingPaused', status: 'True', reason, message: 'earlier' });

describe('reconcile while paused', () => {
  const cases: {
    name: string;
    annotations?: Record<string, string>;
    replicas: number;
    wants: number;
    min?: number;
    previous?: HorizontalPodAutoscalerCondition;
    desired: number;
    condition?: [status: string, reason: string, message?: string];
    events: string[];
    /** The hold's step: its rule, and the count it held back. */
    step?: [rule: string, from: number];
  }[] = [
    {
      name: 'scale down paused until a time: held, the status says what it would do',
      annotations: { 'shpa.dev/pause-scale-down': later },
      replicas: 10,
      wants: 4,
      desired: 10,
      condition: ['True', 'ScaleDownPaused', `scale down paused until ${later} (shpa.dev/pause-scale-down); would scale to 4`],
      events: ['ScalingPaused'],
      step: ['pauseScaleDown', 4],
    },
    {
      name: 'scale down paused: a scale up still happens',
      annotations: { 'shpa.dev/pause-scale-down': later },
      replicas: 10,
      wants: 14,
      desired: 14,
      condition: ['True', 'ScaleDownPaused', `scale down paused until ${later} (shpa.dev/pause-scale-down); would scale to 14`],
      events: ['ScalingPaused', 'SuccessfulRescale'],
    },
    {
      name: 'scale up paused with no expiry',
      annotations: { 'shpa.dev/pause-scale-up': 'true' },
      replicas: 10,
      wants: 14,
      desired: 10,
      condition: ['True', 'ScaleUpPaused', 'scale up paused with no expiry (shpa.dev/pause-scale-up); would scale to 14'],
      events: ['ScalingPaused'],
      step: ['pauseScaleUp', 14],
    },
    {
      name: 'both paused, nothing to do: recommends the current size',
      annotations: { 'shpa.dev/pause': later },
      replicas: 10,
      wants: 10,
      desired: 10,
      condition: ['True', 'ScalingPaused', `scale up and down paused until ${later} (shpa.dev/pause); recommends 10 (the current size)`],
      events: ['ScalingPaused'],
    },
    {
      name: 'a paused scale up holds the below-minimum path too',
      annotations: { 'shpa.dev/pause-scale-up': later },
      replicas: 3,
      min: 5,
      wants: 1,
      desired: 3,
      condition: ['True', 'ScaleUpPaused', `scale up paused until ${later} (shpa.dev/pause-scale-up); would scale to 5`],
      events: ['ScalingPaused'],
      step: ['pauseScaleUp', 5],
    },
    {
      name: 'still paused: no second start event',
      annotations: { 'shpa.dev/pause-scale-down': later },
      previous: { type: 'ScalingPaused', status: 'True', reason: 'ScaleDownPaused', message: `scale down paused until ${later} (shpa.dev/pause-scale-down); would scale to 5` },
      replicas: 10,
      wants: 4,
      desired: 10,
      condition: ['True', 'ScaleDownPaused'],
      events: [],
    },
    {
      name: 'expired: scales, and says the pause expired',
      annotations: { 'shpa.dev/pause-scale-down': earlier },
      previous: pausedCondition('ScaleDownPaused'),
      replicas: 10,
      wants: 4,
      desired: 4,
      condition: ['False', 'PauseExpired', `scale down pause expired at ${earlier} (shpa.dev/pause-scale-down): scaling down resumes`],
      events: ['PauseExpired', 'SuccessfulRescale'],
    },
    {
      name: 'removed: scales, and says the pause was removed',
      previous: pausedCondition('ScalingPaused'),
      replicas: 10,
      wants: 4,
      desired: 4,
      condition: ['False', 'PauseRemoved'],
      events: ['PauseRemoved', 'PauseRemoved', 'SuccessfulRescale'],
    },
    {
      name: 'one direction of two removed: still paused the other way',
      annotations: { 'shpa.dev/pause-scale-up': 'true' },
      previous: pausedCondition('ScalingPaused'),
      replicas: 10,
      wants: 4,
      desired: 4,
      condition: ['True', 'ScaleUpPaused'],
      events: ['PauseRemoved', 'ScalingPaused', 'SuccessfulRescale'],
    },
    {
      name: 'garbage does not pause: it scales, and warns naming the annotation',
      annotations: { 'shpa.dev/pause-scale-down': 'until friday' },
      replicas: 10,
      wants: 4,
      desired: 4,
      condition: ['False', 'InvalidPauseAnnotation'],
      events: ['InvalidPauseAnnotation', 'SuccessfulRescale'],
    },
    { name: 'no annotation, never paused: no condition, no event of ours', replicas: 10, wants: 4, desired: 4, events: ['SuccessfulRescale'] },
    {
      name: 'a malformed value fixed by removing it: no longer reported',
      previous: { type: 'ScalingPaused', status: 'False', reason: 'InvalidPauseAnnotation', message: 'x' },
      replicas: 10,
      wants: 4,
      desired: 4,
      condition: ['False', 'NotPaused', 'no pause annotation'],
      events: ['SuccessfulRescale'],
    },
  ];
  it.each(cases)('$name', (c) => {
    const hpa = autoscaler({ annotations: c.annotations, behavior, min: c.min });
    const input = syncInput({ ...hpa, status: { currentReplicas: c.replicas, desiredReplicas: c.replicas, ...(c.previous ? { conditions: [c.previous] } : {}) } }, c.replicas, c.wants, now);
    const r = reconcile(input);
    expect(r.status.desiredReplicas).toBe(c.desired);
    expect(r.scaled).toBe(c.desired !== c.replicas);
    const cond = r.conditions.find((x) => x.type === 'ScalingPaused');
    if (c.condition) {
      expect([cond?.status, cond?.reason]).toEqual(c.condition.slice(0, 2));
      if (c.condition[2]) expect(cond?.message).toBe(c.condition[2]);
    } else expect(cond).toBeUndefined();
    expect(r.events.map((e) => e.reason)).toEqual(c.events);
    if (c.step) expect(r.decision.steps.at(-1)).toMatchObject({ rule: c.step[0], from: c.step[1], to: c.replicas });
  });

  it('keeps recording recommendations while paused, so the behavior applies at once when it expires', () => {
    // Scale-down stabilization of 120 s: recommendations of 4 recorded during the pause make the drop immediate at expiry.
    const hpa = autoscaler({ annotations: { 'shpa.dev/pause-scale-down': '2026-11-27T12:10:00Z' }, behavior: { scaleDown: { stabilizationWindowSeconds: 120 } } });
    const ticks = drive(hpa, { from: '2026-11-27T12:00:00Z', to: '2026-11-27T12:12:00Z', replicas: 10, wants: () => 4 });
    const at = (t: string) => ticks.find((x) => x.at === new Date(t).toISOString())!;
    expect(at('2026-11-27T12:09:45Z').replicas).toBe(10);
    expect(at('2026-11-27T12:10:00Z').replicas).toBe(4);
    expect(at('2026-11-27T12:10:00Z').events.map((e) => e.reason)).toEqual(['PauseExpired', 'SuccessfulRescale']);
    // Start said once, expiry once.
    expect(ticks.flatMap((t) => t.events.map((e) => e.reason)).filter((r) => r !== 'SuccessfulRescale')).toEqual(['ScalingPaused', 'PauseExpired']);
  });

  it('marks the start when the annotation is added and the end when it is removed', () => {
    const hpa = autoscaler({ behavior });
    const ticks = drive(hpa, {
      from: '2026-11-27T12:00:00Z',
      to: '2026-11-27T12:03:00Z',
      replicas: 10,
      wants: (t) => (t.getTime() >= Date.parse('2026-11-27T12:02:00Z') ? 4 : 10),
      edit: (h, t) => ({
        ...h,
        metadata: { ...h.metadata, annotations: t.getTime() >= Date.parse('2026-11-27T12:01:00Z') && t.getTime() < Date.parse('2026-11-27T12:02:30Z') ? { 'shpa.dev/pause': 'true' } : ({} as Record<string, string>) },
      }),
    });
    const reasons = ticks.map((t) => `${t.at.slice(11, 19)} ${t.replicas} ${t.events.map((e) => e.reason).join(',')}`);
    expect(reasons).toContain('12:01:00 10 ScalingPaused');
    expect(reasons).toContain('12:02:00 10 ');
    expect(reasons).toContain('12:02:30 4 PauseRemoved,PauseRemoved,SuccessfulRescale');
  });
});
