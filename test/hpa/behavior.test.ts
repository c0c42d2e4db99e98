// Normalization with and without spec.behavior, ported from upstream horizontal_test.go
// (TestNormalizeDesiredReplicas, TestNormalizeDesiredReplicasWithBehavior, TestScalingWithRules,
// TestConvertDesiredReplicasWithRules, TestStoreScaleEvents, TestCalculateScale*Limit*), plus properties.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  calculateScaleDownLimitWithBehaviors,
  calculateScaleUpLimit,
  calculateScaleUpLimitWithScalingRules,
  normalizeLegacy,
  normalizeWithBehavior,
  recordScaleEvent,
} from '../../lib/hpa/behavior.js';
import type { HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscalerBehavior, ScaleEvent, TimestampedRecommendation } from '../../lib/hpa/types.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const ago = (seconds: number, now = NOW) => new Date(now.getTime() - seconds * 1000).toISOString();
const rec = (replicas: number, secondsAgo: number): TimestampedRecommendation => ({ replicas, timestamp: ago(secondsAgo) });
const ev = (change: number, secondsAgo: number): ScaleEvent => ({ change, timestamp: ago(secondsAgo) });

/** Like upstream generateScalingRules: a policy for each non-zero value. */
function rules(pods: number, podsPeriod: number, percent: number, percentPeriod: number, window: number, select: HPAScalingRules['selectPolicy'] = 'Max'): HPAScalingRules {
  const policies: HPAScalingPolicy[] = [];
  if (pods) policies.push({ type: 'Pods', value: pods, periodSeconds: podsPeriod });
  if (percent) policies.push({ type: 'Percent', value: percent, periodSeconds: percentPeriod });
  return { stabilizationWindowSeconds: window, selectPolicy: select, policies };
}
const DEFAULT_UP = rules(4, 15, 100, 15, 0);
const DEFAULT_DOWN = rules(0, 0, 100, 15, 300);

function withBehavior(o: {
  current: number;
  desired: number;
  min?: number;
  max?: number;
  up?: HPAScalingRules;
  down?: HPAScalingRules;
  recs?: TimestampedRecommendation[];
  upEvents?: ScaleEvent[];
  downEvents?: ScaleEvent[];
}) {
  return normalizeWithBehavior({
    currentReplicas: o.current,
    prenormalizedDesiredReplicas: o.desired,
    minReplicas: o.min ?? 1,
    maxReplicas: o.max ?? 1000,
    behavior: { scaleUp: o.up ?? DEFAULT_UP, scaleDown: o.down ?? DEFAULT_DOWN },
    recommendations: o.recs ?? [],
    scaleUpEvents: o.upEvents ?? [],
    scaleDownEvents: o.downEvents ?? [],
    now: NOW,
  });
}

function legacy(o: { current: number; desired: number; min?: number; max?: number; recs?: TimestampedRecommendation[]; window?: number; factor?: number; minimum?: number }) {
  return normalizeLegacy({
    currentReplicas: o.current,
    prenormalizedDesiredReplicas: o.desired,
    minReplicas: o.min ?? 1,
    maxReplicas: o.max ?? 100,
    recommendations: o.recs ?? [],
    downscaleStabilizationWindowSeconds: o.window ?? 300,
    scaleUpLimitFactor: o.factor ?? 2,
    scaleUpLimitMinimum: o.minimum ?? 4,
    now: NOW,
  });
}

