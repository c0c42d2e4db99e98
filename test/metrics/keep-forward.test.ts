// A query object's window never moves backwards (a publication delay reset reads later, not older).
import { describe, expect, it } from 'vitest';
import { keepForward } from '../../lib/metrics/cloudwatch-source.js';

describe('keepForward', () => {
  it.each([
    { name: 'older floor: unchanged', floor: 480, want: { period: 60, start: 300, end: 600 } },
    { name: 'same end: unchanged', floor: 600, want: { period: 60, start: 300, end: 600 } },
    { name: 'no floor: unchanged', floor: -Infinity, want: { period: 60, start: 300, end: 600 } },
    { name: 'newer floor: moved forward, same length', floor: 720, want: { period: 60, start: 420, end: 720 } },
  ])('$name', ({ floor, want }) => {
    expect(keepForward({ period: 60, start: 300, end: 600 }, floor)).toEqual(want);
  });
});
