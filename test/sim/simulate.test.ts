import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { buildProgram } from '../../lib/cli/main.js';
import { request, runSimulate, type SimulateCliOptions } from '../../lib/cli/simulate.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';
import { readHpas } from '../../lib/sim/hpa-file.js';
import { renderSummaryTable } from '../../lib/report/terminal.js';
import { DEFAULT_REQUESTS, simulate } from '../../lib/sim/simulate.js';
import { parseTrace } from '../../lib/sim/trace.js';

const examples = join(import.meta.dirname, '../../examples');

function constantTrace(value: number, minutes: number): string {
  let s = 'timestamp,value\n';
  for (let m = 0; m <= minutes; m++) s += `${m * 60},${value}\n`;
  return s;
}

/** (second, replicas) at each change of spec.replicas. */
function changes(times: number[], replicas: number[], initial: number): [number, number][] {
  const out: [number, number][] = [];
  let prev = initial;
  replicas.forEach((r, i) => {
    if (r !== prev) out.push([(times[i] - times[0]) / 1000, r]);
    prev = r;
  });
  return out;
}

class Sink {
  text = '';
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

function cli(opts: Partial<SimulateCliOptions>): { code: number; out: string; err: string } {
  const out = new Sink();
  const err = new Sink();
  const code = runSimulate(
    { file: [], trace: '', syncPeriod: 15, readyDelay: 30, request: DEFAULT_REQUESTS, chart: false, ...opts },
    out as unknown as NodeJS.WritableStream,
    err as unknown as NodeJS.WritableStream,
  );
  return { code, out: out.text, err: err.text };
}

describe('simulate', () => {
  it('the Kubernetes docs scale-down example: 80 -> 10 with Pods 4/60s and Percent 10/60s, selectPolicy Max', () => {
    const hpa: HorizontalPodAutoscaler = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'docs', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'docs' },
        minReplicas: 10,
        maxReplicas: 100,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
        behavior: {
          scaleDown: {
            stabilizationWindowSeconds: 0,
            selectPolicy: 'Max',
            policies: [
              { type: 'Pods', value: 4, periodSeconds: 60 },
              { type: 'Percent', value: 10, periodSeconds: 60 },
            ],
          },
        },
      },
    };
    const r = simulate(hpa, parseTrace(constantTrace(0.5, 20)), { syncPeriodSeconds: 15, readyDelaySeconds: 30, initialReplicas: 80 });
    // Percent: floor(start × 0.9) while above 40, then Pods (−4) removes more; one step per 60 s period; minReplicas 10 last.
    const expected = [72, 64, 57, 51, 45, 40, 36, 32, 28, 24, 20, 16, 12, 10];
    expect(changes(r.times, r.replicas, 80)).toEqual(expected.map((n, i) => [i * 60, n]));
    expect(r.summary).toMatchObject({ lowestReplicas: 10, highestReplicas: 72, scaleEvents: expected.length });
    expect(r.decisions.length).toBeGreaterThanOrEqual(expected.length);
  });

  it('CPU example on the spike trace: up to ceil(11 cores / 0.6) = 19 pods, back near the base load after the window', () => {
    const [hpa] = readHpas(readFileSync(join(examples, 'cpu-utilization.yaml'), 'utf8'), 'cpu-utilization.yaml').hpas;
    const trace = parseTrace(readFileSync(join(examples, 'traces/cpu-spike.csv'), 'utf8'));
    const r = simulate(hpa, trace, { syncPeriodSeconds: 15, readyDelaySeconds: 30 });
    expect(r.summary.highestReplicas).toBe(19);
    // first sync: 2 cores on minReplicas 2 = 100%/60% -> ceil(2 × 100/60) = 4
    expect(r.replicas[0]).toBe(4);
    // 08:30 spike starts: the default scale-up policies (double or +4 per 15 s) reach 19 within a minute and a half.
    const spikeAt = r.times.findIndex((t) => t >= Date.parse('2025-03-04T08:30:00Z'));
    expect(r.replicas[spikeAt + 6]).toBe(19);
    // Base load 1.7–2.3 cores at 60% of 1 core: 3 or 4 pods at the end.
    expect(r.replicas[r.replicas.length - 1]).toBeGreaterThanOrEqual(3);
    expect(r.replicas[r.replicas.length - 1]).toBeLessThanOrEqual(4);
    expect(r.summary.secondsAboveTarget).toBeGreaterThan(0);
    expect(r.metrics[0].current.some((v) => v !== null && v > 60)).toBe(true);
  });

  it('SQS example on a CloudWatch export: ceil(2650 messages / 100 per pod) = 27 workers at the peak', () => {
    const [hpa] = readHpas(readFileSync(join(examples, 'sqs-backlog.yaml'), 'utf8'), 'sqs-backlog.yaml').hpas;
    const trace = parseTrace(readFileSync(join(examples, 'traces/sqs-backlog-cloudwatch.csv'), 'utf8'));
    const r = simulate(hpa, trace, { syncPeriodSeconds: 15, readyDelaySeconds: 30, columns: { 'jobs-backlog': 'ApproximateNumberOfMessagesVisible' } });
    expect(r.summary.highestReplicas).toBe(27);
    expect(r.replicas[0]).toBe(2); // ceil(150 / 100)
    expect(r.notes).toEqual([]);
    // Upstream's words for an External metric without a selector, as kubectl describe shows them.
    expect(r.decisions[0]).toMatchObject({ type: 'Normal', reason: 'SuccessfulRescale', message: 'New size: 2; reason: external metric jobs-backlog(nil) above target', from: 1, to: 2 });
    expect(r.decisions[0].metrics).toBe('jobs-backlog 150/100');
  });

  it('compares several files on one trace and writes the report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-sim-'));
    const report = join(dir, 'out.html');
    const res = cli({
      file: [join(examples, 'cpu-utilization.yaml'), join(examples, 'two-metrics-behavior.yaml')],
      trace: join(examples, 'traces/cpu-and-memory.csv'),
      report,
    });
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/cpu-utilization\.yaml: demo\/web/);
    expect(res.out).toMatch(/two-metrics-behavior\.yaml: demo\/api/);
    const html = readFileSync(report, 'utf8');
    expect(html).toContain('"name":"two-metrics-behavior.yaml: demo/api"');
    expect(html).toContain('memory (Resource, AverageValue)');
    expect(html).toContain('"compare":true');
  });

  it('names the field of an invalid HPA and the line of a bad CSV row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-sim-'));
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      readFileSync(join(examples, 'cpu-utilization.yaml'), 'utf8').replace('maxReplicas: 20', 'maxReplicas: 0'),
    );
    const trace = join(dir, 't.csv');
    writeFileSync(trace, constantTrace(1, 3));
    const r1 = cli({ file: [bad], trace });
    expect(r1.code).toBe(1);
    expect(r1.err).toMatch(/bad\.yaml:14: spec\.maxReplicas: Invalid value: 0: must be greater than 0\n/);

    writeFileSync(trace, 'timestamp,value\n0,1\n60,x\n');
    const r2 = cli({ file: [join(examples, 'cpu-utilization.yaml')], trace });
    expect(r2.code).toBe(1);
    expect(r2.err).toBe(`error: ${trace}:3: value "x" is not a number\n`);

    writeFileSync(trace, constantTrace(1, 3));
    const r3 = cli({ file: [join(dir, 'missing.yaml')], trace });
    expect(r3.code).toBe(1);
    expect(r3.err).toBe(`error: ${join(dir, 'missing.yaml')}: no such file or directory\n`);

    writeFileSync(bad, 'kind: HorizontalPodAutoscaler\nspec: {maxReplicas: 3\n');
    const r4 = cli({ file: [bad], trace });
    expect(r4.code).toBe(1);
    expect(r4.err).toMatch(/^error: [^\n]*bad\.yaml:3:1: Flow map [^\n]*[^:]\n$/);
  });

  it('takes a directory as apply does: its files with an HPA, others skipped', () => {
    const res = cli({ file: [examples], trace: join(examples, 'traces/cpu-spike.csv') });
    // One unnamed column, read as cpu, memory and a queue's depth: said, not hidden.
    expect(res.err.split('\n')).toEqual([
      'Warning: cpu-utilization.yaml: demo/web: spec.metrics[0] (Resource metric cpu) reads the trace\'s only column "value", as do metrics named reports-backlog, jobs-backlog, orders-backlog, memory: one column cannot be the load of all of them; name a column cpu, or pass --column cpu=COLUMN',
      expect.stringMatching(/^Warning: scale-to-zero\.yaml: demo\/reports: spec\.metrics\[0\] \(External metric reports-backlog\) reads the trace's only column "value", as do metrics named cpu, jobs-backlog, orders-backlog, memory: /),
      expect.stringMatching(/^Warning: sqs-backlog\.yaml: demo\/worker: spec\.metrics\[0\] \(External metric jobs-backlog\) reads the trace's only column "value", as do metrics named cpu, reports-backlog, orders-backlog, memory: /),
      expect.stringMatching(/^Warning: sqs-queue\.yaml: demo\/orders: spec\.metrics\[0\] \(External metric orders-backlog\) reads the trace's only column "value", as do metrics named cpu, reports-backlog, jobs-backlog, memory: /),
      expect.stringMatching(/^Warning: two-metrics-behavior\.yaml: demo\/api: spec\.metrics\[0\] \(Resource metric cpu\)/),
      expect.stringMatching(/^Warning: two-metrics-behavior\.yaml: demo\/api: spec\.metrics\[1\] \(Resource metric memory\)/),
      '',
    ]);
    // One autoscaler, one metric: the only column is its load, nothing to say.
    expect(cli({ file: [join(examples, 'cpu-utilization.yaml')], trace: join(examples, 'traces/cpu-spike.csv') }).err).toBe('');
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/cpu-utilization\.yaml: demo\/web/);
    expect(res.out).toMatch(/two-metrics-behavior\.yaml: demo\/api/);
    const empty = mkdtempSync(join(tmpdir(), 'shpa-sim-'));
    writeFileSync(join(empty, 'cwm.yaml'), 'apiVersion: shpa.dev/v1\nkind: CloudWatchMetric\nmetadata: {name: q}\n');
    const none = cli({ file: [empty], trace: join(examples, 'traces/cpu-spike.csv') });
    expect([none.code, none.err]).toEqual([1, `error: ${empty}: no HorizontalPodAutoscaler found\n`]);
  });

  it('--request takes cpu or memory with a positive quantity', () => {
    expect(request('cpu=500m', { ...DEFAULT_REQUESTS })).toEqual({ cpu: '500m', memory: '1Gi' });
    expect(request('memory=512Mi', {})).toEqual({ memory: '512Mi' });
    const problem = (v: string) => {
      try {
        request(v, {});
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidArgumentError);
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(problem('cpu=abc')).toBe('"abc" is not a quantity (e.g. cpu=500m, memory=512Mi)');
    expect(problem('cpu=0')).toBe('the quantity must be greater than 0, not "0"');
    expect(problem('cpu=-1')).toBe('the quantity must be greater than 0, not "-1"');
    expect(problem('gpu=1')).toBe('the resource must be cpu or memory, not "gpu"');
    expect(problem('cpu')).toMatch(/^--request expects RESOURCE=QUANTITY/);
  });
  it('a metric without its trace column: refused with several columns, mapped with --column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-sim-'));
    const sqs = join(examples, 'sqs-backlog.yaml');
    const several = cli({ file: [sqs], trace: join(examples, 'traces/cpu-and-memory.csv') });
    expect([several.code, several.err]).toEqual([
      1,
      'error: spec.metrics[0] (External metric jobs-backlog): the trace has no column named jobs-backlog (its columns: "cpu", "memory"): add one, or map one with --column jobs-backlog=COLUMN\n',
    ]);
    const mapped = cli({ file: [sqs], trace: join(examples, 'traces/cpu-and-memory.csv'), column: { 'jobs-backlog': 'cpu' } });
    expect([mapped.code, mapped.err]).toEqual([0, '']);
    const wrong = cli({ file: [sqs], trace: join(examples, 'traces/cpu-and-memory.csv'), column: { 'jobs-backlog': 'queue' } });
    expect(wrong.err).toBe('error: --column jobs-backlog=queue: the trace has no column "queue" (its columns: "cpu", "memory")\n');
    // The note is in the report too.
    const report = join(dir, 'r.html');
    expect(cli({ file: [sqs, join(examples, 'cpu-utilization.yaml')], trace: join(examples, 'traces/cpu-spike.csv'), report }).code).toBe(0);
    expect(readFileSync(report, 'utf8')).toContain('reads the trace\'s only column');
  });

  it('refuses negative loads, and a report folder that does not exist before running', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-sim-'));
    const trace = join(dir, 't.csv');
    writeFileSync(trace, 'timestamp,value\n0,1\n60,-2\n');
    const neg = cli({ file: [join(examples, 'cpu-utilization.yaml')], trace });
    expect(neg.err).toBe(`error: ${trace}:3: value -2 is negative: a load is 0 or more (leave the cell empty for a missing datapoint)\n`);
    writeFileSync(trace, constantTrace(1, 3));
    const missing = join(dir, 'nope', 'r.html');
    const r = cli({ file: [join(examples, 'cpu-utilization.yaml')], trace, report: missing });
    expect([r.code, r.out, r.err]).toEqual([1, '', `error: --report ${missing}: the folder ${join(dir, 'nope')} does not exist: create it first, or name a file in an existing folder\n`]);
    expect(cli({ file: [join(examples, 'cpu-utilization.yaml')], trace, report: dir }).err).toBe(`error: --report ${dir} is a folder: name a file, e.g. ${join(dir, 'report.html')}\n`);
  });

  it('simulate without -f: commander names the missing option', async () => {
    let err = '';
    const program = buildProgram();
    for (const c of [program, ...program.commands]) c.configureOutput({ writeErr: (s) => (err += s), writeOut: () => undefined });
    await expect(program.parseAsync(['node', 'shpa', 'simulate', '--trace', 'x.csv'])).rejects.toThrow();
    expect(err).toMatch(/^error: required option '-f, --file <file>' not specified\n/);
  });

  it('the summary names observed replicas apart from the spec, and shows time at maxReplicas, scale events and pod-hours', () => {
    const [hpa] = readHpas(readFileSync(join(examples, 'cpu-utilization.yaml'), 'utf8'), 'cpu-utilization.yaml').hpas;
    // 30 cores for 20 minutes: more than maxReplicas (20) pods at 60% of 1 core can carry.
    const r = simulate(hpa, parseTrace(`timestamp,value\n0,1\n600,30\n1800,1\n2400,1\n`), { syncPeriodSeconds: 15, readyDelaySeconds: 30 });
    expect(r.summary.highestReplicas).toBe(20);
    expect(r.summary.secondsAtMax).toBeGreaterThanOrEqual(15 * 60);
    expect(r.summary.podHours).toBeCloseTo(r.replicas.reduce((s, x) => s + x * 15, 0) / 3600);
    expect(r.decisions.some((d) => d.limit === 'TooManyReplicas: the desired replica count is more than the maximum replica count')).toBe(true);
    const table = renderSummaryTable([r]).split('\n');
    expect(table[0].split(/\s{2,}/)).toEqual(['AUTOSCALER', 'LOWEST', 'HIGHEST', 'MINPODS', 'MAXPODS', 'AT MINPODS', 'AT MAXPODS', 'SCALE EVENTS', 'ABOVE TARGET', 'POD-HOURS']);
    const row = table[1].split(/\s{2,}/);
    expect(row.slice(0, 5)).toEqual(['demo/web', '2', '20', '2', '20']);
    expect(row[6]).toMatch(/^\d+m$/);
  });

  it('decision rows speak upstream: the event message and the condition that limited it, never code words', () => {
    const hpa: HorizontalPodAutoscaler = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'slow', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'slow' },
        minReplicas: 2,
        maxReplicas: 30,
        metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } }],
      },
    };
    // No behavior: upstream's legacy limit (at most double, at least 4) holds the jump back.
    const r = simulate(hpa, parseTrace(`timestamp,memory\n0,${2 * 2 ** 30}\n60,${40 * 2 ** 30}\n600,${40 * 2 ** 30}\n`), { syncPeriodSeconds: 15, readyDelaySeconds: 30 });
    const up = r.decisions.find((d) => d.from === 2 && d.to > 2)!;
    expect(up).toMatchObject({
      reason: 'SuccessfulRescale',
      message: `New size: ${up.to}; reason: memory resource above target`,
      limit: 'ScaleUpLimit: the desired replica count is increasing faster than the maximum scale rate',
    });
    expect(up.metrics).toMatch(/^memory 20Gi\/1Gi$/);
    expect(up.text).toBe(`scaled 2→${up.to}: SuccessfulRescale: ${up.message}; limited by ${up.limit}; ${up.metrics}`);
    const all = JSON.stringify(r.decisions);
    expect(all).not.toMatch(/legacyScaleUpLimit|scaleUpPolicy|maxReplicas|\(nil\)/);
    // One quantity format: the memory chart's unit is bytes, shown with binary suffixes.
    expect(r.metrics[0]).toMatchObject({ unit: 'bytes', target: 2 ** 30 });
    expect(r.loadUnit).toBe('bytes');
  });
});

