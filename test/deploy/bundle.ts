// Builds the handlers with the esbuild options of serverless.yml (custom.esbuild), as
// serverless-esbuild does, so tests and benchmarks measure and run what ships.
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const root = join(import.meta.dirname, '..', '..');

/** serverless.yml's functions and their handler modules (functions/<name>.ts). */
export function handlers(): Record<string, string> {
  const yml = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' }) as { functions: Record<string, { handler: string }> };
  return Object.fromEntries(Object.entries(yml.functions).map(([name, f]) => [name, `${f.handler.replace(/\.[^.]+$/, '')}.ts`]));
}

/** Keys of custom.esbuild that serverless-esbuild consumes itself (the rest goes to esbuild). */
const pluginKeys = ['exclude', 'outputFileExtension'];

export function serverlessEsbuildOptions(): { options: BuildOptions; extension: string } {
  // CloudFormation tags (!Ref, !GetAtt) are not ours to resolve: read them as plain values.
  const yml = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' }) as { custom: { esbuild: Record<string, unknown> } };
  const custom = { ...yml.custom.esbuild };
  // An excluded package would be left to node_modules, which the package does not ship.
  if (!Array.isArray(custom.exclude) || custom.exclude.length > 0) throw new Error('serverless.yml: custom.esbuild.exclude must be []');
  const extension = String(custom.outputFileExtension ?? '.js');
  for (const k of pluginKeys) delete custom[k];
  return { options: custom as BuildOptions, extension };
}

export interface Bundle {
  file: string;
  bytes: number;
  metafile: Metafile;
}

/** Bundles one function's handler into outdir (functions/<name>.mjs there), as `osls package` does. */
export async function bundleHandler(outdir: string, name: string): Promise<Bundle> {
  const entry = handlers()[name];
  if (!entry) throw new Error(`serverless.yml has no function ${name}`);
  const { options, extension } = serverlessEsbuildOptions();
  const result = await build({
    ...options,
    absWorkingDir: root,
    entryPoints: [entry],
    outdir: join(outdir, 'functions'),
    outExtension: { '.js': extension },
    metafile: true,
    logLevel: 'silent',
  });
  const file = join(outdir, entry.replace(/\.ts$/, extension));
  return { file, bytes: statSync(file).size, metafile: result.metafile };
}

/** Output bytes per npm package ("(own)" for this repository), largest first. */
export function bytesByPackage(metafile: Metafile): [string, number][] {
  const per = new Map<string, number>();
  for (const out of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(own)';
      per.set(pkg, (per.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return [...per].sort((a, b) => b[1] - a[1]);
}
