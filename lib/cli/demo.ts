// `shpa demo` (`npm start`): the functions at work on local parts, a day in a minute.
// The demo's parts (local servers, the functions) load when the demo runs, not with every command.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { DemoResult } from '../demo/run.js';
import { parseTrace, TraceError, type Trace } from '../sim/trace.js';
import { CliError } from './context.js';
import { numberOption, useColor } from './options.js';
import { errorText } from '../shared/error-text.js';

export interface DemoCliOptions {
  /** Wall seconds for the whole trace; 0: as fast as it goes. */
  duration: number;
  /** Virtual seconds per wall second; overrides duration. */
  speed?: number;
  trace?: string;
  syncPeriod: number;
  /** false with --no-report. */
  report: boolean;
  out: string;
}

export const DEFAULT_OUT_DIR = '.shpa/demo';

/** The built-in day (yesterday, UTC), or the file's first series divided by its median as the relative load. */
async function loadTrace(file: string | undefined): Promise<{ trace: Trace; name: string }> {
  const { demoTrace, relativeLoad } = await import('../demo/demo-trace.js');
  if (!file) {
    const now = new Date();
    return { trace: demoTrace(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1)), 60), name: 'a day (quiet night, lunchtime spike ×4, slow decline)' };
  }
  let parsed: Trace;
  try {
    parsed = parseTrace(readFileSync(file, 'utf8'), file);
  } catch (e) {
    if (e instanceof TraceError) throw new CliError(e.message);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`--trace: no such file: ${file}`);
    throw e;
  }
  try {
    const { trace, median } = relativeLoad(parsed);
    return { trace, name: `trace ${file} (${trace.series[0]} ÷ its median ${median})` };
  } catch (e) {
    throw new CliError(`--trace ${file}: ${errorText(e)}`);
  }
}

/** The --out folder, made now: a bad one fails before the local parts start, not after the run. */
async function outDir(dir: string): Promise<string> {
  const { prepareOutDir } = await import('../demo/out-dir.js');
  try {
    return prepareOutDir(dir);
  } catch (e) {
    throw new CliError(`--out ${errorText(e)}`);
  }
}

/** Runs the demo as the command line asked; Ctrl-C (or SIGTERM) stops it after the current sync, a second one at once. */
export async function demoCommand(opts: DemoCliOptions, out: NodeJS.WriteStream = process.stdout): Promise<DemoResult> {
  const { trace, name } = await loadTrace(opts.trace);
  const span = trace.times[trace.times.length - 1] - trace.times[0];
  if (span < opts.syncPeriod * 1000) throw new CliError(`the trace spans ${span / 1000} s, less than one sync period (${opts.syncPeriod} s)`);
  const reportDir = opts.report ? await outDir(opts.out) : undefined;
  const [{ runDemo }, { EXAMPLES_DIR }] = await Promise.all([import('../demo/run.js'), import('../demo/scenario.js')]);
  const speed = opts.speed ?? (opts.duration > 0 ? span / 1000 / opts.duration : Infinity);
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runDemo({
      trace,
      traceName: name,
      syncPeriodSeconds: opts.syncPeriod,
      speed,
      examplesDir: EXAMPLES_DIR,
      outDir: reportDir,
      out,
      tty: Boolean(out.isTTY) && !process.env.CI,
      color: useColor(out),
      columns: out.columns,
      signal: abort.signal,
    });
    if (result.interrupted) process.exitCode = 130;
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run the real functions locally (dispatcher, SQS, worker, stream on embedded DynamoDB, Kubernetes API, CloudWatch) through a day of load on a virtual clock')
    .option('--duration <seconds>', 'wall seconds for the whole trace (0: as fast as it goes)', numberOption('--duration', 0), 60)
    .option('--speed <factor>', 'virtual seconds per wall second, e.g. 1440 for a day a minute (overrides --duration)', numberOption('--speed', 0.001))
    .option('--trace <csv>', 'load over time, any unit (its first series, divided by its median: 1 = a typical level): timestamp and value columns, or a CloudWatch CSV export')
    .option('--sync-period <seconds>', 'virtual seconds between syncs', numberOption('--sync-period', 1, true), 60)
    .option('--out <dir>', 'where report.html and decisions.jsonl go', DEFAULT_OUT_DIR)
    .option('--no-report', 'write no files: live lines and terminal charts only')
    .action(async (opts: DemoCliOptions) => {
      await demoCommand(opts);
    });
}