describe('simulate -o json', () => {
  /** An External AverageValue of 100 a pod, minReplicas 2: 200 for 10 minutes, then 1000 (10 pods) for 10 minutes. */
  function stepUp(): { file: string; trace: string } {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-sim-json-'));
    const file = join(dir, 'hpa.yaml');
    writeFileSync(
      file,
      `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: { name: worker, namespace: demo }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: worker }
  minReplicas: 2
  maxReplicas: 30
  metrics:
    - type: External
      external: { metric: { name: backlog }, target: { type: AverageValue, averageValue: "100" } }
`,
    );
    let csv = 'timestamp,backlog\n';
    for (let m = 0; m <= 20; m++) csv += `${m * 60},${m < 10 ? 200 : 1000}\n`;
    const trace = join(dir, 'trace.csv');
    writeFileSync(trace, csv);
    return { file, trace };
  }

  it('prints the summary figures: replicas asked for beyond the ready pods, and replica-minutes', () => {
    const { file, trace } = stepUp();
    const res = cli({ file: [file], trace, readyDelay: 120, output: 'json', chart: true });
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    const json = JSON.parse(res.out) as { autoscalers: { name: string; summary: Record<string, number> }[] };
    expect(json.autoscalers).toHaveLength(1);
    const [a] = json.autoscalers;
    expect(a.name).toBe('demo/worker');
    // At 10:00 the metrics ask for 10: 2→4→8→10 a sync apart (upstream without behavior: at most max(2 × current, 4));
    // pods ready 120 s after creation. Syncs 10:00..11:45 (8) have 2 ready: 8 × 8 short; 12:00 has 4 ready, 12:15 has 8.
    expect(a.summary.underProvisionedReplicaMinutes).toBeCloseTo(((8 * 8 + 6 + 2) * 15) / 60);
    // 00:00..20:00 every 15 s: 40 syncs at 2, then 4, 8, and 39 at 10.
    expect(a.summary.replicaMinutes).toBeCloseTo(((40 * 2 + 4 + 8 + 39 * 10) * 15) / 60);
    expect(a.summary.highestReplicas).toBe(10);
  });

  it('--metric-delay: the metrics see the step a minute late, the chart draws the load as it was', () => {
    const { file, trace } = stepUp();
    const [hpa] = readHpas(readFileSync(file, 'utf8'), file).hpas;
    const r = simulate(hpa, parseTrace(readFileSync(trace, 'utf8')), { syncPeriodSeconds: 15, readyDelaySeconds: 120, metricDelaySeconds: 60 });
    const at = (min: number) => r.times.indexOf(r.times[0] + min * 60_000);
    expect(r.load[at(10)]).toBe(1000);
    expect(r.replicas[at(10) + 3]).toBe(2);
    expect(r.replicas[at(11)]).toBe(4);
    // Measured against what the metrics asked for, not the load they had not seen: the same shortfall, a minute later.
    expect(r.summary.underProvisionedReplicaMinutes).toBeCloseTo(((8 * 8 + 6 + 2) * 15) / 60);
  });

  it('a faster start-up is less under-provisioned; an unknown format is refused by name', () => {
    const { file, trace } = stepUp();
    const fast = JSON.parse(cli({ file: [file], trace, readyDelay: 30, output: 'json' }).out) as { autoscalers: { summary: Record<string, number> }[] };
    // 10:00 and 10:15 with 2 ready (8 short each), 10:30 with 4 ready, 10:45 with 8.
    expect(fast.autoscalers[0].summary.underProvisionedReplicaMinutes).toBeCloseTo(((8 + 8 + 6 + 2) * 15) / 60);
    const bad = cli({ file: [file], trace, output: 'yaml' });
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/unknown output format "yaml".*json/);
  });
});

