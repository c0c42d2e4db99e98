// kubectl's -o jsonpath=TEMPLATE: text with {expressions}, {range ...}{end} and {"literals"}; the
// expressions themselves are JSONPath, evaluated by jsonpath-plus.
import { JSONPath } from 'jsonpath-plus';
import { CliError } from './context.js';
import { errorText } from '../shared/error-text.js';

type Node = { text: string } | { path: string } | { range: string; body: Node[] };

/** Splits a template into text and {actions}, quotes inside an action kept whole. */
function tokens(template: string): ({ text: string } | { action: string })[] {
  const out: ({ text: string } | { action: string })[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      out.push({ text: template.slice(i) });
      break;
    }
    if (open > i) out.push({ text: template.slice(i, open) });
    let j = open + 1;
    let quote: string | undefined;
    for (; j < template.length; j++) {
      const c = template[j];
      if (quote) {
        if (c === '\\') j++;
        else if (c === quote) quote = undefined;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '}') break;
    }
    if (j >= template.length) throw new CliError(`jsonpath template ${JSON.stringify(template)}: unclosed action at column ${open + 1}: close it with "}"`);
    out.push({ action: template.slice(open + 1, j).trim() });
    i = j + 1;
  }
  return out;
}

function parse(template: string): Node[] {
  const stack: Node[][] = [[]];
  const ranges: string[] = [];
  for (const t of tokens(template)) {
    const top = stack[stack.length - 1];
    if ('text' in t) top.push(t);
    else if (t.action === 'end') {
      if (stack.length === 1) throw new CliError(`jsonpath template ${JSON.stringify(template)}: {end} without {range}`);
      const body = stack.pop()!;
      stack[stack.length - 1].push({ range: ranges.pop()!, body });
    } else if (t.action.startsWith('range ')) {
      ranges.push(t.action.slice(6).trim());
      stack.push([]);
    } else if (/^"(?:[^"\\]|\\.)*"$/.test(t.action)) {
      top.push({ text: JSON.parse(t.action) as string });
    } else top.push({ path: t.action });
  }
  if (stack.length > 1) throw new CliError(`jsonpath template ${JSON.stringify(template)}: {range} without {end}`);
  return stack[0];
}

/** kubectl's ".a.b", "$.a", "@.a" or "a.b" as a JSONPath from the root. */
function toJsonPath(expr: string): string {
  if (expr.startsWith('$')) return expr;
  if (expr.startsWith('@')) return `$${expr.slice(1)}`;
  if (expr.startsWith('.') || expr.startsWith('[')) return `$${expr}`;
  return `$.${expr}`;
}

function evaluate(expr: string, json: unknown): unknown[] {
  try {
    return JSONPath({ path: toJsonPath(expr), json: json as object, wrap: true }) as unknown[];
  } catch (e) {
    throw new CliError(`jsonpath {${expr}}: ${errorText(e)}`);
  }
}

/** Strings as they are, everything else as JSON, as kubectl prints them. */
function show(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function render(nodes: Node[], json: unknown): string {
  let out = '';
  for (const n of nodes) {
    if ('text' in n) out += n.text;
    else if ('path' in n) out += evaluate(n.path, json).map(show).join(' ');
    else for (const item of evaluate(n.range, json)) out += render(n.body, item);
  }
  return out;
}

/** The template applied to one object (or a v1 List of them); a missing field prints nothing, as kubectl's default. */
export function jsonpathOutput(template: string, json: unknown): string {
  return render(parse(template), json);
}
