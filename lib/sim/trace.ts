// Metric traces for the simulator and the demo: CSV with a timestamp column and
// one or more value columns, as written by hand or exported from CloudWatch.
import { parse } from 'csv-parse/sync';

/** A step function of time: each series holds its value until the next point. */
export interface Trace {
  /** Series names: the value columns (or CloudWatch labels), in file order. */
  series: string[];
  /** Epoch milliseconds, ascending, unique. */
  times: number[];
  /** values[s][i] is series s at times[i]; NaN where the row had no value (holds the previous one). */
  values: number[][];
  /** gaps[s][i]: the cell said `gap`, the metric cannot be read from then until its next value; absent when no cell did. */
  gaps?: boolean[][];
}

/** A cell that marks a gap: the metric source failed (a metric with a fallback then counts its failure time). */
const GAP_CELL = 'gap';
/** How a gap cell is held while parsing: loads are never negative. */
const GAP = -1;

export class TraceError extends Error {
  override readonly name = 'TraceError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly problem: string,
  ) {
    super(line === undefined ? `${file}: ${problem}` : `${file}:${line}: ${problem}`);
  }
}

const TIME_COLUMNS = new Set(['timestamp', 'time', 'date', 'datetime', 't']);
const LABEL_COLUMNS = new Set(['label', 'metric', 'series', 'id']);

/**
 * Accepts:
 * - a header with a timestamp column (timestamp|time|date|datetime|t) and value columns (any other name);
 * - the long form with a label column (label|metric|series|id), each label a series (CloudWatch "Label","Timestamp","Value");
 * - no header: two columns, timestamp then value.
 * Timestamps: ISO 8601 (no zone means UTC), or numbers: epoch milliseconds from 1e11 on, seconds below.
 * Rows may come in any order (CloudWatch exports newest first); lines starting with # are comments.
 */