describe('normalizeLegacy (TestNormalizeDesiredReplicas)', () => {
  it.each([
    { name: 'empty log', desired: 5, recs: [], expected: 5, stored: [[5, 0]] },
    { name: 'stabilize', desired: 3, recs: [rec(4, 60), rec(5, 120)], expected: 5, stored: [[4, 60], [5, 120], [3, 0]] },
    { name: 'no stabilize', desired: 3, recs: [rec(1, 60), rec(2, 120)], expected: 3, stored: [[1, 60], [2, 120], [3, 0]] },
    // Upstream reuses the last old slot and keeps [10@-10m, 3@now]; we also drop the other old entry, never counted again.
    { name: 'no stabilize - old recommendations', desired: 3, recs: [rec(10, 600), rec(9, 540)], expected: 3, stored: [[3, 0]] },
    { name: 'stabilize - old recommendations', desired: 3, recs: [rec(10, 600), rec(4, 60), rec(5, 120), rec(9, 540)], expected: 5, stored: [[4, 60], [5, 120], [3, 0]] },
  ])('$name', ({ desired, recs, expected, stored }) => {
    const r = legacy({ current: 5, desired, recs });
    expect(r.replicas).toBe(expected);
    expect(r.recommendations).toEqual(stored.map(([n, s]) => rec(n, s)));
    if (expected !== desired) {
      expect(r.stabilized).toEqual({ reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
      expect(r.steps).toContainEqual({ rule: 'scaleDownStabilization', from: desired, to: expected, detail: '300s window' });
    } else {
      expect(r.stabilized).toBeUndefined();
    }
  });

  it('counts an entry exactly at the window edge (upstream: Before(cutoff) is strict)', () => {
    expect(legacy({ current: 5, desired: 3, recs: [rec(7, 300)] }).replicas).toBe(7);
    expect(legacy({ current: 5, desired: 3, recs: [rec(7, 301)] }).replicas).toBe(3);
  });
});

describe('stored timestamps', () => {
  it('compares any RFC 3339 form by its instant, to the millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: -400_000, max: 400_000 }), fc.integer({ min: 0, max: 3 }), (offsetMs, form) => {
        const at = new Date(NOW.getTime() - 300_000 + offsetMs);
        const iso = at.toISOString();
        const timestamp = [iso, iso.replace('Z', '000000Z'), iso.replace('Z', '+00:00'), new Date(at.getTime() + 7_200_000).toISOString().replace('Z', '+02:00')][form];
        const r = legacy({ current: 5, desired: 3, recs: [{ replicas: 9, timestamp }] });
        // Counted unless strictly before now - 300s.
        expect(r.replicas).toBe(offsetMs >= 0 ? 9 : 3);
      }),
    );
  });
});

describe('normalizeLegacy (TestConvertDesiredReplicasWithRules)', () => {
  it.each([
    { name: 'within range', current: 5, desired: 7, min: 3, max: 8, replicas: 7, reason: 'DesiredWithinRange', status: 'False' },
    { name: 'below minReplicas', current: 3, desired: 1, min: 2, max: 8, replicas: 2, reason: 'TooFewReplicas', status: 'True' },
    // No special case for zero any more: minReplicas 0 lets the desired 0 through.
    { name: 'desired zero with minReplicas 0', current: 1, desired: 0, min: 0, max: 10, replicas: 0, reason: 'DesiredWithinRange', status: 'False' },
    { name: 'maxReplicas below scale-up limit', current: 20, desired: 1000, min: 1, max: 10, replicas: 10, reason: 'TooManyReplicas', status: 'True' },
    { name: 'scale-up limit below maxReplicas', current: 3, desired: 1000, min: 1, max: 2000, replicas: 6, reason: 'ScaleUpLimit', status: 'True' },
    { name: 'scale-up minimum of 4 from 1', current: 1, desired: 1000, min: 1, max: 2000, replicas: 4, reason: 'ScaleUpLimit', status: 'True' },
  ])('$name', ({ current, desired, min, max, replicas, reason, status }) => {
    const r = legacy({ current, desired, min, max });
    expect(r.replicas).toBe(replicas);
    expect(r.limited.reason).toBe(reason);
    expect(r.limited.status).toBe(status);
  });

  it('uses upstream message texts and records the clamp step', () => {
    const r = legacy({ current: 3, desired: 1000, min: 1, max: 2000 });
    expect(r.limited.message).toBe('the desired replica count is increasing faster than the maximum scale rate');
    expect(r.steps).toEqual([expect.objectContaining({ rule: 'legacyScaleUpLimit', from: 1000, to: 6 })]);
    expect(legacy({ current: 3, desired: 1, min: 2, max: 8 }).limited.message).toBe('the desired replica count is less than the minimum replica count');
    expect(legacy({ current: 20, desired: 1000, max: 10 }).limited.message).toBe('the desired replica count is more than the maximum replica count');
    expect(legacy({ current: 5, desired: 7 }).limited.message).toBe('the desired count is within the acceptable range');
  });

  it('takes the scale-up factor and minimum from the settings, truncating as int32(math.Max(...))', () => {
    expect(calculateScaleUpLimit(3, 1.5, 4)).toBe(4);
    expect(calculateScaleUpLimit(5, 1.5, 4)).toBe(7);
    expect(legacy({ current: 10, desired: 100, factor: 3, minimum: 1 }).replicas).toBe(30);
  });
});

