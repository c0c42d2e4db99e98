// When a shard ticks: the phase of its pod metrics within the period (lib/sync/tick-phase.ts) and
// the periods its autoscalers ask for (lib/sync/sync-periods.ts), table-driven.
import { describe, expect, it } from 'vitest';
import { isDue, ownPeriod, shardTickPeriod } from '../../lib/sync/sync-periods.js';
import { decodePhase, learnPhase, tickOffsetSeconds, PHASE_TTL_MS } from '../../lib/sync/tick-phase.js';

const T = Date.parse('2026-03-01T10:00:00Z');

describe('the phase of a shard\'s data', () => {
  it.each([
    // samples (seconds after the minute), period, the tick's offset (undefined: even ticks), spread
    ['one scrape loop, nodes within 2 s', [4, 5, 6, 4, 19, 20, 21], 15, 7, 2_000],
    ['one sample', [9], 15, 10, 0],
    ['a loop across the period\'s end', [14, 15, 29, 30], 15, 1, 1_000],
    ['samples scattered over the period', [1, 5, 9, 13], 15, undefined, 11_000],
    // cAdvisor's spread: samples up to 10 s before a scrape at 4-6 s; the latest sample says when the answer is visible
    ['samples spread over 10 s before the scrape', [56, 57.5, 59, 60, 61, 62.5, 63, 64, 64.5, 65.5, 71, 73, 77, 79.5], 15, 7, 9_500],
    ['a spread covering the period: scattered', [0, 1.5, 3, 4.5, 6, 7.5, 9, 10.5, 12, 13.5], 15, undefined, 13_500],
    ['a 60 s period', [44, 45], 60, 46, 1_000],
    ['the last second of the period: the tick wraps to its start', [13, 14], 15, 0, 1_000],
  ])('%s', (_name, seconds, period, offset, spread) => {
    const phase = learnPhase(seconds.map((s) => T + s * 1000), period, T + 60_000)!;
    expect(phase.offsetSeconds).toBe(offset);
    expect(phase.spreadMs).toBe(spread);
    expect(phase.samples).toBe(seconds.length);
  });

  it('no sample, no phase; an old or missing phase gives even ticks', () => {
    expect(learnPhase([], 15, T)).toBeUndefined();
    const phase = learnPhase([T + 4_000], 15, T)!;
    expect(tickOffsetSeconds(phase, 15, T + 1_000)).toBe(5);
    expect(tickOffsetSeconds(phase, 15, T + PHASE_TTL_MS + 1)).toBe(0);
    expect(tickOffsetSeconds(undefined, 15, T)).toBe(0);
    expect(tickOffsetSeconds({ ...phase, offsetSeconds: undefined }, 15, T)).toBe(0);
  });

  it('reads back what it stores, and refuses what it did not write', () => {
    const phase = learnPhase([T + 4_000, T + 5_500], 15, T)!;
    expect(decodePhase(JSON.stringify(phase))).toEqual(phase);
    for (const bad of ['{', '[]', '{"spreadMs":-1,"samples":1,"atMs":1}', '{"offsetSeconds":1.5,"spreadMs":0,"samples":1,"atMs":1}', '{"offsetSeconds":2,"spreadMs":0,"samples":1}', 42]) {
      expect(decodePhase(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('spec.syncPeriodSeconds', () => {
  it('reads a valid period from a spec not validated yet', () => {
    expect([{ syncPeriodSeconds: 30 }, { syncPeriodSeconds: 4 }, { syncPeriodSeconds: 3601 }, { syncPeriodSeconds: '30' }, { syncPeriodSeconds: 7.5 }, {}, undefined].map(ownPeriod)).toEqual([30, undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it.each([
    // autoscalers' periods, the deploy's, the shard's tick period (undefined: the deploy's)
    [[5, undefined], 15, 5],
    [[7], 15, 6],
    [[14, 60], 15, 12],
    [[20, 60], 15, undefined],
    [[undefined], 15, undefined],
    [[], 15, undefined],
    [[30], 60, 30],
  ])('periods %j under a deploy of %i s: the shard ticks every %s s', (periods, deploy, tick) => {
    expect(shardTickPeriod(periods, deploy)).toBe(tick);
  });

  it('a tick evaluates an autoscaler when it crosses a multiple of its period: on average once a period, behavior windows in seconds untouched', () => {
    const ticks = (period: number, own: number | undefined, offset = 0) =>
      Array.from({ length: 8 }, (_, i) => T + offset * 1000 + i * period * 1000).filter((t) => isDue(t, period, own)).map((t) => (t - T) / 1000);
    expect(ticks(15, undefined)).toEqual([0, 15, 30, 45, 60, 75, 90, 105]);
    expect(ticks(15, 5)).toEqual([0, 15, 30, 45, 60, 75, 90, 105]);
    expect(ticks(15, 30)).toEqual([0, 30, 60, 90]);
    expect(ticks(15, 60, 7)).toEqual([7, 67]);
    expect(ticks(15, 20)).toEqual([0, 30, 45, 60, 90, 105]);
  });
});
