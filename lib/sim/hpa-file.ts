// Reads the HPAs of a YAML/JSON file for the simulator: validated by lib/hpa, errors with field and file:line.
import { parseSource } from '../cli/manifests.js';
import { formatFieldError, formatFieldWarning, validateAutoscaler } from '#hpa/api';
import type { HorizontalPodAutoscaler } from '#hpa';

export class HpaFileError extends Error {
  override readonly name = 'HpaFileError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

export interface HpaFile {
  hpas: HorizontalPodAutoscaler[];
  /** "file:line: field: message" for what upstream accepts but will not work as written. */
  warnings: string[];
}

/** The HorizontalPodAutoscaler documents of a file; other kinds (e.g. CloudWatchMetric) are skipped. allowNone: a file with none gives [] (a file of a directory). */
export function readHpas(text: string, file: string, opts: { allowNone?: boolean } = {}): HpaFile {
  const source = parseSource(file, text);
  const problems = [...source.errors];
  const out: HpaFile = { hpas: [], warnings: [] };
  for (const doc of source.documents) {
    if (typeof doc.value !== 'object' || (doc.value as { kind?: unknown }).kind !== 'HorizontalPodAutoscaler') continue;
    // Refused as `shpa apply` refuses it, our annotations (pause, schedules) included.
    const v = validateAutoscaler(doc.value);
    out.warnings.push(...v.warnings.map((w) => `${doc.locate(w.field)}: ${formatFieldWarning(w)}`));
    if (v.valid) out.hpas.push(v.hpa);
    else for (const e of v.errors) problems.push(`${doc.locate(e.field)}: ${formatFieldError(e)}`);
  }
  if (problems.length > 0) throw new HpaFileError(problems);
  if (out.hpas.length === 0 && !opts.allowNone) throw new HpaFileError([`${file}: no HorizontalPodAutoscaler in this file`]);
  return out;
}
