// The demo end to end, headless: the real functions (dispatcher, local SQS queue, worker,
// stream) on dynalite, the local Kubernetes API server and the local CloudWatch endpoint,
// through a short spike, with a spec change near the end.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it, inject } from 'vitest';
import { demoCommand, registerDemo } from '../../lib/cli/demo.js';
import { runDemo, type DemoOptions, type DemoResult } from '../../lib/demo/run.js';
import { EXAMPLES_DIR } from '../../lib/demo/scenario.js';
import type { Decision } from '../../lib/hpa/reconcile.js';
import type { HorizontalPodAutoscalerCondition } from '../../lib/hpa/types.js';
import type { Report } from '../../lib/report/model.js';
import type { Trace } from '../../lib/sim/trace.js';
import { CHROMIUM_ARGS } from '../report/chromium.js';

const outDir = join(import.meta.dirname, '../../test-output/demo');
const START = Date.UTC(2026, 2, 3, 11);
const MIN = 60_000;
/** Quiet for 20 min, 4× load for 15 min (ticks 20..34), quiet again for 35 min: 71 ticks a minute apart. */
const SPIKE_FIRST = 20;
const SPIKE_LAST = 34;
const trace: Trace = {
  series: ['load'],
  times: [START, START + SPIKE_FIRST * MIN, START + (SPIKE_LAST + 1) * MIN, START + 70 * MIN],
  values: [[0.3, 4, 0.3, 0.3]],
};

