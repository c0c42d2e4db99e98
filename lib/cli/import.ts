// `shpa import -f FILE|DIR...`: HorizontalPodAutoscalers (autoscaling/v2, v1) and KEDA
// ScaledObjects into our objects (lib/import), each checked as `shpa apply` checks it, with a
// report on stderr of what mapped and what did not. --dry-run prints the objects as YAML and
// stores nothing; without it they are stored as `shpa apply` stores them.
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { importDocument, type ImportResult } from '../import/convert.js';
import { formatFieldError } from '../hpa/validation.js';
import type { StoredSpec } from '../store/index.js';
import { CliError, resolveContext } from './context.js';
import { kindFor } from './kinds.js';
import { expandPaths, readSource } from './manifests.js';
import { readFileSync } from 'node:fs';

export interface ImportReport {
  results: ImportResult[];
  /** Valid objects, as they would be stored. */
  objects: StoredSpec[];
  /** Documents that are no kind import reads, and objects that did not pass their checks. */
  problems: string[];
}

/** Reads and converts every document of the files: pure but for reading them. */
export function importFiles(paths: string[], namespace?: string): ImportReport {
  const out: ImportReport = { results: [], objects: [], problems: [] };
  for (const file of expandPaths(paths)) {
    const src = readSource(file, () => readFileSync(0, 'utf8'));
    out.problems.push(...src.errors);
    for (const doc of src.documents) {
      const r = importDocument(doc.value, namespace);
      if (!r) {
        const d = doc.value as { apiVersion?: unknown; kind?: unknown };
        out.problems.push(`${doc.file}:${doc.line}: ${String(d?.kind)} (${String(d?.apiVersion)}) is not a kind shpa import reads (autoscaling/v2 or v1 HorizontalPodAutoscaler, keda.sh ScaledObject)`);
        continue;
      }
      out.results.push(r);
      for (const o of r.objects) {
        const handler = kindFor(o);
        const checked = 'check' in handler ? handler.check(o) : undefined;
        if (checked?.ok) out.objects.push(checked.object);
        else out.problems.push(`${doc.file}:${doc.line}: ${r.source} → ${o.kind} ${o.metadata.namespace}/${o.metadata.name} is invalid: ${checked ? checked.errors.map(formatFieldError).join('; ') : 'unknown kind'}`);
      }
    }
  }
  return out;
}

/** The report, one block per source: what mapped, what did not. */
export function reportText(r: ImportReport): string {
  const lines: string[] = [];
  for (const x of r.results) {
    lines.push(`${x.source}:`);
    for (const m of x.mapped) lines.push(`  mapped: ${m}`);
    for (const u of x.unmapped) lines.push(`  NOT mapped: ${u}`);
  }
  for (const p of r.problems) lines.push(`error: ${p}`);
  return `${lines.join('\n')}\n`;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('convert HorizontalPodAutoscalers and KEDA ScaledObjects into ours (with a report of what did not map); --dry-run prints them')
    .requiredOption('-f, --filename <path...>', 'file, directory of .yaml/.yml/.json files, or - for stdin')
    .option('-n, --namespace <ns>', 'namespace for documents that name none')
    .option('--dry-run', 'print the objects as YAML and store nothing', false)
    .action(async (opts: { filename: string[]; namespace?: string; dryRun: boolean }, cmd: Command) => {
      const report = importFiles(opts.filename, opts.namespace);
      process.stderr.write(reportText(report));
      if (report.objects.length === 0) throw new CliError('nothing to import');
      if (opts.dryRun) {
        process.stdout.write(report.objects.map((o) => stringify(o)).join('---\n'));
      } else {
        const ctx = resolveContext(cmd);
        const cluster = (await ctx.registeredCluster()).name;
        for (const o of report.objects) {
          const handler = kindFor(o);
          const outcome = await ctx.store.applySpec(cluster, o, new Date());
          process.stdout.write(`${'resource' in handler ? handler.resource : o.kind}/${o.metadata.name} ${outcome}\n`);
        }
      }
      if (report.problems.length > 0) process.exitCode = 1;
    });
}
