// The predictive minimum on the report's charts: terminal and HTML (headless Chromium).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { renderHtmlReport } from '../../lib/report/html.js';
import { summarize, type AutoscalerReport } from '../../lib/report/model.js';
import { renderReplicasChart } from '../../lib/report/terminal.js';
import { CHROMIUM_ARGS } from './chromium.js';

const outDir = join(import.meta.dirname, '../../test-output');

/** 240 samples: a morning ramp from 4 to 30 replicas; the forecast acts from sample 60, ahead of the ramp by 20 samples. */
function withForecast(name: string, forecast: boolean): AutoscalerReport {
  const times = Array.from({ length: 240 }, (_, i) => Date.UTC(2001, 0, 9) + i * 15_000);
  const need = times.map((_, i) => (i < 120 ? 4 : 30));
  const replicas = times.map((_, i) => (forecast ? (i < 100 ? 4 : 30) : i < 124 ? 4 : 30));
  const a = {
    name,
    minReplicas: 2,
    maxReplicas: 40,
    times,
    loadLabel: 'load',
    loadUnit: '' as const,
    load: need,
    replicas,
    desired: replicas,
    readyPods: replicas.map((_, i) => replicas[Math.max(0, i - 8)]),
    demand: need,
    ...(forecast ? { forecast: times.map((_, i) => (i < 60 ? null : i < 100 ? 4 : 30)) } : {}),
    metrics: [],
    decisions: [],
    notes: [],
  };
  return { ...a, summary: summarize(a, 15, 1) };
}

describe('the predictive minimum on the charts', () => {
  it('terminal: drawn with replicas, minReplicas where it does not act', () => {
    const chart = renderReplicasChart(withForecast('web', true), { width: 60 });
    expect(chart.split('\n')[0]).toMatch(/^web: replicas, desired, predictive minimum \(overlaid\)/);
    // A chart without spec.predictive keeps its legend.
    expect(renderReplicasChart(withForecast('web', false), { width: 60 }).split('\n')[0]).toMatch(/^web: replicas, desired \(overlaid\)/);
  });

  const browser = inject('chromium');
  it.skipIf('skip' in browser)(`HTML: a dashed series beside replicas, in the comparison too, and a note${'skip' in browser ? ` (SKIPPED: ${browser.skip})` : ''}`, async () => {
    if (!('path' in browser)) return;
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, 'forecast-report.html');
    writeFileSync(file, renderHtmlReport({ title: 't', subtitle: 's', compare: true, autoscalers: [withForecast('with', true), withForecast('without', false)] }));
    const b = await chromium.launch({ executablePath: browser.path, args: CHROMIUM_ARGS });
    try {
      const page = await b.newPage({ viewport: { width: 1200, height: 900 } });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('canvas');
      expect(await page.locator('section.compare .u-legend').textContent()).toContain('with predictive minimum');
      const legends = await page.locator('section.autoscaler .chart.replicas .u-legend').allTextContents();
      expect(legends[0]).toContain('predictive minimum');
      expect(legends[1]).not.toContain('predictive minimum');
      // The summary's last column: with the forecast, the pods were ready when the load came; without, 12 syncs × 26 short.
      expect(await page.locator('section.compare table.summary th:last-child').textContent()).toBe('under-provisioned replica-min');
      expect(await page.locator('section.compare table.summary td:last-child').allTextContents()).toEqual(['0', '78']);
      // Acting in 180 of the 240 syncs, from the 60th (15 minutes in).
      expect(await page.locator('p.forecast').allTextContents()).toEqual([expect.stringMatching(/acted in 180 of 240 syncs, from 2001-01-09 00:15:00Z/)]);
      // The series is drawn: purple pixels on the chart of the autoscaler that has it only.
      const purple = (i: number) =>
        page.locator('section.autoscaler .chart.replicas canvas').nth(i).evaluate((c: HTMLCanvasElement) => {
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let k = 0; k < d.length; k += 4) if (Math.abs(d[k] - 148) + Math.abs(d[k + 1] - 103) + Math.abs(d[k + 2] - 189) < 60) n++;
          return n;
        });
      expect(await purple(0)).toBeGreaterThan(100);
      expect(await purple(1)).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await b.close();
    }
  }, 60_000);
});
