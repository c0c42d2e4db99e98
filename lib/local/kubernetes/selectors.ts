// labelSelector and fieldSelector of list and watch requests, as kube-apiserver
// parses and applies them.
import { matchesLabels, parseSelector } from '#hpa';
import { badRequest } from './errors.js';
import { errorText } from '../../shared/error-text.js';

export type LabelFilter = (labels: Record<string, string> | undefined) => boolean;

export function labelFilter(raw: string | undefined, what = 'labelSelector'): LabelFilter {
  if (!raw) return () => true;
  let sel;
  try {
    sel = parseSelector(raw);
  } catch (e) {
    throw badRequest(`unable to parse requirement: ${what}: ${errorText(e)}`);
  }
  return (labels) => matchesLabels(sel, labels);
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

// apimachinery fields.splitTerm tries these at every position, longest first
const termOperators = ['!=', '==', '='] as const;

/** Splits on unescaped commas (fields.splitTerms). */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    if (escaped) escaped = false;
    else if (s[i] === '\\') escaped = true;
    else if (s[i] === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

/** fields.UnescapeValue: only \\, \, and \= are escapes. */
function unescape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') {
      out += s[i];
      continue;
    }
    const next = s[++i];
    if (next !== '\\' && next !== ',' && next !== '=') throw badRequest(`invalid field selector: invalid escape sequence: ${s}`);
    out += next;
  }
  return out;
}

/**
 * fields.ParseSelector, then the kind's field label conversion: a field the kind
 * does not index is `field label not supported: <field>` (400).
 */
export function parseFieldSelector(raw: string | undefined, supported: ReadonlySet<string>): FieldRequirement[] {
  if (!raw) return [];
  const out: FieldRequirement[] = [];
  for (const term of splitTerms(raw)) {
    if (term === '') continue;
    let found: FieldRequirement | undefined;
    for (let i = 0; i < term.length && !found; i++) {
      const op = termOperators.find((o) => term.startsWith(o, i));
      if (op) found = { field: term.slice(0, i), op: op === '!=' ? '!=' : '=', value: unescape(term.slice(i + op.length)) };
    }
    if (!found) throw badRequest(`invalid selector: '${raw}'; can't understand '${term}'`);
    if (!supported.has(found.field)) throw badRequest(`field label not supported: ${found.field}`);
    out.push(found);
  }
  return out;
}

export function fieldsMatch(reqs: readonly FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => ((fields[r.field] ?? '') === r.value) === (r.op === '='));
}
