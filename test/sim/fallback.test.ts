// The simulator on a trace with a gap (examples/traces/queue-backlog-gap.csv): the gap is a failing
// metric source, the fallback (KEP-5679) takes over after failureDurationSeconds, and the HTML
// report shows it (a fallback series on the replicas chart, a note, the events in the decision log).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { renderHtmlReport } from '../../lib/report/html.js';
import { readHpas } from '../../lib/sim/hpa-file.js';
import { simulate } from '../../lib/sim/simulate.js';
import { parseTrace, readingAt, valueAt } from '../../lib/sim/trace.js';
import { CHROMIUM_ARGS } from '../report/chromium.js';

const examples = join(import.meta.dirname, '../../examples');
const outDir = join(import.meta.dirname, '../../test-output');

describe('trace gaps', () => {
  const trace = parseTrace('timestamp,q,cpu\n0,10,1\n60,gap,1\n120,,1\n180,30,GAP\n240,,2\n', 'gap.csv');

  it.each([
    // [series, second, reading, valueAt]
    [0, 30, 10, 10],
    [0, 60, undefined, 10], // the gap starts
    [0, 150, undefined, 10], // an empty cell inside a gap: still a gap
    [0, 180, 30, 30], // a value ends it
    [1, 200, undefined, 1],
    [1, 240, 2, 2],
  ])('series %i at %i s reads %s (valueAt %s)', (s, sec, reading, held) => {
    expect(readingAt(trace, s, sec * 1000)).toBe(reading);
    expect(valueAt(trace, s, sec * 1000)).toBe(held);
  });

  it('a trace without gap cells has no gaps field, and an all-gap series is an error', () => {
    expect(parseTrace('timestamp,q\n0,1\n60,\n').gaps).toBeUndefined();
    expect(() => parseTrace('timestamp,q\n0,gap\n', 'g.csv')).toThrow('g.csv: series q has no values');
  });
});

describe('simulate: examples/fallback/queue-fallback.yaml on examples/traces/queue-backlog-gap.csv', () => {
  const trace = parseTrace(readFileSync(join(examples, 'traces/queue-backlog-gap.csv'), 'utf8'));
  const [hpa] = readHpas(readFileSync(join(examples, 'fallback/queue-fallback.yaml'), 'utf8'), 'queue-fallback.yaml').hpas;
  const report = simulate(hpa, trace, { syncPeriodSeconds: 15, readyDelaySeconds: 30 });
  const start = trace.times[0];
  const at = (minutes: number) => report.times.indexOf(start + minutes * 60_000);

  it('the gap (08:20 to 08:30) fails the backlog; 3 minutes later its fallback count (12) scales the workers', () => {
    const backlog = report.metrics[0];
    expect(backlog.current[at(19)]).not.toBeNull();
    expect(backlog.current[at(20)]).toBeNull();
    expect(backlog.fallback?.[at(22.75)]).toBeNull();
    expect(backlog.fallback?.[at(23)]).toBe(12);
    expect(backlog.fallback?.[at(29.75)]).toBe(12);
    expect(backlog.fallback?.[at(30)]).toBeNull();
    expect(report.replicas[at(22.75)]).toBe(8);
    expect(report.replicas[at(23)]).toBe(12);
    // cpu never failed: no fallback series.
    expect(report.metrics[1].fallback).toBeUndefined();
    // The load (the backlog column) is unknown inside the gap: a gap in the chart, not its last value drawn on.
    expect(report.load[at(19)]).not.toBeNull();
    expect(report.load[at(25)]).toBeNull();
    expect(report.load[at(31)]).not.toBeNull();
  });

  it('the decision log says when the fallback activated and when it ended', () => {
    const rows = report.decisions.filter((d) => d.reason.includes('Fallback')).map((d) => [(d.time - start) / 60_000, d.reason, d.message]);
    expect(rows).toEqual([
      [23, 'ExternalMetricFallbackActivated', "Fallback activated for external metric 'jobs-backlog' after 3m0s of consecutive failures, using fallback replica count: 12"],
      [30, 'ExternalMetricFallbackDeactivated', "Fallback deactivated for external metric 'jobs-backlog': the metric was retrieved again after 10m0s of failures, normal evaluation resumes"],
    ]);
    const rescale = report.decisions.find((d) => d.reason === 'SuccessfulRescale' && d.to === 12);
    expect(rescale?.message).toBe("New size: 12; reason: fallback for external metric 'jobs-backlog' above target");
    expect(rescale?.metrics).toMatch(/^jobs-backlog <unknown>\/100 \(fallback 12\), cpu /);
  });

  const browser = inject('chromium');
  it.skipIf('skip' in browser)(`the HTML report draws the fallback and notes it${'skip' in browser ? ` (SKIPPED: ${browser.skip})` : ''}`, async () => {
    if (!('path' in browser)) return;
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, 'fallback-report.html');
    writeFileSync(file, renderHtmlReport({ title: 'fallback', subtitle: 'queue-backlog-gap.csv', autoscalers: [report] }));
    const b = await chromium.launch({ executablePath: browser.path, args: CHROMIUM_ARGS });
    try {
      const page = await b.newPage({ viewport: { width: 1200, height: 900 } });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('canvas');
      expect(await page.locator('section.autoscaler .chart.replicas .u-legend').textContent()).toContain('fallback: jobs-backlog');
      expect(await page.locator('p.fallback').allTextContents()).toEqual([
        'Fallback: jobs-backlog could not be read and proposed its fallback count (12 replicas) in 28 syncs, from 2025-03-04 08:23:00Z.',
      ]);
      expect(await page.locator('table.log').textContent()).toContain('ExternalMetricFallbackActivated');
      expect(problems).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
