// The Lambda bundle as serverless.yml builds it: size goal (≤ 1 MB minified), only
// the Kubernetes client's lower layers, and a module Node loads on its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSync, bytesByPackage, type Bundle } from './bundle.js';

const MAX_BYTES = 1_000_000;

describe('functions/sync bundle', () => {
  let dir: string;
  let bundle: Bundle;
  let inputs: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shpa-bundle-'));
    bundle = await bundleSync(dir);
    inputs = Object.keys(bundle.metafile.inputs);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is at most 1 MB minified', () => {
    const top = bytesByPackage(bundle.metafile)
      .slice(0, 10)
      .map(([p, b]) => `${p} ${(b / 1024).toFixed(0)} KiB`);
    console.info(`bundle: ${bundle.bytes} bytes; ${top.join(', ')}`);
    expect(bundle.bytes).toBeLessThanOrEqual(MAX_BYTES);
  });

  it('takes only the request layer of @kubernetes/client-node, not its index, models or kubeconfig stack', () => {
    const client = inputs.filter((f) => f.includes('node_modules/@kubernetes/client-node/'));
    expect(client.length).toBeGreaterThan(0);
    expect(client.filter((f) => !f.includes('/dist/gen/'))).toEqual([]);
    expect(client.filter((f) => /\/dist\/gen\/(models|apis|index\.js)/.test(f))).toEqual([]);
    for (const pkg of ['ws', 'js-yaml', 'jsonpath-plus', 'tar-stream', 'socks', 'tr46', 'whatwg-url']) {
      expect(inputs.filter((f) => f.includes(`node_modules/${pkg}/`)), pkg).toEqual([]);
    }
  });

  it('loads in a fresh Node process with no node_modules around it', () => {
    const script = `const m = await import(${JSON.stringify(pathToFileURL(bundle.file).href)}); console.log(Object.keys(m).sort().join(','), typeof m.handler);`;
    // A config error is fine here (no SHPA_* set): the handler then fails each invocation with its message.
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('awsAdapters,createSyncHandler,createTelemetry,handler,systemClock function');
  });
});
