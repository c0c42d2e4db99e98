import { describe, expect, it } from 'vitest';
import type { DelayLearning } from '#sync/ports';
import { checkUsedValue, closeProbing, dueLearning, MIN_SETTLED, observeCounts, PROBE_MS, probing, RELEARN_MS, SETTLE_SECONDS, startLearning } from '../../lib/metrics/publish-delay.js';

const T0 = Date.parse('2026-11-26T12:00:00Z');
const P = 60;

/**
 * Reads every `everyS` seconds from T0 for `minutes`, of a metric whose period (start s) gets its samples
 * `counts(start, readS)` at read time readS (epoch s): the learning as it ends.
 */
function run(counts: (start: number, readS: number) => number, everyS: number, minutes: number, l0 = startLearning(T0)): DelayLearning {
  let l = l0;
  for (let t = T0 / 1000; t <= T0 / 1000 + minutes * 60; t += everyS) {
    l = dueLearning(l, t * 1000);
    if (!probing(l, t * 1000)) {
      l = closeProbing(l, t * 1000);
      continue;
    }
    const seen = new Map<number, number>();
    for (let start = Math.floor(t / P) * P - 5 * P; start + P <= t; start += P) {
      const n = counts(start, t);
      if (n > 0) seen.set(start, n);
    }
    l = closeProbing(observeCounts(l, seen, P, t * 1000, 60), t * 1000);
  }
  return l;
}

/** Six samples a period (one every 10 s), each visible `lag` s after it was taken. */
const sampled = (lag: number) => (start: number, readS: number) => [0, 10, 20, 30, 40, 50].filter((o) => start + o + lag <= readS).length;

describe('learning when a period is complete from its sample counts', () => {
  it.each([
    // [sample lag s, read every s, learned delay s]: the first read at which the count is final, after the period ends
    [25, 15, 15],
    [25, 5, 15],
    [12, 15, 15],
    [12, 5, 5],
    [40, 15, 30],
    [43, 5, 35],
    [5, 15, 0],
  ])('samples %i s late, reads every %i s: %i s', (lag, every, learned) => {
    // the last sample (50 s into the period) is visible lag - 10 s after the period ends; lag 5: before it ends
    const l = run(sampled(lag), every, 8);
    expect(l.learnedDelaySeconds).toBe(learned);
    expect(l.settledDelaysSeconds.length).toBeGreaterThanOrEqual(MIN_SETTLED);
    expect(probing(l, T0 + 8 * 60_000)).toBe(false);
  });

  it('a period complete later than the default teaches nothing: the default stays, and probing stops until the next hour', () => {
    // complete 52 s after the period: seen at the read 60 s after it, no sooner than the default
    const l = run(sampled(62), 15, 9);
    expect(l.learnedDelaySeconds).toBeUndefined();
    expect(l.nextProbingMs).toBeGreaterThan(T0);
    expect(probing(l, T0 + 9 * 60_000)).toBe(false);
  });

  it('the slowest of the settled periods counts', () => {
    // every third period's samples arrive 30 s later than the others'
    const l = run((start, t) => sampled(start % (3 * P) === 0 ? 55 : 25)(start, t), 15, 9);
    expect(l.learnedDelaySeconds).toBe(45);
  });

  it('periods that ended before probing started are not timed (seen late, they would look slow)', () => {
    const l = observeCounts(startLearning(T0), new Map([[T0 / 1000 - 3 * P, 6], [T0 / 1000 - 2 * P, 6]]), P, T0, 60);
    expect(l.watched).toEqual([]);
  });

  it('a probing that runs out without enough periods keeps the default and tries again an hour later', () => {
    let l = run(() => 0, 15, PROBE_MS / 60_000 + 1);
    expect(l.learnedDelaySeconds).toBeUndefined();
    expect(probing(l, T0 + PROBE_MS + 60_000)).toBe(false);
    expect(l.nextProbingMs).toBeGreaterThanOrEqual(T0 + PROBE_MS + RELEARN_MS);
    const at = l.nextProbingMs! + 1;
    expect(probing(dueLearning(l, at), at)).toBe(true);
  });

  it('a learned delay probes again an hour later, and keeps its delay meanwhile', () => {
    const l = run(sampled(25), 15, 8);
    const again = dueLearning(l, l.nextProbingMs! + 1_000);
    expect(probing(again, l.nextProbingMs! + 1_000)).toBe(true);
    expect(again.learnedDelaySeconds).toBe(15);
    expect(again.settledDelaysSeconds).toEqual([]);
  });

  it('settled periods are those older than the settle time', () => {
    const start = T0 / 1000;
    let l = observeCounts(startLearning(T0), new Map([[start, 3]]), P, (start + P) * 1000, 60);
    l = observeCounts(l, new Map([[start, 6]]), P, (start + P + 20) * 1000, 60);
    expect(l.watched).toEqual([{ periodStart: start, sampleCount: 6, firstSeenMs: (start + P + 20) * 1000 }]);
    l = observeCounts(l, new Map([[start, 6]]), P, (start + P + SETTLE_SECONDS) * 1000, 60);
    expect(l.settledDelaysSeconds).toEqual([20]);
    expect(l.watched).toEqual([]);
  });
});

describe('a value read at the learned delay that changes afterwards', () => {
  const learned: DelayLearning = { learnedDelaySeconds: 15, settledDelaysSeconds: [15, 15, 15], watched: [], probingUntilMs: T0, nextProbingMs: T0 + RELEARN_MS };
  it.each([
    ['unchanged', 10, false],
    ['changed', 12, true],
  ])('%s: late is %s', (_name, value, late) => {
    const first = checkUsedValue(learned, [{ t: 100, v: 10 }], { t: 100, v: 10 }, T0);
    expect(first.learning.used).toEqual({ periodStart: 100, value: 10 });
    const next = checkUsedValue(first.learning, [{ t: 100, v: value }, { t: 160, v: 11 }], { t: 160, v: 11 }, T0 + 60_000);
    expect(next.late !== undefined).toBe(late);
    // too short: forgotten, learning again from now; the value read now is the one checked next
    expect(next.learning.learnedDelaySeconds).toBe(late ? undefined : 15);
    expect(probing(next.learning, T0 + 60_000)).toBe(late);
    expect(next.learning.used).toEqual({ periodStart: 160, value: 11 });
  });
});
