// The Lambda bundles as serverless.yml builds them (test/deploy/bundle.ts): size of each
// function's bundle, the worker's per package, and cold import time, the median over fresh
// `node` processes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleHandler, bytesByPackage, handlers, type Bundle } from '../test/deploy/bundle.js';

const RUNS = 9;
const MAX_BYTES = 1_000_000;
const MAX_IMPORT_MS = 250;

const dir = mkdtempSync(join(tmpdir(), 'shpa-bundle-'));
try {
  const bundles: Record<string, Bundle> = {};
  for (const name of Object.keys(handlers())) {
    bundles[name] = await bundleHandler(dir, name);
    console.log(`${name}: ${bundles[name].bytes} bytes minified`);
  }
  const bundle = bundles.worker;
  console.table(bytesByPackage(bundle.metafile).slice(0, 10).map(([pkg, bytes]) => ({ package: pkg, bytes })));

  // A valid configuration, so the module builds its handler as in Lambda (no AWS call before the first invocation).
  const env = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-west-1',
    SHPA_TABLE: 'shpa',
    SHPA_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/shpa-work',
    SHPA_CLUSTERS: '[{"name":"prod"}]',
  };
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(bundle.file).href)}); console.log(performance.now() - t);`;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`importing the bundle failed: ${r.stderr}`);
    times.push(Number(r.stdout.trim()));
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(RUNS / 2)];
  console.log(`worker cold import: median ${median.toFixed(0)} ms over ${RUNS} processes (min ${times[0].toFixed(0)}, max ${times.at(-1)!.toFixed(0)}), load average ${loadavg()[0].toFixed(1)}`);
  const goals = [
    ...Object.entries(bundles).map(([name, b]) => [`${name} bundle ≤ 1 MB`, b.bytes <= MAX_BYTES, `${b.bytes} bytes`] as const),
    [`cold import ≤ ${MAX_IMPORT_MS} ms`, median <= MAX_IMPORT_MS, `${median.toFixed(0)} ms`],
  ] as const;
  for (const [goal, ok, got] of goals) console.log(`${ok ? 'MET ' : 'MISS'} ${goal}: ${got}`);
  if (goals.some(([, ok]) => !ok)) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
