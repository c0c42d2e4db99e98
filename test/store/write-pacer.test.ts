// The per-key write pacer on a virtual clock: no one-second window of one key past DynamoDB's
// 1,000 write units, other keys untouched, a deadline that ends the wait.
import { describe, expect, it } from 'vitest';
import { WritePacer, writeUnitsOf } from '../../lib/store/write-pacer.js';

function virtualPacer(rate?: number, burst?: number) {
  const clock = { t: 0 };
  const pacer = new WritePacer({
    rate,
    burst,
    now: () => clock.t,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      clock.t += ms;
    },
  });
  return { pacer, clock };
}

/** The most units taken in any window of one second (by the clock's milliseconds). */
function peakPerSecond(log: { t: number; units: number }[]): number {
  let peak = 0;
  for (const a of log) peak = Math.max(peak, log.filter((b) => b.t >= a.t && b.t < a.t + 1000).reduce((n, b) => n + b.units, 0));
  return peak;
}

describe('WritePacer', () => {
  it('holds one key to 1,000 units in any second when 2,000 writes of 2 units come at once', async () => {
    const { pacer, clock } = virtualPacer();
    const log: { t: number; units: number }[] = [];
    for (let i = 0; i < 2_000; i++) {
      await pacer.take('c#prod#03', 2);
      log.push({ t: clock.t, units: 2 });
    }
    expect(peakPerSecond(log)).toBeLessThanOrEqual(1_000);
    // Paced, not stalled: 4,000 units at 800 a second after the first 200.
    expect(clock.t).toBeGreaterThanOrEqual(4_700);
    expect(clock.t).toBeLessThan(4_800);
  });

  it('paces each key on its own', async () => {
    const { pacer, clock } = virtualPacer();
    for (let i = 0; i < 100; i++) await pacer.take('c#prod#03', 2);
    const t = clock.t;
    await pacer.take('c#prod#04', 2);
    expect(clock.t).toBe(t);
  });

  it('charges what DynamoDB says was consumed', async () => {
    const { pacer, clock } = virtualPacer(100, 10);
    await pacer.take('k', 1);
    pacer.settle('k', 1, 10);
    await pacer.take('k', 1);
    // 10 of 10 spent: the second unit waited for a tenth of a second's refill.
    expect(clock.t).toBeGreaterThanOrEqual(10);
  });

  it('a cancelled wait rejects with the signal\'s reason', async () => {
    const { pacer } = virtualPacer(1, 1);
    await pacer.take('k', 1);
    const controller = new AbortController();
    controller.abort(new Error('cycle deadline'));
    await expect(pacer.take('k', 1, controller.signal)).rejects.toThrow('cycle deadline');
  });

  it('counts a write unit per KB, rounded up', () => {
    expect([1, 1024, 1025, 4000].map(writeUnitsOf)).toEqual([1, 1, 2, 4]);
  });
});
