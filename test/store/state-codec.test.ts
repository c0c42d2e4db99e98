// The state item's codec: what it writes it reads back, and it stays strict about the rest.
import { describe, expect, it } from 'vitest';
import { decodeState, encodeState, MAX_RECOMMENDATION, type StateFields } from '../../lib/store/state-codec.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const KEY = { pk: 'c#prod#13', sk: 'st#apps#queue' };

function state(extra: Partial<StateFields> = {}): StateFields {
  return {
    uid: 'uid-1',
    status: { currentReplicas: 5, desiredReplicas: 5 },
    rec: [[5, NOW - 15_000]],
    open: true,
    offsetMs: 0,
    up: [],
    down: [],
    metricsAtMs: NOW - 15_000,
    log: [],
    ...extra,
  };
}

const roundTrip = (s: StateFields) => decodeState({ ...encodeState(KEY, 3, s, new Date(NOW)) }, NOW);

describe('recommendations', () => {
  it("reads back upstream's prenormalized recommendation up to int32's maximum (a huge metric value makes one)", () => {
    const decoded = roundTrip(state({ rec: [[5, NOW - 30_000], [MAX_RECOMMENDATION, NOW - 15_000]] }));
    expect(decoded.problem).toBeUndefined();
    expect(decoded.state?.rec).toEqual([[5, NOW - 30_000], [2_147_483_647, NOW - 15_000]]);
  });

  it('refuses what no int32 holds, naming the pair', () => {
    expect(roundTrip(state({ rec: [[2_147_483_648, NOW - 15_000]] })).problem).toBe('rec[0] replicas must be an integer from 0 to 2147483647, got 2147483648');
    expect(roundTrip(state({ rec: [[-1, NOW - 15_000]] })).problem).toMatch(/^rec\[0\] replicas must be an integer from 0 to 2147483647, got -1$/);
  });
});

describe('replica counts elsewhere stay strict', () => {
  it.each([
    ['a scale event', state({ up: [[NOW - 15_000, 2_147_483_647]] }), /^up\[0\] change must be an integer from 0 to 200000/],
    ['desiredReplicas', state({ status: { currentReplicas: 5, desiredReplicas: 2_147_483_647 } }), /^st\.desiredReplicas must be an integer from 0 to 200000/],
    ['a pending scale', state({ pending: { from: 2, to: 2_147_483_647, at: new Date(NOW).toISOString() } }), /^pend\.to must be an integer from 0 to 200000/],
  ])('%s beyond 200,000 replicas cannot be trusted', (_what, s, problem) => {
    expect(roundTrip(s).problem).toMatch(problem);
  });
});
