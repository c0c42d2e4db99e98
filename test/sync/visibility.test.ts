// When a shard's pod metrics answers change, learned from consecutive ticks (lib/sync/visibility.ts,
// lib/sync/tick-phase.ts): the evidence of one read, the window it closes, and whole runs of the
// dispatcher's minutes against the local metrics API's model (lib/local/kubernetes/workload-model.ts).
import { describe, expect, it } from 'vitest';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { planTicks } from '../../lib/sync/dispatch.js';
import type { PodMetric } from '../../lib/hpa/types.js';
import { awaitChange, podAnswersOf } from '../../lib/sync/fresh-gate.js';
import { decodePhase, GATE_MAX_WAIT_MS, gateOf, learnTickPhase, PHASE_TTL_MS, tickOffsetSeconds, tickOffsetsOfMinute, type TickPhase } from '../../lib/sync/tick-phase.js';
import { chooseOffset, digestAnswers, observeRead, SAMPLE_PODS, type PodAnswerSeen, type Visibility } from '../../lib/sync/visibility.js';
import { VirtualClock } from '../cluster/fixture.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const P = 15;
const answer = (pod: string, atMs: number, usage = '1n'): PodAnswerSeen => ({ pod: `ns/${pod}`, atMs, usage });
const empty = (): Visibility => ({ bins: new Array<number | null>(P).fill(null), sinceMs: T0 });
/** Bins from a string, one character a second: '#' answers appear there, '.' none, '?' not probed. */
const bins = (s: string): Visibility => ({ bins: [...s].map((c) => (c === '#' ? 0.3 : c === '.' ? 0 : null)), sinceMs: T0 });

describe('one read against the last', () => {
  const pods = ['a', 'b', 'c', 'd'];
  const first = digestAnswers(pods.map((p) => answer(p, T0 - 5_000)), T0);

  it.each([
    // the gap between the two ticks (s), pods whose answer changed, the bins set (second → share)
    ['a second short of the period: the unchanged share in that second', 14, ['a', 'b'], { 6: 0.5 }],
    ['all changed: nothing appeared in that second', 14, pods, { 6: 0 }],
    ['three seconds short, all changed: the three seconds are clear', 12, pods, { 4: 0, 5: 0, 6: 0 }],
    ['three seconds short, some unchanged: which second is unknown', 12, ['a'], {}],
    ['a whole period: every answer changes whenever it appears', 15, pods, {}],
    ['longer than the period', 16, ['a'], {}],
  ])('%s', (_name, gap, changed, set) => {
    // the last read at 10:00:07, this one `gap` later
    const last = { ...empty(), last: { tickMs: T0 + 7_000, answers: first } };
    const now = T0 + 7_000 + gap * 1000;
    const read = digestAnswers(pods.map((p) => answer(p, changed.includes(p) ? now - 3_000 : T0 - 5_000)), now);
    const v = observeRead(last, read, now, P);
    expect(Object.fromEntries(v.bins.flatMap((b, i) => (b === null ? [] : [[i, b]])))).toEqual(set);
    expect(v.last).toEqual({ tickMs: now, answers: read });
  });

  it('a tick whose cycle started late teaches nothing, nor does the tick after it', () => {
    const start = learnTickPhase(undefined, [answer('a', T0 - 5_000)], T0, P, T0)!;
    const late = learnTickPhase(start, [answer('a', T0 - 5_000)], T0 + 14_000, P, T0 + 17_000)!;
    expect(late.visibility?.bins.every((b) => b === null)).toBe(true);
    const next = learnTickPhase(late, [answer('a', T0 - 5_000)], T0 + 27_000, P, T0 + 27_000)!;
    expect(next.visibility?.bins.every((b) => b === null)).toBe(true);
    // on time, the same answers a second short of the period: the answer appeared in that second
    expect(learnTickPhase(start, [answer('a', T0 - 5_000)], T0 + 14_000, P, T0 + 14_000)?.visibility?.bins[14]).toBe(1);
  });

  it('a change of usage with the same timestamp is a change', () => {
    const last = { ...empty(), last: { tickMs: T0 + 7_000, answers: first } };
    const read = digestAnswers(pods.map((p) => answer(p, T0 - 5_000, p === 'a' ? '2n' : '1n')), T0 + 21_000);
    expect(observeRead(last, read, T0 + 21_000, P).bins[6]).toBe(0.75);
  });

  it("answers stamped at the query (an adapter's time, not a sample) and from the future are never compared", () => {
    const read = digestAnswers([answer('a', T0 - 300), answer('b', T0 + 2_000), answer('c', T0 - 4_000)], T0);
    expect(Object.keys(read)).toHaveLength(1);
  });

  it(`compares the same ${SAMPLE_PODS} pods whatever order they come in`, () => {
    const many = Array.from({ length: 100 }, (_, i) => answer(`p${i}`, T0 - 3_000));
    const a = digestAnswers(many, T0);
    expect(Object.keys(a)).toHaveLength(SAMPLE_PODS);
    expect(digestAnswers([...many].reverse(), T0)).toEqual(a);
  });
});

