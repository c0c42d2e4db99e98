// Reading -f FILE|DIR|- into documents, each with where it came from, so that an
// error can name file:line of the offending field.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { isMap, isSeq, LineCounter, parseAllDocuments, type Document } from 'yaml';
import { errorText } from '../shared/error-text.js';

export interface SourceDocument {
  file: string;
  /** 1-based line of the document's start. */
  line: number;
  value: unknown;
  /** file:line of a field path such as "spec.metrics[0].resource.name" (nearest existing parent). */
  locate(path: string): string;
}

export interface SourceFile {
  file: string;
  documents: SourceDocument[];
  /** Syntax errors, each "file:line:col: message". */
  errors: string[];
}

/** A -f argument that names nothing. */
export class PathError extends Error {
  override readonly name = 'PathError';
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** The files named by -f arguments: a directory contributes its .yaml/.yml/.json files, sorted. */
export function expandPaths(paths: string[]): string[] {
  return paths.flatMap((p) => {
    if (p === '-') return [p];
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new PathError(`${p}: no such file or directory`);
    }
    if (!st.isDirectory()) return [p];
    return readdirSync(p)
      .filter((f) => EXTENSIONS.has(extname(f)))
      .sort()
      .map((f) => join(p, f));
  });
}

export function readSource(file: string, stdin: () => string): SourceFile {
  const text = file === '-' ? stdin() : readFileSync(file, 'utf8');
  return parseSource(file === '-' ? '<stdin>' : file, text);
}

export function parseSource(file: string, text: string): SourceFile {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines });
  const out: SourceFile = { file, documents: [], errors: [] };
  for (const doc of docs) {
    const line = lines.linePos(doc.range[0]).line;
    out.errors.push(...syntaxErrors(file, doc, line));
    if (doc.errors.length > 0) continue;
    let value: unknown;
    try {
      value = doc.toJS();
    } catch (e) {
      // The yaml library refuses alias expansion past its limit ("billion laughs"); say where and what to do.
      out.errors.push(`${file}:${line}: ${errorText(e)}: this document expands YAML aliases (*name) too often; write the values out instead`);
      continue;
    }
    if (value === null || value === undefined) continue;
    const at = (prefix: (string | number)[]) => (path: string) => `${file}:${lineOf(doc, lines, [...prefix, ...splitPath(path)]) ?? line}`;
    const problem = shapeProblem(value);
    if (problem) {
      out.errors.push(`${file}:${line}: ${problem}`);
    } else if (isList(value)) {
      // kubectl's kind: List (what "shpa get -o yaml" prints): each item is a document.
      value.items.forEach((item, i) => {
        const itemProblem = shapeProblem(item);
        if (itemProblem) out.errors.push(`${at(['items', i])('')}: items[${i}]: ${itemProblem}`);
        else out.documents.push({ file, line, value: item, locate: at(['items', i]) });
      });
    } else {
      out.documents.push({ file, line, value, locate: at([]) });
    }
  }
  return out;
}

/** kubectl's v1 List: { apiVersion: v1, kind: List, items: [...] }. */
function isList(v: unknown): v is { items: unknown[] } {
  const o = v as { apiVersion?: unknown; kind?: unknown; items?: unknown };
  return o.kind === 'List' && o.apiVersion === 'v1' && Array.isArray(o.items);
}

/** What is wrong with a document that is no object at all, and what to write instead; undefined for an object. */
function shapeProblem(v: unknown): string | undefined {
  if (Array.isArray(v)) {
    return 'the document is a list, not an object: write each object as its own document (separate them with a line "---"), or wrap them in "apiVersion: v1, kind: List, items: [...]"';
  }
  if (typeof v !== 'object' || v === null) return `the document is ${JSON.stringify(v)}, not an object: write an object with apiVersion, kind, metadata and spec`;
  return undefined;
}

/** One "file:line:col: message" per syntax error of a document. */
function syntaxErrors(file: string, doc: Document, docLine: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of doc.errors) {
    const at = e.linePos ? `${e.linePos[0].line}:${e.linePos[0].col}` : String(docLine);
    // One mistake (a truncated flow map) can raise several errors at the same spot: report it once.
    if (seen.has(at)) continue;
    seen.add(at);
    // The yaml library appends " at line L, column C:" and a snippet of the source; the prefix says where.
    out.push(`${file}:${at}: ${e.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').split('\n')[0]}`);
  }
  return out;
}

/** "spec.metrics[0].resource" -> ["spec", "metrics", 0, "resource"]; "labels[a.b]" keeps "a.b". */
export function splitPath(path: string): (string | number)[] {
  const parts: (string | number)[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (let m; (m = re.exec(path)); ) parts.push(m[1] ?? (/^\d+$/.test(m[2]) ? Number(m[2]) : m[2]));
  return parts;
}

function lineOf(doc: Document, lines: LineCounter, parts: (string | number)[]): number | undefined {
  for (let n = parts.length; n > 0; n--) {
    const node = doc.getIn(parts.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    const parent = n > 1 ? doc.getIn(parts.slice(0, n - 1), true) : doc.contents;
    // The key's line is where the user reads the field; fall back to the value's.
    if (isMap(parent)) {
      const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === parts[n - 1]);
      const range = (pair?.key as { range?: [number, number, number] } | null)?.range;
      if (range) return lines.linePos(range[0]).line;
    }
    if (isSeq(parent) && node?.range) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}
