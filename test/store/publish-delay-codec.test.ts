// The publication delay learning as kept with a shard's answers (lib/store/publish-delay-codec.ts): its
// domain type has named fields, its stored form one letter a field, and the stored form does not change.
import { describe, expect, it } from 'vitest';
import type { DelayLearning } from '#sync/ports';
import { decodeLearning, encodeLearning, LEARNED_BYTES } from '../../lib/store/publish-delay-codec.js';
import { decodeSharedAnswers, encodeSharedAnswers } from '../../lib/store/shared-answers.js';
import { RELEARN_MS, PROBE_MS } from '../../lib/metrics/publish-delay.js';

const T0 = Date.parse('2026-11-26T12:00:00Z');

describe('a stored learning is decoded strictly', () => {
  it.each([
    [{ s: [], o: [], p: 1 }, true],
    [{ d: 15, s: [15, 14], o: [[60, 6, 1000]], p: 1, n: 2, u: [60, 1.5] }, true],
    [{ p: 1 }, true],
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

  it('reads each letter into its named field, and writes it back the same', () => {
    const stored = { d: 15, s: [15, 14], o: [[60, 6, 1000]], p: 1, n: 2, u: [60, 1.5] };
    const l = decodeLearning(stored);
    expect(l).toEqual({
      learnedDelaySeconds: 15,
      settledDelaysSeconds: [15, 14],
      watched: [{ periodStart: 60, sampleCount: 6, firstSeenMs: 1000 }],
      probingUntilMs: 1,
      nextProbingMs: 2,
      used: { periodStart: 60, value: 1.5 },
    });
    expect(encodeLearning(l!)).toEqual(stored);
    expect(encodeLearning({ settledDelaysSeconds: [], watched: [], probingUntilMs: 5 })).toEqual({ p: 5 });
  });
});

describe("kept with the shard's answers", () => {
  it('round-trips through the stored item, compactly; an item written before learning existed still reads; a bad learning is dropped, not the answer', () => {
    const learned: DelayLearning = { learnedDelaySeconds: 15, settledDelaysSeconds: [], watched: [], probingUntilMs: T0, nextProbingMs: T0 + RELEARN_MS, used: { periodStart: T0 / 1000 - 120, value: 25 } };
    const probingNow: DelayLearning = { settledDelaysSeconds: [15], watched: [{ periodStart: T0 / 1000, sampleCount: 6, firstSeenMs: T0 + 75_000 }], probingUntilMs: T0 + PROBE_MS };
    const answers = new Map([
      ['a', { end: T0 / 1000, samples: [{ value: '25', timestamp: '2026-11-26T11:58:00Z' }], learn: learned }],
      ['b', { end: T0 / 1000, error: 'no datapoint', learn: probingNow }],
    ]);
    const text = encodeSharedAnswers(answers);
    expect(decodeSharedAnswers(text)).toEqual(answers);
    // a learned object adds about 70 bytes to its answer's
    const without = encodeSharedAnswers(new Map([['a', { end: T0 / 1000, samples: [{ value: '25', timestamp: '2026-11-26T11:58:00Z' }] }]]));
    expect(encodeSharedAnswers(new Map([['a', answers.get('a')!]])).length - without.length).toBeLessThanOrEqual(LEARNED_BYTES);
    expect(decodeSharedAnswers(without).get('a')?.learn).toBeUndefined();
    const bad = JSON.parse(text) as Record<string, unknown[]>;
    bad.a[4] = { d: 'soon' };
    expect(decodeSharedAnswers(JSON.stringify(bad)).get('a')).toEqual({ end: T0 / 1000, samples: [{ value: '25', timestamp: '2026-11-26T11:58:00Z' }] });
  });

  // Written by the release before the learning got named fields (lib/sync/publish-delay.ts at 0274be2): a
  // learned object that used a value, one probing with periods watched, one whose probing ran out.
  const WRITTEN_BEFORE =
    '{"a":[1795694880,[["25.5",1795694820]],0,0,{"p":1795694880000,"n":1795716480000,"d":15,"u":[1795694820,25.5],"s":[15,15,15]}],' +
    '"b":[1795694700,0,"no datapoint",0,{"p":1795695000000,"s":[15,15],"o":[[1795694460,6,1795694535000],[1795694520,6,1795694595000],[1795694580,6,1795694655000]]}],' +
    '"c":[1795695060,[["3",1795695000]],0,["PartialData: CloudWatch returned part of the data"],{"p":1795695000000,"n":1795716660000}]}';

  it('reads an item written by the previous release, and writes it back in the same form', () => {
    const answers = decodeSharedAnswers(WRITTEN_BEFORE);
    expect(answers.get('a')?.learn).toEqual({
      learnedDelaySeconds: 15,
      settledDelaysSeconds: [15, 15, 15],
      watched: [],
      probingUntilMs: 1795694880000,
      nextProbingMs: 1795716480000,
      used: { periodStart: 1795694820, value: 25.5 },
    });
    expect(answers.get('b')?.learn).toEqual({
      settledDelaysSeconds: [15, 15],
      watched: [
        { periodStart: 1795694460, sampleCount: 6, firstSeenMs: 1795694535000 },
        { periodStart: 1795694520, sampleCount: 6, firstSeenMs: 1795694595000 },
        { periodStart: 1795694580, sampleCount: 6, firstSeenMs: 1795694655000 },
      ],
      probingUntilMs: 1795695000000,
    });
    expect(answers.get('c')).toEqual({
      end: 1795695060,
      samples: [{ value: '3', timestamp: '2026-11-26T12:10:00Z' }],
      messages: ['PartialData: CloudWatch returned part of the data'],
      learn: { settledDelaysSeconds: [], watched: [], probingUntilMs: 1795695000000, nextProbingMs: 1795716660000 },
    });
    // The same values in the same letters (key order aside).
    expect(JSON.parse(encodeSharedAnswers(answers))).toEqual(JSON.parse(WRITTEN_BEFORE));
  });
});