describe('simulate with spec.predictive', () => {
  it('learns from the trace itself: acts from the third day, draws the forecast, and -o json says so', () => {
    const res = cli({ file: [join(examples, 'predictive')], trace: join(examples, 'traces/weekday-peaks.csv'), readyDelay: 120, output: 'json' });
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    type Row = { name: string; summary: Record<string, number>; predictive?: { syncsActing: number; firstActing?: string; highestMinimum?: number } };
    const [web, reactive] = (JSON.parse(res.out) as { autoscalers: Row[] }).autoscalers;
    expect(web.name).toBe('demo/web');
    expect(reactive.predictive).toBeUndefined();
    // 24 hours of history at least, and a day of its own for the pattern check (refreshed every 6 hours).
    expect(Date.parse(web.predictive!.firstActing!)).toBeGreaterThanOrEqual(Date.parse('2026-11-04T00:00:00Z'));
    expect(Date.parse(web.predictive!.firstActing!)).toBeLessThan(Date.parse('2026-11-05T00:00:00Z'));
    // The office-hours peak is about 40 replicas (2,000 requests/s at 50 a pod).
    expect(web.predictive!.highestMinimum).toBeGreaterThanOrEqual(35);
    expect(web.predictive!.highestMinimum).toBeLessThanOrEqual(45);
    expect(web.summary.underProvisionedReplicaMinutes).toBeLessThan(0.8 * reactive.summary.underProvisionedReplicaMinutes);
  });
});
