// The layout issue 30 asks for, checked on every run: each library is used through its front door
// (scripts/front-doors.mjs --check finds nothing to route and no stale entry), and no function on the
// tick path is longer than 80 lines.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const MAX_LINES = 80;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : name.endsWith('.ts') ? [p] : [];
  });
}

/** Every function-like body in a file with its length in lines. */
function functionLengths(file: string): { name: string; line: number; lines: number }[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { name: string; line: number; lines: number }[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const start = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      const named = (n as { name?: ts.Node }).name ?? (n.parent as { name?: ts.Node }).name;
      out.push({ name: named?.getText() ?? '(anonymous)', line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('layout', () => {
  it('every library is used through its front door, and each entry names exactly what is used', () => {
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'front-doors.mjs'), '--check', root], { encoding: 'utf8' });
    expect(run.stderr + run.stdout).toContain('0 file(s) to change');
    expect(run.status).toBe(0);
    // It parses every source file: seconds on an idle machine, more beside other work.
  }, 120_000);

  it(`no function on the tick path is longer than ${MAX_LINES} lines`, () => {
    const tickPath = [
      ...filesUnder(join(root, 'functions')),
      ...filesUnder(join(root, 'lib', 'sync')),
      join(root, 'lib', 'hpa', 'reconcile.ts'),
      join(root, 'lib', 'hpa', 'replica-calculator.ts'),
    ];
    const long = tickPath.flatMap((f) =>
      functionLengths(f)
        .filter((fn) => fn.lines > MAX_LINES)
        .map((fn) => `${relative(root, f)}:${fn.line} ${fn.name} (${fn.lines} lines)`),
    );
    expect(long).toEqual([]);
  });
});
