// kubectl's -o: wide, name, yaml, json, jsonpath=TEMPLATE; objects printed one at a time or as a v1 List.
import { stringify } from 'yaml';
import { CliError } from './context.js';
import { jsonpathOutput } from './jsonpath.js';

export type Output = { format: 'table' | 'wide' | 'name' | 'yaml' | 'json' } | { format: 'jsonpath'; template: string };

const FORMATS = ['wide', 'name', 'yaml', 'json', 'jsonpath=TEMPLATE'];

export function parseOutput(o: string | undefined, allowed: readonly string[] = FORMATS): Output {
  if (o === undefined || o === '') return { format: 'table' };
  const jsonpath = /^jsonpath=(.*)$/s.exec(o);
  if (jsonpath && allowed.includes('jsonpath=TEMPLATE')) {
    if (jsonpath[1] === '') throw new CliError('-o jsonpath= needs a template, e.g. -o jsonpath=\'{.items[*].metadata.name}\'');
    return { format: 'jsonpath', template: jsonpath[1] };
  }
  if (allowed.includes(o)) return { format: o as 'wide' | 'name' | 'yaml' | 'json' };
  const unsupported = /^(custom-columns|go-template|template|jsonpath-file|jsonpath-as-json|go-template-file|templatefile)(=|$)/.test(o) ? ' (not supported by shpa, see docs/cli.md)' : '';
  throw new CliError(`unknown output format "${o}"${unsupported}: use ${allowed.join(', ')}`);
}

/** Objects as kubectl prints them with -o yaml|json|jsonpath: the object itself when one was named, else a v1 List. */
export function printObjects(objs: object[], output: Output, single: boolean): string {
  const value = single && objs.length === 1 ? objs[0] : { apiVersion: 'v1', kind: 'List', items: objs, metadata: { resourceVersion: '' } };
  switch (output.format) {
    case 'json':
      return JSON.stringify(value, null, 4) + '\n';
    case 'yaml':
      return stringify(value);
    case 'jsonpath':
      return jsonpathOutput(output.template, value);
    default:
      throw new Error(`printObjects: ${output.format} is a table format`);
  }
}

/** Aligned columns, three spaces apart, as kubectl prints them; `widths` keeps a watch's rows under the first table's header. */
export function formatRow(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('   ');
}

export function columnWidths(rows: string[][]): number[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return widths;
}