function collector(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

function options(out: NodeJS.WritableStream, extra: Partial<DemoOptions> = {}): DemoOptions {
  return { trace, traceName: 'test spike', syncPeriodSeconds: 60, speed: Infinity, examplesDir: EXAMPLES_DIR, out, tty: false, color: false, ...extra };
}

function refused(endpoint: string): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname);
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('shpa demo, headless', () => {
  let result: DemoResult;
  let output: string;

  beforeAll(async () => {
    mkdirSync(outDir, { recursive: true });
    const out = collector();
    result = await runDemo(options(out.stream, { outDir }));
    output = out.text();
  }, 120_000);

  const series = (name: string) => {
    const r = result.reports.find((a) => a.name === name);
    if (!r) throw new Error(`no report for ${name}`);
    return r;
  };

  it('runs one worker cycle per tick, without errors', () => {
    expect(result.ticks).toBe(71);
    expect(result.interrupted).toBe(false);
    expect(result.errors).toEqual([]);
    expect(result.reports.map((r) => r.name).sort()).toEqual(['demo/api', 'demo/orders', 'demo/reports', 'demo/web', 'demo/worker']);
    expect(result.handlerMs).toHaveLength(71);
  });

  it('scales up during the spike and back down after the stabilization window', () => {
    const web = series('demo/web');
    // web: 2 cores at load 1, 500m requests, 60% target; 4× load wants more than maxReplicas.
    expect(web.replicas[SPIKE_FIRST - 1]).toBe(2);
    const peak = Math.max(...web.replicas.slice(SPIKE_FIRST, SPIKE_LAST + 1));
    expect(peak).toBe(20);
    // Upstream's default 300 s scale-down window (stabilizeRecommendation, no behavior set) counts a
    // recommendation until it is MORE than 300 s old: the last high one (tick 34) holds the peak through tick 39.
    expect(web.replicas.slice(SPIKE_LAST, SPIKE_LAST + 6)).toEqual([20, 20, 20, 20, 20, 20]);
    expect(web.replicas[SPIKE_LAST + 6]).toBe(2);
    // The spec change near the end (minReplicas 2 → 3) acts at once, before the next tick.
    const changed = Math.floor(0.9 * 70);
    expect(web.replicas[changed - 1]).toBe(2);
    expect(web.replicas[changed + 1]).toBe(3);
    expect(web.replicas[70]).toBe(3);

    const worker = series('demo/worker');
    // worker: 300 queued messages at load 1 read from CloudWatch, 100 per pod.
    expect(worker.replicas[SPIKE_FIRST - 1]).toBe(1);
    expect(Math.max(...worker.replicas)).toBe(12);
    expect(worker.replicas[70]).toBe(1);
    const cw = worker.metrics[0];
    expect(cw.label).toMatch(/^jobs-backlog \(External, AverageValue\)/);
    expect(Math.max(...cw.current.map((v) => v ?? 0))).toBeCloseTo(1200, 0);

    const api = series('demo/api');
    const apiPeak = Math.max(...api.replicas);
    expect(apiPeak).toBeGreaterThan(20);
    // Its behavior: after a 60 s window, at most 10% down a minute (upstream truncates: 35 → 31), so the decline is gradual.
    const downSteps = api.replicas.slice(SPIKE_LAST).map((r, i, a) => (i === 0 ? 0 : a[i - 1] - r));
    expect(downSteps.filter((d) => d > 0).length).toBeGreaterThan(5);
    for (let i = SPIKE_LAST + 1; i < 71; i++) {
      expect(api.replicas[i]).toBeGreaterThanOrEqual(Math.floor(api.replicas[i - 1] * 0.9));
    }
    expect(api.replicas[70]).toBeLessThan(apiPeak);
  });

  it('examples/scale-to-zero.yaml: to zero on an empty queue, held there by its activation threshold, back up for the spike, then to zero again', () => {
    const reports = series('demo/reports');
    // Its queue is empty below half the usual load (0.3 here) and 700 deep at 4×; 50 a replica.
    expect(reports.replicas[0]).toBe(0);
    expect(reports.replicas[SPIKE_FIRST - 1]).toBe(0);
    // The worker reads the latest complete 60 s period the local CloudWatch has ingested: the spike shows two ticks later.
    const woke = reports.replicas.findIndex((n, i) => i >= SPIKE_FIRST && n > 0);
    expect(woke).toBe(SPIKE_FIRST + 2);
    expect(Math.max(...reports.replicas)).toBe(14);
    expect(reports.replicas[70]).toBe(0);
    type Line = { message: string; trigger?: string; hpa?: string; cycleStartedAt?: string; conditions?: HorizontalPodAutoscalerCondition[]; decision?: Decision };
    const lines = (readFileSync(result.logPath!, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) as Line[]).filter(
      (l) => l.message === 'decision' && l.trigger === 'tick' && l.hpa === 'reports',
    );
    expect(lines).toHaveLength(71);
    const zero = (l: Line) => l.conditions?.find((c) => c.type === 'ScaledToZero');
    // True from the first tick (the apply's evaluation took it 1 → 0), False from the spike's, True again at the end.
    expect(zero(lines[SPIKE_FIRST - 1])).toMatchObject({ status: 'True', reason: 'ScaledToZero' });
    expect(zero(lines[woke])).toMatchObject({ status: 'False', reason: 'NotScaledToZero' });
    expect(zero(lines[70])).toMatchObject({ status: 'True', reason: 'ScaledToZero' });
    // At zero the decision line shows the activation: the metric's value, its threshold, and the step that held it.
    expect(lines[10].decision?.metrics[0].activation).toEqual({ threshold: '10', value: '0', active: false });
    expect(lines[10].decision?.steps).toContainEqual(expect.objectContaining({ rule: 'activation', to: 0 }));
    expect(lines[10].conditions?.find((c) => c.type === 'ScalingActive')).toMatchObject({ status: 'True', reason: 'BelowActivationThreshold' });
    expect(lines[woke].decision?.metrics[0].activation).toEqual({ threshold: '10', value: '700', active: true });
    // The report's decision log says so too.
    const texts = reports.decisions.map((d) => d.text);
    // The first row says what the first sync did: deployed at 1, taken to zero (not "holds 0").
    expect(texts[0]).toMatch(/^scaled 1→0: SuccessfulRescale: /);
    expect(texts.some((t) => /^holds 0: BelowActivationThreshold: the target stays at zero replicas/.test(t))).toBe(true);
    expect(texts.some((t) => /^scaled 0→\d+: SuccessfulRescale: .*; ScaledToZero False \(NotScaledToZero\)/.test(t))).toBe(true);
    expect(texts.some((t) => /^scaled \d+→0: SuccessfulRescale: .*; ScaledToZero True \(ScaledToZero\)/.test(t))).toBe(true);
  });

  it('examples/sqs-queue.yaml: the queue read live at each tick, 0 → N at the very tick its backlog arrives, back to zero once drained', () => {
    const orders = series('demo/orders');
    // Its queue is empty below twice the usual load, 200 messages at 4×: 20 a replica.
    expect(orders.replicas[SPIKE_FIRST - 1]).toBe(0);
    // The backlog is on the queue before the spike's first tick, which reads it (CloudWatch's reports: two ticks later).
    expect(orders.replicas[SPIKE_FIRST]).toBeGreaterThan(0);
    expect(Math.max(...orders.replicas)).toBe(10);
    expect(orders.replicas[70]).toBe(0);
    type Line = { message: string; trigger?: string; hpa?: string; patched?: boolean; decision?: Decision };
    const lines = (readFileSync(result.logPath!, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) as Line[]).filter((l) => l.message === 'decision' && l.hpa === 'orders');
    const woke = lines.find((l) => l.patched && l.decision?.currentReplicas === 0 && l.decision.desiredReplicas > 0);
    expect(woke?.decision?.metrics[0]).toMatchObject({ source: 'SQSQueueMetric demo/orders-backlog (https://sqs.us-east-1.amazonaws.com/000000000000/orders)', activation: { threshold: '10', value: '200', active: true } });
    expect(output).toMatch(/demo\/orders: 0 → \d+ on SQSQueueMetric demo\/orders-backlog \(https:[^)]+\): 200 messages \(activation 10\), read with GetQueueAttributes at this tick/);
    expect(output).toMatch(/demo\/orders: \d+ → 0 on SQSQueueMetric demo\/orders-backlog/);
  });

  it('a spec change applied during the run reaches the worker through the stream at once, not at the next tick', () => {
    expect(result.specChange).toMatchObject({ applied: 'demo/web: minReplicas 2 → 3' });
    expect(result.specChange!.evaluatedAt! - result.specChange!.at).toBeLessThan(5_000);
    expect(output).toMatch(/spec change demo\/web: minReplicas 2 → 3 applied at \d\d:\d\d:\d\d: evaluated 0 s later \(virtual\), \d+ ms of wall time, through the stream function and the queue; the next tick was 55 s away/);
  });

  it('reads decisions from the functions log, and matches what the cluster saw', () => {
    const lines = readFileSync(result.logPath!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { message: string; trigger?: string; cycle?: { trigger: string }; namespace?: string; hpa?: string; patched?: boolean; desiredReplicas?: number });
    const decisions = lines.filter((l) => l.message === 'decision' && l.trigger === 'tick');
    expect(decisions).toHaveLength(71 * 5);
    expect(lines.filter((l) => l.message === 'cycle' && l.cycle?.trigger === 'tick')).toHaveLength(71);
    expect(lines.filter((l) => l.message === 'decision' && l.trigger === 'evaluate')).toHaveLength(1);
    for (const r of result.reports) {
      const mine = decisions.filter((d) => `${d.namespace}/${d.hpa}` === r.name);
      expect(mine.filter((d) => d.patched).length).toBe(r.summary.scaleEvents);
      expect(mine.map((d) => d.desiredReplicas)).toEqual(r.desired);
      // each scale the handler patched is the replica count the cluster then had
      mine.forEach((d, i) => d.patched && expect(r.replicas[i]).toBe(d.desiredReplicas));
    }
  });

  it('writes a self-contained HTML report with the series and the decision log', () => {
    const html = readFileSync(result.reportPath!, 'utf8');
    const data = /<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(html);
    expect(data).not.toBeNull();
    const report = JSON.parse(data![1]) as Report;
    expect(report.autoscalers.map((a) => a.name)).toEqual(result.reports.map((r) => r.name));
    for (const [i, a] of report.autoscalers.entries()) {
      expect(a.replicas).toEqual(result.reports[i].replicas);
      expect(a.times).toHaveLength(71);
      expect(a.decisions.some((d) => /scaled \d+→\d+/.test(d.text))).toBe(true);
    }
  });

  it('prints plain progress without escape codes, the chart and the report path', () => {
    expect(output).not.toContain('\u001b[');
    // unpaced: never behind
    expect(result.behindPace).toBeUndefined();
    expect(output).not.toContain('running behind');
    expect(output).toContain('horizontalpodautoscaler.autoscaling/web created');
    expect(output).toContain('cloudwatchmetric.shpa.dev/jobs-backlog created');
    expect(output).toMatch(/11:20 {2}demo\/web +load +4\.00 +cpu \d+%\/60% +replicas 2 → \d+/);
    expect(output).toMatch(/\[#{30}\] 100% 12:10/);
    expect(output).toMatch(/demo\/web: replicas, desired/);
    expect(output).toMatch(/^demo\/api\s+3\s+\d+\s+\d+/m);
    expect(output).toContain(`report: ${result.reportPath}`);
  });

  const browser = inject('chromium');
  it.skipIf('skip' in browser)(`the report renders in headless Chromium${'skip' in browser ? ` (SKIPPED: ${browser.skip})` : ''}`, async () => {
    if (!('path' in browser)) return;
    const b = await chromium.launch({ executablePath: browser.path, args: CHROMIUM_ARGS });
    try {
      const page = await b.newPage({ viewport: { width: 1200, height: 900 } });
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('request', (r) => !r.url().startsWith('file:') && problems.push(`network request: ${r.url()}`));
      await page.goto(pathToFileURL(result.reportPath!).href);
      await page.waitForSelector('canvas');
      expect(await page.locator('section.autoscaler').count()).toBe(5);
      // replicas + one chart per metric: web 1, reports 1, worker 1, orders 1, api 2
      expect(await page.locator('canvas').count()).toBe(5 + 6);
      expect(await page.locator('table.log').first().textContent()).toMatch(/scaled 2→\d+/);
      await page.screenshot({ path: join(outDir, 'report.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await b.close();
    }
  }, 60_000);
});

describe('shpa demo, stopping', () => {
  it('stops after the current sync when aborted, stops its servers and reports what ran', async () => {
    const abort = new AbortController();
    const out = collector();
    // abort as soon as the first sync's lines are out
    out.stream.on('data', (d: Buffer) => d.toString().includes('replicas') && abort.abort());
    const r = await runDemo(options(out.stream, { signal: abort.signal }));
    expect(r.interrupted).toBe(true);
    expect(r.ticks).toBeLessThan(r.plannedTicks);
    expect(r.reports.every((a) => a.times.length === r.ticks)).toBe(true);
    expect(out.text()).toMatch(new RegExp(`interrupted after ${r.ticks} of 71 cycles`));
    const endpoints = /dynalite\) (\S+), Kubernetes API (\S+), CloudWatch (\S+), SQS (\S+)/.exec(out.text())!.slice(1).map((e) => e.replace(/,$/, ''));
    for (const e of endpoints) expect(await refused(e)).toBe(true);
  }, 60_000);

  it('Ctrl-C on `shpa demo` ends it with a partial summary and exit code 130', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/main.ts', 'demo', '--duration', '60', '--no-report'], {
      cwd: join(import.meta.dirname, '../..'),
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('replicas') && !child.killed) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(text).toMatch(/interrupted after \d+ of 1441 cycles/);
    expect(text).toMatch(/^AUTOSCALER/m);
    expect(code).toBe(130);
  }, 60_000);
});

describe('shpa demo, options', () => {
  function program(): Command {
    const p = new Command('shpa').exitOverride().configureOutput({ writeErr: () => undefined });
    registerDemo(p);
    return p;
  }

  it('rejects bad numbers, naming the option', async () => {
    await expect(program().parseAsync(['node', 'shpa', 'demo', '--duration', '-1'])).rejects.toThrow(/--duration must be a number ≥ 0, got "-1"/);
    await expect(program().parseAsync(['node', 'shpa', 'demo', '--sync-period', '1.5'])).rejects.toThrow(/--sync-period must be an integer ≥ 1/);
  });

  it('a bad --out fails at once, naming the option, before the local parts start', async () => {
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, 'a-file');
    writeFileSync(file, '');
    const base = { duration: 0, syncPeriod: 60, report: true };
    for (const [dir, problem] of [
      [file, /--out .*a-file: is a file, not a directory$/],
      [join(file, 'sub'), /--out .*a-file\/sub: .*a-file is a file, not a directory$/],
      // Node 20's recursive mkdir never returns here
      ['/proc/nope/demo', /--out \/proc\/nope\/demo: cannot be created there$/],
    ] as const) {
      const out = collector();
      await expect(demoCommand({ ...base, out: dir }, out.stream as unknown as NodeJS.WriteStream)).rejects.toThrow(problem);
      expect(out.text()).toBe('');
    }
    expect(existsSync('/proc/nope')).toBe(false);
  });

  it('reads a trace in any unit as load relative to its median: the shipped SQS trace does not pin every autoscaler at its maximum', async () => {
    const out = collector();
    const trace = join(EXAMPLES_DIR, 'traces', 'sqs-backlog-cloudwatch.csv');
    const r = await demoCommand({ duration: 0, syncPeriod: 60, report: false, out: outDir, trace }, out.stream as unknown as NodeJS.WriteStream);
    expect(r.errors).toEqual([]);
    expect(out.text()).toContain(`trace ${trace} (ApproximateNumberOfMessagesVisible ÷ its median 950)`);
    for (const a of r.reports) {
      const max = Math.max(...a.replicas);
      // it scales with the backlog, and spends most of the run below its peak
      expect(max).toBeGreaterThan(Math.min(...a.replicas));
      expect(a.replicas.filter((n) => n === max).length).toBeLessThan(a.replicas.length / 2);
    }
  }, 120_000);

  it('a missing or malformed trace file is a clear error', async () => {
    const base = { duration: 0, syncPeriod: 60, report: false, out: outDir };
    await expect(demoCommand({ ...base, trace: join(outDir, 'nope.csv') })).rejects.toThrow(/--trace: no such file: .*nope\.csv/);
    mkdirSync(outDir, { recursive: true });
    const bad = join(outDir, 'bad.csv');
    writeFileSync(bad, 'timestamp,load\n2026-03-03T00:00:00Z,1\n2026-03-03T00:01:00Z,abc\n');
    await expect(demoCommand({ ...base, trace: bad })).rejects.toThrow(/bad\.csv:3/);
  });
});

describe('shpa demo, pace', () => {
  it('says once, live and in the summary, when the handler cannot keep the requested pace', async () => {
    const out = collector();
    // 70 virtual minutes in 50 ms of wall time: under 1 ms per sync, which no handler run keeps
    const r = await runDemo(options(out.stream, { speed: (70 * MIN) / 50 }));
    expect(r.ticks).toBe(71);
    expect(r.behindPace).toMatch(/^running behind the requested pace: a tick takes ~\d+ ms; this run will take about \d+(\.\d)? s instead of 0\.1 s$/);
    const text = out.text();
    expect(text.split(r.behindPace!).length - 1).toBe(2);
    // live: before the last progress bar; summary: after the timing line
    expect(text.indexOf(r.behindPace!)).toBeLessThan(text.indexOf('100% 12:10'));
    expect(text).toMatch(/a tick \(dispatch, queue, worker cycle\) [\d.]+ ms on average.*\nrunning behind/);
    expect(text).not.toContain('\u001b[');
  }, 60_000);
});
