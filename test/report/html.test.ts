import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it, inject } from 'vitest';
import { renderHtmlReport } from '../../lib/report/html.js';
import { summarize, type AutoscalerReport, type Report } from '../../lib/report/model.js';
import { renderReplicasChart, renderSummaryTable } from '../../lib/report/terminal.js';
import { CHROMIUM_ARGS } from './chromium.js';

const outDir = join(import.meta.dirname, '../../test-output');

function autoscaler(name: string, peak: number): AutoscalerReport {
  const times: number[] = [];
  const replicas: number[] = [];
  const cpu: (number | null)[] = [];
  for (let i = 0; i < 120; i++) {
    times.push(Date.UTC(2025, 2, 4, 8) + i * 15_000);
    const r = i < 30 ? 2 : i < 70 ? peak : Math.max(2, peak - (i - 70));
    replicas.push(r);
    cpu.push(i === 5 ? null : i >= 30 && i < 34 ? 140 : 55);
  }
  const a = {
    name,
    times,
    load: replicas.map((r) => r * 0.55),
    replicas,
    desired: replicas.map((r, i) => (i === 29 ? peak : r)),
    readyPods: replicas.map((r, i) => (i > 0 ? Math.min(r, replicas[i - 1]) : r)),
    metrics: [{ label: 'cpu (Resource Utilization)', target: 60, current: cpu }],
    decisions: [
      { time: times[30], text: 'cpu 140%/60%; recommends 5; scaled 2→5 <script>alert(1)</script>' },
      { time: times[71], text: `scaled ${peak}→${peak - 1}` },
    ],
  };
  return { ...a, summary: summarize(a, 15, 2 + (peak - 2)) };
}

const report: Report = {
  title: 'test report </script> & co',
  subtitle: 'synthetic series',
  autoscalers: [autoscaler('demo/web', 9), autoscaler('demo/worker', 14)],
};

describe('HTML report', () => {
  it('is self-contained and carries the series', () => {
    const html = renderHtmlReport(report);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!github\.com\/leeoniya)/);
    expect(html).toContain('var uPlot=');
    expect(html).toContain('"name":"demo/worker"');
    expect(html).toContain('test report &#60;/script&#62; &#38; co');
    // the decision text cannot close the data script early
    expect(html).not.toContain('<script>alert(1)');
  });

  it('summarizes: pod-minutes, time above target', () => {
    const a = report.autoscalers[0];
    const podSeconds = a.replicas.reduce((s, r) => s + r * 15, 0);
    expect(a.summary.podMinutes).toBeCloseTo(podSeconds / 60);
    expect(a.summary.secondsAboveTarget).toBe(4 * 15);
    expect(a.summary.maxReplicas).toBe(9);
    const table = renderSummaryTable(report.autoscalers);
    expect(table.split('\n')[0]).toMatch(/^AUTOSCALER\s+MIN\s+MAX\s+SCALE EVENTS\s+ABOVE TARGET\s+POD-MINUTES$/);
    expect(table).toMatch(/demo\/worker\s+2\s+14\s+14\s+1m\s+\d+/);
  });

  it('summarizes a month of 15 s samples', () => {
    const n = 31 * 24 * 240;
    const replicas = Array.from({ length: n }, (_, i) => 2 + (i % 7));
    const times = replicas.map((_, i) => i * 15_000);
    const a = { name: 'month', times, load: replicas, replicas, desired: replicas, readyPods: replicas, metrics: [], decisions: [] };
    expect(summarize(a, 15, 0)).toMatchObject({ minReplicas: 2, maxReplicas: 8 });
    expect(renderReplicasChart({ ...a, summary: summarize(a, 15, 0) })).toContain('8');
  });

  it('terminal chart: no escape codes without color', () => {
    const plain = renderReplicasChart(report.autoscalers[1], { width: 40 });
    expect(plain).not.toContain('\u001b[');
    expect(plain).toContain('14');
    expect(plain.split('\n').length).toBeGreaterThan(5);
    expect(renderReplicasChart(report.autoscalers[1], { width: 40, color: true })).toContain('\u001b[');
  });

  const browser = inject('chromium');
  it.skipIf('skip' in browser)(`renders in headless Chromium${'skip' in browser ? ` (SKIPPED: ${browser.skip})` : ''}`, async () => {
    if (!('path' in browser)) return;
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, 'report.html');
    writeFileSync(file, renderHtmlReport(report));
    const b = await chromium.launch({ executablePath: browser.path, args: CHROMIUM_ARGS });
    try {
      const page = await b.newPage({ viewport: { width: 1200, height: 900 } });
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('request', (r) => {
        if (!r.url().startsWith('file:')) problems.push(`network request: ${r.url()}`);
      });
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('canvas');
      // per autoscaler: the replicas chart and one chart per metric
      expect(await page.locator('section.autoscaler').count()).toBe(2);
      expect(await page.locator('canvas').count()).toBe(4);
      const size = await page.locator('canvas').first().evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
      expect(size[0]).toBeGreaterThan(300);
      expect(size[1]).toBeGreaterThan(100);
      // the canvas has been drawn on: not all pixels are the same
      const distinct = await page
        .locator('canvas')
        .first()
        .evaluate((c: HTMLCanvasElement) => {
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          const seen = new Set<number>();
          for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
          return seen.size;
        });
      expect(distinct).toBeGreaterThan(2);
      expect(await page.locator('.u-legend').first().textContent()).toContain('desired');
      expect(await page.locator('table.log').first().textContent()).toContain('<script>alert(1)</script>');
      await page.screenshot({ path: join(outDir, 'report.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
