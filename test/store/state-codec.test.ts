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

  it('drops what no int32 holds, naming the pair, and keeps the valid ones', () => {
    const decoded = roundTrip(state({ rec: [[4, NOW - 30_000], [2_147_483_648, NOW - 15_000]] }));
    expect(decoded.problem).toBeUndefined();
    expect(decoded.state?.untrusted).toEqual({ recommendations: 'rec[1] replicas must be an integer from 0 to 2147483647, got 2147483648' });
    expect(decoded.state?.rec).toEqual([[4, NOW - 30_000]]);
    // Nothing valid left: as if none was recorded yet (upstream seeds one), the part still named.
    const none = roundTrip(state({ rec: [[-1, NOW - 15_000]] }));
    expect(none.state?.rec).toBeNull();
    expect(none.state?.untrusted?.recommendations).toMatch(/^rec\[0\] replicas must be an integer from 0 to 2147483647, got -1$/);
  });
});

describe('scale events', () => {
  it.each([
    ['beyond 200,000 replicas', [NOW - 15_000, 2_147_483_647], /^up\[1\] change must be an integer from 0 to 200000/],
    ['negative', [NOW - 15_000, -2], /^up\[1\] change must be an integer from 0 to 200000, got -2/],
    ['from the future', [NOW + 86_400_000, 2], /^up\[1\] time .* is in the future/],
    ['not a pair', [NOW - 15_000, 2, 3], /^up\[1\] is not a \[time, change\] pair/],
  ])('one %s is dropped and named; the valid ones are kept', (_what, bad, problem) => {
    const item = { ...encodeState(KEY, 3, state(), new Date(NOW)), up: JSON.stringify([[NOW - 30_000, 2], bad]) };
    const decoded = decodeState(item, NOW);
    expect(decoded.problem).toBeUndefined();
    expect(decoded.state?.up).toEqual([[NOW - 30_000, 2]]);
    expect(decoded.state?.untrusted?.up).toMatch(problem);
    expect(decoded.state?.untrusted?.down).toBeUndefined();
  });

  it('a list that is not one is dropped whole, named', () => {
    const decoded = decodeState({ ...encodeState(KEY, 3, state(), new Date(NOW)), dn: JSON.stringify({ a: 1 }) }, NOW);
    expect(decoded.state).toMatchObject({ down: [], untrusted: { down: 'dn is not a list' } });
  });
});

describe('holds', () => {
  it('reads back the directions held and until when; one too far ahead cannot be trusted', () => {
    expect(roundTrip(state({ holds: { up: NOW + 60_000 } })).state?.holds).toEqual({ up: NOW + 60_000 });
    expect(roundTrip(state({ holds: { up: NOW + 60_000, down: NOW + 300_000 } })).state?.holds).toEqual({ up: NOW + 60_000, down: NOW + 300_000 });
    expect(roundTrip(state()).state?.holds).toBeUndefined();
    expect(roundTrip(state({ holds: { down: NOW + 86_400_000 } })).problem).toMatch(/^hold\.d .* is in the future/);
  });
});

describe('replica counts elsewhere stay strict', () => {
  it.each([
    ['desiredReplicas', state({ status: { currentReplicas: 5, desiredReplicas: 2_147_483_647 } }), /^st\.desiredReplicas must be an integer from 0 to 200000/],
    ['a pending scale', state({ pending: { from: 2, to: 2_147_483_647, at: new Date(NOW).toISOString() } }), /^pend\.to must be an integer from 0 to 200000/],
  ])('%s beyond 200,000 replicas cannot be trusted', (_what, s, problem) => {
    expect(roundTrip(s).problem).toMatch(problem);
  });
});
