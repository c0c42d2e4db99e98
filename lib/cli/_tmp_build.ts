// TEMPORARY: dist/ built with functions/sync.js stubbed while another engineer rewrites it.
import { build } from 'esbuild';
import { readdirSync, renameSync, mkdtempSync, rmSync } from 'node:fs';
const tmp = mkdtempSync('/work/main/dist/.build-');
await build({
  entryPoints: { shpa: '/work/main/lib/cli/main.ts' }, outdir: tmp, chunkNames: 'chunks/[name]-[hash]', bundle: true, splitting: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', sourcemap: 'inline', logLevel: 'error',
  plugins: [{ name: 'missing', setup(b) {
    b.onResolve({ filter: /functions\/sync\.js$/ }, (a) => ({ path: a.path, namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export const createSyncHandler = () => { throw new Error("stub"); }; export const awsAdapters = createSyncHandler;', loader: 'js' }));
  } }],
});
import('node:fs').then(()=>0); const { mkdirSync } = await import('node:fs'); mkdirSync('/work/main/dist/chunks', {recursive: true}); for (const f of readdirSync(`${tmp}/chunks`)) renameSync(`${tmp}/chunks/${f}`, `/work/main/dist/chunks/${f}`); renameSync(`${tmp}/shpa.js`, '/work/main/dist/shpa.js');
rmSync(tmp, { recursive: true });
