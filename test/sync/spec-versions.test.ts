// The spec checks of a cycle share reads: those asked in one turn of the event loop go to the
// store together, each gets its own answer, and a failed read fails only its own batch.
import { describe, expect, it } from 'vitest';
import { SpecVersions } from '../../lib/sync/spec-versions.js';

function store(versions: Record<string, string>, fail?: Error) {
  const calls: string[][] = [];
  return {
    calls,
    async specVersions(_cluster: string, list: { namespace: string; name: string }[]) {
      calls.push(list.map((a) => `${a.namespace}/${a.name}`));
      if (fail) throw fail;
      return new Map(list.map((a) => [`${a.namespace}/${a.name}`, versions[`${a.namespace}/${a.name}`]]));
    },
  };
}

describe('SpecVersions', () => {
  it('asks the store once for the checks of one turn, and again for later ones', async () => {
    const s = store({ 'apps/web': '3', 'apps/api': '7' });
    const checks = new SpecVersions(s, 'prod', new AbortController().signal);
    const first = await Promise.all([checks.of('apps', 'web'), checks.of('apps', 'api'), checks.of('apps', 'gone')]);
    expect(first).toEqual(['3', '7', undefined]);
    expect(await checks.of('apps', 'web')).toBe('3');
    expect(s.calls).toEqual([['apps/web', 'apps/api', 'apps/gone'], ['apps/web']]);
  });

  it('a failed read rejects each check of its batch with the store\'s error', async () => {
    const checks = new SpecVersions(store({}, new Error('DynamoDB: throttled')), 'prod', new AbortController().signal);
    const results = await Promise.allSettled([checks.of('apps', 'web'), checks.of('apps', 'api')]);
    expect(results.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['DynamoDB: throttled', 'DynamoDB: throttled']);
  });
});
