// The Lambda bundles as serverless.yml builds them (test/deploy/bundle.ts): each function's
// bundle size, the worker's per package, and each one's cold import time, the median over
// fresh `node` processes, next to the start of `node -e 0` (what no bundle can go below).
// The processes take turns, so a load that comes and goes weighs on every column alike; the
// import's CPU time is printed too, as other processes on the machine stretch wall time more.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleHandler, bytesByPackage, handlers, type Bundle } from '../test/deploy/bundle.js';
import { fixed, quantile } from './support/stats.js';

const RUNS = 15;
const MAX_BYTES = 1_000_000;
const MAX_IMPORT_MS = 250;

// A valid configuration, so each module builds its handler as in Lambda (no AWS call before the first invocation).
const env = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-1',
  SHPA_TABLE: 'shpa',
  SHPA_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/shpa-work',
  SHPA_CLUSTERS: '[{"name":"prod"}]',
};

interface Sample {
  wallMs: number;
  importMs: number;
  importCpuMs: number;
}

/** Wall time of one fresh process, and the import's wall and CPU time it printed (0 for `node -e 0`). */
function run(dir: string, args: string[]): Sample {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8' });
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
  const printed = JSON.parse(r.stdout.trim() || '{}') as Partial<Sample>;
  return { wallMs, importMs: printed.importMs ?? 0, importCpuMs: printed.importCpuMs ?? 0 };
}

const dir = mkdtempSync(join(tmpdir(), 'shpa-bundle-'));
try {
  const bundles: Record<string, Bundle> = {};
  for (const name of Object.keys(handlers())) bundles[name] = await bundleHandler(dir, name);
  console.table(bytesByPackage(bundles.worker.metafile).slice(0, 10).map(([pkg, bytes]) => ({ package: pkg, bytes })));

  const script = (file: string) =>
    `const t = performance.now(), c = process.cpuUsage(); await import(${JSON.stringify(pathToFileURL(file).href)}); ` +
    `const u = process.cpuUsage(c); console.log(JSON.stringify({ importMs: performance.now() - t, importCpuMs: (u.user + u.system) / 1000 }));`;
  const subjects: Record<string, string[]> = { 'node -e 0': ['-e', '0'] };
  for (const [name, b] of Object.entries(bundles)) subjects[name] = ['--input-type=module', '-e', script(b.file)];
  const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(subjects).map((s) => [s, []]));
  for (let i = 0; i < RUNS; i++) for (const [s, args] of Object.entries(subjects)) samples[s].push(run(dir, args));
  const median = (s: string, k: keyof Sample) => quantile(samples[s].map((x) => x[k]), 0.5);
  const nodeMs = median('node -e 0', 'wallMs');
  console.table(
    Object.keys(subjects).map((s) => {
      const b = bundles[s];
      const range = samples[s].map((x) => x.importMs);
      return {
        function: s,
        bytes: b?.bytes ?? '',
        'import ms': b ? fixed(median(s, 'importMs')) : '',
        'import ms min–max': b ? `${fixed(Math.min(...range))}–${fixed(Math.max(...range))}` : '',
        'import CPU ms': b ? fixed(median(s, 'importCpuMs')) : '',
        'process ms': fixed(median(s, 'wallMs')),
        'import / node -e 0': b ? fixed(median(s, 'importMs') / nodeMs, 1) : '',
      };
    }),
  );
  console.log(`medians over ${RUNS} processes each, taking turns; "node -e 0" is its whole process; load average ${loadavg()[0].toFixed(1)}`);

  const goals = Object.entries(bundles).flatMap(([name, b]) => {
    const importMs = median(name, 'importMs');
    return [
      [`${name} bundle ≤ 1 MB`, b.bytes <= MAX_BYTES, `${b.bytes} bytes`],
      [`${name} cold import ≤ ${MAX_IMPORT_MS} ms`, importMs <= MAX_IMPORT_MS, `${fixed(importMs)} ms`],
    ] as const;
  });
  for (const [goal, ok, got] of goals) console.log(`${ok ? 'MET ' : 'MISS'} ${goal}: ${got}`);
  if (goals.some(([, ok]) => !ok)) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
