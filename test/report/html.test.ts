import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { renderHtmlReport } from '../../lib/report/html.js';
import { summarize, type AutoscalerReport, type Report } from '../../lib/report/model.js';
import { renderReplicasChart, renderSummaryTable } from '../../lib/report/terminal.js';
import { formatAmount } from '../../lib/report/units.js';
import { readHpas } from '../../lib/sim/hpa-file.js';
import { simulate } from '../../lib/sim/simulate.js';
import { parseTrace } from '../../lib/sim/trace.js';
import { CHROMIUM_ARGS } from './chromium.js';

const outDir = join(import.meta.dirname, '../../test-output');
const examples = join(import.meta.dirname, '../../examples');

/** Two behaviors on the same day of CPU and memory, as `shpa simulate -f A -f B --report` makes it. */
function simulated(): Report {
  const trace = parseTrace(readFileSync(join(examples, 'traces/cpu-and-memory.csv'), 'utf8'));
  const autoscalers = ['cpu-utilization.yaml', 'two-metrics-behavior.yaml'].map((f) => {
    const [hpa] = readHpas(readFileSync(join(examples, f), 'utf8'), f).hpas;
    return simulate(hpa, trace, { syncPeriodSeconds: 15, readyDelaySeconds: 30, name: `${f}: ${hpa.metadata.namespace}/${hpa.metadata.name}` });
  });
  return { title: 'shpa simulate </script> & co', subtitle: 'cpu-and-memory.csv', compare: true, autoscalers };
}

function plain(name: string, replicas: number[]): Omit<AutoscalerReport, 'summary'> {
  const times = replicas.map((_, i) => i * 15_000);
  return { name, minReplicas: 2, maxReplicas: 8, times, loadLabel: 'load', loadUnit: '', load: replicas, replicas, desired: replicas, readyPods: replicas, metrics: [], decisions: [], notes: [] };
}

describe('one quantity format', () => {
  it.each([
    [92, '%', '92%'],
    [0.8 * 2 ** 30, 'bytes', '819Mi'],
    [1.18 * 2 ** 30, 'bytes', '1.18Gi'],
    [3 * 2 ** 30, 'bytes', '3Gi'],
    [512, 'bytes', '512'],
    [0.25, 'cores', '250m'],
    [2.5, 'cores', '2.5'],
    [1500, '', '1.5k'],
    [2_650_000, '', '2.65M'],
    [0, '', '0'],
  ])('%d %s is %s', (v, unit, want) => expect(formatAmount(v, unit)).toBe(want));
});