describe('the window the evidence closes', () => {
  it.each([
    // bins (second 0 first), the offset chosen, its width, scattered
    ['a window of three seconds, clear on both sides', '..?..###.??????', 8, 3, undefined],
    ['not yet closed: one clear second before it', '????.###.??????', undefined, undefined, undefined],
    ['not yet closed: nothing known after it', '??...###???????', undefined, undefined, undefined],
    ['across the end of the period', '##.....?????..#', 2, 3, undefined],
    ['answers in every second', '###############', undefined, undefined, true],
    ['no answer ever unchanged (stamped at each read)', '...............', undefined, undefined, true],
    ['wider than a third of the period', '..######.......', undefined, undefined, true],
  ])('%s', (_name, s, offset, width, scattered) => {
    expect(chooseOffset(bins(s))).toEqual({ ...(offset === undefined ? {} : { offsetSeconds: offset, windowSeconds: width }), ...(scattered ? { scattered } : {}) });
  });

  it('a straggling pod (under 5 % of those compared) does not hold a second', () => {
    const v = bins('..?..###.??????');
    v.bins[10] = 0.04;
    v.bins[9] = 0;
    expect(chooseOffset(v).offsetSeconds).toBe(8);
  });
});

/**
 * Minutes of ticks as the dispatcher plans them (planTicks, from the offsets the stored phase gives) against the
 * local metrics API's model: one scrape loop starting `loopMs` into each resolution, each workload's node up to
 * `nodesMs` later, each pod stamped up to `spreadMs` before its scrape.
 */
async function runMinutes(o: { minutes: number; spreadMs: number; loopMs?: number; nodesMs?: number; storedAtMs?: number; workloads?: number; stampAtQuery?: boolean; from?: { phase: TickPhase; minute: number } }) {
  const start = T0 + (o.from?.minute ?? 0) * 60_000;
  const clock = new VirtualClock(start - 60_000);
  const workloads = o.workloads ?? 20;
  const nodeOffset = (_ns: string, w: string) => Math.floor((Number(w.slice(1)) / workloads) * (o.nodesMs ?? 2_000));
  // With storedAtMs, metrics-server's one store a loop (each node within 2.2 s before it); without, each node's answers as scraped.
  const scrape = o.storedAtMs === undefined ? { phaseMs: o.loopMs ?? 4_400 } : { phaseMs: o.storedAtMs - 2_200, loopMs: 2_200 };
  const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 0, baseline: { cpu: 0, memory: 0 }, scrape: { resolutionSeconds: P, ...scrape, offsetMs: nodeOffset, sampleSpreadMs: o.spreadMs } });
  for (let w = 0; w < workloads; w++) model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'ns', name: `w${w}`, replicas: 2, selector: { app: `w${w}` }, load: (at) => ({ cpu: 1 + (at.getTime() % 7_000) / 7_000 }) });
  const podMetrics = (): PodMetric[] =>
    model.podMetrics('ns').map((pm) => {
      const at = clock.now().getTime();
      return { pod: (pm.metadata as { name: string }).name, timestamp: o.stampAtQuery ? new Date(at).toISOString() : String(pm.timestamp), windowSeconds: 15, containers: o.stampAtQuery ? [{ name: String(at), usage: {} }] : (pm.containers as PodMetric['containers']) };
    });
  // A gated tick polls the model as the cycle's gate does, the virtual clock moving on.
  const gateClock = { now: clock.now, sleep: async (ms: number) => clock.advance(ms / 1000) };
  let phase: TickPhase | undefined = o.from?.phase;
  const minutes: number[][] = [];
  /** Each tick's cycle read: how long after the tick, and whether it came before the store it stands for (a period late). */
  const reads: { tickMs: number; waitedMs: number; stale: boolean }[] = [];
  for (let m = 0; m < o.minutes; m++) {
    const minute = start + m * 60_000;
    const offsets = tickOffsetsOfMinute(phase, P, minute, minute);
    const plan = planTicks([{ name: 'c', shards: 1 } as never], new Date(minute), new Date(minute), P, new Map([['c', { offsetSeconds: tickOffsetSeconds(phase, P, minute), ...(offsets ? { offsetsSeconds: offsets } : {}) }]]));
    const ticks = plan.messages.map((msg) => minute + msg.delaySeconds * 1000);
    minutes.push(ticks.map((t) => ((t - minute) / 1000) % P));
    for (const t of ticks) {
      clock.advance((t - clock.now().getTime()) / 1000);
      const gate = gateOf(phase, t, P, t);
      const gated = gate && (await awaitChange(gate, async () => ({ type: 'PodResource', result: { value: podMetrics() } }), gateClock, new AbortController().signal));
      const readMs = clock.now().getTime();
      if (o.storedAtMs !== undefined) {
        // The store a tick stands for: the last one before the second after it (and the gate's margin).
        const due = Math.floor((t + 1_200 - o.storedAtMs) / (P * 1000)) * P * 1000 + o.storedAtMs;
        reads.push({ tickMs: t, waitedMs: readMs - t, stale: readMs < due });
      }
      const seen = podAnswersOf('ns', { type: 'PodResource', result: { value: podMetrics() } });
      // The store keeps the last phase when a cycle learns none; it is written back as JSON.
      phase = decodePhase(JSON.stringify(learnTickPhase(phase, seen, t, P, t, gated) ?? phase)) ?? phase;
    }
  }
  if (process.env.DEBUG_VIS) console.log(JSON.stringify(o), JSON.stringify(minutes), JSON.stringify(phase?.visibility?.bins), phase?.offsetSeconds);
  return { minutes, phase, reads };
}

