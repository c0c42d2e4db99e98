// The cycle's deadline signal is shared by every call of a cycle: hundreds of listeners in a
// big shard are expected, and must not print Node's leak warning each cycle.
import { expect, it } from 'vitest';
import { Deadline } from '../../lib/sync/deadline.js';
import { fixedClock } from './fakes.js';

it('takes as many abort listeners as the cycle has calls, without a MaxListenersExceededWarning', async () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  const clock = fixedClock('2026-03-01T12:00:00.000Z');
  const deadline = new Deadline(new Date(clock.now().getTime() + 60_000), clock);
  try {
    for (let i = 0; i < 500; i++) deadline.signal.addEventListener('abort', () => undefined);
    // Node emits process warnings on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  } finally {
    deadline.dispose();
    process.off('warning', onWarning);
  }
});
