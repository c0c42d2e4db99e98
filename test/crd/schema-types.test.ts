// The CRD schemas and our TypeScript types describe the same objects: read lib/hpa/types.ts and
// lib/api/cloudwatch-types.ts with the TypeScript compiler and walk both side by side.
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DISPLAY_STATUS_FIELDS, hpaSpecSchema, hpaStatusSchema, type JSONSchemaProps } from '../../lib/hpa/api/openapi-schema.js';
import { cloudWatchMetricSpecSchema } from '../../lib/api/cloudwatch-schema.js';

const root = join(import.meta.dirname, '..', '..');
const files = { hpa: join(root, 'lib', 'hpa', 'types.ts'), cloudWatch: join(root, 'lib', 'api', 'cloudwatch-types.ts') };
const program = ts.createProgram(Object.values(files), { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, noEmit: true });
const checker = program.getTypeChecker();

function interfaceType(file: string, name: string): ts.Type {
  const source = program.getSourceFile(file)!;
  const decl = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!decl) throw new Error(`${file}: no interface ${name}`);
  return checker.getTypeAtLocation(decl.name);
}

/** Differences between a TS type and a schema node, as "path: what". */
function compare(type: ts.Type, s: JSONSchemaProps, path: string, typeText = '', extra: Record<string, string[]> = {}): string[] {
  const t = checker.getNonNullableType(type);
  // Aliases of string keep their meaning only in the declaration's text.
  if (typeText === 'QuantityString') return s['x-kubernetes-int-or-string'] ? [] : [`${path}: a quantity must be x-kubernetes-int-or-string`];
  if (typeText === 'Timestamp') return s.type === 'string' && s.format === 'date-time' ? [] : [`${path}: a timestamp must be a date-time string`];
  if (t.flags & ts.TypeFlags.String) return s.type === 'string' ? [] : [`${path}: string in TS, ${s.type} in the schema`];
  if (t.flags & ts.TypeFlags.Number) return s.type === 'integer' || s.type === 'number' ? [] : [`${path}: number in TS, ${s.type} in the schema`];
  if (t.flags & ts.TypeFlags.Boolean) return s.type === 'boolean' ? [] : [`${path}: boolean in TS, ${s.type} in the schema`];
  if (t.isUnion() && t.types.every((u) => u.isStringLiteral())) return literals(t.types.map((u) => (u as ts.StringLiteralType).value), s, path);
  if (checker.isArrayType(t)) {
    if (s.type !== 'array' || !s.items) return [`${path}: a list in TS, ${s.type} in the schema`];
    return compare(checker.getTypeArguments(t as ts.TypeReference)[0], s.items, `${path}[]`);
  }
  const index = t.getStringIndexType();
  if (index) {
    if (s.type !== 'object' || typeof s.additionalProperties !== 'object') return [`${path}: a map in TS, not in the schema`];
    return compare(index, s.additionalProperties, `${path}{}`);
  }
  if (s.type !== 'object') return [`${path}: an object in TS, ${s.type} in the schema`];
  const props = t.getProperties();
  const out: string[] = [];
  const names = new Set(props.map((p) => p.name));
  for (const k of Object.keys(s.properties ?? {})) if (!names.has(k) && !(extra[path] ?? []).includes(k)) out.push(`${path}.${k}: in the schema, not in TS`);
  for (const p of props) {
    const decl = p.valueDeclaration as ts.PropertySignature | undefined;
    const sub = s.properties?.[p.name];
    if (!sub || !decl) {
      out.push(`${path}.${p.name}: in TS, not in the schema`);
      continue;
    }
    const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
    // The schema may leave a field optional that our type always has, never the reverse.
    if (optional && s.required?.includes(p.name)) out.push(`${path}.${p.name}: optional in TS, required in the schema`);
    if (!optional && !s.required?.includes(p.name)) out.push(`${path}.${p.name}: required in TS, optional in the schema`);
    out.push(...compare(checker.getTypeOfSymbolAtLocation(p, decl), sub, `${path}.${p.name}`, decl.type?.getText() ?? ''));
  }
  return out;
}

/** A union of string literals: a string whose enum, or rules, allow exactly those values; or any string (checked by the sync). */
function literals(values: string[], s: JSONSchemaProps, path: string): string[] {
  if (s.type !== 'string') return [`${path}: ${values.join('|')} in TS, ${s.type} in the schema`];
  if (s.enum) return [...s.enum].sort().join() === [...values].sort().join() ? [] : [`${path}: enum ${s.enum.join('|')}, TS ${values.join('|')}`];
  const rules = (s['x-kubernetes-validations'] ?? []).map((r) => r.rule).join(' ');
  if (!rules) return [];
  return values.filter((v) => !rules.includes(`'${v}'`)).map((v) => `${path}: the rules do not allow "${v}"`);
}

describe('CRD schemas and TypeScript types', () => {
  it('HorizontalPodAutoscalerSpec', () => {
    expect(compare(interfaceType(files.hpa, 'HorizontalPodAutoscalerSpec'), hpaSpecSchema(), 'spec')).toEqual([]);
  });

  it('HorizontalPodAutoscalerStatus, plus the display-only fields', () => {
    const diffs = compare(interfaceType(files.hpa, 'HorizontalPodAutoscalerStatus'), hpaStatusSchema(), 'status', '', { status: Object.keys(DISPLAY_STATUS_FIELDS) });
    // Upstream's currentReplicas is omitempty: a status without it is valid, though ours always has it.
    expect(diffs).toEqual(['status.currentReplicas: required in TS, optional in the schema']);
  });

  it('CloudWatchMetricSpec', () => {
    expect(compare(interfaceType(files.cloudWatch, 'CloudWatchMetricSpec'), cloudWatchMetricSpecSchema(), 'spec')).toEqual([]);
  });

  it('notices a drift', () => {
    const schema = hpaSpecSchema();
    delete schema.properties!.behavior;
    schema.properties!.maxReplicas = { type: 'string' };
    expect(compare(interfaceType(files.hpa, 'HorizontalPodAutoscalerSpec'), schema, 'spec')).toEqual([
      'spec.maxReplicas: number in TS, string in the schema',
      'spec.behavior: in TS, not in the schema',
    ]);
  });
});
