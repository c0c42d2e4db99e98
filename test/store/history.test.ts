// The pure rule of what a cycle must write.
import { describe, expect, it } from 'vitest';
import { DEFAULT_WRITE_POLICY, needsWrite, type CompactState } from '../../lib/store/history.js';
import { status } from './fixtures.js';

const base = (over: Partial<CompactState> = {}): CompactState => ({
  status: status(3, 60),
  rec: [[5, 0], [3, 15_000]],
  open: true,
  offsetMs: 0,
  up: [],
  down: [],
  metricsAtMs: 0,
  ...over,
});

describe('needsWrite', () => {
  it('nothing stored yet: write', () => expect(needsWrite(undefined, base(), 0)).toBe(true));
  it('only the open value seen again: no write', () => expect(needsWrite(base(), base({ rec: [[5, 0], [3, 30_000]] }), 30_000)).toBe(false));
  it('a new value, or the open value closed: write', () => {
    expect(needsWrite(base(), base({ rec: [[5, 0], [3, 15_000], [4, 30_000]] }), 30_000)).toBe(true);
    expect(needsWrite(base(), base({ open: false }), 30_000)).toBe(true);
  });
  it('a value aging out of every window alone: no write', () => expect(needsWrite(base(), base({ rec: [[3, 30_000]] }), 400_000)).toBe(false));
  it('replica counts and condition reasons are material, messages are not', () => {
    expect(needsWrite(base(), base({ status: { ...status(3, 60), desiredReplicas: 4 } }), 1)).toBe(true);
    const reason = status(3, 60);
    reason.conditions![2] = { ...reason.conditions![2], status: 'True', reason: 'TooManyReplicas' };
    expect(needsWrite(base(), base({ status: reason }), 1)).toBe(true);
    const message = status(3, 60);
    message.conditions![0] = { ...message.conditions![0], message: 'other words' };
    expect(needsWrite(base(), base({ status: message }), 1)).toBe(false);
  });
  it("ScalingActive's message names the winning metric: another winner is material", () => {
    const winner = status(3, 60);
    winner.conditions = winner.conditions!.map((c) => (c.type === 'ScalingActive' ? { ...c, message: 'the HPA was able to successfully calculate a replica count from external metric queue(nil)' } : c));
    expect(winner.conditions.some((c) => c.type === 'ScalingActive' && c.status === 'True')).toBe(true);
    expect(needsWrite(base(), base({ status: winner }), 1)).toBe(true);
  });
  it('metric values: small moves wait for the maximum age, large ones for the minimum interval', () => {
    const { metricsMinIntervalMs: min, metricsMaxAgeMs: max } = DEFAULT_WRITE_POLICY;
    expect(needsWrite(base(), base({ status: status(3, 62) }), min)).toBe(false);
    expect(needsWrite(base(), base({ status: status(3, 62) }), max)).toBe(true);
    expect(needsWrite(base(), base({ status: status(3, 90) }), min - 1)).toBe(false);
    expect(needsWrite(base(), base({ status: status(3, 90) }), min)).toBe(true);
  });
});
