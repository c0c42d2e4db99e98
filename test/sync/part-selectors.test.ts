import { describe, expect, it } from 'vitest';
import { matchesLabels, parseSelector } from '../../lib/hpa/selector.js';
import { coveringSelectors } from '../../lib/sync/part-selectors.js';

describe('list selectors covering a part shard’s targets', () => {
  it('folds equality terms on a shared key into one "in" list, whose union holds every target’s pods', () => {
    const targets = ['app=web,tier=front', 'app in (api,worker)', 'tier=back,app==db'];
    const covering = coveringSelectors(targets);
    expect(covering).toEqual(['app in (api,db,web,worker)']);
    const pods: Record<string, string>[] = [{ app: 'web', tier: 'front' }, { app: 'worker' }, { app: 'db', tier: 'back' }];
    for (const labels of pods) expect(covering!.some((c) => matchesLabels(parseSelector(c), labels))).toBe(true);
    expect(matchesLabels(parseSelector(covering![0]), { app: 'other' })).toBe(false);
  });

  it('takes one list a key when selectors share none', () => {
    expect(coveringSelectors(['app=a', 'name=b'])).toEqual(['app in (a)', 'name in (b)']);
  });

  it('reads the namespace whole when a selector has no positive term, does not parse, or the lists would be too long', () => {
    expect(coveringSelectors(['app=a', '!canary'])).toBeUndefined();
    expect(coveringSelectors(['app notin (a)'])).toBeUndefined();
    expect(coveringSelectors(['app=='])).toBeUndefined();
    expect(coveringSelectors(Array.from({ length: 251 }, (_, i) => `app=a${i}`))).toBeUndefined();
    expect(coveringSelectors(['a=1', 'b=1', 'c=1', 'd=1', 'e=1'])).toBeUndefined();
  });
});
