// One serverless.yml for osls and Serverless Framework v4. Serverless Framework v4 is not
// installed here (it needs a login and the network), so its rules that concern this file
// are checked on the file itself; package.test.ts runs osls on it.
//
// Where v4 states them:
// - docs/providers/aws/guide/building.md, "Plugin Conflicts" (serverless/serverless): plugins
//   that build your code (serverless-esbuild, serverless-webpack, serverless-plugin-typescript)
//   "will not work unless you opt out of the default build experience";
// - packages/serverless/lib/classes/plugin-manager.js, PluginManager.addPlugin (since 4.0.24):
//   throws PLUGIN_TYPESCRIPT_CONFLICT when one of serverless-esbuild, serverless-plugin-typescript,
//   serverless-webpack or serverless-bundle is listed and `build.esbuild !== false`, false itself,
//   not `bundle: false` nor the string "false" (serverless/serverless issue #12672).
// And osls' side: its schema (node_modules/osls/lib/config-schema.js) has no `build`, so the
// file packages with osls only when configValidationMode is warn or off.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { root } from './osls.js';

const LEGACY_BUNDLERS = ['serverless-esbuild', 'serverless-plugin-typescript', 'serverless-webpack', 'serverless-bundle'];

interface ServiceFile {
  frameworkVersion?: string;
  plugins?: string[] | { modules?: string[] };
  build?: { esbuild?: unknown };
  configValidationMode?: string;
}

/** What Serverless Framework v4 and osls would refuse in this file, one line per rule broken. */
function refusals(yml: ServiceFile): string[] {
  const plugins = Array.isArray(yml.plugins) ? yml.plugins : (yml.plugins?.modules ?? []);
  const out: string[] = [];
  for (const p of plugins.filter((name) => LEGACY_BUNDLERS.includes(name))) {
    if (yml.build?.esbuild !== false) out.push(`v4: PLUGIN_TYPESCRIPT_CONFLICT (${p} listed, build.esbuild is not false)`);
  }
  if (yml.build !== undefined && !['warn', 'off'].includes(yml.configValidationMode ?? 'error')) out.push("osls: unrecognized property 'build' (configValidationMode must be warn or off)");
  return out;
}

const serverlessYml = () => parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' }) as ServiceFile;

describe('serverless.yml for both osls and Serverless Framework v4', () => {
  it('lists serverless-esbuild (the build the tests measure), with build.esbuild false and validation that warns', () => {
    const yml = serverlessYml();
    expect(yml.plugins).toContain('serverless-esbuild');
    expect(yml.build).toEqual({ esbuild: false });
    expect(yml.configValidationMode).toBe('warn');
    expect(refusals(yml)).toEqual([]);
  });

  it('would be refused by v4 without build.esbuild: false, or with a look-alike', () => {
    const yml = serverlessYml();
    const conflict = ['v4: PLUGIN_TYPESCRIPT_CONFLICT (serverless-esbuild listed, build.esbuild is not false)'];
    expect(refusals({ ...yml, build: undefined })).toEqual(conflict);
    expect(refusals({ ...yml, build: { esbuild: 'false' } })).toEqual(conflict);
    expect(refusals({ ...yml, build: { esbuild: { bundle: false } } })).toEqual(conflict);
    expect(refusals({ ...yml, build: {}, plugins: { modules: ['serverless-webpack'] } })).toEqual(['v4: PLUGIN_TYPESCRIPT_CONFLICT (serverless-webpack listed, build.esbuild is not false)']);
  });

  it('would be refused by osls with `build` and strict validation, which osls still has no schema for', () => {
    const yml = serverlessYml();
    expect(refusals({ ...yml, configValidationMode: undefined })).toEqual(["osls: unrecognized property 'build' (configValidationMode must be warn or off)"]);
    expect(refusals({ ...yml, configValidationMode: 'error' })).toHaveLength(1);
    // if osls ever learns `build`, the warn mode (and this test's premise) can go
    const schema = (createRequire(import.meta.url)('osls/lib/config-schema.js') as { properties: Record<string, { enum?: string[] }> }).properties;
    expect(Object.keys(schema)).not.toContain('build');
    expect(schema.configValidationMode.enum).toContain('warn');
  });

  it('pins Serverless Framework v4 to 4.36.1 or newer, below v5, and admits the osls installed here', () => {
    const require = createRequire(import.meta.url);
    const semver = require('semver') as { satisfies(v: string, range: string): boolean };
    const range = serverlessYml().frameworkVersion!;
    const osls = (require('osls/package.json') as { version: string }).version;
    expect(semver.satisfies(osls, range), `osls ${osls}`).toBe(true);
    for (const v of ['4.36.1', '4.37.0', '4.99.0']) expect(semver.satisfies(v, range), v).toBe(true);
    for (const v of ['4.36.0', '4.0.24', '3.38.0', '5.0.0', '6.1.0']) expect(semver.satisfies(v, range), v).toBe(false);
  });
});
