import { describe, expect, it } from 'vitest';
import { dayLoad, demoTrace, relativeLoad } from '../../lib/demo/demo-trace.js';
import { liveLine, progressBar } from '../../lib/demo/live.js';
import { valueAt } from '../../lib/sim/trace.js';

describe('demo trace', () => {
  it('is a day with a spike at noon and a slow decline', () => {
    const start = new Date(Date.UTC(2025, 2, 4));
    const t = demoTrace(start);
    expect(t.times.length).toBe(24 * 60 + 1);
    expect(t.times[t.times.length - 1] - t.times[0]).toBe(24 * 3600_000);
    expect(valueAt(t, 0, start.getTime() + 12.25 * 3600_000)).toBe(4);
    expect(dayLoad(3)).toBe(0.3);
    // the decline after the spike is gradual: no step larger than a few percent per minute
    for (let h = 12.5; h < 16; h += 1 / 60) expect(dayLoad(h) - dayLoad(h + 1 / 60)).toBeLessThan(0.02);
    expect(dayLoad(16)).toBeCloseTo(1);
  });
});

describe('a trace file as relative load', () => {
  const trace = (values: number[]) => ({ series: ['backlog', 'other'], times: values.map((_, i) => i * 60_000), values: [values, values] });

  it('divides the first series by its median, ignoring gaps', () => {
    const { trace: t, median } = relativeLoad(trace([150, 150, NaN, 300, 600, 2650]));
    expect(median).toBe(300);
    expect(t.series).toEqual(['backlog']);
    expect(t.values).toEqual([[0.5, 0.5, NaN, 1, 2, 2650 / 300]]);
    expect(relativeLoad(trace([4, 1, 2, 3])).median).toBe(2.5);
  });

  it('refuses a series whose median is not positive', () => {
    expect(() => relativeLoad(trace([0, 0, 5]))).toThrow(/median value is 0/);
    expect(() => relativeLoad(trace([NaN]))).toThrow(/median value is NaN/);
  });
});

describe('live output', () => {
  it('one line per autoscaler, arrow only when it changes', () => {
    const row = { name: 'demo/web', load: 2, metrics: 'cpu 92%/60%', current: 4, desired: 7, reason: 'ScaleUpLimit' };
    expect(liveLine(row, 10)).toMatch(/^demo\/web\s+load\s+2\.00\s+cpu 92%\/60%\s+replicas 4 → 7\s+ScaleUpLimit$/);
    expect(liveLine({ ...row, desired: 4, reason: '' }, 10)).toMatch(/replicas 4$/);
  });

  it('progress bar, ASCII without a TTY', () => {
    expect(progressBar(5, 10, 10, '12:00', true)).toBe('[#####.....]  50% 12:00');
    expect(progressBar(20, 10, 4, 'end')).toBe('[████] 100% end');
  });
});