describe('ticks learned from the local metrics API', () => {
  it.each([
    // spread of the samples before their scrape (ms): the arc of timestamps covers most of the period at 10 s, all of it at 14 s
    [2_500],
    [6_000],
    [10_000],
    [14_000],
  ])('samples spread over %i ms before a scrape loop of 4.4–6.4 s: a sweep, then ticks at 7 s, probing 6 s and 8 s now and then', async (spreadMs) => {
    const { minutes, phase } = await runMinutes({ minutes: 12, spreadMs });
    expect(phase?.offsetSeconds).toBe(7);
    expect(phase?.windowSeconds).toBe(3);
    // Learned within four minutes; after that every tick within a second of 7 s, most at 7 s.
    const settled = minutes.slice(4).flat();
    expect(settled.every((s) => s >= 6 && s <= 8)).toBe(true);
    expect(settled.filter((s) => s === 7).length).toBeGreaterThan(settled.length * 0.85);
  });

  it('a loop that starts near the end of the period: the ticks go past the period start', async () => {
    const { phase } = await runMinutes({ minutes: 10, spreadMs: 10_000, loopMs: 13_500 });
    expect(phase?.offsetSeconds).toBe(1);
  });

  it('nodes scraped all over the period: scattered, even ticks', async () => {
    const { minutes, phase } = await runMinutes({ minutes: 8, spreadMs: 10_000, nodesMs: 14_900 });
    expect(phase?.offsetSeconds).toBeUndefined();
    expect(minutes.at(-1)).toEqual([0, 0, 0, 0]);
  });

  it('an adapter that stamps every answer at the query (prometheus-adapter): nothing learned, even ticks', async () => {
    const { minutes, phase } = await runMinutes({ minutes: 6, spreadMs: 0, stampAtQuery: true });
    expect(phase?.offsetSeconds).toBeUndefined();
    expect(phase?.visibility?.bins.every((b) => b === null)).toBe(true);
    expect(minutes.slice(1)).toEqual(minutes.slice(1).map(() => [0, 0, 0, 0]));
  });

  it('after metrics-server restarts at another phase, the ticks follow within minutes', async () => {
    const { phase } = await runMinutes({ minutes: 10, spreadMs: 10_000 });
    expect(phase?.offsetSeconds).toBe(7);
    // the same shard's record, carried into a world whose loop starts at 9.4 s
    const moved = await runMinutes({ minutes: 12, spreadMs: 10_000, loopMs: 9_400, from: { phase: phase!, minute: 10 } });
    expect(moved.phase?.offsetSeconds).toBe(12);
    expect(moved.minutes.slice(8).flat().every((s) => s >= 11 && s <= 13)).toBe(true);
  });

  it('metrics-server stores its loop at once, 50 ms into 6 s: ticks settle on 7 s, then go to 6 s and wait for the store; no read misses it after', async () => {
    const { minutes, phase, reads } = await runMinutes({ minutes: 12, spreadMs: 6_000, storedAtMs: 6_050 });
    expect(phase).toMatchObject({ offsetSeconds: 7, windowSeconds: 1, gate: { namespace: 'ns' } });
    expect(phase?.gate?.storeMs).toBeLessThanOrEqual(100);
    expect(minutes.slice(7).flat().every((s) => s === 6)).toBe(true);
    const settled = reads.filter((r) => r.tickMs >= T0 + 5 * 60_000);
    expect(settled.filter((r) => r.waitedMs > 0).length).toBeGreaterThan(20);
    expect(settled.some((r) => r.stale)).toBe(false);
    // each read within a poll of the store
    expect(Math.max(...settled.map((r) => r.waitedMs))).toBeLessThanOrEqual(100);
  });

  it('stored 700 ms into 6 s: ticks stay on 7 s (0.3 s after it), and the probe a second early waits for the store rather than miss it', async () => {
    const { minutes, phase, reads } = await runMinutes({ minutes: 12, spreadMs: 6_000, storedAtMs: 6_700 });
    expect(phase).toMatchObject({ offsetSeconds: 7, windowSeconds: 1 });
    expect(phase?.gate?.storeMs).toBeGreaterThan(GATE_MAX_WAIT_MS);
    const settled = minutes.slice(4).flat();
    expect(settled.filter((s) => s === 7).length).toBeGreaterThan(settled.length * 0.85);
    expect(settled).toContain(6);
    expect(reads.filter((r) => r.tickMs >= T0 + 4 * 60_000).some((r) => r.stale)).toBe(false);
  });

  it.each([
    ['later', 9_050, 9],
    ['earlier', 3_050, 3],
  ])('the store moves %s while the ticks wait for it: they follow within minutes', async (_name, storedAtMs, gatedAt) => {
    const { phase } = await runMinutes({ minutes: 10, spreadMs: 6_000, storedAtMs: 6_050 });
    expect(phase?.plan?.offsets).toEqual([6, 6, 6, 6]);
    const moved = await runMinutes({ minutes: 14, spreadMs: 6_000, storedAtMs, from: { phase: phase!, minute: 10 } });
    expect(moved.phase?.offsetSeconds).toBe(gatedAt + 1);
    expect(moved.minutes.at(-1)).toEqual([gatedAt, gatedAt, gatedAt, gatedAt]);
  });

  it("a period that does not divide the minute is not dithered: the samples' arc places its ticks", () => {
    const base = Math.floor(T0 / 90_000) * 90_000;
    const seen = [answer('a', base + 4_000), answer('b', base + 5_000)];
    const phase = learnTickPhase(undefined, seen, base + 90_000, 90, base + 90_000);
    expect(phase).toMatchObject({ offsetSeconds: 6 });
    expect(phase?.plan).toBeUndefined();
  });

  it('a phase older than its time to live is dropped: even ticks', async () => {
    const { phase } = await runMinutes({ minutes: 10, spreadMs: 6_000 });
    const minute = T0 + 10 * 60_000 + PHASE_TTL_MS;
    expect(tickOffsetsOfMinute(phase, P, minute, minute)).toBeUndefined();
    expect(tickOffsetSeconds(phase, P, minute)).toBe(0);
  });
});

