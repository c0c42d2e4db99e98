// The Lambda bundles as serverless.yml builds them, one per function: size goal (≤ 1 MB
// minified), only the Kubernetes client's lower layers, each function only what it uses, and
// modules Node loads on their own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleHandler, bytesByPackage, handlers, type Bundle } from './bundle.js';

const MAX_BYTES = 1_000_000;
const FUNCTIONS = ['dispatcher', 'worker', 'stream', 'events'];

/** What only the worker uses: the clusters, their metrics, the cycle and the algorithm. */
const WORKER_ONLY = [
  'node_modules/@kubernetes/client-node/',
  'node_modules/@aws-sdk/client-eks/',
  'node_modules/@aws-sdk/client-sts/',
  'node_modules/@aws-sdk/client-cloudwatch/',
  'lib/cluster/',
  'lib/metrics/metrics-access.ts',
  'lib/metrics/cloudwatch-source.ts',
  'lib/sync/cycle.ts',
  'lib/hpa/replica-calculator.ts',
];
/** What a function that only sends messages does without: the table and EMF metrics. */
const STORE_AND_EMF = ['node_modules/@aws-sdk/client-dynamodb/', 'node_modules/@aws-sdk/lib-dynamodb/', 'lib/store/dynamo-store.ts', 'node_modules/@aws-lambda-powertools/metrics/'];
/** Modules a function's bundle must not even read (esbuild's metafile inputs, before tree shaking). */
const ABSENT: [string, string[]][] = [
  ['dispatcher', WORKER_ONLY],
  ['stream', [...WORKER_ONLY, ...STORE_AND_EMF]],
  // events reads which shards name an alarm from the table, and publishes no metric
  ['events', [...WORKER_ONLY, 'node_modules/@aws-lambda-powertools/metrics/']],
];

describe('function bundles', () => {
  let dir: string;
  const bundles: Record<string, Bundle> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shpa-bundle-'));
    for (const name of FUNCTIONS) bundles[name] = await bundleHandler(dir, name);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are the four handler files of serverless.yml (the evaluator runs the worker\'s)', () => {
    expect(handlers()).toEqual({ ...Object.fromEntries(FUNCTIONS.map((f) => [f, `functions/${f}.ts`])), evaluator: 'functions/worker.ts' });
  });

  it.each(FUNCTIONS)('%s is at most 1 MB minified', (name) => {
    const b = bundles[name];
    const top = bytesByPackage(b.metafile)
      .slice(0, 6)
      .map(([p, bytes]) => `${p} ${(bytes / 1024).toFixed(0)} KiB`);
    console.info(`${name}: ${b.bytes} bytes; ${top.join(', ')}`);
    expect(b.bytes).toBeLessThanOrEqual(MAX_BYTES);
  });

  it.each(FUNCTIONS)('%s takes at most the request layer of @kubernetes/client-node, never its index, models or kubeconfig stack', (name) => {
    const inputs = Object.keys(bundles[name].metafile.inputs);
    const client = inputs.filter((f) => f.includes('node_modules/@kubernetes/client-node/'));
    expect(client.filter((f) => !f.includes('/dist/gen/'))).toEqual([]);
    expect(client.filter((f) => /\/dist\/gen\/(models|apis|index\.js)/.test(f))).toEqual([]);
    // the kubeconfig and exec/attach stack's dependencies
    for (const pkg of ['ws', 'js-yaml', 'tar-stream', 'socks', 'tr46', 'whatwg-url']) {
      expect(inputs.filter((f) => f.includes(`node_modules/${pkg}/`)), pkg).toEqual([]);
    }
  });

  it.each(ABSENT)('%s carries only what it uses: none of the modules only the worker or the table needs', (name, absent) => {
    const inputs = Object.keys(bundles[name].metafile.inputs);
    for (const path of absent) expect(inputs.filter((f) => f.includes(path)), path).toEqual([]);
  });

  it('the worker does carry them (the paths above name real modules)', () => {
    const inputs = Object.keys(bundles.worker.metafile.inputs);
    for (const path of [...WORKER_ONLY, ...STORE_AND_EMF]) expect(inputs.some((f) => f.includes(path)), path).toBe(true);
  });

  it.each(FUNCTIONS)('%s loads in a fresh Node process with no node_modules around it, and exports its handler', (name) => {
    const script = `const m = await import(${JSON.stringify(pathToFileURL(bundles[name].file).href)}); console.log(typeof m.handler${name === 'worker' ? ', typeof m.evaluate' : ''});`;
    // No SHPA_* set: a configuration error is fine here (the handler then fails each invocation with its message).
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(r.stderr).toBe('');
    // the worker's bundle is the evaluator's too (handler functions/worker.evaluate)
    expect(r.stdout.trim()).toBe(name === 'worker' ? 'function function' : 'function');
  });
});
