// Label selectors, ported from apimachinery's labels selector_test.go (TestSetSelectorParser,
// TestSelectorMatches, TestToString, TestRequirementConstructor) and meta/v1 TestLabelSelectorAsSelector.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EVERYTHING,
  NOTHING,
  SelectorError,
  fromLabelSelector,
  isEmptySelector,
  matchesLabels,
  parseSelector,
  selectorToString,
  type Requirement,
} from '../../lib/hpa/selector.js';
import type { LabelSelector } from '../../lib/hpa/types.js';

const req = (key: string, operator: Requirement['operator'], ...values: string[]): Requirement => ({ key, operator, values });

describe('parseSelector: accepted input', () => {
  it.each([
    ['', []],
    ['\rx', [req('x', 'exists')]],
    ['this-is-a-dns.domain.com/key-with-dash', [req('this-is-a-dns.domain.com/key-with-dash', 'exists')]],
    ['this-is-another-dns.domain.com/key-with-dash in (so,what)', [req('this-is-another-dns.domain.com/key-with-dash', 'in', 'so', 'what')]],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', [req('0.1.2.domain/99', 'notin', '10.10.100.1', 'tick.tack.clock')]],
    ['foo  in\t (abc)', [req('foo', 'in', 'abc')]],
    ['x notin\n (abc)', [req('x', 'notin', 'abc')]],
    ['x  notin\t\t(abc,def)', [req('x', 'notin', 'abc', 'def')]],
    ['x in (abc,def)', [req('x', 'in', 'abc', 'def')]],
    ['x in (abc,)', [req('x', 'in', '', 'abc')]],
    ['x in ()', [req('x', 'in', '')]],
    ['x notin (abc,,def),bar,z in (),w', [req('bar', 'exists'), req('w', 'exists'), req('x', 'notin', '', 'abc', 'def'), req('z', 'in', '')]],
    ['x,y in (a)', [req('x', 'exists'), req('y', 'in', 'a')]],
    ['x=a', [req('x', '=', 'a')]],
    ['x==a', [req('x', '==', 'a')]],
    ['x>1', [req('x', 'gt', '1')]],
    ['x<7', [req('x', 'lt', '7')]],
    ['x=a,y!=b', [req('x', '=', 'a'), req('y', '!=', 'b')]],
    ['x=a,y!=b,z in (h,i,j)', [req('x', '=', 'a'), req('y', '!=', 'b'), req('z', 'in', 'h', 'i', 'j')]],
    ['x notin ( )', [req('x', 'notin', '')]],
    ['x notin (, a)', [req('x', 'notin', '', 'a')]],
    ['a ', [req('a', 'exists')]],
    ['a in (x,y,notin, z,in)', [req('a', 'in', 'in', 'notin', 'x', 'y', 'z')]],
    ['notin=in,in!=notin', [req('in', '!=', 'notin'), req('notin', '=', 'in')]],
    ['!a', [req('a', '!')]],
    [' a = b , c != d ', [req('a', '=', 'b'), req('c', '!=', 'd')]],
    // An empty exact value is allowed: upstream parseExactValue inserts "" before ',' or the end.
    ['a==', [req('a', '==', '')]],
    ['x=,z= ', [req('x', '=', ''), req('z', '=', '')]],
    ['x in (b,a,b)', [req('x', 'in', 'a', 'b')]],
    ['example.com/app=web', [req('example.com/app', '=', 'web')]],
  ])('%j', (input, requirements) => {
    expect(parseSelector(input).requirements).toEqual(requirements);
  });
});

