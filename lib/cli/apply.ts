// `shpa apply -f FILE|DIR|-`: every document of a file is validated before any of
// that file is written; an invalid file changes nothing.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { type FieldWarning, formatFieldError, formatFieldWarning } from '#hpa/api';
import type { StoredSpec } from '../store/index.js';
import { CliError, resolveContext, type Context } from './context.js';
import { addDryRun, dryRunSuffix, plannedOutcome, type DryRun } from './dry-run.js';
import { kindFor, type KindHandler } from './kinds.js';
import { expandPaths, readSource, type SourceDocument } from './manifests.js';
import { contextWarnings, knownObjects } from './warnings.js';
import { errorText } from '../shared/error-text.js';

export interface CheckedObject {
  handler: KindHandler;
  object: StoredSpec;
  /** The validation's warnings, located: "field: message". */
  warnings: FieldWarning[];
}

export type CheckedFile = { file: string; objects: CheckedObject[] } | { file: string; errors: string[] };

/** Reads and validates one file: all its objects in stored form, or every error (file:line: field). */
export function checkFile(file: string, namespace: string | undefined): CheckedFile {
  const src = readSource(file, () => readFileSync(0, 'utf8'));
  const errors = [...src.errors];
  const objects: CheckedObject[] = [];
  for (const doc of src.documents) {
    const r = checkDocument(doc, namespace);
    if ('errors' in r) errors.push(...r.errors);
    else objects.push(r);
  }
  return errors.length > 0 ? { file: src.file, errors } : { file: src.file, objects };
}

function checkDocument(doc: SourceDocument, namespace: string | undefined): CheckedObject | { errors: string[] } {
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
  return { handler, object: r.object, warnings: r.warnings };
}

/** Every file checked: the valid objects of all of them, and how many files failed (their errors printed, `then` saying what it means). */
export function checkFiles(paths: string[], namespace: string | undefined, then = 'nothing applied from this file'): { objects: CheckedObject[]; failed: number } {
  let files: string[];
  try {
    files = expandPaths(paths);
  } catch (e) {
    throw new CliError(errorText(e));
  }
  const objects: CheckedObject[] = [];
  let failed = 0;
  for (const file of files) {
    const checked = checkFile(file, namespace);
    if ('errors' in checked) {
      failed++;
      for (const e of checked.errors) process.stderr.write(`${e}\n`);
      process.stderr.write(`error: ${checked.file}: ${then}\n`);
    } else objects.push(...checked.objects);
  }
  return { objects, failed };
}

/** kubectl's way of printing an API server's warnings: on stderr, before the object's line. */
export function printWarnings(warnings: FieldWarning[]): void {
  for (const w of warnings) process.stderr.write(`Warning: ${formatFieldWarning(w)}\n`);
}

async function apply(opts: { filename: string[]; namespace?: string; dryRun?: DryRun }, cmd: Command): Promise<void> {
  const dryRun = opts.dryRun ?? 'none';
  const { objects, failed } = checkFiles(opts.filename, opts.namespace);
  if (objects.length === 0) {
    if (failed === 0) throw new CliError('no objects passed to apply');
    process.exitCode = 1;
    return;
  }
  const ctx = resolveContext(cmd);
  const cluster = dryRun === 'client' ? ctx.requireCluster() : (await ctx.registeredCluster()).name;
  // Warnings about other objects: the table's, with this apply's (every valid file) in their place.
  const known = knownObjects(dryRun === 'client' ? undefined : await ctx.store.loadCluster(cluster), objects.map((o) => o.object));
  for (const { handler, object, warnings } of objects) {
    printWarnings(dryRun === 'client' ? warnings : [...warnings, ...contextWarnings(object, known)]);
    const outcome =
      dryRun === 'none'
        ? await ctx.store.applySpec(cluster, object, new Date())
        : plannedOutcome(await ctx.store.getSpec(cluster, handler.kind, object.metadata.namespace ?? 'default', object.metadata.name), object);
    process.stdout.write(`${handler.resource}/${object.metadata.name} ${outcome}${dryRunSuffix(dryRun)}\n`);
  }
  if (failed > 0) process.exitCode = 1;
}

export function registerApply(program: Command): void {
  addDryRun(
    program
      .command('apply')
      .description('create or update autoscalers (and CloudWatchMetric objects) from YAML or JSON')
      .requiredOption('-f, --filename <path...>', 'file, directory of .yaml/.yml/.json files, or - for stdin')
      .option('-n, --namespace <ns>', 'namespace for documents that name none'),
  ).action(apply);
}
