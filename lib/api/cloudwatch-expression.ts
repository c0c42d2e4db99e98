// CloudWatch metric math, lexically: which query ids an expression refers to, and
// the same expression with its ids renamed (for batching several objects in one call).
// Ids start with a lowercase letter; functions and keywords (SUM, FILL, REPEAT...) are
// upper case; string arguments (SEARCH('...'), METRICS("m")) are quoted and never ids.

export type ExpressionToken =
  | { kind: 'number'; text: string; value: number }
  | { kind: 'name'; text: string }
  | { kind: 'string'; text: string; value: string }
  | { kind: 'punct'; text: string };

export class ExpressionSyntaxError extends Error {
  override readonly name = 'ExpressionSyntaxError';
}

const PUNCT = ['<=', '>=', '==', '!=', '+', '-', '*', '/', '^', '(', ')', ',', '<', '>', '[', ']', '{', '}', ':', '.'];

/** Splits an expression into tokens, keeping every character (whitespace is dropped). */
export function tokenizeExpression(expr: string): ExpressionToken[] {
  const tokens: ExpressionToken[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = expr.indexOf(c, i + 1);
      if (end < 0) throw new ExpressionSyntaxError(`unterminated string starting at character ${i + 1}`);
      tokens.push({ kind: 'string', text: expr.slice(i, end + 1), value: expr.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    const num = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(expr.slice(i));
    if (num) {
      tokens.push({ kind: 'number', text: num[0], value: Number(num[0]) });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(expr.slice(i));
    if (name) {
      tokens.push({ kind: 'name', text: name[0] });
      i += name[0].length;
      continue;
    }
    const p = PUNCT.find((s) => expr.startsWith(s, i));
    if (!p) throw new ExpressionSyntaxError(`unexpected character '${c}' at character ${i + 1}`);
    tokens.push({ kind: 'punct', text: p });
    i += p.length;
  }
  return tokens;
}

/** A Metrics Insights query (SELECT ... FROM ...) has no metric-math ids. */
export function isInsightsQuery(expr: string): boolean {
  return /^\s*SELECT\s/i.test(expr);
}

function isIdToken(t: ExpressionToken): boolean {
  return t.kind === 'name' && /^[a-z]/.test(t.text);
}

/** The distinct query ids an expression refers to, in order of first use. */
export function referencedIds(expr: string): string[] {
  if (isInsightsQuery(expr)) return [];
  return [...new Set(tokenizeExpression(expr).filter(isIdToken).map((t) => t.text))];
}

/** METRICS() refers to every query of the request, so such an expression cannot share a request. */
export function usesAllMetrics(expr: string): boolean {
  if (isInsightsQuery(expr)) return false;
  return tokenizeExpression(expr).some((t) => t.kind === 'name' && t.text === 'METRICS');
}

/** The expression with each id replaced by rename(id); everything else kept as written. */
export function renameIds(expr: string, rename: (id: string) => string): string {
  if (isInsightsQuery(expr)) return expr;
  const out: string[] = [];
  let prev: ExpressionToken | undefined;
  for (const t of tokenizeExpression(expr)) {
    // Names and numbers must stay apart ("m1 AND m2"); punctuation needs no space.
    if (prev && prev.kind !== 'punct' && t.kind !== 'punct') out.push(' ');
    out.push(isIdToken(t) ? rename(t.text) : t.text);
    prev = t;
  }
  return out.join('');
}
