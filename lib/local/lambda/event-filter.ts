// Lambda's event filtering (an event source mapping's FilterCriteria): EventBridge-style
// patterns, several OR'ed. A pattern names leaf paths of the record; every path must match
// (AND), any rule of a path may match (OR). Arrays in the record are flattened: a path
// matches when any of the values found under it does. Only leaves (strings, numbers,
// booleans, null) count as values: `exists` is false for a path that holds an object.
import { readFile } from 'node:fs/promises';
import { errorText } from '../../shared/error-text.js';

/** True when Lambda would pass the record to the function. */
export type EventFilter = (record: unknown) => boolean;

type Leaf = string | number | boolean | null;
type NumericOp = '=' | '<' | '<=' | '>' | '>=';
type Rule =
  | { kind: 'equals'; value: Leaf }
  | { kind: 'prefix' | 'suffix' | 'equals-ignore-case'; value: string }
  | { kind: 'exists'; value: boolean }
  | { kind: 'numeric'; checks: [NumericOp, number][] }
  | { kind: 'anything-but'; values: Leaf[] }
  | { kind: 'anything-but-prefix' | 'anything-but-suffix'; value: string }
  | { kind: 'anything-but-ignore-case'; values: string[] };
interface LeafTest {
  path: string[];
  rules: Rule[];
}

export class FilterPatternError extends Error {
  override name = 'FilterPatternError';
}

const MAX_FILTERS = 10;
const OPERATORS = ['prefix', 'suffix', 'equals-ignore-case', 'anything-but', 'numeric', 'exists'];

/**
 * Compiles filter criteria: Lambda's FilterCriteria ({Filters: [{Pattern: "<json>"}]}),
 * one pattern object, or a list of them. Throws FilterPatternError naming the bad path.
 */
export function eventFilter(spec: unknown, source = 'filter'): EventFilter {
  const patterns = patternsOf(spec, source);
  if (patterns.length === 0) throw new FilterPatternError(`${source}: no pattern given; write at least one`);
  if (patterns.length > MAX_FILTERS) {
    throw new FilterPatternError(`${source}: ${patterns.length} patterns; Lambda accepts at most ${MAX_FILTERS} (5 without a quota increase)`);
  }
  const compiled = patterns.map(({ pattern, where }) => compilePattern(pattern, where));
  return (record) => compiled.some((tests) => tests.every((t) => matchRules(t.rules, valuesAt(record, t.path))));
}

/** Reads a JSON file holding a pattern, a list of patterns or FilterCriteria. */
export async function loadEventFilter(path: string): Promise<EventFilter> {
  const text = await readFile(path, 'utf8');
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch (e) {
    throw new FilterPatternError(`${path}: not JSON (${errorText(e)}); write a filter pattern object`);
  }
  return eventFilter(spec, path);
}

function patternsOf(spec: unknown, source: string): { pattern: unknown; where: string }[] {
  if (Array.isArray(spec)) return spec.map((pattern, i) => ({ pattern, where: `${source}[${i}]` }));
  if (isObject(spec) && Object.keys(spec).length === 1 && Array.isArray(spec.Filters)) {
    return spec.Filters.map((f: unknown, i) => {
      const where = `${source}: Filters[${i}].Pattern`;
      if (!isObject(f) || typeof f.Pattern !== 'string') throw new FilterPatternError(`${where}: must be a string holding a JSON pattern`);
      try {
        return { pattern: JSON.parse(f.Pattern) as unknown, where };
      } catch (e) {
        throw new FilterPatternError(`${where}: not JSON (${errorText(e)})`);
      }
    });
  }
  return [{ pattern: spec, where: source }];
}

function compilePattern(pattern: unknown, where: string, path: string[] = []): LeafTest[] {
  const at = path.length ? `${where}: ${path.join('.')}` : where;
  if (!isObject(pattern)) throw new FilterPatternError(`${at}: a pattern must be a JSON object of fields`);
  const fields = Object.entries(pattern);
  if (fields.length === 0) throw new FilterPatternError(`${at}: an empty object matches nothing; name at least one field`);
  return fields.flatMap(([field, value]) => {
    const sub = [...path, field];
    if (Array.isArray(value)) return [{ path: sub, rules: compileRules(value, `${where}: ${sub.join('.')}`) }];
    if (isObject(value)) return compilePattern(value, where, sub);
    throw new FilterPatternError(`${where}: ${sub.join('.')}: must be an array of rules (e.g. ["INSERT"]) or an object of fields, not ${JSON.stringify(value)}`);
  });
}

function compileRules(rules: unknown[], at: string): Rule[] {
  if (rules.length === 0) throw new FilterPatternError(`${at}: an empty array matches nothing; list at least one rule`);
  return rules.map((rule, i) => compileRule(rule, `${at}[${i}]`));
}

