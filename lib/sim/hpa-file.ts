// Reads the HPAs of a YAML/JSON file for the simulator: validated by lib/hpa, errors with field and file:line.
import { isNode, LineCounter, parseAllDocuments, type Document } from 'yaml';
import type { HorizontalPodAutoscaler } from '../hpa/types.js';
import { formatFieldError, validateHPA } from '../hpa/validation.js';

export class HpaFileError extends Error {
  override readonly name = 'HpaFileError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** "spec.metrics[0].resource.name" -> ["spec", "metrics", 0, "resource", "name"] */
function fieldPath(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

/** The line of the deepest node of `field` that exists in the document (the document's first line otherwise). */
function lineOf(doc: Document, lc: LineCounter, field: string): number {
  const path = fieldPath(field);
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
  }
  return doc.contents?.range ? lc.linePos(doc.contents.range[0]).line : 1;
}

/** The HorizontalPodAutoscaler documents of a file; other kinds (e.g. CloudWatchMetric) are skipped. */
export function readHpas(text: string, file: string): HorizontalPodAutoscaler[] {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc });
  const problems: string[] = [];
  const hpas: HorizontalPodAutoscaler[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) problems.push(`${file}:${e.linePos?.[0].line ?? '?'}: ${e.message.split('\n')[0]}`);
      continue;
    }
    const obj: unknown = doc.toJS();
    if (obj === null || obj === undefined) continue;
    if (typeof obj !== 'object' || (obj as { kind?: unknown }).kind !== 'HorizontalPodAutoscaler') continue;
    const v = validateHPA(obj);
    if (v.valid) hpas.push(v.hpa);
    else for (const e of v.errors) problems.push(`${file}:${lineOf(doc, lc, e.field)}: ${formatFieldError(e)}`);
  }
  if (problems.length > 0) throw new HpaFileError(problems);
  if (hpas.length === 0) throw new HpaFileError([`${file}: no HorizontalPodAutoscaler in this file`]);
  return hpas;
}
