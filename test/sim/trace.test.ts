import { describe, expect, it } from 'vitest';
import { findSeries, parseTrace, TraceError, valueAt } from '../../lib/sim/trace.js';

function traceError(text: string): TraceError {
  try {
    parseTrace(text, 'load.csv');
  } catch (e) {
    if (e instanceof TraceError) return e;
    throw e;
  }
  throw new Error('expected a TraceError');
}

describe('parseTrace', () => {
  it('reads timestamp,value with ISO timestamps', () => {
    const t = parseTrace('timestamp,value\n2025-01-01T00:00:00Z,1.5\n2025-01-01T00:01:00Z,3\n');
    expect(t.series).toEqual(['value']);
    expect(t.times).toEqual([Date.UTC(2025, 0, 1), Date.UTC(2025, 0, 1, 0, 1)]);
    expect(t.values).toEqual([[1.5, 3]]);
  });

  it('reads the CloudWatch long form, quoted, newest first, zone-less times as UTC', () => {
    const t = parseTrace('"Label","Timestamp","Value"\n"q","2025-01-01 00:02:00",7\n"q","2025-01-01 00:01:00",5\n"r","2025-01-01 00:01:00",1\n');
    expect(t.series).toEqual(['q', 'r']);
    expect(t.times).toEqual([Date.UTC(2025, 0, 1, 0, 1), Date.UTC(2025, 0, 1, 0, 2)]);
    expect(t.values[0]).toEqual([5, 7]);
    expect(t.values[1][0]).toBe(1);
    expect(Number.isNaN(t.values[1][1])).toBe(true);
    expect(valueAt(t, 1, Date.UTC(2025, 0, 1, 0, 2))).toBe(1); // a missing datapoint holds the previous value
  });

  it('reads epoch seconds and milliseconds, headerless files, several value columns', () => {
    expect(parseTrace('1735689600,4\n1735689660,6\n').times).toEqual([1735689600000, 1735689660000]);
    expect(parseTrace('time,v\n1735689600000,4\n').times).toEqual([1735689600000]);
    const multi = parseTrace('Timestamp,cpu,memory\n0,1,10\n60,2,20\n');
    expect(multi.series).toEqual(['cpu', 'memory']);
    expect(findSeries(multi, 'Memory')).toBe(1);
    expect(findSeries(multi, 'jobs')).toBe(-1);
  });

  it('valueAt steps: the latest point at or before t, the first before the start', () => {
    const t = parseTrace('t,value\n100,1\n200,2\n300,3\n');
    expect(valueAt(t, 0, 50_000)).toBe(1);
    expect(valueAt(t, 0, 199_999)).toBe(1);
    expect(valueAt(t, 0, 200_000)).toBe(2);
    expect(valueAt(t, 0, 999_000)).toBe(3);
  });

  it('names the line of a malformed row', () => {
    const bad = traceError('timestamp,value\n2025-01-01T00:00:00Z,1\n2025-01-01T00:01:00Z,abc\n');
    expect(bad.line).toBe(3);
    expect(bad.message).toBe('load.csv:3: value "abc" is not a number');
    expect(traceError('timestamp,value\n# comment\n2025-01-01T00:00:00Z,1\nyesterday,2\n').message).toMatch(/^load\.csv:4: timestamp "yesterday"/);
    expect(traceError('timestamp,value\n2025-01-01T00:00:00Z,1,9\n').message).toMatch(/^load\.csv:2: expected 2 fields/);
    expect(traceError('timestamp,value\n0,1\n0,2\n').message).toMatch(/^load\.csv:3: duplicate timestamp/);
    expect(traceError('timestamp,value\n0,"1\n').message).toMatch(/^load\.csv:\d+: malformed CSV/);
    expect(traceError('foo,bar\n0,1\n').message).toBe('load.csv:1: no timestamp column (expected one of timestamp, time, date, datetime, t)');
    expect(traceError('when,a,b\n0,1,2\n').message).toBe('load.csv:1: no timestamp column (expected one of timestamp, time, date, datetime, t)');
    expect(traceError('').message).toBe('load.csv: no rows');
    expect(traceError('timestamp,value\n').message).toBe('load.csv: no data rows');
    expect(traceError('timestamp,cpu\n0,1\n60,-0.5\n').message).toBe('load.csv:3: cpu -0.5 is negative: a load is 0 or more (leave the cell empty for a missing datapoint)');
  });
});
