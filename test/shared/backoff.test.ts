// The one retry wait (lib/shared/backoff.ts) the CloudWatch and Prometheus readers, the Kubernetes
// client's request policy and the tick sender share, each with its own base and cap.
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../lib/shared/backoff.js';

describe('backoffMs', () => {
  it.each([
    // attempt, base, cap, capped delay
    [1, 200, 2_000, 200],
    [2, 200, 2_000, 400],
    [4, 200, 2_000, 1_600],
    [5, 200, 2_000, 2_000],
    [30, 250, 4_000, 4_000],
  ])('after attempt %i (base %i, cap %i) waits between half of %i and all of it', (attempt, baseMs, maxMs, capped) => {
    expect(backoffMs(attempt, { baseMs, maxMs, random: () => 0 })).toBe(capped / 2);
    expect(backoffMs(attempt, { baseMs, maxMs, random: () => 0.5 })).toBe(capped * 0.75);
    expect(backoffMs(attempt, { baseMs, maxMs, random: () => 0.999 })).toBeLessThan(capped);
    expect(backoffMs(attempt, { baseMs, maxMs, jitter: false })).toBe(capped);
  });

  it('spreads callers refused together', () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffMs(3, { baseMs: 100, maxMs: 10_000 })));
    expect(waits.size).toBeGreaterThan(40);
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(200);
      expect(w).toBeLessThan(400);
    }
  });
});