describe('normalizeWithBehavior (TestNormalizeDesiredReplicasWithBehavior)', () => {
  const up0 = rules(4, 15, 100, 15, 0);
  const up300 = rules(4, 15, 100, 15, 300);
  it.each([
    { name: 'empty recommendations for scaling down', current: 100, desired: 5, up: up0, down: rules(0, 0, 100, 15, 0), recs: [], expected: 5 },
    { name: 'simple scale down stabilization', current: 100, desired: 3, up: up0, down: rules(0, 0, 100, 15, 180), recs: [rec(4, 60), rec(5, 120)], expected: 5 },
    { name: 'simple scale up stabilization', current: 1, desired: 7, up: up300, down: rules(0, 0, 100, 15, 0), recs: [rec(4, 60), rec(5, 120)], expected: 4 },
    { name: 'no scale down stabilization', current: 100, desired: 3, up: up300, down: rules(0, 0, 100, 15, 0), recs: [rec(1, 60), rec(2, 120)], expected: 3 },
    { name: 'no scale up stabilization', current: 1, desired: 3, up: up0, down: rules(0, 0, 100, 15, 300), recs: [rec(4, 60), rec(5, 120)], expected: 3 },
    { name: 'no scale down stabilization, reuse recommendation element', current: 100, desired: 3, up: up0, down: rules(0, 0, 100, 15, 0), recs: [rec(10, 600), rec(9, 540)], expected: 3 },
    { name: 'scale down stabilization, reuse one of obsolete recommendation element', current: 100, desired: 3, up: up0, down: rules(0, 0, 100, 15, 180), recs: [rec(10, 600), rec(4, 60), rec(5, 120), rec(9, 540)], expected: 5 },
    { name: 'scale up stabilization, reuse one of obsolete recommendation element', current: 1, desired: 100, up: up300, down: rules(0, 0, 100, 15, 0), recs: [rec(10, 6000), rec(6, 60), rec(5, 120), rec(9, 180)], expected: 5 },
    { name: 'scale up and down stabilization, do not scale up when prenormalized rec goes down', current: 2, desired: 1, up: up300, down: rules(0, 0, 100, 15, 300), recs: [rec(2, 6000), rec(3, 180)], expected: 2 },
    { name: 'scale up and down stabilization, do not scale down when prenormalized rec goes up', current: 2, desired: 3, up: up300, down: rules(0, 0, 100, 15, 300), recs: [rec(2, 6000), rec(1, 180)], expected: 2 },
  ])('$name', ({ current, desired, up, down, recs, expected }) => {
    const r = withBehavior({ current, desired, up, down, recs });
    expect(r.replicas).toBe(expected);
    // This recommendation is stored unstabilized; what every window in use still covers is kept.
    expect(r.recommendations).toContainEqual(rec(desired, 0));
    const longest = Math.max(up.stabilizationWindowSeconds ?? 0, down.stabilizationWindowSeconds ?? 0);
    for (const kept of recs.filter((x) => Date.parse(x.timestamp) >= NOW.getTime() - longest * 1000)) expect(r.recommendations).toContainEqual(kept);
    expect(r.recommendations.length).toBeLessThanOrEqual(recs.length + 1);
  });

  it('names the stabilization by the direction of the unstabilized recommendation', () => {
    const upStab = withBehavior({ current: 1, desired: 7, up: up300, recs: [rec(4, 60)] });
    expect(upStab.stabilized).toEqual({ reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' });
    expect(upStab.steps[0]).toEqual({ rule: 'scaleUpStabilization', from: 7, to: 4, detail: '300s window' });
    // desired 3 >= current 2, but the down window pulls it back to current: still "ScaleUpStabilized" upstream.
    const held = withBehavior({ current: 2, desired: 3, up: up300, down: rules(0, 0, 100, 15, 300), recs: [rec(1, 180)] });
    expect(held.stabilized?.reason).toBe('ScaleUpStabilized');
    const downStab = withBehavior({ current: 100, desired: 3, recs: [rec(5, 60)] });
    expect(downStab.stabilized?.reason).toBe('ScaleDownStabilized');
    expect(withBehavior({ current: 5, desired: 7 }).stabilized).toBeUndefined();
  });

  it('does not count a recommendation exactly at the window edge (upstream: After(cutoff) is strict)', () => {
    expect(withBehavior({ current: 100, desired: 3, down: rules(0, 0, 100, 15, 60), recs: [rec(50, 60)] }).replicas).toBe(3);
    expect(withBehavior({ current: 100, desired: 3, down: rules(0, 0, 100, 15, 60), recs: [rec(50, 59)] }).replicas).toBe(50);
  });

  it('keeps Go zero-time entries as ordinary old entries', () => {
    const r = withBehavior({ current: 100, desired: 3, recs: [{ replicas: 99, timestamp: '0001-01-01T00:00:00Z' }] });
    expect(r.replicas).toBe(3);
    expect(r.recommendations).toEqual([rec(3, 0)]);
  });

  it('names a malformed stored timestamp', () => {
    expect(() => withBehavior({ current: 1, desired: 2, recs: [rec(1, 0), { replicas: 1, timestamp: 'yesterday' }] })).toThrow(/recommendations\[1\]\.timestamp: invalid timestamp "yesterday"/);
    expect(() => withBehavior({ current: 1, desired: 2, upEvents: [{ change: 1, timestamp: '' }] })).toThrow(/scaleUpEvents\[0\]\.timestamp/);
  });

  it('requires the defaulted stabilization windows', () => {
    expect(() =>
      normalizeWithBehavior({
        currentReplicas: 1,
        prenormalizedDesiredReplicas: 2,
        minReplicas: 1,
        maxReplicas: 5,
        behavior: { scaleUp: DEFAULT_UP, scaleDown: { selectPolicy: 'Max', policies: [] } },
        recommendations: [],
        scaleUpEvents: [],
        scaleDownEvents: [],
        now: NOW,
      }),
    ).toThrow('behavior.scaleDown.stabilizationWindowSeconds is required');
  });
});

describe('normalizeWithBehavior (TestScalingWithRules)', () => {
  const events = (a: number, b: number, c: number) => [ev(a, 100), ev(b, 60), ev(c, 20)];
  it.each([
    { name: 'within range', current: 5, desired: 7, min: 3, max: 8, replicas: 7, reason: 'DesiredWithinRange' },
    { name: 'below minReplicas', current: 3, desired: 1, min: 2, max: 8, replicas: 2, reason: 'TooFewReplicas' },
    { name: 'within range when minReplicas is 0', current: 1, desired: 0, min: 0, max: 10, replicas: 0, reason: 'DesiredWithinRange' },
    { name: 'maxReplicas is the limit', current: 20, desired: 1000, min: 1, max: 10, replicas: 10, reason: 'TooManyReplicas' },
    { name: 'more than maxReplicas', current: 100, desired: 1000, min: 100, max: 150, replicas: 150, reason: 'TooManyReplicas' },
    { name: 'scaleUpLimit below maxReplicas with user policies', current: 3, desired: 1000, max: 2000, up: rules(0, 0, 1, 60, 0), replicas: 4, reason: 'ScaleUpLimit' },
    { name: 'scaleDownLimit above minReplicas with user policies', current: 1000, desired: 3, min: 3, max: 2000, down: rules(20, 60, 0, 0, 0), replicas: 980, reason: 'ScaleDownLimit' },
    { name: 'scaleUp with default behavior', current: 10, desired: 50, replicas: 20, reason: 'ScaleUpLimit' },
    { name: 'scaleUp with pods policy larger than percent policy', current: 10, desired: 500, up: rules(100, 60, 100, 60, 0), replicas: 110, reason: 'ScaleUpLimit' },
    { name: 'scaleUp with percent policy larger than pods policy', current: 10, desired: 500, up: rules(2, 60, 100, 60, 0), replicas: 20, reason: 'ScaleUpLimit' },
    { name: 'scaleUp with large pod policy', current: 10, desired: 50, up: rules(100, 60, 0, 0, 0), replicas: 50, reason: 'DesiredWithinRange' },
    { name: 'scaleUp with pod policy limitation', current: 10, desired: 50, up: rules(30, 60, 0, 0, 0), replicas: 40, reason: 'ScaleUpLimit' },
    { name: 'scaleUp with percent policy limitation', current: 10, desired: 50, up: rules(0, 0, 200, 60, 0), replicas: 30, reason: 'ScaleUpLimit' },
    { name: 'scaleDown with percent policy larger than pod policy', current: 100, desired: 2, down: rules(20, 60, 1, 60, 300), replicas: 80, reason: 'ScaleDownLimit' },
    { name: 'scaleDown with pod policy larger than percent policy', current: 100, desired: 2, down: rules(2, 60, 1, 60, 300), replicas: 98, reason: 'ScaleDownLimit' },
    { name: 'scaleDown with minReplicas limitation and large pod policy', current: 10, desired: 0, down: rules(100, 60, 0, 0, 300), replicas: 1, reason: 'TooFewReplicas' },
    { name: 'scaleDown with minReplicas limitation and large percent policy', current: 10, desired: 2, min: 5, down: rules(0, 0, 100, 60, 300), replicas: 5, reason: 'TooFewReplicas' },
    { name: 'scaleDown with pod policy limitation', current: 10, desired: 2, down: rules(5, 60, 0, 0, 300), replicas: 5, reason: 'ScaleDownLimit' },
    { name: 'scaleDown with percent policy limitation', current: 10, desired: 5, down: rules(0, 0, 50, 60, 300), replicas: 5, reason: 'DesiredWithinRange' },
    { name: 'scaleUp with maxReplicas limitation, large pod policy and events', current: 100, desired: 500, max: 200, up: rules(300, 60, 0, 0, 0), upEvents: events(1, 5, 9), replicas: 200, reason: 'TooManyReplicas' },
    { name: 'scaleUp with currentReplicas limitation by previous events', current: 100, desired: 500, up: rules(5, 120, 0, 0, 0), upEvents: events(1, 5, 9), replicas: 100, reason: 'ScaleUpLimit' },
    { name: 'scaleUp with pod policy and previous scale up events', current: 100, desired: 500, up: rules(150, 120, 0, 0, 0), upEvents: events(1, 5, 9), replicas: 235, reason: 'ScaleUpLimit' },
    { name: 'scaleUp with percent policy and previous scale up events', current: 100, desired: 500, up: rules(0, 0, 200, 120, 0), upEvents: events(1, 5, 9), replicas: 255, reason: 'ScaleUpLimit' },
    { name: 'scaleUp with percent policy and previous scale up and down events', current: 6, desired: 24, up: rules(0, 0, 300, 300, 0), upEvents: [ev(4, 60)], downEvents: [ev(2, 60)], replicas: 16, reason: 'ScaleUpLimit' },
    { name: 'scaleDown with default policy and previous events', current: 10, desired: 5, downEvents: events(1, 5, 9), replicas: 5, reason: 'DesiredWithinRange' },
    { name: 'scaleDown with minReplicas limitation, large pod policy and events', current: 100, desired: 0, min: 5, down: rules(130, 120, 0, 0, 300), downEvents: events(1, 5, 9), replicas: 5, reason: 'TooFewReplicas' },
    { name: 'scaleDown with pod policy limitation and previous events', current: 100, desired: 2, down: rules(5, 120, 0, 0, 300), downEvents: events(1, 5, 9), replicas: 100, reason: 'ScaleDownLimit' },
    { name: 'scaleDown with percent policy limitation and previous events', current: 100, desired: 0, down: rules(0, 0, 50, 120, 300), downEvents: events(2, 4, 6), replicas: 56, reason: 'ScaleDownLimit' },
    { name: 'scaleDown with percent policy and previous scale up and down events', current: 10, desired: 1, down: rules(0, 0, 50, 180, 0), upEvents: [ev(2, 60)], downEvents: [ev(4, 60)], replicas: 6, reason: 'ScaleDownLimit' },
    { name: 'scaleDown with previous events preventing further scale down', current: 100, desired: 0, down: rules(0, 0, 10, 120, 300), downEvents: events(10, 10, 10), replicas: 100, reason: 'ScaleDownLimit' },
    { name: 'scaleDown with previous events still allowing more scale down', current: 10, desired: 5, down: rules(0, 0, 1000, 120, 300), downEvents: events(10, 10, 10), replicas: 5, reason: 'DesiredWithinRange' },
    { name: "'outdated' events for one policy (up)", current: 100, desired: 200, up: rules(1000, 60, 0, 0, 0), upEvents: [ev(8, 105), ev(12, 75), ev(9, 45), ev(11, 15)], replicas: 200, reason: 'DesiredWithinRange' },
    { name: "'outdated' events for one policy (down)", current: 100, desired: 5, down: rules(1000, 60, 0, 0, 300), downEvents: [ev(8, 105), ev(12, 75), ev(9, 45), ev(11, 15)], replicas: 5, reason: 'DesiredWithinRange' },
    { name: 'Disabled scale up', current: 10, desired: 50, up: rules(4, 15, 100, 15, 0, 'Disabled'), replicas: 10, reason: 'ScaleUpLimit' },
    { name: 'Disabled scale down', current: 10, desired: 2, down: rules(0, 0, 100, 15, 0, 'Disabled'), replicas: 10, reason: 'ScaleDownLimit' },
  ])('$name', ({ current, desired, min, max, up, down, upEvents, downEvents, replicas, reason }) => {
    const r = withBehavior({ current, desired, min, max, up, down, upEvents, downEvents });
    expect(r.replicas).toBe(replicas);
    expect(r.limited.reason).toBe(reason);
    expect(r.limited.status).toBe(replicas === desired ? 'False' : 'True');
  });

  it('uses upstream messages and records the policy step', () => {
    const r = withBehavior({ current: 10, desired: 50 });
    expect(r.limited.message).toBe('the desired replica count is increasing faster than the maximum scale rate');
    expect(r.steps).toEqual([{ rule: 'scaleUpPolicy', from: 50, to: 20, detail: 'ScaleUpLimit (current 10)' }]);
    const d = withBehavior({ current: 100, desired: 2, down: rules(20, 60, 0, 0, 0) });
    expect(d.limited.message).toBe('the desired replica count is decreasing faster than the maximum scale rate');
    expect(d.steps).toEqual([expect.objectContaining({ rule: 'scaleDownPolicy', from: 2, to: 80 })]);
    expect(withBehavior({ current: 20, desired: 1000, max: 10 }).steps).toEqual([expect.objectContaining({ rule: 'maxReplicas', to: 10 })]);
    expect(withBehavior({ current: 3, desired: 1, min: 2, down: rules(0, 0, 100, 15, 0) }).steps).toEqual([expect.objectContaining({ rule: 'minReplicas', to: 2 })]);
  });

  it('applies no clamp when the stabilized recommendation equals current (upstream only limits a change)', () => {
    const r = withBehavior({ current: 12, desired: 12, min: 1, max: 10 });
    expect(r).toMatchObject({ replicas: 12, limited: { status: 'False', reason: 'DesiredWithinRange' } });
  });
});

describe('scale limits (TestCalculateScaleUpLimitWithScalingRules, TestCalculateScaleDownLimitWithBehaviors)', () => {
  const minRules = { ...rules(2, 60, 50, 60, 300), selectPolicy: 'Min' as const };
  it('Min picks the smallest change', () => {
    expect(calculateScaleUpLimitWithScalingRules(1, [], [], minRules, NOW)).toBe(2);
    expect(calculateScaleDownLimitWithBehaviors(5, [], [], minRules, NOW)).toBe(3);
  });
  it('Max picks the largest change', () => {
    expect(calculateScaleUpLimitWithScalingRules(1, [], [], rules(2, 60, 50, 60, 0), NOW)).toBe(3);
    expect(calculateScaleDownLimitWithBehaviors(5, [], [], rules(2, 60, 50, 60, 0), NOW)).toBe(2);
  });
  it('rounds Percent up when scaling up and truncates when scaling down', () => {
    expect(calculateScaleUpLimitWithScalingRules(3, [], [], rules(0, 0, 10, 60, 0), NOW)).toBe(4); // ceil(3.3)
    expect(calculateScaleDownLimitWithBehaviors(3, [], [], rules(0, 0, 10, 60, 0), NOW)).toBe(2); // int32(2.7)
  });
  it('counts both directions from the period start, strictly inside the period', () => {
    const up = rules(0, 0, 100, 60, 0);
    expect(calculateScaleUpLimitWithScalingRules(10, [ev(4, 30)], [ev(2, 30)], up, NOW)).toBe(16); // start 8
    expect(calculateScaleUpLimitWithScalingRules(10, [ev(4, 60)], [], up, NOW)).toBe(20); // exactly one period ago: not counted
    expect(calculateScaleDownLimitWithBehaviors(10, [ev(2, 30)], [ev(4, 30)], rules(0, 0, 50, 60, 0), NOW)).toBe(6); // start 12
  });
  it('returns current when Disabled', () => {
    expect(calculateScaleUpLimitWithScalingRules(7, [], [], { ...DEFAULT_UP, selectPolicy: 'Disabled' }, NOW)).toBe(7);
    expect(calculateScaleDownLimitWithBehaviors(7, [], [], { ...DEFAULT_DOWN, selectPolicy: 'Disabled' }, NOW)).toBe(7);
  });
  it('wraps and converts like Go int32 at the extremes', () => {
    // periodStart + value overflows int32 and wraps negative, as upstream.
    expect(calculateScaleUpLimitWithScalingRules(2147483647, [], [], rules(1, 60, 0, 0, 0), NOW)).toBe(-2147483648);
    // A Percent proposal beyond int32 converts to MinInt32 (amd64).
    expect(calculateScaleUpLimitWithScalingRules(2000000000, [], [], rules(0, 0, 100, 60, 0), NOW)).toBe(-2147483648);
  });
});

describe('recordScaleEvent (TestStoreScaleEvents)', () => {
  const cases = [
    { name: 'empty entries with two-policy-behavior', prev: [], rules: rules(10, 60, 100, 60, 0), next: [[5, 0]] },
    { name: 'one outdated entry to be replaced with behavior', prev: [ev(7, 61)], rules: rules(10, 60, 100, 60, 0), next: [[5, 0]] },
    { name: 'one actual entry to be not touched with behavior', prev: [ev(7, 58)], rules: rules(10, 60, 100, 60, 0), next: [[7, 58], [5, 0]] },
    { name: 'two entries, one of them to be replaced', prev: [ev(7, 61), ev(6, 59)], rules: rules(10, 60, 0, 0, 0), next: [[5, 0], [6, 59]] },
    { name: 'replace one entry, use policies with different periods', prev: [ev(8, 29), ev(6, 59), ev(7, 61), ev(9, 61)], rules: rules(10, 60, 100, 30, 0), next: [[8, 29], [6, 59], [7, 61], [5, 0]] },
    { name: 'two entries, both actual', prev: [ev(7, 58), ev(6, 59)], rules: rules(10, 120, 100, 30, 0), next: [[7, 58], [6, 59], [5, 0]] },
  ];
  it.each(cases)('$name (scale up)', ({ prev, rules: r, next }) => {
    const stored = recordScaleEvent({ scaleUpEvents: prev, scaleDownEvents: [ev(3, 10)] }, { scaleUp: r, scaleDown: DEFAULT_DOWN }, 10, 15, NOW);
    expect(stored.scaleUpEvents).toEqual(next.map(([c, s]) => ev(c, s)));
    expect(stored.scaleDownEvents).toEqual([ev(3, 10)]);
  });
  it.each(cases)('$name (scale down)', ({ prev, rules: r, next }) => {
    const stored = recordScaleEvent({ scaleUpEvents: [], scaleDownEvents: prev }, { scaleUp: DEFAULT_UP, scaleDown: r }, 10, 5, NOW);
    expect(stored.scaleDownEvents).toEqual(next.map(([c, s]) => ev(c, s)));
    expect(stored.scaleUpEvents).toEqual([]);
  });
  it('stores nothing without behavior (one outdated entry kept untouched)', () => {
    const history = { scaleUpEvents: [ev(7, 61)], scaleDownEvents: [] };
    expect(recordScaleEvent(history, undefined, 10, 15, NOW)).toEqual(history);
  });
  it('keeps the list bounded by the events inside the longest period', () => {
    const behavior: HorizontalPodAutoscalerBehavior = { scaleUp: rules(4, 60, 0, 0, 0), scaleDown: DEFAULT_DOWN };
    let history = { scaleUpEvents: [] as ScaleEvent[], scaleDownEvents: [] as ScaleEvent[] };
    for (let i = 0; i < 500; i++) history = recordScaleEvent(history, behavior, i, i + 1, new Date(NOW.getTime() + i * 15_000));
    // Events at 15s intervals: at most 4 inside a 60s period, plus the one slot waiting to be reused.
    expect(history.scaleUpEvents.length).toBeLessThanOrEqual(6);
  });
});

// ---------------------------------------------------------------- properties

const policyArb = fc.record({ type: fc.constantFrom('Pods' as const, 'Percent' as const), value: fc.integer({ min: 1, max: 300 }), periodSeconds: fc.integer({ min: 1, max: 1800 }) });
const rulesArb = fc.record({
  stabilizationWindowSeconds: fc.integer({ min: 0, max: 3600 }),
  selectPolicy: fc.constantFrom('Max' as const, 'Min' as const, 'Disabled' as const),
  policies: fc.array(policyArb, { minLength: 1, maxLength: 3 }),
});
const recsArb = fc.array(fc.record({ replicas: fc.integer({ min: 0, max: 300 }), secondsAgo: fc.integer({ min: 0, max: 4000 }) }), { maxLength: 12 });
const eventsArb = fc.array(fc.record({ change: fc.integer({ min: 1, max: 50 }), secondsAgo: fc.integer({ min: 0, max: 2000 }) }), { maxLength: 6 });
const rangeArb = fc
  .tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 200 }))
  .map((xs) => xs.sort((a, b) => a - b))
  .filter(([min, , max]) => max >= 1 && max >= min);

