// `shpa diff -f FILE`: what apply would change, as kubectl diff shows it: the stored objects and the
// objects as apply would store them, written to LIVE-* and MERGED-* folders and compared with
// `diff -u -N` (or $KUBECTL_EXTERNAL_DIFF). Exit code 0: no differences, 1: differences, 2: an error.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { StoredSpec } from '../store/index.js';
import { checkFiles, type CheckedObject } from './apply.js';
import { CliError, explainFailure, resolveContext } from './context.js';
import { sameJson } from './dry-run.js';

/** kubectl's file name: group.version.Kind.namespace.name ("autoscaling.v2.HorizontalPodAutoscaler.default.web"). */
function fileName(o: StoredSpec): string {
  return `${o.apiVersion.replace('/', '.')}.${o.kind}.${o.metadata.namespace ?? 'default'}.${o.metadata.name}`;
}

/** The object as apply would store it: the server-set metadata kept from the stored one, generation +1 when the spec changes (upstream's HPA strategy). */
function merged(live: StoredSpec | undefined, obj: StoredSpec): StoredSpec {
  if (!live) return obj;
  const { uid, creationTimestamp, generation, resourceVersion } = live.metadata;
  const next = generation === undefined ? undefined : generation + (sameJson(live.spec, obj.spec) ? 0 : 1);
  const server = JSON.parse(JSON.stringify({ uid, creationTimestamp, resourceVersion, generation: next })) as Partial<StoredSpec['metadata']>;
  return { ...obj, metadata: { ...obj.metadata, ...server } } as StoredSpec;
}

/** YAML with every map's keys sorted: the same object always prints the same, whatever order it was built in. */
function canonicalYaml(o: StoredSpec): string {
  return stringify(o, { sortMapEntries: true });
}

/** The diff program: $KUBECTL_EXTERNAL_DIFF (a command and its flags), else diff -u -N. */
function differ(): [string, string[]] {
  const custom = process.env.KUBECTL_EXTERNAL_DIFF?.trim().split(/\s+/).filter(Boolean);
  return custom && custom.length > 0 ? [custom[0], custom.slice(1)] : ['diff', ['-u', '-N']];
}

async function diff(objects: CheckedObject[], cmd: Command): Promise<number> {
  const ctx = resolveContext(cmd);
  const cluster = (await ctx.registeredCluster()).name;
  const liveDir = mkdtempSync(join(tmpdir(), 'LIVE-'));
  const mergedDir = mkdtempSync(join(tmpdir(), 'MERGED-'));
  try {
    for (const { handler, object } of objects) {
      const live = await ctx.store.getSpec(cluster, handler.kind, object.metadata.namespace ?? 'default', object.metadata.name);
      if (live) writeFileSync(join(liveDir, fileName(object)), canonicalYaml(live));
      writeFileSync(join(mergedDir, fileName(object)), canonicalYaml(merged(live, object)));
    }
    const [program, args] = differ();
    const r = spawnSync(program, [...args, liveDir, mergedDir], { encoding: 'utf8' });
    if (r.error) throw new CliError(`cannot run ${program}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}: install diffutils, or name a diff program in KUBECTL_EXTERNAL_DIFF`, 2);
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    // diff's own codes: 0 the same, 1 different, 2 trouble.
    return r.status ?? 2;
  } finally {
    rmSync(liveDir, { recursive: true, force: true });
    rmSync(mergedDir, { recursive: true, force: true });
  }
}

export function registerDiff(program: Command): void {
  program
    .command('diff')
    .description('show what apply -f would change (exit code 0: nothing, 1: differences, 2: an error)')
    .requiredOption('-f, --filename <path...>', 'file, directory of .yaml/.yml/.json files, or - for stdin')
    .option('-n, --namespace <ns>', 'namespace for documents that name none')
    .action(async (opts: { filename: string[]; namespace?: string }, cmd: Command) => {
      try {
        const { objects, failed } = checkFiles(opts.filename, opts.namespace, 'not compared');
        if (failed > 0) throw new CliError('fix the errors above: diff compares valid files only', 2);
        process.exitCode = await diff(objects, cmd);
      } catch (e) {
        throw e instanceof CliError ? e : new CliError(explainFailure(cmd, e), 2);
      }
    });
}
