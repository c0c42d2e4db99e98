// What `shpa local up` prints of the functions' log: a failure that repeats every tick is one line.
import { describe, expect, it } from 'vitest';
import { LiveLines } from '../../lib/cli/local.js';

const failing = (t: string) => ({
  message: 'decision',
  timestamp: t,
  namespace: 'demo',
  hpa: 'api',
  outcome: 'unchanged',
  errors: [{ message: 'FailedGetExternalMetric: no CloudWatchMetric "nope" in namespace demo' }],
});

describe('LiveLines', () => {
  it('shows a repeated failure once, then its end with how often it came; scales always show', () => {
    const lines = new LiveLines();
    const shown = [
      failing('2026-03-01T12:00:00Z'),
      failing('2026-03-01T12:00:15Z'),
      failing('2026-03-01T12:00:30Z'),
      { message: 'decision', timestamp: '2026-03-01T12:00:40Z', namespace: 'demo', hpa: 'web', patched: true, currentReplicas: 2, desiredReplicas: 4, trigger: 'tick' },
      { message: 'decision', timestamp: '2026-03-01T12:00:45Z', namespace: 'demo', hpa: 'api', outcome: 'unchanged' },
      failing('2026-03-01T12:01:00Z'),
    ].map((l) => lines.next(l));
    expect(shown).toEqual([
      '12:00:00 demo/api: unchanged: FailedGetExternalMetric: no CloudWatchMetric "nope" in namespace demo',
      undefined,
      undefined,
      '12:00:40 demo/web: scaled 2 → 4 (tick)',
      '12:00:45 demo/api: no longer failing (the line before came 3 times)',
      '12:01:00 demo/api: unchanged: FailedGetExternalMetric: no CloudWatchMetric "nope" in namespace demo',
    ]);
  });
});
