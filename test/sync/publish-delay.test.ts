import { describe, expect, it } from 'vitest';
import { decodeSharedAnswers, encodeSharedAnswers } from '../../lib/store/shared-answers.js';
import { checkUsedValue, closeProbing, LEARNED_BYTES, decodeLearning, dueLearning, MIN_SETTLED, observeCounts, PROBE_MS, probing, RELEARN_MS, SETTLE_SECONDS, startLearning, type DelayLearning } from '../../lib/sync/publish-delay.js';

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
    expect(l.d).toBe(learned);
    expect(l.s.length).toBeGreaterThanOrEqual(MIN_SETTLED);
    expect(probing(l, T0 + 8 * 60_000)).toBe(false);
  });

  it('a period complete later than the default teaches nothing: the default stays, and probing stops until the next hour', () => {
    // complete 52 s after the period: seen at the read 60 s after it, no sooner than the default
    const l = run(sampled(62), 15, 9);
    expect(l.d).toBeUndefined();
    expect(l.n).toBeGreaterThan(T0);
    expect(probing(l, T0 + 9 * 60_000)).toBe(false);
  });

  it('the slowest of the settled periods counts', () => {
    // every third period's samples arrive 30 s later than the others'
    const l = run((start, t) => sampled(start % (3 * P) === 0 ? 55 : 25)(start, t), 15, 9);
    expect(l.d).toBe(45);
  });

  it('periods that ended before probing started are not timed (seen late, they would look slow)', () => {
    const l = observeCounts(startLearning(T0), new Map([[T0 / 1000 - 3 * P, 6], [T0 / 1000 - 2 * P, 6]]), P, T0, 60);
    expect(l.o).toEqual([]);
  });

  it('a probing that runs out without enough periods keeps the default and tries again an hour later', () => {
    let l = run(() => 0, 15, PROBE_MS / 60_000 + 1);
    expect(l.d).toBeUndefined();
    expect(probing(l, T0 + PROBE_MS + 60_000)).toBe(false);
    expect(l.n).toBeGreaterThanOrEqual(T0 + PROBE_MS + RELEARN_MS);
    const at = l.n! + 1;
    expect(probing(dueLearning(l, at), at)).toBe(true);
  });

  it('a learned delay probes again an hour later, and keeps its delay meanwhile', () => {
    const l = run(sampled(25), 15, 8);
    const again = dueLearning(l, l.n! + 1_000);
    expect(probing(again, l.n! + 1_000)).toBe(true);
    expect(again.d).toBe(15);
    expect(again.s).toEqual([]);
  });

  it('settled periods are those older than the settle time', () => {
    const start = T0 / 1000;
    let l = observeCounts(startLearning(T0), new Map([[start, 3]]), P, (start + P) * 1000, 60);
    l = observeCounts(l, new Map([[start, 6]]), P, (start + P + 20) * 1000, 60);
    expect(l.o).toEqual([[start, 6, (start + P + 20) * 1000]]);
    l = observeCounts(l, new Map([[start, 6]]), P, (start + P + SETTLE_SECONDS) * 1000, 60);
    expect(l.s).toEqual([20]);
    expect(l.o).toEqual([]);
  });
});

describe('a value read at the learned delay that changes afterwards', () => {
  const learned: DelayLearning = { d: 15, s: [15, 15, 15], o: [], p: T0, n: T0 + RELEARN_MS };
  it.each([
    ['unchanged', 10, false],
    ['changed', 12, true],
  ])('%s: late is %s', (_name, value, late) => {
    const first = checkUsedValue(learned, [{ t: 100, v: 10 }], { t: 100, v: 10 }, T0);
    expect(first.learning.u).toEqual([100, 10]);
    const next = checkUsedValue(first.learning, [{ t: 100, v: value }, { t: 160, v: 11 }], { t: 160, v: 11 }, T0 + 60_000);
    expect(next.late !== undefined).toBe(late);
    // too short: forgotten, learning again from now; the value read now is the one checked next
    expect(next.learning.d).toBe(late ? undefined : 15);
    expect(probing(next.learning, T0 + 60_000)).toBe(late);
    expect(next.learning.u).toEqual([160, 11]);
  });
});

describe('a stored learning is decoded strictly', () => {
  it.each([
    [{ s: [], o: [], p: 1 }, true],
    [{ d: 15, s: [15, 14], o: [[60, 6, 1000]], p: 1, n: 2, u: [60, 1.5] }, true],
    [{ d: -1, s: [], o: [], p: 1 }, false],
    [{ d: 15.5, s: [], o: [], p: 1 }, false],
    [{ s: ['x'], o: [], p: 1 }, false],
    [{ s: [], o: [[1, 2]], p: 1 }, false],
    [{ s: [], o: [], p: 'now' }, false],
    [{ s: [], o: [], p: 1, u: [1] }, false],
    [[], false],
    ['{}', false],
    [null, false],
  ])('%j: %s', (v, ok) => {
    expect(decodeLearning(v) !== undefined).toBe(ok);
  });
});

describe('kept with the shard\'s answers', () => {
  it('round-trips through the stored item, compactly; an item written before learning existed still reads; a bad learning is dropped, not the answer', () => {
    const learned: DelayLearning = { d: 15, s: [], o: [], p: T0, n: T0 + RELEARN_MS, u: [T0 / 1000 - 120, 25] };
    const probingNow: DelayLearning = { s: [15], o: [[T0 / 1000, 6, T0 + 75_000]], p: T0 + PROBE_MS };
    const answers = new Map([
      ['a', { end: T0 / 1000, samples: [{ value: '25', timestamp: '2026-11-26T11:58:00Z' }], learn: learned }],
      ['b', { end: T0 / 1000, error: 'no datapoint', learn: probingNow }],
    ]);
    const text = encodeSharedAnswers(answers);
    expect(decodeSharedAnswers(text)).toEqual(answers);
    // a learned object adds about 70 bytes to its answer's
    const without = encodeSharedAnswers(new Map([['a', { end: T0 / 1000, samples: [{ value: '25', timestamp: '2026-11-26T11:58:00Z' }] }]]));
    expect(encodeSharedAnswers(new Map([['a', answers.get('a')!]])).length - without.length).toBeLessThanOrEqual(75);
    expect(decodeSharedAnswers(without).get('a')?.learn).toBeUndefined();
    const bad = JSON.parse(text) as Record<string, unknown[]>;
    bad.a[4] = { d: 'soon' };
    expect(decodeSharedAnswers(JSON.stringify(bad)).get('a')).toEqual({ end: T0 / 1000, samples: [{ value: '25', timestamp: '2026-11-26T11:58:00Z' }] });
  });
});
