// `osls package` on serverless.yml, offline: fake credentials, no ambient AWS config, and
// (where the kernel allows) inside an empty network namespace, so that any attempt to reach
// AWS or the internet fails the packaging. Packaging takes seconds to a minute: the suite
// runs it at most twice (test/deploy/package.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

export const root = join(import.meta.dirname, '..', '..');
export const offline = spawnSync('unshare', ['-rn', 'true'], { stdio: 'ignore' }).status === 0;
export const REGION = 'eu-west-1';
export const STAGE = 'test';

// The template as JSON: intrinsics are plain objects.
export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Packaged {
  status: number | null;
  output: string;
  /** The update-stack template, when packaging succeeded. */
  template?: Json;
  /** `unzip -l` of the package. */
  listing?: string;
}

/** Runs osls package with these --param values; returns its output, the template and the zip listing, and cleans up. */
export function oslsPackage(params: string[]): Packaged {
  const out = mkdtempSync(join(tmpdir(), 'shpa-package-'));
  const home = mkdtempSync(join(tmpdir(), 'shpa-home-'));
  try {
    const cmd = [process.execPath, join(root, 'node_modules/osls/bin/serverless.js'), 'package', '--region', REGION, '--stage', STAGE, '--package', out, ...params.map((p) => `--param=${p}`)];
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: REGION,
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      SLS_TELEMETRY_DISABLED: '1',
      SLS_NOTIFICATIONS_MODE: 'off',
    };
    const [bin, ...args] = offline ? ['unshare', '-rn', ...cmd] : cmd;
    const r = spawnSync(bin, args, { cwd: root, env, encoding: 'utf8', timeout: 240_000 });
    const packaged: Packaged = { status: r.status, output: `${r.stdout}${r.stderr}` };
    if (r.status === 0) {
      packaged.template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as Json;
      packaged.listing = spawnSync('unzip', ['-l', join(out, 'serverless-hpa.zip')], { encoding: 'utf8' }).stdout;
    }
    return packaged;
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** cfn-lint, the CloudFormation specification check (in the machine image's Python; not every machine has it). */
export const cfnLintAvailable = spawnSync('cfn-lint', ['--version'], { stdio: 'ignore' }).status === 0;
if (!cfnLintAvailable) console.log('cfn-lint not found: the CloudFormation specification check of the packaged templates is skipped');

/** The errors (not warnings) cfn-lint finds in `template` for the deploy's region, one line each. */
export function cfnLintErrors(template: Json): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'shpa-cfn-'));
  try {
    const file = join(dir, 'template.json');
    writeFileSync(file, JSON.stringify(template));
    const r = spawnSync('cfn-lint', ['--format', 'parseable', '--regions', REGION, '--non-zero-exit-code', 'error', file], { encoding: 'utf8', timeout: 120_000 });
    const lines = `${r.stdout}`.split('\n').filter((l) => /:E\d+:/.test(l));
    if (r.status !== 0 && lines.length === 0) return [`cfn-lint failed: ${r.stderr || r.stdout}`];
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The configuration-validation warnings osls printed (one line per problem). */
export function configWarnings(output: string): string[] {
  const block = /Warning: Invalid configuration encountered\n((?: {2}at .*\n)+)/.exec(output);
  return block ? block[1].trim().split('\n').map((l) => l.trim()) : [];
}

/** A resource or intrinsic as a short readable string: "GetAtt WorkQueue.Arn", the Fn::Sub text, "Ref X", or the string. */
export function show(v: unknown): string {
  if (typeof v === 'string') return v;
  const o = v as Json;
  if (o?.['Fn::GetAtt']) return `GetAtt ${(o['Fn::GetAtt'] as string[]).join('.')}`;
  if (o?.['Fn::Sub'] !== undefined) return typeof o['Fn::Sub'] === 'string' ? o['Fn::Sub'] : (o['Fn::Sub'] as [string])[0];
  if (o?.Ref) return `Ref ${o.Ref as string}`;
  return JSON.stringify(v);
}

const asList = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/** The statements of a role's inline policies. */
export function roleStatements(template: Json, roleId: string): Json[] {
  const role = template.Resources[roleId];
  if (!role) throw new Error(`no resource ${roleId}`);
  return (role.Properties.Policies as Json[]).flatMap((p) => p.PolicyDocument.Statement as Json[]);
}

/** Every "action resource" pair a role allows, sorted: the list a widening changes. */
export function grants(template: Json, roleId: string): string[] {
  return roleStatements(template, roleId)
    .flatMap((s) => {
      expect(s.Effect).toBe('Allow');
      return asList(s.Action as string).flatMap((a) => asList(s.Resource).map((r) => `${a} ${show(r)}`));
    })
    .sort();
}