describe('properties', () => {
  it('with behavior: the result stays in [min, max] when min <= current <= max', () => {
    fc.assert(
      fc.property(rangeArb, fc.integer({ min: 0, max: 400 }), rulesArb, rulesArb, recsArb, eventsArb, eventsArb, ([min, current, max], desired, up, down, recs, upE, downE) => {
        const r = withBehavior({
          current,
          desired,
          min,
          max,
          up,
          down,
          recs: recs.map((x) => rec(x.replicas, x.secondsAgo)),
          upEvents: upE.map((x) => ev(x.change, x.secondsAgo)),
          downEvents: downE.map((x) => ev(x.change, x.secondsAgo)),
        });
        expect(r.replicas).toBeGreaterThanOrEqual(min);
        expect(r.replicas).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('with behavior: never scales down below, nor up above, what the windows recommend', () => {
    fc.assert(
      fc.property(rangeArb, fc.integer({ min: 0, max: 400 }), rulesArb, rulesArb, recsArb, ([min, current, max], desired, up, down, recs) => {
        const history = recs.map((x) => rec(x.replicas, x.secondsAgo));
        const r = withBehavior({ current, desired, min, max, up, down, recs: history });
        const inWindow = (w: number) => recs.filter((x) => x.secondsAgo < w).map((x) => x.replicas);
        if (r.replicas < current) expect(r.replicas).toBeGreaterThanOrEqual(Math.max(desired, ...inWindow(down.stabilizationWindowSeconds)));
        if (r.replicas > current) expect(r.replicas).toBeLessThanOrEqual(Math.min(desired, ...inWindow(up.stabilizationWindowSeconds)));
      }),
    );
  });

  it('legacy: in [min, max], and never below the highest recommendation in the window when scaling down', () => {
    fc.assert(
      fc.property(rangeArb, fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 3600 }), recsArb, ([min, current, max], desired, window, recs) => {
        const r = legacy({ current, desired, min, max, window, recs: recs.map((x) => rec(x.replicas, x.secondsAgo)) });
        expect(r.replicas).toBeGreaterThanOrEqual(min);
        expect(r.replicas).toBeLessThanOrEqual(max);
        const recent = recs.filter((x) => x.secondsAgo <= window).map((x) => x.replicas);
        if (r.replicas < current) expect(r.replicas).toBeGreaterThanOrEqual(Math.max(desired, ...recent));
      }),
    );
  });

  it('dropping never-counted recommendations changes no decision over a run of syncs', () => {
    fc.assert(
      fc.property(
        rulesArb,
        rulesArb,
        fc.array(fc.record({ step: fc.integer({ min: 1, max: 400 }), desired: fc.integer({ min: 0, max: 60 }) }), { minLength: 1, maxLength: 30 }),
        (up, down, syncs) => {
          let pruned: TimestampedRecommendation[] = [];
          const everything: TimestampedRecommendation[] = [];
          let current = 10;
          let t = NOW.getTime();
          for (const s of syncs) {
            t += s.step * 1000;
            const args = { currentReplicas: current, prenormalizedDesiredReplicas: s.desired, minReplicas: 0, maxReplicas: 60, behavior: { scaleUp: up, scaleDown: down }, scaleUpEvents: [], scaleDownEvents: [], now: new Date(t) };
            const a = normalizeWithBehavior({ ...args, recommendations: pruned });
            const b = normalizeWithBehavior({ ...args, recommendations: everything });
            expect(a.replicas).toBe(b.replicas);
            pruned = a.recommendations;
            everything.push({ timestamp: new Date(t).toISOString(), replicas: s.desired });
            current = a.replicas;
          }
        },
      ),
    );
  });
});
