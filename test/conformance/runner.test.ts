import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runVectorFiles } from '../../scripts/conformance.js';

const here = dirname(fileURLToPath(import.meta.url));
const publicVectors = resolve(here, '../../../shared/conformance/public');

describe('conformance runner', () => {
  it('reports a wrong expectation and an unknown kind as failures, and passes a right one', () => {
    const results = runVectorFiles([join(here, 'fixtures')]);
    const byName = Object.fromEntries(results.map((r) => [r.name, r.failures]));
    expect(byName['wrong expectation on purpose']).toEqual([expect.stringContaining('replicas')]);
    expect(byName['right expectation']).toEqual([]);
    expect(byName['unknown kind']).toEqual(['unknown kind "teleport"']);
  });

  it('passes our own vectors (paths the public sample does not take)', () => {
    const failed = runVectorFiles([join(here, 'vectors')]).filter((r) => r.failures.length > 0);
    expect(failed.map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
  });

  it.skipIf(!existsSync(publicVectors))('passes every public vector', () => {
    const failed = runVectorFiles([publicVectors]).filter((r) => r.failures.length > 0);
    expect(failed.map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
  });
});
