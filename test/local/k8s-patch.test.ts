// Patch formats as kube-apiserver applies them.
import { describe, expect, it } from 'vitest';
import { decodeJsonPatch, jsonPatch, mergePatch, PatchError, strategicMergePatch, type Json } from '../../lib/local/kubernetes/patch.js';

const doc: Json = { metadata: { name: 'web', labels: { a: '1', b: '2' } }, spec: { list: [1, 2, 3], n: 1 } };

describe('JSON merge patch (RFC 7386)', () => {
  it('merges objects, removes keys set to null, replaces lists and scalars', () => {
    expect(mergePatch(doc, { metadata: { labels: { a: null, c: '3' } }, spec: { list: [9] } })).toEqual({
      metadata: { name: 'web', labels: { b: '2', c: '3' } },
      spec: { list: [9], n: 1 },
    });
    expect(doc).toEqual({ metadata: { name: 'web', labels: { a: '1', b: '2' } }, spec: { list: [1, 2, 3], n: 1 } });
  });
});

describe('strategic merge patch without merge keys', () => {
  it('acts on $patch directives and drops the others', () => {
    expect(strategicMergePatch({ count: 1, source: { component: 'x', host: 'h' } }, { count: 2, source: { $patch: 'replace', component: 'y' }, $setElementOrder: [] })).toEqual({
      count: 2,
      source: { component: 'y' },
    });
    expect(strategicMergePatch({ a: { b: 1 }, c: 1 }, { a: { $patch: 'delete' } })).toEqual({ c: 1 });
  });
});

describe('JSON patch (RFC 6902)', () => {
  it('applies add, remove, replace, move, copy and test in order, on a copy', () => {
    const out = jsonPatch(doc, [
      { op: 'test', path: '/spec/n', value: 1 },
      { op: 'add', path: '/spec/list/-', value: 4 },
      { op: 'add', path: '/spec/list/0', value: 0 },
      { op: 'remove', path: '/metadata/labels/a' },
      { op: 'replace', path: '/spec/n', value: 2 },
      { op: 'copy', from: '/spec/n', path: '/spec/m' },
      { op: 'move', from: '/metadata/labels/b', path: '/metadata/labels/a~1b' },
    ]);
    expect(out).toEqual({ metadata: { name: 'web', labels: { 'a/b': '2' } }, spec: { list: [0, 1, 2, 3, 4], n: 2, m: 2 } });
    expect((doc as { spec: { n: number } }).spec.n).toBe(1);
  });

  it('fails on a missing target, a failed test and an unknown op', () => {
    expect(() => jsonPatch(doc, [{ op: 'replace', path: '/status', value: {} }])).toThrow(/replace operation does not apply: doc is missing key: \/status/);
    expect(() => jsonPatch(doc, [{ op: 'add', path: '/status/x', value: 1 }])).toThrow(/doc is missing path/);
    expect(() => jsonPatch(doc, [{ op: 'test', path: '/spec/n', value: 2 }])).toThrow('testing value /spec/n failed: test failed');
    expect(() => jsonPatch(doc, [{ op: 'remove', path: '/spec/list/7' }])).toThrow(/out of bounds/);
    expect(() => jsonPatch(doc, [{ op: 'nope', path: '/spec' }])).toThrow('Unexpected kind: nope');
    expect(() => decodeJsonPatch({ op: 'add' })).toThrow(PatchError);
  });
});