describe('HTML report', () => {
  const report = simulated();

  it('is self-contained and carries the series, escaped', () => {
    const html = renderHtmlReport({ ...report, autoscalers: [{ ...report.autoscalers[0], decisions: [{ ...report.autoscalers[0].decisions[0], message: '<script>alert(1)</script>' }] }] });
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!github\.com\/leeoniya)/);
    expect(html).toContain('var uPlot=');
    expect(html).toContain('function formatAmount(');
    expect(html).toContain('"name":"cpu-utilization.yaml: demo/web"');
    expect(html).toContain('shpa simulate &#60;/script&#62; &#38; co');
    expect(html).not.toContain('<script>alert(1)');
  });

  it('summarizes: lowest/highest seen, time at min and max, pod-hours, time above target', () => {
    const a = summarize(plain('a', [2, 2, 5, 8, 8, 8, 3]), 15, 4);
    expect(a).toEqual({ lowestReplicas: 2, highestReplicas: 8, secondsAtMin: 30, secondsAtMax: 45, scaleEvents: 4, secondsAboveTarget: 0, podHours: (36 * 15) / 3600, replicaMinutes: (36 * 15) / 60, underProvisionedReplicaMinutes: 0 });
    const table = renderSummaryTable(report.autoscalers);
    expect(table.split('\n')[0]).toMatch(/^AUTOSCALER\s+LOWEST\s+HIGHEST\s+MINPODS\s+MAXPODS\s+AT MINPODS\s+AT MAXPODS\s+SCALE EVENTS\s+ABOVE TARGET\s+POD-HOURS$/);
    expect(table).toMatch(/two-metrics-behavior\.yaml: demo\/api\s+\d+\s+\d+\s+2\s+40\s/);
  });

  it('under-provisioned replica-minutes: demand beyond the ready pods, times the interval; no demand counts nothing', () => {
    const a = { ...plain('a', [2, 4, 4, 4]), readyPods: [2, 2, 4, 4], demand: [3, 6, null, 3] };
    // (3-2) + (6-2) + 0 (no demand) + 0 (3 < 4 ready): 5 replica-samples of 15 s.
    expect(summarize(a, 15, 0)).toMatchObject({ underProvisionedReplicaMinutes: (5 * 15) / 60, replicaMinutes: (14 * 15) / 60 });
  });

  it('summarizes a month of 15 s samples', () => {
    const replicas = Array.from({ length: 31 * 24 * 240 }, (_, i) => 2 + (i % 7));
    const a = plain('month', replicas);
    expect(summarize(a, 15, 0)).toMatchObject({ lowestReplicas: 2, highestReplicas: 8 });
    expect(renderReplicasChart({ ...a, summary: summarize(a, 15, 0) })).toContain('8');
  });

  it('terminal chart: no escape codes without color, the spec bounds named', () => {
    const plainChart = renderReplicasChart(report.autoscalers[1], { width: 40 });
    expect(plainChart).not.toContain('\u001b[');
    expect(plainChart.split('\n')[0]).toMatch(/: replicas, desired \(overlaid\)\s+over \d+ min, MINPODS 2, MAXPODS 40$/);
    expect(renderReplicasChart(report.autoscalers[1], { width: 40, color: true })).toContain('\u001b[');
  });

  const browser = inject('chromium');
  it.skipIf('skip' in browser)(`renders in headless Chromium: overlaid behaviors, visible desired, min/max, load, units, one cursor${'skip' in browser ? ` (SKIPPED: ${browser.skip})` : ''}`, async () => {
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
      // The comparison first, then per autoscaler its replicas chart and one chart per metric (web: cpu; api: cpu, memory).
      expect(await page.locator('section.compare').count()).toBe(1);
      expect(await page.locator('section.autoscaler').count()).toBe(2);
      expect(await page.locator('canvas').count()).toBe(1 + 2 + 3);

      const compareLegend = await page.locator('section.compare .u-legend').textContent();
      expect(compareLegend).toContain('cpu-utilization.yaml: demo/web');
      expect(compareLegend).toContain('two-metrics-behavior.yaml: demo/api');
      expect(compareLegend).toContain('maxReplicas');
      const replicasLegend = await page.locator('section.autoscaler .chart.replicas .u-legend').first().textContent();
      for (const series of ['load (cores)', 'ready pods', 'replicas', 'desired', 'minReplicas', 'maxReplicas']) expect(replicasLegend).toContain(series);

      // Units on the axes (uPlot draws them on the canvas: read them from the charts' options).
      const axes = await page.evaluate(() => (window as unknown as { shpaCharts: { axes: { label?: string }[] }[] }).shpaCharts.map((u) => u.axes.map((a) => a.label ?? '')));
      expect(axes[0]).toEqual(['time (UTC)', 'replicas', 'load: trace column cpu (cores)']);
      expect(axes[1]).toEqual(['time (UTC)', 'replicas', 'load: trace column cpu (cores)']);
      expect(axes[2]).toEqual(['time (UTC)', 'cpu (% of request)']);
      expect(axes[5]).toEqual(['time (UTC)', 'memory (bytes)']);
      // Bytes tick at round binary values (512Mi, 1Gi, 1.5Gi), never 477Mi.
      const memoryTicks = await page.evaluate(() => (window as unknown as { shpaCharts: { axes: { _values?: string[] }[] }[] }).shpaCharts[5].axes[1]._values ?? []);
      expect(memoryTicks.length).toBeGreaterThan(1);
      for (const t of memoryTicks) expect(t, memoryTicks.join(' ')).toMatch(/^(0|(64|128|256|384|512|640|768|896)Mi|\d+(\.(25|5|75))?Gi)$/);

      // desired (orange, dashed, over replicas) and the max line (red) are drawn, not hidden under replicas.
      const web = page.locator('section.autoscaler .chart.replicas canvas').first();
      expect(await pixelsNear(web, [255, 127, 14])).toBeGreaterThan(300);
      expect(await pixelsNear(web, [214, 39, 40])).toBeGreaterThan(300);

      // One cursor: hovering a chart moves every chart's cursor to the same time, legends in the metric's unit.
      await hoverMiddle(page, 'section.autoscaler .chart.replicas .u-over');
      const cursors = await page.evaluate(() => (window as unknown as { shpaCharts: { cursor: { idx: number | null } }[] }).shpaCharts.map((u) => u.cursor.idx));
      expect(cursors[0], JSON.stringify(cursors)).not.toBeNull();
      expect(new Set(cursors).size).toBe(1);
      const cpuLegend = await page.locator('section.autoscaler .chart.metric .u-legend').first().textContent();
      expect(cpuLegend).toMatch(/current\s*\d+(\.\d+)?%/);
      const memoryLegend = await page.locator('section.autoscaler .chart.metric .u-legend').last().textContent();
      expect(memoryLegend).toMatch(/target\s*1Gi/);

      // The decision log in upstream's words.
      const log = await page.locator('table.log').nth(1).textContent();
      expect(log).toContain('New size:');
      expect(log).toMatch(/cpu resource utilization \(percentage of request\) above target/);
      expect(log).not.toMatch(/legacyScaleUpLimit|scaleUpPolicy|scaleDownStabilization/);
      await page.screenshot({ path: join(outDir, 'report.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await b.close();
    }
  });
});

/** Scrolled into view, then the mouse on its middle. */
async function hoverMiddle(page: Page, selector: string): Promise<void> {
  await page.locator(selector).first().hover();
}

/** How many sampled pixels of a canvas are close to a color. */
function pixelsNear(canvas: ReturnType<Page['locator']>, rgb: [number, number, number]): Promise<number> {
  return canvas.evaluate((c: HTMLCanvasElement, [r, g, b]: [number, number, number]) => {
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) < 60) n++;
    return n;
  }, rgb);
}
