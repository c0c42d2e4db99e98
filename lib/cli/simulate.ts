// `shpa simulate`: what would these autoscalers have done on this trace?
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { parseQuantity, QuantityError, sign } from '../hpa/quantity.js';
import { renderHtmlReport } from '../report/html.js';
import type { AutoscalerReport } from '../report/model.js';
import { renderReplicasChart, renderSummaryTable } from '../report/terminal.js';
import { HpaFileError, readHpas } from '../sim/hpa-file.js';
import { DEFAULT_REQUESTS, simulate } from '../sim/simulate.js';
import { parseTrace, TraceError } from '../sim/trace.js';
import { expandPaths, PathError } from './manifests.js';

export interface SimulateCliOptions {
  file: string[];
  trace: string;
  syncPeriod: number;
  readyDelay: number;
  request: Record<string, string>;
  initialReplicas?: number;
  report?: string;
  chart: boolean;
}

/** True where escape codes are welcome: a terminal, not CI, no NO_COLOR. */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !process.env.CI && process.env.NO_COLOR === undefined;
}

/** A commander parser for a number option ≥ min, the option named in its error. */
export function numberOption(name: string, min: number, integer = false) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min}, got ${JSON.stringify(v)}`);
    }
    return n;
  };
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

/** Runs the simulation and writes what the user asked for; returns the process exit code. */
export function runSimulate(opts: SimulateCliOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  try {
    const traceText = readFileSync(opts.trace, 'utf8');
    const trace = parseTrace(traceText, opts.trace);
    const reports: AutoscalerReport[] = [];
    // A directory, as for apply: its .yaml/.yml/.json files, those without an HPA skipped.
    const files = opts.file.flatMap((arg) => {
      const inDir = arg !== '-' && statSync(arg, { throwIfNoEntry: false })?.isDirectory() === true;
      return expandPaths([arg]).map((file) => ({ file, inDir }));
    });
    for (const { file, inDir } of files) {
      const hpas = readHpas(readFileSync(file, 'utf8'), file, { allowNone: inDir });
      for (const hpa of hpas) {
        const id = `${hpa.metadata.namespace ?? 'default'}/${hpa.metadata.name}`;
        reports.push(
          simulate(hpa, trace, {
            syncPeriodSeconds: opts.syncPeriod,
            readyDelaySeconds: opts.readyDelay,
            requests: opts.request,
            initialReplicas: opts.initialReplicas,
            name: files.length > 1 ? `${basename(file)}: ${id}` : id,
          }),
        );
      }
    }
    if (reports.length === 0) throw new HpaFileError([`${opts.file.join(', ')}: no HorizontalPodAutoscaler found`]);
    const span = (trace.times[trace.times.length - 1] - trace.times[0]) / 60_000;
    out.write(
      `trace ${opts.trace}: ${trace.times.length} points over ${span.toFixed(0)} min (${trace.series.join(', ')}); sync every ${opts.syncPeriod}s, pods ready after ${opts.readyDelay}s\n\n`,
    );
    out.write(renderSummaryTable(reports));
    if (opts.chart) {
      const color = out === process.stdout && useColor();
      for (const r of reports) out.write(`\n${renderReplicasChart(r, { color })}`);
    }
    if (opts.report) {
      const path = resolve(opts.report);
      writeFileSync(
        path,
        renderHtmlReport({
          title: 'shpa simulate',
          subtitle: `trace ${basename(opts.trace)}, sync period ${opts.syncPeriod}s, pod ready delay ${opts.readyDelay}s`,
          autoscalers: reports,
        }),
      );
      out.write(`\nreport: ${path}\n`);
    }
    return 0;
  } catch (e) {
    if (e instanceof TraceError || e instanceof HpaFileError || e instanceof PathError) err.write(`error: ${e.message}\n`);
    else if ((e as NodeJS.ErrnoException).code === 'ENOENT') err.write(`error: no such file: ${(e as NodeJS.ErrnoException).path}\n`);
    else throw e;
    return 1;
  }
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('replay a metric trace through one or more HPAs and report how replicas would evolve')
    .requiredOption('-f, --file <file>', 'HPA YAML/JSON file or directory (repeat to compare behaviors)', (v: string, p: string[]) => [...p, v], [] as string[])
    .requiredOption('--trace <csv>', 'metric trace: timestamp and value columns, or a CloudWatch CSV export')
    .option('--sync-period <seconds>', 'seconds between syncs', numberOption('--sync-period', 1, true), 15)
    .option('--ready-delay <seconds>', 'seconds from pod creation to Ready', numberOption('--ready-delay', 0, true), 30)
    .option('--request <resource=quantity>', 'per-pod request for Utilization targets (repeatable)', request, { ...DEFAULT_REQUESTS })
    .option('--initial-replicas <n>', 'replicas at the start (default: minReplicas)', numberOption('--initial-replicas', 0, true))
    .option('--report <file.html>', 'write an HTML report')
    .option('--no-chart', 'do not print the terminal charts')
    .action((opts: SimulateCliOptions) => {
      process.exitCode = runSimulate(opts);
    });
}
