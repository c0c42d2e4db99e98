import { build } from 'esbuild';
await build({
  entryPoints: ['/work/main/lib/cli/main.ts'], outfile: '/work/main/dist/shpa.js', bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', sourcemap: 'inline', logLevel: 'error',
  plugins: [{ name: 'missing', setup(b) {
    b.onResolve({ filter: /functions\/sync\.js$/ }, (a) => ({ path: a.path, namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export const createSyncHandler = () => { throw new Error("stub"); }; export const awsAdapters = createSyncHandler;', loader: 'js' }));
  } }],
});
