// The screenshot in docs/predictive.md: `shpa simulate`'s HTML report of an autoscaler with
// spec.predictive (ForecastAndScale) on the bench's daily + weekly trace, rendered by headless
// Chromium (playwright-core, Debian's /usr/bin/chromium), cut to two working days once the forecast
// has learned, and saved as a PNG. Usage: npx tsx scripts/predictive-screenshot.ts [out.png]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { scenarioHpa, scenarioTrace, POD_START_SECONDS, SYNC_SECONDS } from '../bench/support/predictive-scenario.js';
import { seasonalTrace } from '../bench/support/predictive-traces.js';
import { renderHtmlReport } from '../lib/report/html.js';
import { type AutoscalerReport, summarize } from '../lib/report/model.js';
import { simulate } from '../lib/sim/simulate.js';

const out = process.argv[2] ?? 'docs/img/predictive-report.png';
const DAY_MS = 86_400_000;

/** The samples of `a` from `from` to `to` (epoch ms), with the summary of those alone. */
function sliceReport(a: AutoscalerReport, from: number, to: number): AutoscalerReport {
  const i0 = a.times.findIndex((t) => t >= from);
  const i1 = a.times.findIndex((t) => t >= to);
  const cut = <T>(xs: T[] | undefined): T[] | undefined => xs?.slice(i0, i1);
  const { summary: _summary, ...rest } = a;
  const sliced = {
    ...rest,
    times: cut(a.times)!,
    load: cut(a.load)!,
    replicas: cut(a.replicas)!,
    desired: cut(a.desired)!,
    readyPods: cut(a.readyPods)!,
    demand: cut(a.demand),
    forecast: cut(a.forecast),
    minimum: cut(a.minimum),
    metrics: a.metrics.map((m) => ({ ...m, current: cut(m.current)! })),
    decisions: a.decisions.filter((d) => d.time >= from && d.time < to),
  };
  return { ...sliced, summary: summarize(sliced, SYNC_SECONDS, sliced.decisions.filter((d) => d.from !== d.to).length) };
}

// Nine days from Monday Jan 1; shown: the night and morning of Tuesday in the second week, with and without.
const load = seasonalTrace(9);
const trace = scenarioTrace(load);
const run = (mode: 'ForecastAndScale' | 'off', name: string): AutoscalerReport => {
  const hpa = scenarioHpa(mode);
  hpa.spec.maxReplicas = 60;
  const full = simulate(hpa, trace, { syncPeriodSeconds: SYNC_SECONDS, readyDelaySeconds: POD_START_SECONDS, name });
  return sliceReport(full, full.times[0] + 8 * DAY_MS, full.times[0] + 8 * DAY_MS + 13 * 3600_000);
};
const autoscalers = [run('ForecastAndScale', 'spec.predictive ForecastAndScale'), run('off', 'without spec.predictive')];
const dir = mkdtempSync(join(tmpdir(), 'shpa-predictive-'));
try {
  const html = join(dir, 'report.html');
  writeFileSync(html, renderHtmlReport({ title: 'shpa simulate', subtitle: `${load.name} trace (npm run bench -- predictive), Tuesday of the second week, 00:00-13:00, sync period ${SYNC_SECONDS}s, pod ready delay ${POD_START_SECONDS}s`, compare: true, autoscalers }));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1180, height: 900 } });
    await page.goto(pathToFileURL(html).href);
    await page.waitForSelector('section.compare .chart canvas');
    // The title and the comparison: both autoscalers' replicas over the load, the forecast dashed.
    const compare = await page.locator('section.compare').boundingBox();
    if (!compare) throw new Error('the report has no comparison');
    await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1180, height: compare.y + compare.height + 8 } });
  } finally {
    await browser.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`screenshot: ${out}`);
