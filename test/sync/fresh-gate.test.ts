// A tick's wait for its pod metrics to change (lib/sync/fresh-gate.ts), and the cycle's reads waiting for it
// (lib/sync/reads.ts): read every POLL_MS until the compared pods' answers differ from the last tick's.
import { describe, expect, it } from 'vitest';
import type { PodMetric } from '../../lib/hpa/types.js';
import { awaitChange, GATE_MARGIN_MS, POLL_MS, podAnswersOf } from '../../lib/sync/fresh-gate.js';
import type { MetricAnswer, MetricsAccess } from '../../lib/sync/ports/metrics-access.js';
import type { ClusterAccess } from '../../lib/sync/ports/cluster-access.js';
import { CycleReads } from '../../lib/sync/reads.js';
import { emptyCalls } from '../../lib/sync/report.js';
import { digestAnswers } from '../../lib/sync/visibility.js';

const TICK = Date.parse('2026-03-01T10:00:06Z');
const pods = ['a', 'b', 'c', 'd'];
const metrics = (stamp: number): PodMetric[] => pods.map((pod) => ({ pod, timestamp: new Date(stamp).toISOString(), windowSeconds: 15, containers: [{ name: 'app', usage: { cpu: `${stamp % 97}m` } }] }));
const answerOf = (value: PodMetric[]): MetricAnswer => ({ type: 'PodResource', result: { value } });
const previous = digestAnswers(podAnswersOf('ns', answerOf(metrics(TICK - 20_000))), TICK);

/** A metrics API whose answers change (a new loop stored) at `storedAt`, on a virtual clock the gate's sleeps move. */
function world(storedAt: number) {
  const clock = { t: TICK, now: () => new Date(clock.t), sleep: async (ms: number) => void (clock.t += ms) };
  const reads: number[] = [];
  const read = async () => {
    reads.push(clock.t);
    return answerOf(metrics(clock.t >= storedAt ? storedAt - 5_000 : TICK - 20_000));
  };
  return { clock, reads, read };
}

describe('the gate', () => {
  it('reads until the answers change, then opens: the read after the store', async () => {
    const w = world(TICK + 250);
    const r = await awaitChange({ namespace: 'ns', previous, tickMs: TICK }, w.read, w.clock, new AbortController().signal);
    expect(w.reads).toEqual([TICK, TICK + 100, TICK + 200, TICK + 300]);
    expect(r).toMatchObject({ firstAtMs: TICK, unchangedAtMs: TICK + 200, openedAtMs: TICK + 300, reads: 4 });
    // the first read is what the tick saw: the last tick's answers
    expect(digestAnswers(r.first, TICK)).toEqual(previous);
  });

  it('answers already changed at the first read: open at once', async () => {
    const w = world(TICK - 500);
    const r = await awaitChange({ namespace: 'ns', previous, tickMs: TICK }, w.read, w.clock, new AbortController().signal);
    expect(r).toMatchObject({ firstAtMs: TICK, openedAtMs: TICK, reads: 1 });
    expect(r.unchangedAtMs).toBeUndefined();
  });

  it(`gives up ${GATE_MARGIN_MS} ms after the second after the tick: the last read is used, nothing opened`, async () => {
    const w = world(TICK + 5_000);
    const r = await awaitChange({ namespace: 'ns', previous, tickMs: TICK }, w.read, w.clock, new AbortController().signal);
    expect(r.openedAtMs).toBeUndefined();
    expect(w.reads.at(-1)).toBeLessThanOrEqual(TICK + 1_000 + GATE_MARGIN_MS);
    expect(w.reads.at(-1)).toBeGreaterThan(TICK + 1_000 + GATE_MARGIN_MS - POLL_MS - 1);
  });

  it('answers it cannot compare (other pods, or an error) open it at once, as a read without a gate', async () => {
    const w = world(TICK + 5_000);
    const strangers = digestAnswers(podAnswersOf('other', answerOf(metrics(TICK - 20_000))), TICK);
    const r = await awaitChange({ namespace: 'ns', previous: strangers, tickMs: TICK }, w.read, w.clock, new AbortController().signal);
    expect(r).toMatchObject({ reads: 1 });
    expect(r.openedAtMs).toBeUndefined();
    const failed = await awaitChange({ namespace: 'ns', previous, tickMs: TICK }, async () => ({ type: 'PodResource', result: { error: 'the server is currently unable to handle the request' } }), w.clock, new AbortController().signal);
    expect(failed).toMatchObject({ reads: 1, answer: { result: { error: 'the server is currently unable to handle the request' } } });
  });

  it('stops when the cycle is out of time', async () => {
    const w = world(TICK + 5_000);
    const abort = new AbortController();
    const clock = { now: w.clock.now, sleep: async (ms: number) => (w.clock.t += ms, abort.abort(new Error('deadline'))) };
    const r = await awaitChange({ namespace: 'ns', previous, tickMs: TICK }, w.read, clock, abort.signal);
    expect(r.reads).toBe(2);
    expect(r.openedAtMs).toBeUndefined();
  });
});