function compileRule(rule: unknown, at: string): Rule {
  if (isLeaf(rule)) return { kind: 'equals', value: rule };
  if (!isObject(rule)) throw new FilterPatternError(`${at}: a rule is a value or an object such as {"prefix": "x"}, not ${JSON.stringify(rule)}`);
  const keys = Object.keys(rule);
  if (keys.length !== 1 || !OPERATORS.includes(keys[0])) {
    throw new FilterPatternError(`${at}: ${JSON.stringify(rule)} is not a rule; use one of ${OPERATORS.join(', ')}`);
  }
  const op = keys[0];
  const arg = rule[op];
  const needString = (): string => {
    if (typeof arg !== 'string') throw new FilterPatternError(`${at}: "${op}" takes a string, not ${JSON.stringify(arg)}`);
    return arg;
  };
  switch (op) {
    case 'prefix':
    case 'suffix':
    case 'equals-ignore-case':
      return { kind: op, value: needString() };
    case 'exists':
      if (typeof arg !== 'boolean') throw new FilterPatternError(`${at}: "exists" takes true or false, not ${JSON.stringify(arg)}`);
      return { kind: 'exists', value: arg };
    case 'numeric':
      return { kind: 'numeric', checks: compileNumeric(arg, at) };
    default:
      return compileAnythingBut(arg, at);
  }
}

function compileNumeric(arg: unknown, at: string): [NumericOp, number][] {
  const bad = (why: string) =>
    new FilterPatternError(`${at}: "numeric" ${why}; write e.g. ["=", 100] or [">", 10, "<=", 20]`);
  if (!Array.isArray(arg) || (arg.length !== 2 && arg.length !== 4)) throw bad(`takes [op, number] or [op, number, op, number], not ${JSON.stringify(arg)}`);
  const checks: [NumericOp, number][] = [];
  for (let i = 0; i < arg.length; i += 2) {
    const [op, n] = [arg[i], arg[i + 1]];
    if (!['=', '<', '<=', '>', '>='].includes(op)) throw bad(`has unknown operator ${JSON.stringify(op)}`);
    if (typeof n !== 'number' || !Number.isFinite(n)) throw bad(`compares with ${JSON.stringify(n)}, which is not a number`);
    checks.push([op as NumericOp, n]);
  }
  if (checks.length === 2) {
    const lower = checks.filter(([op]) => op === '>' || op === '>=').length;
    const upper = checks.filter(([op]) => op === '<' || op === '<=').length;
    if (lower !== 1 || upper !== 1) throw bad('range needs one lower bound (> or >=) and one upper bound (< or <=)');
  }
  return checks;
}

function compileAnythingBut(arg: unknown, at: string): Rule {
  const bad = () =>
    new FilterPatternError(
      `${at}: "anything-but" takes a string, a number, a list of them, or {"prefix"|"suffix"|"equals-ignore-case": ...}, not ${JSON.stringify(arg)}`,
    );
  if (typeof arg === 'string' || typeof arg === 'number') return { kind: 'anything-but', values: [arg] };
  if (Array.isArray(arg)) {
    if (arg.length === 0 || !arg.every((v) => typeof v === 'string' || typeof v === 'number')) throw bad();
    return { kind: 'anything-but', values: arg as Leaf[] };
  }
  if (!isObject(arg) || Object.keys(arg).length !== 1) throw bad();
  const [[op, v]] = Object.entries(arg);
  if ((op === 'prefix' || op === 'suffix') && typeof v === 'string') return { kind: `anything-but-${op}`, value: v };
  if (op === 'equals-ignore-case') {
    const values = typeof v === 'string' ? [v] : v;
    if (Array.isArray(values) && values.length > 0 && values.every((x) => typeof x === 'string')) {
      return { kind: 'anything-but-ignore-case', values: values.map((x: string) => x.toLowerCase()) };
    }
  }
  throw bad();
}

/** The leaves found under path, descending into arrays at every level. */
function valuesAt(node: unknown, path: string[], i = 0, out: Leaf[] = []): Leaf[] {
  if (Array.isArray(node)) {
    for (const el of node) valuesAt(el, path, i, out);
  } else if (i === path.length) {
    if (isLeaf(node)) out.push(node);
  } else if (isObject(node) && Object.hasOwn(node, path[i])) {
    valuesAt(node[path[i]], path, i + 1, out);
  }
  return out;
}

function matchRules(rules: Rule[], values: Leaf[]): boolean {
  return rules.some((rule) => matchRule(rule, values));
}

function matchRule(rule: Rule, values: Leaf[]): boolean {
  const strings = values.filter((v): v is string => typeof v === 'string');
  switch (rule.kind) {
    case 'exists':
      return rule.value === values.length > 0;
    case 'equals':
      return values.some((v) => v === rule.value);
    case 'prefix':
      return strings.some((v) => v.startsWith(rule.value));
    case 'suffix':
      return strings.some((v) => v.endsWith(rule.value));
    case 'equals-ignore-case':
      return strings.some((v) => v.toLowerCase() === rule.value.toLowerCase());
    case 'numeric':
      return values.some((v) => typeof v === 'number' && rule.checks.every(([op, n]) => compare(v, op, n)));
    case 'anything-but':
      return values.some((v) => v !== null && typeof v !== 'boolean' && !rule.values.includes(v));
    case 'anything-but-prefix':
      return strings.some((v) => !v.startsWith(rule.value));
    case 'anything-but-suffix':
      return strings.some((v) => !v.endsWith(rule.value));
    case 'anything-but-ignore-case':
      return strings.some((v) => !rule.values.includes(v.toLowerCase()));
  }
}

function compare(v: number, op: NumericOp, n: number): boolean {
  switch (op) {
    case '=':
      return v === n;
    case '<':
      return v < n;
    case '<=':
      return v <= n;
    case '>':
      return v > n;
    case '>=':
      return v >= n;
  }
}

function isLeaf(v: unknown): v is Leaf {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