describe('the stored phase', () => {
  it('reads back what it stores; learning it cannot read is dropped, the rest kept', async () => {
    const { phase } = await runMinutes({ minutes: 6, spreadMs: 6_000 });
    expect(decodePhase(JSON.stringify(phase))).toEqual(phase);
    const stored = JSON.parse(JSON.stringify(phase)) as Record<string, unknown>;
    const broken = decodePhase(JSON.stringify({ ...stored, visibility: { bins: 'x' }, plan: { minute: 1, from: -1, offsets: [] } }));
    expect(broken).toEqual({ ...phase, visibility: undefined, plan: undefined });
    expect(decodePhase(JSON.stringify({ ...stored, visibility: { ...(stored.visibility as object), last: { tickMs: 1, answers: [1] } } }))?.visibility?.last).toBeUndefined();
  });

  it("keeps the gate's namespace only when it is a namespace's name (it goes into a request path), and its store time only when plausible", async () => {
    const { phase } = await runMinutes({ minutes: 8, spreadMs: 6_000, storedAtMs: 6_050 });
    expect(phase?.gate).toMatchObject({ namespace: 'ns' });
    expect(decodePhase(JSON.stringify(phase))?.gate).toEqual(phase?.gate);
    for (const namespace of ['../../api/v1/secrets', 'NS', '', 'a'.repeat(64), 7]) expect(decodePhase(JSON.stringify({ ...phase, gate: { namespace } }))?.gate, String(namespace)).toBeUndefined();
    expect(decodePhase(JSON.stringify({ ...phase, gate: { namespace: 'ns', storeMs: -5, atOnce: 'x' } }))?.gate).toEqual({ namespace: 'ns' });
  });
});
