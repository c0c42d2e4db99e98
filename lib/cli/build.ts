// Bundles the CLI into dist/shpa.js (dependencies stay in node_modules), which bin/shpa.js runs.
import { renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI_BUNDLE = join(root, 'dist', 'shpa.js');

/** Builds to a temporary file first, so a concurrent run never sees half a bundle. */
export async function buildCli(): Promise<string> {
  const tmp = `${CLI_BUNDLE}.${process.pid}.tmp`;
  await build({
    entryPoints: [join(root, 'lib', 'cli', 'main.ts')],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  renameSync(tmp, CLI_BUNDLE);
  return CLI_BUNDLE;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCli();
