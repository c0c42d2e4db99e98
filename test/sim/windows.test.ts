// Pause and scheduled minimums through the simulator and its report: a window must show.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { renderHtmlReport } from '../../lib/report/html.js';
import { CHROMIUM_ARGS } from '../report/chromium.js';
import { runSimulate } from '../../lib/cli/simulate.js';
import { readHpas } from '../../lib/sim/hpa-file.js';
import { DEFAULT_REQUESTS, simulate } from '../../lib/sim/simulate.js';
import { parseTrace } from '../../lib/sim/trace.js';

const examples = join(import.meta.dirname, '../../examples');
const trace = () => parseTrace(readFileSync(join(examples, 'traces/morning-queue.csv'), 'utf8'), 'morning-queue.csv');
const hpaOf = (file: string) => readHpas(readFileSync(join(examples, file), 'utf8'), file).hpas[0];
const opts = { syncPeriodSeconds: 15, readyDelaySeconds: 30, requests: DEFAULT_REQUESTS };
const at = (times: number[], series: number[], iso: string) => series[times.indexOf(Date.parse(iso))];

describe('the simulator with scheduled minimums and pauses', () => {
  it('examples/pause-and-schedules/scheduled-minimums.yaml: the floor from 09:00 Berlin (08:00 UTC), the burst above it, and the way down after 10:30', () => {
    const r = simulate(hpaOf('pause-and-schedules/scheduled-minimums.yaml'), trace(), opts);
    expect(at(r.times, r.replicas, '2026-11-26T07:59:45Z')).toBe(2);
    expect(at(r.times, r.minimum!, '2026-11-26T08:00:00Z')).toBe(8);
    expect(at(r.times, r.replicas, '2026-11-26T08:00:00Z')).toBe(8);
    // The burst (about 1350 queued at 09:40 UTC) takes it past the floor.
    expect(Math.max(...r.replicas)).toBeGreaterThan(8);
    expect(at(r.times, r.minimum!, '2026-11-26T09:30:00Z')).toBe(2);
    expect(r.spans).toEqual([{ kind: 'window', label: 'window morning-rush (minReplicas 8)', from: Date.parse('2026-11-26T08:00:00Z'), to: Date.parse('2026-11-26T09:29:45Z') }]);
    expect(r.decisions.map((d) => d.reason)).toEqual(expect.arrayContaining(['ScheduleWindowOpen', 'ScheduleWindowClosed']));
    expect(r.replicas.at(-1)).toBe(2);
  });

  it('examples/pause-and-schedules/pause.yaml: scale-down held until 10:30 UTC, then the ordinary behavior', () => {
    const r = simulate(hpaOf('pause-and-schedules/pause.yaml'), trace(), opts);
    const peak = Math.max(...r.replicas);
    const peakAt = r.times[r.replicas.indexOf(peak)];
    // No scale down before 10:30 UTC, though the backlog falls from 09:50.
    for (let i = 1; i < r.times.length; i++) if (r.times[i] < Date.parse('2026-11-26T10:30:00Z')) expect(r.replicas[i]).toBeGreaterThanOrEqual(r.replicas[i - 1]);
    expect(peakAt).toBeLessThan(Date.parse('2026-11-26T10:30:00Z'));
    expect(at(r.times, r.replicas, '2026-11-26T10:29:45Z')).toBe(peak);
    expect(at(r.times, r.replicas, '2026-11-26T10:30:00Z')).toBeLessThan(peak);
    expect(r.spans?.[0]).toMatchObject({ kind: 'pause', label: 'scale down paused', to: Date.parse('2026-11-26T10:29:45Z') });
    expect(r.decisions.map((d) => d.reason)).toEqual(expect.arrayContaining(['ScalingPaused', 'PauseExpired']));
    expect(r.minimum).toBeUndefined();
  });

  it('shpa simulate --report draws the window in the HTML report', () => {
    const report = join(mkdtempSync(join(tmpdir(), 'shpa-windows-')), 'rush.html');
    const sink = () => ({ text: '', write(s: string) { this.text += s; return true; } });
    const out = sink();
    const err = sink();
    const code = runSimulate(
      { file: [join(examples, 'pause-and-schedules/scheduled-minimums.yaml')], trace: join(examples, 'traces/morning-queue.csv'), syncPeriod: 15, readyDelay: 30, request: DEFAULT_REQUESTS, chart: false, report },
      out as unknown as NodeJS.WritableStream,
      err as unknown as NodeJS.WritableStream,
    );
    expect([code, err.text]).toEqual([0, '']);
    const html = readFileSync(report, 'utf8');
    expect(html).toContain('"label":"window morning-rush (minReplicas 8)"');
    expect(html).toContain('"minimum":[2,');
    expect(html).toContain("'minimum (schedules)'");
  });

  const browser = inject('chromium');
  it.skipIf('skip' in browser)(`the report renders the window in headless Chromium: the minimum line and the span${'skip' in browser ? ` (SKIPPED: ${browser.skip})` : ''}`, async () => {
    if (!('path' in browser)) return;
    const file = join(mkdtempSync(join(tmpdir(), 'shpa-windows-')), 'report.html');
    const a = simulate(hpaOf('pause-and-schedules/scheduled-minimums.yaml'), trace(), opts);
    writeFileSync(file, renderHtmlReport({ title: 'windows', subtitle: 'morning-queue.csv', autoscalers: [a] }));
    const b = await chromium.launch({ executablePath: browser.path, args: CHROMIUM_ARGS });
    try {
      const page = await b.newPage({ viewport: { width: 1200, height: 900 } });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('canvas');
      expect(await page.locator('section.autoscaler .chart.replicas .u-legend').first().textContent()).toContain('minimum (schedules)');
      expect(await page.locator('table.spans tr.window').textContent()).toBe('window morning-rush (minReplicas 8)2026-11-26 08:00:00Z2026-11-26 09:29:45Z');
      expect(problems).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
