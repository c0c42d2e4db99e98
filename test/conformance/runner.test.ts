import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { main, runVectorFiles } from '../../scripts/conformance.js';

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

  it('fails when a folder holds no vectors, and on a missing path', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(main([mkdtempSync(join(tmpdir(), 'no-vectors-'))])).toBe(1);
      expect(err).toHaveBeenCalledWith(expect.stringContaining('no vectors under'));
      expect(main([join(here, 'no-such-folder')])).toBe(2);
      expect(main([join(here, 'fixtures')])).toBe(1);
      expect(log).toHaveBeenLastCalledWith('1 passed, 2 failed');
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
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
