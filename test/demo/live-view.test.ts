import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LiveView } from '../../lib/demo/live-view.js';

const row = (current: number, desired: number) => ({ name: 'demo/web', load: 1, metrics: 'cpu 50%/60%', current, desired, reason: '' });

function plain(): { view: LiveView; text: () => string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  return { view: new LiveView(out, ['demo/web'], { tty: false, totalTicks: 100 }), text: () => text };
}

describe('live view without a terminal', () => {
  it('prints every autoscaler and any error on the first sync, then only changes', () => {
    const { view, text } = plain();
    view.tick(1, '00:00', [row(2, 2)], [false], ['sync error (lease): table unreachable']);
    expect(text()).toContain('sync error (lease): table unreachable');
    expect(text()).toMatch(/00:00 {2}demo\/web .*replicas 2\n/);
    view.tick(2, '00:01', [row(2, 2)], [false]);
    expect(text()).not.toContain('00:01');
    view.tick(3, '00:02', [row(2, 4)], [true]);
    expect(text()).toMatch(/00:02 {2}demo\/web .*replicas 2 → 4/);
    expect(text()).not.toContain('\u001b[');
  });
});