describe("a cycle's reads behind the gate", () => {
  it('a gate read that hangs holds up only its namespace: the others are read at the gate\'s end, that one on its own', async () => {
    const clock = { now: () => new Date(), sleep: async () => undefined };
    const tickMs = Date.now() - 1_000;
    let hung = 0;
    const metricsAccess = {
      async fetchAll(queries) {
        return Promise.all(queries.map((q) => (q.type === 'PodResource' && q.namespace === 'ns' ? new Promise<MetricAnswer>(() => void hung++) : Promise.resolve(answerOf(metrics(TICK))))));
      },
    } as MetricsAccess;
    const reads = new CycleReads({} as ClusterAccess, metricsAccess, new Date(), new AbortController().signal, emptyCalls());
    reads.startGate('c', { namespace: 'ns', previous, tickMs }, clock);
    const started = Date.now();
    const other = await reads.metric({ type: 'PodResource', cluster: 'c', namespace: 'web' });
    // the gate ends 1.2 s after the tick: 0.2 s from now
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(other.type === 'PodResource' && other.result.value?.length).toBe(4);
    expect(await reads.gateResult()).toMatchObject({ first: [], reads: 1 });
    expect((await reads.gateResult())?.answer).toBeUndefined();
    void reads.metric({ type: 'PodResource', cluster: 'c', namespace: 'ns' });
    await new Promise((r) => setTimeout(r, 10));
    expect(hung).toBe(2);
  });

  it("every namespace's pod metrics wait for it, and its own namespace's answer is the gate's last read", async () => {
    const w = world(TICK + 150);
    const asked: string[] = [];
    const metricsAccess: MetricsAccess = {
      async fetchAll(queries) {
        return Promise.all(
          queries.map(async (q) => {
            asked.push(`${q.type === 'PodResource' ? q.namespace : q.type}@${w.clock.t - TICK}`);
            return q.type === 'PodResource' && q.namespace === 'ns' ? w.read() : answerOf(metrics(w.clock.t));
          }),
        );
      },
    } as MetricsAccess;
    const reads = new CycleReads({} as ClusterAccess, metricsAccess, new Date(TICK), new AbortController().signal, emptyCalls());
    reads.startGate('c', { namespace: 'ns', previous, tickMs: TICK }, w.clock);
    const [other, own] = await Promise.all([reads.metric({ type: 'PodResource', cluster: 'c', namespace: 'web' }), reads.metric({ type: 'PodResource', cluster: 'c', namespace: 'ns' })]);
    expect(asked).toEqual(['ns@0', 'ns@100', 'ns@200', 'web@200']);
    expect(own).toEqual(await w.read());
    expect(other.type === 'PodResource' && other.result.value?.length).toBe(4);
    expect((await reads.gateResult())?.openedAtMs).toBe(TICK + 200);
    expect(reads.podAnswers.map((a) => a.pod).sort()).toEqual([...pods.map((p) => `ns/${p}`), ...pods.map((p) => `web/${p}`)].sort());
  });
});