describe('parseSelector: malformed input', () => {
  it.each([
    ['x in (a', "found '', expected: ',' or ')'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['key in a', "found 'a' expected: '('"],
    ['x=a||y=b', 'values[0][x]: Invalid value: "a||y": a valid label must be'],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', "for 'Gt', 'Lt' operators, the value must be an integer"],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', "found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz abc)', "found 'abc', expected: ',' or ')'"],
    ['a notin(', "found '', expected: ',', ')' or identifier"],
    ['a (', "found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['a=b,', "found '', expected: identifier after ','"],
    ['a in (x,=)', "found '=', expected: ',', or identifier"],
    ['!!a', "found '!', expected: identifier"],
    ['a b', "found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a/b/c', 'key: Invalid value: "a/b/c": a qualified name must consist of'],
    ['Example.com/x', 'key: Invalid value: "Example.com/x": prefix part a lowercase RFC 1123 subdomain'],
    ['/x', 'prefix part must be non-empty'],
    ['example.com/', 'name part must be non-empty'],
    [`${'k'.repeat(64)}`, 'name part must be no more than 63 characters'],
    ['-x', 'name part must consist of alphanumeric characters'],
    [`x=${'v'.repeat(64)}`, 'values[0][x]: Invalid value: '],
    ['x=-v', 'a valid label must be an empty string or consist of alphanumeric characters'],
    ['x>99999999999999999999', "the value must be an integer"],
  ])('%j', (input, message) => {
    let error: unknown;
    try {
      parseSelector(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SelectorError);
    expect((error as SelectorError).input).toBe(input);
    expect((error as SelectorError).message).toContain(message);
  });

  it('prefixes requirement errors as upstream does', () => {
    expect(() => parseSelector('x in (a')).toThrow(/^unable to parse requirement: /);
  });

  it('accepts a 63-character key and value', () => {
    const k = 'k'.repeat(63);
    expect(selectorToString(parseSelector(`${k}=${'v'.repeat(63)}`))).toBe(`${k}=${'v'.repeat(63)}`);
  });
});

describe('matchesLabels (TestSelectorMatches)', () => {
  it.each([
    ['', { x: 'y' }],
    ['', undefined],
    ['x=y', { x: 'y' }],
    ['x==y', { x: 'y' }],
    ['x=y,z=w', { x: 'y', z: 'w' }],
    ['x!=y,z!=w', { x: 'z', z: 'a' }],
    ['notin=in', { notin: 'in' }],
    ['x', { x: 'z' }],
    ['!x', { y: 'z' }],
    ['x>1', { x: '2' }],
    ['x<1', { x: '0' }],
    ['x<1', { x: '-5' }],
    ['x in (a,b)', { x: 'b' }],
    ['x notin (a,b)', { x: 'c' }],
    ['x notin (a,b)', {}],
    ['x!=a', {}],
    ['x=', { x: '' }],
    ['!constructor', {}],
  ])('%j matches %j', (selector, labels) => {
    expect(matchesLabels(parseSelector(selector), labels)).toBe(true);
  });

  it.each([
    ['x=z', {}],
    ['x=z', undefined],
    ['x=y', { x: 'z' }],
    ['x=y,z=w', { x: 'w', z: 'w' }],
    ['x!=y,z!=w', { x: 'z', z: 'w' }],
    ['x', { y: 'z' }],
    ['!x', { x: 'z' }],
    ['x>1', { x: '0' }],
    ['x<1', { x: '2' }],
    ['x>1', { x: 'two' }],
    ['x>1', {}],
    ['x in (a,b)', { x: 'c' }],
    ['x in (a,b)', {}],
    ['x notin (a,b)', { x: 'a' }],
    ['x=', {}],
    // Inherited object properties are not labels.
    ['constructor', {}],
    ['toString', {}],
  ])('%j does not match %j', (selector, labels) => {
    expect(matchesLabels(parseSelector(selector), labels)).toBe(false);
  });
});

describe('selectorToString (TestToString)', () => {
  it.each([
    ['x in (foo,bar),y in (baz),z notin (baz)', 'x in (bar,foo),y in (baz),z notin (baz)'],
    ['z=c,y=b,x=a', 'x=a,y=b,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['!x,y', '!x,y'],
    ['x>1,x<9', 'x>1,x<9'],
    ['  b  ,  a == 1 ', 'a==1,b'],
    ['x in (,a)', 'x in (,a)'],
    ['', ''],
  ])('%j prints %j', (input, printed) => {
    expect(selectorToString(parseSelector(input))).toBe(printed);
  });

  it('sorts the values of hand-built requirements on output only', () => {
    const sel = { requirements: [req('x', 'in', 'b', 'a')] };
    expect(selectorToString(sel)).toBe('x in (a,b)');
    expect(sel.requirements[0].values).toEqual(['b', 'a']);
  });
});

describe('fromLabelSelector (TestLabelSelectorAsSelector)', () => {
  it('nil selects nothing, empty selects everything', () => {
    expect(fromLabelSelector(undefined)).toBe(NOTHING);
    expect(matchesLabels(fromLabelSelector(undefined), {})).toBe(false);
    expect(isEmptySelector(NOTHING)).toBe(false);
    expect(fromLabelSelector({})).toBe(EVERYTHING);
    expect(fromLabelSelector({ matchLabels: {}, matchExpressions: [] })).toBe(EVERYTHING);
    expect(matchesLabels(EVERYTHING, { a: 'b' })).toBe(true);
    expect(isEmptySelector(EVERYTHING)).toBe(true);
    expect(selectorToString(NOTHING)).toBe('');
  });

  it.each([
    [{ matchLabels: { foo: 'bar' } }, 'foo=bar'],
    [{ matchLabels: { foo: 'bar' }, matchExpressions: [{ key: 'baz', operator: 'Exists' as const }] }, 'baz,foo=bar'],
    [{ matchExpressions: [{ key: 'baz', operator: 'In' as const, values: ['qux', 'norf'] }] }, 'baz in (norf,qux)'],
    [{ matchExpressions: [{ key: 'baz', operator: 'NotIn' as const, values: ['qux', 'norf'] }] }, 'baz notin (norf,qux)'],
    [{ matchExpressions: [{ key: 'foo', operator: 'DoesNotExist' as const }] }, '!foo'],
    [{ matchLabels: { b: '2', a: '1' } }, 'a=1,b=2'],
  ])('%j converts to %j', (ls, printed) => {
    expect(selectorToString(fromLabelSelector(ls))).toBe(printed);
  });

  // What LabelSelectorAsSelector(ls).String() prints, byte for byte (apimachinery labels/selector.go,
  // release-1.35): /scale's status.selector of a Deployment, StatefulSet or ReplicaSet is this string.
  it.each([
    // requirements sorted by key as Go compares bytes ('A' < 'a', '-' < '.' < '/'); a key before its extensions
    [{ matchLabels: { 'app.kubernetes.io/name': 'web', app: 'x', 'app-x': 'y', App: 'z' } }, 'App=z,app=x,app-x=y,app.kubernetes.io/name=web'],
    // values of in/notin sorted on output, duplicates kept (NewRequirement does not make a set; labels.Parse does)
    [{ matchExpressions: [{ key: 'b', operator: 'In' as const, values: ['y', 'x', 'y'] }] }, 'b in (x,y,y)', 'b in (x,y)'],
    [{ matchExpressions: [{ key: 'v', operator: 'NotIn' as const, values: ['b', 'B', '1', 'a-b', 'a.b', ''] }] }, 'v notin (,1,B,a-b,a.b,b)'],
    // one value is printed as it is, the empty one too
    [{ matchExpressions: [{ key: 'x', operator: 'In' as const, values: [''] }] }, 'x in ()'],
    [{ matchLabels: { a: '' } }, 'a='],
    // a key in matchLabels and in matchExpressions: matchLabels first (ByKey keeps equal keys in order up to 12 requirements)
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'app', operator: 'NotIn' as const, values: ['api'] }] }, 'app=web,app notin (api)'],
    [{ matchExpressions: [{ key: 'tier', operator: 'Exists' as const }, { key: 'tier', operator: 'NotIn' as const, values: ['db'] }] }, 'tier,tier notin (db)'],
    [{ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' as const }, { key: 'a', operator: 'Exists' as const, values: [] }] }, 'a,!x'],
    [
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'track', operator: 'In' as const, values: ['stable', 'canary'] }, { key: 'canary', operator: 'DoesNotExist' as const }] },
      'app=web,!canary,track in (canary,stable)',
    ],
  ] as [LabelSelector, string, string?][])('%j prints as upstream does: %j', (ls, printed, reparsed = printed) => {
    expect(selectorToString(fromLabelSelector(ls))).toBe(printed);
    // and parses back as the HPA controller parses status.selector
    expect(selectorToString(parseSelector(printed))).toBe(reparsed);
  });

  it('matches like the equivalent string selector', () => {
    const sel = fromLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] });
    expect(matchesLabels(sel, { app: 'web', tier: 'front' })).toBe(true);
    expect(matchesLabels(sel, { app: 'web' })).toBe(true);
    expect(matchesLabels(sel, { app: 'web', tier: 'db' })).toBe(false);
    expect(matchesLabels(sel, { app: 'api' })).toBe(false);
  });

  it.each([
    [{ matchExpressions: [{ key: 'foo', operator: 'In' as const }] }, "matchExpressions[0].values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"],
    [{ matchLabels: { foo: 'bar' }, matchExpressions: [{ key: 'baz', operator: 'Seriously' as 'In' }] }, '"Seriously" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'foo', operator: 'Exists' as const, values: ['x'] }] }, 'values set must be empty for exists and does not exist'],
    [{ matchLabels: { 'bad key': 'x' } }, 'matchLabels[bad key].key: Invalid value: "bad key"'],
    [{ matchLabels: { app: 'bad value' } }, 'matchLabels[app].values[0][app]: Invalid value: "bad value"'],
    [{ matchLabels: { app: 5 as unknown as string } }, 'matchLabels[app]: Invalid value: 5: must be a string'],
  ])('%j is rejected', (ls, message) => {
    expect(() => fromLabelSelector(ls)).toThrow(SelectorError);
    expect(() => fromLabelSelector(ls)).toThrow(message);
  });
});

