import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventFilter, FilterPatternError, loadEventFilter } from '../../lib/local/lambda/event-filter.js';

/** Which of the records the pattern (or patterns) passes. */
const passing = (spec: unknown, records: unknown[]) => {
  const f = eventFilter(spec);
  return records.filter((r) => f(r));
};

describe("Lambda's event filtering", () => {
  it('matches exact values by type: strings, numbers, booleans, null and the empty string', () => {
    const records = [{ v: 'a' }, { v: 1 }, { v: true }, { v: null }, { v: '' }, { v: '1' }, {}];
    expect(passing({ v: ['a'] }, records)).toEqual([{ v: 'a' }]);
    expect(passing({ v: [1] }, records)).toEqual([{ v: 1 }]);
    expect(passing({ v: [true] }, records)).toEqual([{ v: true }]);
    expect(passing({ v: [null] }, records)).toEqual([{ v: null }]);
    expect(passing({ v: [''] }, records)).toEqual([{ v: '' }]);
    // Several values in one list: any of them.
    expect(passing({ v: ['a', 1] }, records)).toEqual([{ v: 'a' }, { v: 1 }]);
  });

  it('matches prefix, suffix and equals-ignore-case on strings only', () => {
    const records = [{ f: 'img.PNG' }, { f: 'img.png' }, { f: 'doc.txt' }, { f: 5 }];
    expect(passing({ f: [{ prefix: 'img' }] }, records)).toEqual([{ f: 'img.PNG' }, { f: 'img.png' }]);
    expect(passing({ f: [{ suffix: '.png' }] }, records)).toEqual([{ f: 'img.png' }]);
    expect(passing({ f: [{ 'equals-ignore-case': 'IMG.png' }] }, records)).toEqual([{ f: 'img.PNG' }, { f: 'img.png' }]);
  });

  it('matches anything-but only where the field holds a value', () => {
    const records = [{ s: 'Raining' }, { s: 'Sunny' }, { s: 'rainy' }, {}, { s: { nested: 1 } }];
    expect(passing({ s: [{ 'anything-but': 'Raining' }] }, records)).toEqual([{ s: 'Sunny' }, { s: 'rainy' }]);
    expect(passing({ s: [{ 'anything-but': ['Raining', 'Sunny'] }] }, records)).toEqual([{ s: 'rainy' }]);
    expect(passing({ s: [{ 'anything-but': { prefix: 'Rain' } }] }, records)).toEqual([{ s: 'Sunny' }, { s: 'rainy' }]);
    expect(passing({ s: [{ 'anything-but': { suffix: 'unny' } }] }, records)).toEqual([{ s: 'Raining' }, { s: 'rainy' }]);
    expect(passing({ s: [{ 'anything-but': { 'equals-ignore-case': ['RAINING', 'sunny'] } }] }, records)).toEqual([{ s: 'rainy' }]);
  });

  it('matches exists on leaves: an object or an empty list is not a value, null is', () => {
    const records = [{ a: 1 }, { a: null }, { a: { b: 1 } }, { a: [] }, {}];
    expect(passing({ a: [{ exists: true }] }, records)).toEqual([{ a: 1 }, { a: null }]);
    expect(passing({ a: [{ exists: false }] }, records)).toEqual([{ a: { b: 1 } }, { a: [] }, {}]);
  });

  it('compares numbers (not numeric strings) with numeric', () => {
    const records = [{ p: 10 }, { p: 15 }, { p: 20 }, { p: 21 }, { p: '15' }];
    expect(passing({ p: [{ numeric: ['>', 10, '<=', 20] }] }, records)).toEqual([{ p: 15 }, { p: 20 }]);
    expect(passing({ p: [{ numeric: ['=', 15] }] }, records)).toEqual([{ p: 15 }]);
    expect(passing({ p: [{ numeric: ['<', 15] }, 21] }, records)).toEqual([{ p: 10 }, { p: 21 }]);
  });

  it('walks nested objects, ANDs fields, and treats arrays in the record as "any of"', () => {
    const records = [
      { detail: { state: 'ok', tags: ['a', 'b'] } },
      { detail: { state: 'ok', tags: ['c'] } },
      { detail: { state: 'bad', tags: ['a'] } },
      { detail: [{ state: 'ok', tags: 'a' }, { state: 'bad' }] },
    ];
    expect(passing({ detail: { state: ['ok'], tags: ['a'] } }, records)).toEqual([records[0], records[3]]);
  });

  it('ORs several patterns, given as a list or as Lambda FilterCriteria', () => {
    const records = [{ k: 'a' }, { k: 'b' }, { k: 'c' }];
    expect(passing([{ k: ['a'] }, { k: ['c'] }], records)).toEqual([{ k: 'a' }, { k: 'c' }]);
    const criteria = { Filters: [{ Pattern: '{"k": ["a"]}' }, { Pattern: JSON.stringify({ k: [{ prefix: 'b' }] }) }] };
    expect(passing(criteria, records)).toEqual([{ k: 'a' }, { k: 'b' }]);
  });

  it('applies infra/stream-filter.json to DynamoDB stream records: spec items inserted or modified', async () => {
    const f = await loadEventFilter(new URL('../../infra/stream-filter.json', import.meta.url).pathname);
    const record = (eventName: string, sk: string) => ({
      eventName,
      eventSource: 'aws:dynamodb',
      dynamodb: { Keys: { pk: { S: 'c#prod#3' }, sk: { S: sk } }, NewImage: { sk: { S: sk } } },
    });
    const verdicts = [
      ['INSERT', 'hpa#default#web'],
      ['MODIFY', 'cwm#workers#backlog'],
      ['REMOVE', 'hpa#default#web'],
      ['INSERT', 'st#default#web'],
      ['MODIFY', 'cycle'],
      ['INSERT', 'hpa'],
    ].map(([e, sk]) => `${e} ${sk}: ${f(record(e, sk))}`);
    expect(verdicts).toEqual([
      'INSERT hpa#default#web: true',
      'MODIFY cwm#workers#backlog: true',
      'REMOVE hpa#default#web: false',
      'INSERT st#default#web: false',
      'MODIFY cycle: false',
      'INSERT hpa: false',
    ]);
  });

  it('refuses bad patterns with an error naming the place and the fix', () => {
    const bad = (spec: unknown) => () => eventFilter(spec, 'stream-filter.json');
    expect(bad({ eventName: 'INSERT' })).toThrow('stream-filter.json: eventName: must be an array of rules (e.g. ["INSERT"]) or an object of fields, not "INSERT"');
    expect(bad({ dynamodb: { Keys: { sk: { S: [{ prefx: 'hpa#' }] } } } })).toThrow(/dynamodb\.Keys\.sk\.S\[0\]: \{"prefx":"hpa#"\} is not a rule; use one of prefix, suffix/);
    expect(bad({ a: [{ prefix: 1 }] })).toThrow('stream-filter.json: a[0]: "prefix" takes a string, not 1');
    expect(bad({ a: [{ numeric: ['>', 1, '>', 2] }] })).toThrow(/one lower bound .* and one upper bound/);
    expect(bad({ a: [{ numeric: ['~', 1] }] })).toThrow(/unknown operator "~"/);
    expect(bad({ a: [] })).toThrow(/a: an empty array matches nothing/);
    expect(bad({})).toThrow(/an empty object matches nothing/);
    expect(bad({ Filters: [{ Pattern: '{nope' }] })).toThrow(/Filters\[0\]\.Pattern: not JSON/);
    expect(bad({ a: [{ exists: 'yes' }] })).toThrow(FilterPatternError);
    const dir = mkdtempSync(join(tmpdir(), 'filter-'));
    writeFileSync(join(dir, 'f.json'), '{ "a": [1], }');
    return expect(loadEventFilter(join(dir, 'f.json'))).rejects.toThrow(`${join(dir, 'f.json')}: not JSON`);
  });
});
