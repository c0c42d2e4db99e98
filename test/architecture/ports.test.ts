// The ports (lib/sync/ports) are what core and adapters share, so imports between them run one way: a port
// file imports other ports and API types (lib/api, lib/hpa), never lib/sync's implementation, which imports
// them (as upstream's metrics/interfaces.go imports the API types and nothing of the controller).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ports = join(import.meta.dirname, '..', '..', 'lib', 'sync', 'ports');
const ALLOWED = [/^\.\/[a-z-]+\.js$/, /^#api$/, /^#hpa(\/api)?$/];

describe('ports', () => {
  it('import only other ports and API types', () => {
    const files = readdirSync(ports).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    const outside = files.flatMap((f) => {
      const sf = ts.createSourceFile(f, readFileSync(join(ports, f), 'utf8'), ts.ScriptTarget.Latest, true);
      return sf.statements
        .filter((s): s is ts.ImportDeclaration | ts.ExportDeclaration => (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier !== undefined)
        .map((s) => (s.moduleSpecifier as ts.StringLiteral).text)
        .filter((spec) => !ALLOWED.some((re) => re.test(spec)))
        .map((spec) => `${f}: ${spec}`);
    });
    expect(outside).toEqual([]);
  });
});
