// `shpa delete NAME... | TYPE/NAME... | -f FILE`: kubectl's delete, by name or by the objects a file names.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { formatFieldError } from '#hpa/api';
import { CliError, notFound, resolveContext } from './context.js';
import { addDryRun, dryRunSuffix, type DryRun } from './dry-run.js';
import { kindFor, missingError, parseTargets, type KindHandler } from './kinds.js';
import { expandPaths, readSource } from './manifests.js';
import { errorText } from '../shared/error-text.js';

interface DeleteOptions {
  namespace: string;
  filename?: string[];
  dryRun?: DryRun;
  ignoreNotFound?: boolean;
}

interface Named {
  handler: KindHandler;
  namespace: string;
  name: string;
  /** The error when it does not exist. */
  missing(cluster: string): CliError;
}

/** The objects the files name (kind, apiVersion, metadata.name, metadata.namespace); the rest of each document is not checked, as kubectl. */
function namedInFiles(paths: string[], namespace: string): { named: Named[]; errors: string[] } {
  let files: string[];
  try {
    files = expandPaths(paths);
  } catch (e) {
    throw new CliError(errorText(e));
  }
  const named: Named[] = [];
  const errors: string[] = [];
  for (const file of files) {
    const src = readSource(file, () => readFileSync(0, 'utf8'));
    errors.push(...src.errors);
    for (const doc of src.documents) {
      const handler = kindFor(doc.value);
      if (!('check' in handler)) {
        errors.push(`${doc.locate(handler.field)}: ${formatFieldError(handler)}`);
        continue;
      }
      const meta = (doc.value as { metadata?: { name?: unknown; namespace?: unknown } }).metadata;
      if (typeof meta?.name !== 'string' || meta.name === '') {
        errors.push(`${doc.locate('metadata.name')}: metadata.name: Required value: name the object to delete`);
        continue;
      }
      const ns = typeof meta.namespace === 'string' ? meta.namespace : namespace;
      const name = meta.name;
      named.push({ handler, name, namespace: ns, missing: (cluster) => notFound(handler.resource, name, ns, cluster) });
    }
  }
  return { named, errors };
}

async function del(args: string[], opts: DeleteOptions, cmd: Command): Promise<void> {
  let named: Named[];
  if (opts.filename) {
    if (args.length > 0) throw new CliError('when -f names the objects, do not name them as arguments too');
    const r = namedInFiles(opts.filename, opts.namespace);
    for (const e of r.errors) process.stderr.write(`${e}\n`);
    if (r.errors.length > 0) process.exitCode = 1;
    named = r.named;
  } else {
    const parsed = parseTargets(args, 'hpa');
    if (parsed.targets.length === 0) throw new CliError(`no name given: shpa delete ${parsed.kinds[0].aliases[0]} NAME..., or shpa delete -f FILE`);
    named = parsed.targets.map((t) => ({ ...t, namespace: opts.namespace, missing: (cluster: string) => missingError(parsed, t, opts.namespace, cluster) }));
  }
  const dryRun = opts.dryRun ?? 'none';
  const ctx = resolveContext(cmd);
  const cluster = (await ctx.registeredCluster()).name;
  // As kubectl: every object is tried; each one not found is an error line, and the exit code is 1.
  for (const n of named) {
    const found =
      dryRun === 'none' ? await ctx.store.deleteSpec(cluster, n.handler.kind, n.namespace, n.name) : (await ctx.store.getSpec(cluster, n.handler.kind, n.namespace, n.name)) !== undefined;
    if (found) {
      process.stdout.write(`${n.handler.resource} "${n.name}" deleted${dryRunSuffix(dryRun)}\n`);
    } else if (!opts.ignoreNotFound) {
      process.stderr.write(`error: ${n.missing(cluster).message}\n`);
      process.exitCode = 1;
    }
  }
}

export function registerDelete(program: Command): void {
  addDryRun(
    program
      .command('delete')
      .description('delete autoscalers (or TYPE NAME..., TYPE/NAME, e.g. cloudwatchmetric/queue-depth), or the objects of -f FILE')
      .argument('[names...]')
      .option('-f, --filename <path...>', 'delete the objects these files (or directories, or - for stdin) define')
      .option('-n, --namespace <ns>', 'namespace', 'default')
      .option('--ignore-not-found', 'an object that does not exist is no error'),
  ).action(del);
}
