// `shpa simulate`: what would these autoscalers have done on this trace?
import { accessSync, constants, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { applyDefaults, parseQuantity, QuantityError, sign } from '#hpa/api';
import { renderHtmlReport } from '../report/html.js';
import type { AutoscalerReport } from '../report/model.js';
import { renderReplicasChart, renderSummaryTable } from '../report/terminal.js';
import { HpaFileError, readHpas } from '../sim/hpa-file.js';
import { DEFAULT_REQUESTS, fallbackNotes, simulate, TraceColumnError, traceColumns } from '../sim/simulate.js';
import { parseTrace, TraceError } from '../sim/trace.js';
import { CliError } from './context.js';
import { expandPaths, PathError } from './manifests.js';
import { numberOption, useColor } from './options.js';
import { parseOutput } from './output.js';

export interface SimulateCliOptions {
  file: string[];
  trace: string;
  syncPeriod: number;
  readyDelay: number;
  /** --metric-delay: seconds the metrics lag the load. */
  metricDelay?: number;
  request: Record<string, string>;
  /** Metric name -> trace column (--column). */
  column?: Record<string, string>;
  initialReplicas?: number;
  report?: string;
  chart: boolean;
  /** -o json: the figures as JSON instead of the table and charts. */
  output?: string;
}

/** A problem with the command line's own arguments, found before the run. */
class SimulateArgumentError extends Error {
  override readonly name = 'SimulateArgumentError';
}

/** The resources the simulated pods request: those Resource metrics of a pod can name. */
const REQUEST_RESOURCES = ['cpu', 'memory'];

export function request(v: string, prev: Record<string, string>): Record<string, string> {
  const m = /^([^=]+)=(.*)$/.exec(v);
  if (!m) throw new InvalidArgumentError(`--request expects RESOURCE=QUANTITY (e.g. cpu=500m), got ${JSON.stringify(v)}`);
  const [, name, quantity] = m;
  if (!REQUEST_RESOURCES.includes(name)) throw new InvalidArgumentError(`the resource must be cpu or memory, not ${JSON.stringify(name)}`);
  let positive: boolean;
  try {
    positive = sign(parseQuantity(quantity)) > 0;
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e;
    throw new InvalidArgumentError(`${JSON.stringify(quantity)} is not a quantity (e.g. cpu=500m, memory=512Mi)`);
  }
  if (!positive) throw new InvalidArgumentError(`the quantity must be greater than 0, not ${JSON.stringify(quantity)}`);
  return { ...prev, [name]: quantity };
}

/** --column METRIC=COLUMN, repeatable: the trace column a metric reads when none is named like it. */
export function column(v: string, prev: Record<string, string> = {}): Record<string, string> {
  const m = /^([^=]+)=(.+)$/.exec(v);
  if (!m) throw new InvalidArgumentError(`--column expects METRIC=COLUMN (e.g. jobs-backlog=value), got ${JSON.stringify(v)}`);
  return { ...prev, [m[1]]: m[2] };
}

/** The report's path, checked before the run: a folder that exists and can be written, and not a folder itself. */
function reportPath(file: string): string {
  const path = resolve(file);
  const dir = dirname(path);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new SimulateArgumentError(`--report ${file}: the folder ${dir} does not exist: create it first, or name a file in an existing folder`);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new SimulateArgumentError(`--report ${file} is a folder: name a file, e.g. ${join(file, 'report.html')}`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new SimulateArgumentError(`--report ${file}: the folder ${dir} is not writable`);
  }
  return path;
}

/** `-o json`: per autoscaler its bounds, summary figures and notes; the series stay in the HTML report. */
function simulationJson(opts: SimulateCliOptions, times: number[], reports: AutoscalerReport[]): object {
  return {
    trace: { file: opts.trace, points: times.length, from: new Date(times[0]).toISOString(), to: new Date(times[times.length - 1]).toISOString() },
    syncPeriodSeconds: opts.syncPeriod,
    readyDelaySeconds: opts.readyDelay,
    metricDelaySeconds: opts.metricDelay ?? 0,
    autoscalers: reports.map((r) => ({
      name: r.name,
      minReplicas: r.minReplicas,
      maxReplicas: r.maxReplicas,
      summary: r.summary,
      ...(r.forecast ? { predictive: predictiveJson(r.times, r.forecast) } : {}),
      notes: r.notes,
    })),
  };
}

/** With spec.predictive: how often the predictive minimum acted, from when, and its highest value. */
function predictiveJson(times: number[], forecast: (number | null)[]): object {
  let syncsActing = 0;
  let first: number | undefined;
  let highest = 0;
  forecast.forEach((f, i) => {
    if (f === null) return;
    syncsActing++;
    first ??= times[i];
    highest = Math.max(highest, f);
  });
  return { syncsActing, ...(first !== undefined ? { firstActing: new Date(first).toISOString(), highestMinimum: highest } : {}) };
}

/** Runs the simulation and writes what the user asked for; returns the process exit code. */
export function runSimulate(opts: SimulateCliOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  try {
    const json = parseOutput(opts.output, ['json']).format === 'json';
    const report = opts.report === undefined ? undefined : reportPath(opts.report);
    const traceText = readFileSync(opts.trace, 'utf8');
    const trace = parseTrace(traceText, opts.trace);
    // A directory, as for apply: its .yaml/.yml/.json files, those without an HPA skipped.
    const files = opts.file.flatMap((arg) => {
      const inDir = arg !== '-' && statSync(arg, { throwIfNoEntry: false })?.isDirectory() === true;
      return expandPaths([arg]).map((file) => ({ file, inDir }));
    });
    const runs = files.flatMap(({ file, inDir }) => {
      const { hpas, warnings } = readHpas(readFileSync(file, 'utf8'), file, { allowNone: inDir });
      for (const w of warnings) err.write(`Warning: ${w}\n`);
      return hpas.map((hpa) => {
        const id = `${hpa.metadata.namespace ?? 'default'}/${hpa.metadata.name}`;
        return { hpa, name: files.length > 1 ? `${basename(file)}: ${id}` : id };
      });
    });
    if (runs.length === 0) throw new HpaFileError([`${opts.file.join(', ')}: no HorizontalPodAutoscaler found`]);
    // Which trace column each metric reads, checked for the whole run before any of it.
    const notes = fallbackNotes(
      runs.map((r) => traceColumns(applyDefaults(r.hpa).spec.metrics ?? [], trace, opts.column).fallbacks),
      trace,
    );
    const reports: AutoscalerReport[] = runs.map(({ hpa, name }, i) => {
      for (const n of notes[i]) err.write(`Warning: ${name}: ${n}\n`);
      return simulate(hpa, trace, {
        syncPeriodSeconds: opts.syncPeriod,
        readyDelaySeconds: opts.readyDelay,
        metricDelaySeconds: opts.metricDelay,
        requests: opts.request,
        initialReplicas: opts.initialReplicas,
        columns: opts.column,
        notes: notes[i],
        name,
      });
    });
    const span = (trace.times[trace.times.length - 1] - trace.times[0]) / 60_000;
    if (json) out.write(JSON.stringify(simulationJson(opts, trace.times, reports), null, 2) + '\n');
    else out.write(
      `trace ${opts.trace}: ${trace.times.length} points over ${span.toFixed(0)} min (${trace.series.join(', ')}); sync every ${opts.syncPeriod}s, pods ready after ${opts.readyDelay}s${opts.metricDelay ? `, metrics ${opts.metricDelay}s behind` : ''}\n\n`,
    );
    if (!json) out.write(renderSummaryTable(reports));
    if (opts.chart && !json) {
      const color = out === process.stdout && useColor();
      for (const r of reports) out.write(`\n${renderReplicasChart(r, { color })}`);
    }
    if (report) {
      writeFileSync(
        report,
        renderHtmlReport({
          title: 'shpa simulate',
          subtitle: `trace ${basename(opts.trace)}, sync period ${opts.syncPeriod}s, pod ready delay ${opts.readyDelay}s`,
          compare: reports.length > 1,
          autoscalers: reports,
        }),
      );
      // With -o json, stdout is the JSON alone.
      (json ? err : out).write(`${json ? '' : '\n'}report: ${report}\n`);
    }
    return 0;
  } catch (e) {
    if (e instanceof TraceError || e instanceof HpaFileError || e instanceof PathError || e instanceof TraceColumnError || e instanceof SimulateArgumentError || e instanceof CliError) {
      err.write(`error: ${e.message}\n`);
    } else if ((e as NodeJS.ErrnoException).code === 'ENOENT') err.write(`error: no such file: ${(e as NodeJS.ErrnoException).path}\n`);
    else throw e;
    return 1;
  }
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('replay a metric trace through one or more HPAs and report how replicas would evolve')
    // No default value: commander then reports a missing -f itself.
    .requiredOption('-f, --file <file>', 'HPA YAML/JSON file or directory (repeat to compare behaviors)', (v: string, p: string[] | undefined) => [...(p ?? []), v])
    .requiredOption('--trace <csv>', 'metric trace: timestamp and value columns, or a CloudWatch CSV export')
    .option('--column <metric=column>', 'the trace column a metric reads when none is named like it (repeatable)', column)
    .option('--sync-period <seconds>', 'seconds between syncs', numberOption('--sync-period', 1, true), 15)
    .option('--ready-delay <seconds>', 'seconds from pod creation to Ready', numberOption('--ready-delay', 0, true), 30)
    .option('--metric-delay <seconds>', 'seconds the metrics lag the load (each sync reads the trace this far back)', numberOption('--metric-delay', 0), 0)
    .option('--request <resource=quantity>', 'per-pod request for Utilization targets (repeatable)', request, { ...DEFAULT_REQUESTS })
    .option('--initial-replicas <n>', 'replicas at the start (default: minReplicas)', numberOption('--initial-replicas', 0, true))
    .option('--report <file.html>', 'write an HTML report')
    .option('--no-chart', 'do not print the terminal charts')
    .option('-o, --output <format>', 'json: the summary figures as JSON (under-provisioned replica-minutes, replica-minutes, ...)')
    .action((opts: SimulateCliOptions) => {
      process.exitCode = runSimulate(opts);
    });
}
