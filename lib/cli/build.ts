// Bundles the CLI into dist/shpa.js (dependencies stay in node_modules), which bin/shpa.js runs.
// Code splitting: what only `shpa demo` uses (local servers, the functions) is a chunk loaded
// when the demo runs, so every other command starts in a fraction of the time.
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = join(root, 'dist');
const ENTRY = 'shpa.js';
const CHUNKS = 'chunks';
/** Chunks of earlier builds are left this long for a run that started before: then removed. */
const STALE_CHUNK_MS = 10 * 60_000;

/**
 * Builds into a temporary folder first; the chunks (content-hashed names) move in, then the entry
 * replaces dist/shpa.js in one rename, so a concurrent run never sees half a build.
 */
export async function buildCli(): Promise<string> {
  mkdirSync(DIST, { recursive: true });
  const tmp = mkdtempSync(join(DIST, '.build-'));
  try {
    await build({
      entryPoints: { shpa: join(root, 'lib', 'cli', 'main.ts') },
      outdir: tmp,
      chunkNames: `${CHUNKS}/[name]-[hash]`,
      bundle: true,
      splitting: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      packages: 'external',
      sourcemap: 'inline',
      logLevel: 'warning',
    });
    const chunks = readdirSync(join(tmp, CHUNKS));
    mkdirSync(join(DIST, CHUNKS), { recursive: true });
    for (const f of chunks) renameSync(join(tmp, CHUNKS, f), join(DIST, CHUNKS, f));
    renameSync(join(tmp, ENTRY), join(DIST, ENTRY));
    const now = Date.now();
    for (const f of readdirSync(join(DIST, CHUNKS))) {
      const path = join(DIST, CHUNKS, f);
      if (!chunks.includes(f) && now - statSync(path).mtimeMs > STALE_CHUNK_MS) unlinkSync(path);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return join(DIST, ENTRY);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCli();