const nameArb = fc.stringMatching(/^[a-z0-9]([-a-z0-9_.]{0,8}[a-z0-9])?$/);
const keyArb = fc.oneof(nameArb, fc.tuple(fc.stringMatching(/^[a-z0-9]{1,5}(\.[a-z0-9]{1,5}){0,2}$/), nameArb).map(([p, n]) => `${p}/${n}`));
const valueArb = fc.oneof(fc.constant(''), nameArb);
const requirementArb: fc.Arbitrary<Requirement> = fc.oneof(
  fc.record({ key: keyArb, operator: fc.constantFrom('=' as const, '==' as const, '!=' as const), values: valueArb.map((v) => [v]) }),
  fc.record({ key: keyArb, operator: fc.constantFrom('in' as const, 'notin' as const), values: fc.uniqueArray(valueArb, { minLength: 1, maxLength: 4 }).map((vs) => vs.sort()) }),
  fc.record({ key: keyArb, operator: fc.constantFrom('exists' as const, '!' as const), values: fc.constant<string[]>([]) }),
  fc.record({ key: keyArb, operator: fc.constantFrom('gt' as const, 'lt' as const), values: fc.nat(1000).map((n) => [String(n)]) }),
);

describe('properties', () => {
  it('parsing the printed form gives the same selector back', () => {
    fc.assert(
      fc.property(fc.array(requirementArb, { maxLength: 5 }), (reqs) => {
        const printed = selectorToString({ requirements: [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) });
        const parsed = parseSelector(printed);
        expect(selectorToString(parsed)).toBe(printed);
      }),
    );
  });

  it('any string either parses or fails with a SelectorError', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab=!(),<> \tin1/.-'.split('')), maxLength: 20 }), (s) => {
        try {
          parseSelector(s);
        } catch (e) {
          expect(e).toBeInstanceOf(SelectorError);
        }
      }),
    );
  });

  it('a selector built from labels with = matches exactly the label sets that contain them', () => {
    fc.assert(
      fc.property(fc.dictionary(nameArb, valueArb, { maxKeys: 4 }), fc.dictionary(nameArb, valueArb, { maxKeys: 6 }), (want, have) => {
        const sel = fromLabelSelector({ matchLabels: want });
        const expected = Object.entries(want).every(([k, v]) => Object.hasOwn(have, k) && have[k] === v);
        expect(matchesLabels(sel, have)).toBe(expected);
      }),
    );
  });
});
