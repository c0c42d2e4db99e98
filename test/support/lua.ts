// Runs Argo CD health checks (infra/argocd/*.lua) in a real Lua interpreter: lua5.4 (Debian's
// lua5.4 package) or lua on PATH; undefined when neither is installed, and the tests skip.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const LUA = ['lua5.4', 'lua'].find((bin) => spawnSync(bin, ['-v'], { stdio: 'ignore' }).status === 0);

/** A JSON value as a Lua table constructor (arrays from 1, as Argo CD's JSON-to-Lua conversion gives). */
export function luaLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `{${v.map(luaLiteral).join(', ')}}`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `[${JSON.stringify(k)}] = ${luaLiteral(x)}`)
    .join(', ')}}`;
}

/** The health an Argo CD health script gives an object: its `obj` global, its returned hs. */
export function argoHealth(scriptPath: string, obj: unknown): { status: string; message: string } {
  if (!LUA) throw new Error('no Lua interpreter on PATH');
  const harness = [
    `local script = ${JSON.stringify(readFileSync(scriptPath, 'utf8'))}`,
    `local env = setmetatable({ obj = ${luaLiteral(obj)} }, { __index = _G })`,
    'local hs = assert(load(script, "health.lua", "t", env))()',
    'io.write(hs.status, "\\n", hs.message or "")',
  ].join('\n');
  const r = spawnSync(LUA, ['-'], { input: harness, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${LUA} failed: ${r.stderr}`);
  const [status, ...message] = r.stdout.split('\n');
  return { status, message: message.join('\n') };
}
