// Label selectors as upstream apimachinery labels.Parse and metav1.LabelSelectorAsSelector.
import { isQualifiedName, isValidLabelValue } from './api/name-rules.js';
import type { LabelSelector } from './types.js';

export class SelectorError extends Error {
  override readonly name = 'SelectorError';
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Requirement {
  key: string;
  operator: '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';
  values: string[];
}

export interface Selector {
  requirements: Requirement[];
  /** Upstream labels.Nothing() (a nil metav1.LabelSelector): matches no labels at all. */
  nothing?: true;
}

/** labels.Everything(): no requirement, matches every label set. */
export const EVERYTHING: Selector = Object.freeze({ requirements: [] }) as Selector;
/** labels.Nothing(): what a nil metav1.LabelSelector converts to. */
export const NOTHING: Selector = Object.freeze({ requirements: [], nothing: true }) as Selector;

/** Upstream Selector.Empty(): true only for a selector without requirements that is not Nothing. */
export function isEmptySelector(sel: Selector): boolean {
  return !sel.nothing && sel.requirements.length === 0;
}

function invalid(path: string, value: string, errs: string[]): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${errs.join('; ')}`;
}

/** strconv.ParseInt(s, 10, 64) succeeds. */
function isInt64(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

/** Upstream NewRequirement: the operator's value count, key and value syntax; all problems in one message. */
function newRequirement(key: string, operator: Requirement['operator'], values: string[], path: string): Requirement {
  const errs: string[] = [];
  const at = (field: string) => (path ? `${path}.${field}` : field);
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(invalid(at('key'), key, keyErrs));
  const shown = () => `[${values.map((v) => JSON.stringify(v)).join(',')}]`;
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(`${at('values')}: Invalid value: ${shown()}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(`${at('values')}: Invalid value: ${shown()}: exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(`${at('values')}: Invalid value: ${shown()}: values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(`${at('values')}: Invalid value: ${shown()}: for 'Gt', 'Lt' operators, exactly one value is required`);
      values.forEach((v, i) => {
        if (!isInt64(v)) errs.push(`${at('values')}[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(invalid(`${at('values')}[${i}][${key}]`, v, valueErrs));
  });
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
  return { key, operator, values };
}

// ---- The selector string lexer and parser (labels.Parse) ----

enum Tok {
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const LITERALS: ReadonlyMap<string, Tok> = new Map([
  [')', Tok.ClosedPar],
  [',', Tok.Comma],
  ['!', Tok.DoesNotExist],
  ['==', Tok.DoubleEquals],
  ['=', Tok.Equals],
  ['>', Tok.GreaterThan],
  ['in', Tok.In],
  ['<', Tok.LessThan],
  ['!=', Tok.NotEquals],
  ['notin', Tok.NotIn],
  ['(', Tok.OpenPar],
]);

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string) => ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';

interface Item {
  tok: Tok;
  lit: string;
}

/** Upstream Lexer; a NUL character reads as the end of the string, as upstream's read() returns 0 there. */
function lex(s: string): Item[] {
  let pos = 0;
  const read = (): string => (pos < s.length ? s[pos++] : '\0');
  const items: Item[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === '\0') {
      items.push({ tok: Tok.End, lit: '' });
      return items;
    }
    pos--;
    if (isSpecial(ch)) {
      // Longest run of special symbols that is still an operator ("!=" vs "!", "==" vs "=").
      let buffer = '';
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (!isSpecial(c)) {
          pos--;
          break;
        }
        buffer += c;
        const tok = LITERALS.get(buffer);
        if (tok !== undefined) last = { tok, lit: buffer };
        else if (last) {
          pos--;
          break;
        }
      }
      // Every single special symbol is an operator, so the run yields one (upstream's ErrorToken cannot occur).
      items.push(last as Item);
    } else {
      let buffer = '';
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (isSpecial(c) || isWhitespace(c)) {
          pos--;
          break;
        }
        buffer += c;
      }
      items.push({ tok: LITERALS.get(buffer) ?? Tok.Identifier, lit: buffer });
    }
  }
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  /** "in" and "notin" are plain identifiers where a value (or key) is expected. */
  private lookahead(values: boolean): Item {
    return this.asContext(this.items[this.position], values);
  }

  private consume(values: boolean): Item {
    return this.asContext(this.items[this.position++], values);
  }

  private asContext(item: Item, values: boolean): Item {
    if (values && (item.tok === Tok.In || item.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: item.lit };
    return item;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === Tok.End) return requirements;
      if (tok !== Tok.Identifier && tok !== Tok.DoesNotExist) throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        requirements.push(this.parseRequirement());
      } catch (e) {
        throw new Error(`unable to parse requirement: ${(e as Error).message}`);
      }
      const next = this.consume(true);
      if (next.tok === Tok.End) return requirements;
      if (next.tok !== Tok.Comma) throw new Error(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.lookahead(true);
      if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) throw new Error(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  private parseRequirement(): Requirement {
    let operator: Requirement['operator'] | undefined;
    let { tok, lit: key } = this.consume(true);
    if (tok === Tok.DoesNotExist) {
      operator = '!';
      ({ tok, lit: key } = this.consume(true));
    }
    if (tok !== Tok.Identifier) throw new Error(`found '${key}', expected: identifier`);
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) throw new Error(invalid('key', key, keyErrs));
    const next = this.lookahead(true).tok;
    if (operator === undefined && (next === Tok.End || next === Tok.Comma)) operator = 'exists';
    // A "!key" followed by anything else still ends here; parse() then rejects the extra token.
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, [], '');
    operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    // Upstream collects values in a sets.String: deduplicated and sorted.
    return newRequirement(key, operator, [...values].sort(), '');
  }

  private parseOperator(): Requirement['operator'] {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case Tok.In:
        return 'in';
      case Tok.NotIn:
        return 'notin';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.NotEquals:
        return '!=';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      default:
        throw new Error(`found '${lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar) throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === Tok.Identifier || tok === Tok.Comma) {
      const values = this.parseIdentifiersList();
      // parseIdentifiersList returns only when a ')' is next; upstream's message here quotes the earlier lookahead.
      if (this.consume(true).tok !== Tok.ClosedPar) throw new Error(`found '${lit}', expected: ')'`);
      return values;
    }
    if (tok === Tok.ClosedPar) {
      this.consume(true);
      return new Set(['']); // "()" is the empty value
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  /** A list of comma-separated, possibly empty, values: "(a,,b)", "(,a)", "(a,)". */
  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === Tok.Identifier) {
        values.add(lit);
        const next = this.lookahead(true);
        if (next.tok === Tok.Comma) continue;
        if (next.tok === Tok.ClosedPar) return values;
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok !== Tok.Comma) throw new Error(`found '${lit}', expected: ',', or identifier`);
      if (values.size === 0) values.add('');
      const next = this.lookahead(true).tok;
      if (next === Tok.ClosedPar) {
        values.add('');
        return values;
      }
      if (next === Tok.Comma) {
        this.consume(true);
        values.add('');
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(true).tok;
    if (next === Tok.End || next === Tok.Comma) return new Set(['']); // "a=" selects an empty value
    const { tok, lit } = this.consume(true);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/** Upstream sorts requirements by key (ByKey); a stable sort keeps equal keys in input order. */
function byKey(requirements: Requirement[]): Requirement[] {
  return requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Parses a selector string ("app=web,tier in (a,b),!canary"); throws SelectorError on malformed input. "" selects everything. */
export function parseSelector(input: string): Selector {
  try {
    return { requirements: byKey(new Parser(lex(input)).parse()) };
  } catch (e) {
    throw new SelectorError(input, (e as Error).message);
  }
}

const EXPRESSION_OPERATORS: Record<string, Requirement['operator']> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/** metav1.LabelSelectorAsSelector; throws SelectorError when invalid. undefined (nil) selects nothing, {} everything. */
export function fromLabelSelector(ls: LabelSelector | undefined): Selector {
  if (ls === undefined || ls === null) return NOTHING;
  const matchLabels = ls.matchLabels ?? {};
  const expressions = ls.matchExpressions ?? [];
  const labelKeys = Object.keys(matchLabels).sort();
  if (labelKeys.length + expressions.length === 0) return EVERYTHING;
  const input = JSON.stringify(ls);
  try {
    const requirements = labelKeys.map((k) => newRequirement(k, '=', [stringAt(matchLabels[k], `matchLabels[${k}]`)], `matchLabels[${k}]`));
    expressions.forEach((expr, i) => {
      stringAt(expr.key, `matchExpressions[${i}].key`);
      (expr.values ?? []).forEach((v, j) => stringAt(v, `matchExpressions[${i}].values[${j}]`));
      const operator = Object.hasOwn(EXPRESSION_OPERATORS, expr.operator) ? EXPRESSION_OPERATORS[expr.operator] : undefined;
      if (operator === undefined) throw new Error(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
      requirements.push(newRequirement(expr.key, operator, [...(expr.values ?? [])], `matchExpressions[${i}]`));
    });
    return { requirements: byKey(requirements) };
  } catch (e) {
    throw new SelectorError(input, (e as Error).message);
  }
}

/** Decoded YAML may hold a number or null where a string belongs. */
function stringAt(v: unknown, path: string): string {
  if (typeof v !== 'string') throw new Error(`${path}: Invalid value: ${JSON.stringify(v)}: must be a string`);
  return v;
}

/** A label's value, or undefined: inherited Object properties are never strings, so this is an own-key test. */
function labelOf(labels: Record<string, string>, key: string): string | undefined {
  const v = labels[key];
  return typeof v === 'string' ? v : undefined;
}

/** strconv.ParseInt(v, 10, 64) as a bigint, or undefined. */
function parseInt64(v: string): bigint | undefined {
  return isInt64(v) ? BigInt(v) : undefined;
}

/** Upstream Requirement.Matches, ANDed over all requirements; Nothing matches no labels. */
export function matchesLabels(sel: Selector, labels: Record<string, string> | undefined): boolean {
  if (sel.nothing) return false;
  const reqs = sel.requirements;
  const ls = labels ?? {};
  for (let i = 0; i < reqs.length; i++) {
    const r = reqs[i];
    const v = labelOf(ls, r.key);
    switch (r.operator) {
      case 'in':
      case '=':
      case '==':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
      case '!=':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
      case 'exists':
        if (v === undefined) return false;
        break;
      case '!':
        if (v !== undefined) return false;
        break;
      case 'gt':
      case 'lt': {
        if (v === undefined || r.values.length !== 1) return false;
        const have = parseInt64(v);
        const want = parseInt64(r.values[0]);
        if (have === undefined || want === undefined) return false;
        if (r.operator === 'gt' ? !(have > want) : !(have < want)) return false;
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

const OPERATOR_TEXT: Record<Requirement['operator'], string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** Upstream Requirement.String(): values sorted on output. */
function requirementToString(r: Requirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  const body = r.operator === 'in' || r.operator === 'notin' ? `(${values})` : values;
  return `${r.key}${OPERATOR_TEXT[r.operator]}${body}`;
}

/** Canonical string form, as upstream Selector.String() (sorted by key); Nothing and Everything both print "". */
export function selectorToString(sel: Selector): string {
  if (sel.nothing) return '';
  return sel.requirements.map(requirementToString).join(',');
}
