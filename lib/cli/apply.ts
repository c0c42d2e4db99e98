// `shpa apply -f FILE|DIR|-`: every document of a file is validated before any of
// that file is written; an invalid file changes nothing.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { formatFieldError } from '../hpa/validation.js';
import type { StoredSpec } from '../store/index.js';
import { CliError, resolveContext } from './context.js';
import { kindFor, type KindHandler } from './kinds.js';
import { expandPaths, readSource, type SourceDocument } from './manifests.js';

export function registerApply(program: Command): void {
  program
    .command('apply')
    .description('create or update autoscalers (and CloudWatchMetric objects) from YAML or JSON')
    .requiredOption('-f, --filename <path...>', 'file, directory of .yaml/.yml/.json files, or - for stdin')
    .option('-n, --namespace <ns>', 'namespace for documents that name none')
    .action(async (opts: { filename: string[]; namespace?: string }, cmd: Command) => {
      const ctx = resolveContext(cmd);
      const cluster = ctx.requireCluster();
      if (!(await ctx.store.getCluster(cluster))) {
        throw new CliError(`unknown cluster "${cluster}": add it with "shpa cluster add ${cluster} --cluster-region REGION"`);
      }
      let files: string[];
      try {
        files = expandPaths(opts.filename);
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      let failed = 0;
      let applied = 0;
      for (const file of files) {
        const checked = checkFile(file, opts.namespace);
        if ('errors' in checked) {
          failed++;
          for (const e of checked.errors) process.stderr.write(`${e}\n`);
          process.stderr.write(`error: ${checked.file}: nothing applied from this file\n`);
          continue;
        }
        for (const { handler, object } of checked.objects) {
          const outcome = await ctx.store.applySpec(cluster, object, new Date());
          process.stdout.write(`${handler.resource}/${object.metadata.name} ${outcome}\n`);
          applied++;
        }
      }
      if (failed === 0 && applied === 0) throw new CliError('no objects passed to apply');
      if (failed > 0) process.exitCode = 1;
    });
}

export type CheckedFile = { file: string; objects: { handler: KindHandler; object: StoredSpec }[] } | { file: string; errors: string[] };

/** Reads and validates one file: all its objects in stored form, or every error (file:line: field). */
export function checkFile(file: string, namespace: string | undefined): CheckedFile {
  const src = readSource(file, () => readFileSync(0, 'utf8'));
  const errors = [...src.errors];
  const objects: { handler: KindHandler; object: StoredSpec }[] = [];
  for (const doc of src.documents) {
    const r = checkDocument(doc, namespace);
    if ('errors' in r) errors.push(...r.errors);
    else objects.push(r);
  }
  return errors.length > 0 ? { file: src.file, errors } : { file: src.file, objects };
}

function checkDocument(doc: SourceDocument, namespace: string | undefined): { handler: KindHandler; object: StoredSpec } | { errors: string[] } {
  const handler = kindFor(doc.value);
  if (!('check' in handler)) return { errors: [`${doc.locate(handler.field)}: ${formatFieldError(handler)}`] };
  const value = doc.value as { metadata?: { namespace?: unknown } };
  const meta = value.metadata;
  if (meta && typeof meta === 'object') {
    if (namespace && meta.namespace !== undefined && meta.namespace !== namespace) {
      return { errors: [`${doc.locate('metadata.namespace')}: metadata.namespace: Invalid value: "${String(meta.namespace)}": does not match --namespace "${namespace}"`] };
    }
    meta.namespace ??= namespace ?? 'default';
  }
  const r = handler.check(doc.value);
  if (!r.ok) return { errors: r.errors.map((e) => `${doc.locate(e.field)}: ${formatFieldError(e)}`) };
  return { handler, object: r.object };
}
