// kubectl's renderings, checked against the values upstream's printers give.
import { describe as group, expect, it } from 'vitest';
import { describe } from '../../lib/cli/inspect.js';
import { age } from '../../lib/cli/format.js';
import type { AutoscalerRecord } from '../../lib/sync/ports.js';
import { hpa, status } from '../store/fixtures.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

group('age (apimachinery duration.HumanDuration)', () => {
  it.each([
    [-2 * S, '<invalid>'],
    [-1.5 * S, '0s'],
    [Number.NaN, '<invalid>'],
    [45 * S, '45s'],
    [119 * S, '119s'],
    [5 * M + 3 * S, '5m3s'],
    [5 * M, '5m'],
    [42 * M, '42m'],
    [5 * H + 3 * M, '5h3m'],
    [20 * H, '20h'],
    [3 * D + 4 * H, '3d4h'],
    [12 * D, '12d'],
    [2 * 365 * D + 45 * D, '2y45d'],
    [3 * 365 * D, '3y'],
    [9 * 365 * D + 45 * D, '9y'],
  ])('%d ms is %s', (ms, want) => expect(age(ms)).toBe(want));
});

group('describe', () => {
  it('continues labels and annotations in the value column, sorted by key', () => {
    const h = hpa('web');
    h.metadata.labels = { tier: 'front', app: 'web' };
    h.metadata.annotations = { note: 'x' };
    const rec: AutoscalerRecord = {
      cluster: 'prod',
      namespace: 'default',
      name: 'web',
      hpa: { ...h, status: status(3, 72) },
      history: { recommendations: null, scaleUpEvents: [], scaleDownEvents: [] },
      version: 1,
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
    };
    const lines = describe(rec, 'prod', new Date('2025-01-01T01:00:00Z')).split('\n');
    const column = lines[0].indexOf('web');
    const at = lines.findIndex((l) => l.startsWith('Labels:'));
    expect(lines[at].slice(column)).toBe('app=web');
    expect(lines[at + 1]).toBe(`${' '.repeat(column)}tier=front`);
    expect(lines[at + 2].slice(column)).toBe('note=x');
  });
});
