// What keeps a cycle at Lambda's CPU share from failing on its own backlog: a timeout that
// counts the server's time (the loop idle), never our busy time (up to twice its length), and a
// bound on requests in flight that lets the ones asked first go first.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Gate } from '../../lib/transport/gate.js';
import { serverTimeout } from '../../lib/transport/server-timer.js';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // the event loop held, as a starved worker's is by its own parsing
  }
}

describe('serverTimeout', () => {
  it('fires once the loop has been idle for its time', async () => {
    let fired = 0;
    serverTimeout(50, () => fired++);
    await sleep(200);
    expect(fired).toBe(1);
  });

  it('does not blame the server for time the loop was busy, and ends the wait at twice its time whatever', async () => {
    let fired = false;
    serverTimeout(100, () => (fired = true));
    busy(150);
    // The timer's turn came while the loop was busy: an answer already in the socket would be read first.
    await nextTurn();
    await nextTurn();
    expect(fired).toBe(false);
    await sleep(300);
    expect(fired).toBe(true);
  });

  it('is cancelled by the function it returns', async () => {
    let fired = false;
    const cancel = serverTimeout(20, () => (fired = true));
    cancel();
    await sleep(100);
    expect(fired).toBe(false);
  });
});

describe('Gate', () => {
  it('lets at most its limit in, in the order asked, and a caller that gives up leaves the line', async () => {
    const gate = new Gate(2);
    const order: string[] = [];
    const release: (() => void)[] = [];
    const job = (name: string) => () =>
      new Promise<void>((resolve) => {
        order.push(name);
        release.push(resolve);
      });
    const gaveUp = new AbortController();
    const runs = [gate.run(job('a')), gate.run(job('b')), gate.run(job('c'), gaveUp.signal), gate.run(job('d'))];
    await nextTurn();
    expect(order).toEqual(['a', 'b']);
    expect(gate.inFlight).toBe(2);
    gaveUp.abort(new Error('deadline'));
    await expect(runs[2]).rejects.toThrow('deadline');
    release.shift()!();
    await nextTurn();
    expect(order).toEqual(['a', 'b', 'd']);
    for (const r of release.splice(0)) r();
    await Promise.all([runs[0], runs[1], runs[3]]);
    expect(gate.inFlight).toBe(0);
    expect(gate.queued).toBe(2);
  });
});
