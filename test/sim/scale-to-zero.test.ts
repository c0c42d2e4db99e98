// The simulator on a trace that goes to zero and back: the ScaledToZero condition and the activation
// threshold (lib/hpa/activation.ts) in the decision log, the chart's label and the HTML report.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSimulate } from '../../lib/cli/simulate.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';
import { DEFAULT_REQUESTS, simulate } from '../../lib/sim/simulate.js';
import type { Trace } from '../../lib/sim/trace.js';

const MIN = 60_000;
const START = Date.UTC(2026, 2, 3, 8);
/** A queue's depth: 20 for 10 min, empty for 20, 3 (below the threshold of 5) for 10, 8 for 10, empty again. */
const trace: Trace = {
  series: ['queue'],
  times: [START, START + 10 * MIN, START + 30 * MIN, START + 40 * MIN, START + 50 * MIN, START + 70 * MIN],
  values: [[20, 0, 3, 8, 0, 0]],
};

const hpa: HorizontalPodAutoscaler = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'jobs', namespace: 'work' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'jobs' },
    minReplicas: 0,
    maxReplicas: 10,
    metrics: [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '10' }, activation: { value: '5' } } }],
    behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
  },
};

describe('simulate: scale to zero and the activation threshold', () => {
  const r = simulate(hpa, trace, { syncPeriodSeconds: 15, readyDelaySeconds: 30 });
  const at = (minute: number) => r.replicas[(minute * 60) / 15];

  it('goes to zero on an empty queue, stays there below the threshold, and leaves it above', () => {
    expect(at(0)).toBe(2); // 20 > 5 from zero: ceil(20 / 10)
    expect(at(9)).toBe(2);
    expect(at(12)).toBe(0); // empty, after the 60 s window
    expect(at(39)).toBe(0); // 3 is not above 5
    expect(at(41)).toBe(1); // 8 is: ceil(8 / 10)
    expect(at(70)).toBe(0);
    expect(r.metrics[0].label).toBe('queue (External, AverageValue, activation above 5)');
    // No per-pod average without pods: the chart leaves a gap at zero rather than upstream's saturated int64.
    expect(r.metrics[0].current[(39 * 60) / 15]).toBeNull();
    expect(r.metrics[0].current[(5 * 60) / 15]).toBe(10);
    // What the chart draws instead at zero: the value against its activation threshold.
    expect(r.metrics[0].activation).toBe(5);
    expect(r.metrics[0].atZero?.[(39 * 60) / 15]).toBe(3);
    expect(r.metrics[0].atZero?.[(5 * 60) / 15]).toBeNull();
  });

  it('says so in the decision log: ScaledToZero True and False on the rescales, the hold while below the threshold', () => {
    const texts = r.decisions.map((d) => d.text);
    expect(texts.filter((t) => /^scaled \d+→0: SuccessfulRescale: .*; ScaledToZero True \(ScaledToZero\)/.test(t))).toHaveLength(2);
    expect(texts.filter((t) => /^scaled 0→\d+: SuccessfulRescale: .*; ScaledToZero False \(NotScaledToZero\)/.test(t))).toHaveLength(2);
    const held = r.decisions.filter((d) => d.reason === 'BelowActivationThreshold');
    expect(held.map((d) => d.message)).toContain('the target stays at zero replicas: no metric is above its activation threshold (queue: 3 (activation 5))');
    expect(held.map((d) => d.metrics)).toContain('queue <no pods>/10');
    // The row of the hold comes when the limiting condition changes: first when the queue empties at zero, then at 3.
    expect(held.every((d) => d.from === 0 && d.to === 0)).toBe(true);
  });

  it('`shpa simulate` on examples/scale-to-zero.yaml writes an HTML report that shows the activation and ScaledToZero', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-sim-zero-'));
    const csv = join(dir, 'reports.csv');
    // The reports queue: empty, 6 stray messages (held at zero), a busy hour, empty again.
    const rows = [...Array(121).keys()].map((m) => `${m * 60},${m < 20 ? 0 : m < 40 ? 6 : m < 80 ? 400 : 0}`);
    writeFileSync(csv, `timestamp,reports-backlog\n${rows.join('\n')}\n`);
    const report = join(dir, 'report.html');
    const out = { text: '', write: (s: string) => ((out.text += s), true) };
    const err = { text: '', write: (s: string) => ((err.text += s), true) };
    const code = runSimulate(
      { file: [join(import.meta.dirname, '../../examples/scale-to-zero.yaml')], trace: csv, syncPeriod: 15, readyDelay: 30, request: DEFAULT_REQUESTS, chart: false, report },
      out as unknown as NodeJS.WritableStream,
      err as unknown as NodeJS.WritableStream,
    );
    expect([code, err.text]).toEqual([0, '']);
    const html = readFileSync(report, 'utf8');
    expect(html).toContain('reports-backlog (External, AverageValue, activation above 10)');
    expect(html).toContain('BelowActivationThreshold');
    expect(html).toContain('reports-backlog: 6 (activation 10)');
    expect(html).toContain('ScaledToZero False (NotScaledToZero)');
    expect(html).toContain('ScaledToZero True (ScaledToZero)');
  });
});