export function parseTrace(text: string, file = 'trace'): Trace {
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, {
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      comment: '#',
      trim: true,
      bom: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    const e = err as { lines?: number; message: string };
    throw new TraceError(file, e.lines, `malformed CSV: ${e.message}`);
  }
  if (rows.length === 0) throw new TraceError(file, undefined, 'no rows');

  const header = rows[0].record.map((h) => h.toLowerCase());
  const timeCol = header.findIndex((h) => TIME_COLUMNS.has(h));
  const hasHeader = timeCol >= 0;
  const body = hasHeader ? rows.slice(1) : rows;
  const columns = hasHeader ? rows[0].record : ['timestamp', 'value'];
  const tCol = hasHeader ? timeCol : 0;
  if (!hasHeader && parseTimestamp(rows[0].record[0]) === undefined) {
    // A first row that is no data row is a header without a timestamp column.
    throw new TraceError(file, rows[0].info.lines, `no timestamp column (expected one of ${[...TIME_COLUMNS].join(', ')})`);
  }
  if (!hasHeader && rows[0].record.length !== 2) {
    throw new TraceError(file, rows[0].info.lines, 'expected a header with a timestamp column, or two columns: timestamp,value');
  }
  const labelCol = hasHeader ? header.findIndex((h) => LABEL_COLUMNS.has(h)) : -1;
  const valueCols = columns.map((_, i) => i).filter((i) => i !== tCol && i !== labelCol);
  if (valueCols.length === 0) throw new TraceError(file, rows[0].info.lines, 'no value column');
  if (labelCol >= 0 && valueCols.length !== 1) {
    throw new TraceError(file, rows[0].info.lines, 'a trace with a label column must have exactly one value column');
  }

  // series name -> (time -> value)
  const bySeries = new Map<string, Map<number, number>>();
  if (labelCol < 0) for (const c of valueCols) bySeries.set(columns[c], new Map());
  const allTimes = new Set<number>();
  for (const { record, info } of body) {
    const line = info.lines;
    if (record.length !== columns.length) {
      throw new TraceError(file, line, `expected ${columns.length} fields (${columns.join(',')}), found ${record.length}`);
    }
    const t = parseTimestamp(record[tCol]);
    if (t === undefined) throw new TraceError(file, line, `timestamp ${JSON.stringify(record[tCol])} is neither ISO 8601 nor epoch seconds/milliseconds`);
    allTimes.add(t);
    for (const c of valueCols) {
      const name = labelCol >= 0 ? record[labelCol] : columns[c];
      let series = bySeries.get(name);
      if (!series) bySeries.set(name, (series = new Map()));
      const cell = record[c];
      if (cell === '') continue; // a missing datapoint: the previous value holds
      if (cell.toLowerCase() === GAP_CELL) {
        if (series.has(t)) throw new TraceError(file, line, `duplicate timestamp ${record[tCol]} for ${name}`);
        series.set(t, GAP);
        continue;
      }
      const v = Number(cell);
      if (!Number.isFinite(v)) throw new TraceError(file, line, `${columns[c]} ${JSON.stringify(cell)} is not a number`);
      // A load (CPU cores, bytes, messages) is never negative: a sign here is a mistake in the export.
      if (v < 0) throw new TraceError(file, line, `${columns[c]} ${cell} is negative: a load is 0 or more (leave the cell empty for a missing datapoint)`);
      if (series.has(t)) throw new TraceError(file, line, `duplicate timestamp ${record[tCol]} for ${name}`);
      series.set(t, v);
    }
  }
  if (allTimes.size === 0) throw new TraceError(file, undefined, 'no data rows');

  const times = [...allTimes].sort((a, b) => a - b);
  const series = [...bySeries.keys()];
  const values = series.map((name) => {
    const m = bySeries.get(name)!;
    return times.map((t) => {
      const v = m.get(t);
      return v === undefined || v === GAP ? Number.NaN : v;
    });
  });
  for (let s = 0; s < series.length; s++) {
    if (values[s].every((v) => Number.isNaN(v))) throw new TraceError(file, undefined, `series ${series[s]} has no values`);
  }
  const gaps = series.map((name) => times.map((t) => bySeries.get(name)!.get(t) === GAP));
  return gaps.some((g) => g.includes(true)) ? { series, times, values, gaps } : { series, times, values };
}

function parseTimestamp(s: string): number | undefined {
  if (/^-?\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    return n >= 1e11 ? Math.round(n) : Math.round(n * 1000);
  }
  // ISO 8601 without a zone is read as UTC (CloudWatch exports are UTC).
  const iso = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(s) ? `${s.replace(' ', 'T')}Z` : s;
  if (!/^\d{4}-\d\d-\d\d/.test(iso)) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

/** The value of a series at time t: the latest point at or before t (the first point before the trace starts). */
export function valueAt(trace: Trace, seriesIndex: number, t: number): number {
  const vals = trace.values[seriesIndex];
  for (let i = lastIndexAtOrBefore(trace.times, t); i >= 0; i--) if (!Number.isNaN(vals[i])) return vals[i];
  return vals.find((v) => !Number.isNaN(v))!;
}

/** The reading of a series at time t: valueAt's value, or undefined inside a gap (the latest cell at or before t said `gap`). */
export function readingAt(trace: Trace, seriesIndex: number, t: number): number | undefined {
  const gaps = trace.gaps?.[seriesIndex];
  if (gaps) {
    const vals = trace.values[seriesIndex];
    for (let i = lastIndexAtOrBefore(trace.times, t); i >= 0; i--) {
      if (gaps[i]) return undefined;
      if (!Number.isNaN(vals[i])) break;
    }
  }
  return valueAt(trace, seriesIndex, t);
}

/** Binary search: the last index with times[i] <= t, or -1. */
function lastIndexAtOrBefore(times: number[], t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  let idx = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) {
      idx = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return idx;
}

/** The series named like a metric (case-insensitive), or -1. */
export function findSeries(trace: Trace, name: string): number {
  return trace.series.findIndex((s) => s.toLowerCase() === name.toLowerCase());
}
