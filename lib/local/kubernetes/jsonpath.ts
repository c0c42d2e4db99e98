// The part of client-go's JSONPath that CRD printer columns use: fields
// (`.a.b`, `['a.b']`, `a\.b`), array indices (negative too), `[*]`, and filters
// `[?(@.path == "value")]` (==, !=, <, <=, >, >= or mere existence). A missing key
// is no result (AllowMissingKeys, as the CRD table convertor sets it).

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; op?: string; value?: string | number | boolean | null };

export class JsonPathError extends Error {}

function parseSteps(src: string, start: number, stopAtOperator: boolean): { steps: Step[]; end: number } {
  const steps: Step[] = [];
  let i = start;
  const fieldChar = (c: string) => /[A-Za-z0-9_\-/$]/.test(c);
  while (i < src.length) {
    const c = src[i];
    if (c === '.') {
      i++;
      if (src[i] === '.') throw new JsonPathError(`recursive descent is not supported in ${src}`);
      let name = '';
      while (i < src.length && (fieldChar(src[i]) || src[i] === '\\')) {
        if (src[i] === '\\' && src[i + 1] === '.') {
          name += '.';
          i += 2;
        } else name += src[i++];
      }
      if (name === '*') steps.push({ kind: 'all' });
      else if (name) steps.push({ kind: 'field', name });
      else if (src[i] !== '[' && src[i] !== '*') throw new JsonPathError(`unexpected end of field at ${i} in ${src}`);
      if (src[i] === '*') {
        steps.push({ kind: 'all' });
        i++;
      }
    } else if (c === '[') {
      const close = matchingBracket(src, i);
      const inner = src.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^(['"]).*\1$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1)));
      else throw new JsonPathError(`unsupported array expression [${inner}] in ${src}`);
    } else if (stopAtOperator && /[\s=!<>]/.test(c)) {
      break;
    } else {
      throw new JsonPathError(`unexpected character ${JSON.stringify(c)} at ${i} in ${src}`);
    }
  }
  return { steps, end: i };
}

function matchingBracket(src: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  throw new JsonPathError(`unterminated [ in ${src}`);
}

function parseFilter(expr: string): Step {
  const e = expr.trim();
  if (!e.startsWith('@')) throw new JsonPathError(`a filter must start with @: ${expr}`);
  const { steps, end } = parseSteps(e, 1, true);
  const rest = e.slice(end).trim();
  if (!rest) return { kind: 'filter', path: steps };
  const m = /^(==|!=|<=|>=|<|>)\s*(.+)$/.exec(rest);
  if (!m) throw new JsonPathError(`unsupported filter ${expr}`);
  const raw = m[2].trim();
  let value: string | number | boolean | null;
  if (/^(['"]).*\1$/.test(raw)) value = raw.slice(1, -1);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  else if (raw === 'nil' || raw === 'null') value = null;
  else if (!Number.isNaN(Number(raw))) value = Number(raw);
  else throw new JsonPathError(`unsupported filter value ${raw}`);
  return { kind: 'filter', path: steps, op: m[1], value };
}

/** Parses `.a.b[0]` or `{.a.b[0]}`. */
export function compileJsonPath(path: string): Step[] {
  const src = path.startsWith('{') && path.endsWith('}') ? path.slice(1, -1) : path;
  if (!src.startsWith('.') && !src.startsWith('[')) throw new JsonPathError(`must be a simple json path starting with .: ${path}`);
  return parseSteps(src, 0, false).steps;
}

function compareValues(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default: {
      if (typeof a !== 'number' || typeof b !== 'number') return false;
      return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
    }
  }
}

function step(values: unknown[], s: Step): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (s.kind === 'field') {
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && s.name in v) out.push((v as Record<string, unknown>)[s.name]);
    } else if (s.kind === 'index') {
      if (Array.isArray(v)) {
        const i = s.index < 0 ? v.length + s.index : s.index;
        if (i >= 0 && i < v.length) out.push(v[i]);
      }
    } else if (s.kind === 'all') {
      if (Array.isArray(v)) out.push(...v);
      else if (typeof v === 'object' && v !== null) out.push(...Object.values(v));
    } else if (Array.isArray(v)) {
      for (const item of v) {
        const found = evaluate(item, s.path);
        if (s.op === undefined ? found.length > 0 : found.some((x) => compareValues(x, s.op!, s.value))) out.push(item);
      }
    }
  }
  return out;
}

/** Every value the path reaches, in order. */
export function evaluate(data: unknown, steps: Step[]): unknown[] {
  let values: unknown[] = [data];
  for (const s of steps) {
    values = step(values, s);
    if (values.length === 0) break;
  }
  return values;
}

/** fmt's %v of a JSON value, as jsonpath PrintResults writes it for a string column. */
export function printValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'object') return JSON.stringify(v);
  if (typeof v === 'number') return formatGoFloat(v);
  return String(v);
}

/** Go's %v of a float64 (strconv 'g', shortest, exponent below 1e-4 or from 1e21); integers as int64. */
function formatGoFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [mantissa, exp] = n.toExponential().split('e');
    const e = Number(exp);
    return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(n);
}
