// The scenario of `npm run bench -- reaction`'s SQS rows, short: one backlog step on one queue,
// through the local stack with the shipped worker, is followed by a patch of its workload within
// a sync period (from one, and from zero); and the models of the other readers on given steps.
import { describe, expect, it } from 'vitest';
import { cloudWatchModel, kedaModel, runSqsTrace } from '../../bench/support/sqs-trace.js';

describe('SQS backlog step → patch (the bench scenario, one step)', () => {
  it('from one replica: the next tick reads the queue live and patches 1 → N', async () => {
    const r = await runSqsTrace({ workloads: 1, minutes: 1, seed: 1 });
    // 50 messages at 5 a replica: 10, limited on the way up (upstream's scale-up limit).
    expect(r.patchedTo[0]).toBeGreaterThan(1);
    expect(r.patchedTo[0]).toBeLessThanOrEqual(10);
    expect(r.ours[0]).toBeGreaterThanOrEqual(0);
    expect(r.ours[0]).toBeLessThan(15 + 2);
    expect(r.readsPerQueueTick).toBe(1);
  }, 60_000);

  it('from zero: the activation threshold is passed and the workload patched 0 → N at the next tick', async () => {
    const r = await runSqsTrace({ workloads: 1, minutes: 1, seed: 2, fromZero: true });
    expect(r.patchedTo[0]).toBeGreaterThan(0);
    expect(r.ours[0]).toBeLessThan(15 + 2);
  }, 60_000);

  it("models KEDA's HPA loop, its polling from zero, and the CloudWatch route on the same steps", () => {
    const t0 = Date.parse('2026-03-02T10:00:00Z');
    const steps = Array.from({ length: 2000 }, (_, i) => t0 + i * 7_919);
    const one = kedaModel(steps, false, 1);
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(avg(one.toN)).toBeGreaterThan(7);
    expect(avg(one.toN)).toBeLessThan(8);
    expect(Math.max(...one.toN)).toBeLessThanOrEqual(15);
    const zero = kedaModel(steps, true, 1);
    expect(avg(zero.first)).toBeGreaterThan(14);
    expect(Math.max(...zero.first)).toBeLessThanOrEqual(30);
    expect(zero.toN.every((x, i) => x > zero.first[i])).toBe(true);
    const cw = cloudWatchModel(steps);
    expect(Math.min(...cw)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...cw)).toBeLessThanOrEqual(120);
  });
});
