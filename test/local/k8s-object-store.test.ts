// The local API server's storage: one resourceVersion counter, key order, paging, watches.
import { describe, expect, it } from 'vitest';
import { ObjectStore, type K8sObject, type WatchEventType } from '../../lib/local/kubernetes/object-store.js';

const obj = (namespace: string, name: string, labels: Record<string, string> = {}): K8sObject => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name, namespace, labels } });
const names = (items: K8sObject[]) => items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

function recorder() {
  const events: string[] = [];
  return { events, send: (type: WatchEventType, o: K8sObject) => events.push(`${type} ${o.metadata.name}@${o.metadata.resourceVersion}`) };
}

describe('ObjectStore', () => {
  it('gives every write the next resourceVersion of one counter, across resources', () => {
    const s = new ObjectStore(100);
    expect(s.put('a', obj('ns', 'x')).metadata.resourceVersion).toBe('101');
    expect(s.put('b', obj('ns', 'y')).metadata.resourceVersion).toBe('102');
    expect(s.put('a', obj('ns', 'x')).metadata.resourceVersion).toBe('103');
    expect(s.delete('a', 'ns', 'x')?.metadata.resourceVersion).toBe('104');
    expect(s.delete('a', 'ns', 'x')).toBeUndefined();
    expect(s.resourceVersion).toBe('104');
  });

  it('lists in key order (namespace, then name) and pages with continue tokens of upstream shape', () => {
    const s = new ObjectStore();
    for (const [ns, n] of [['b', 'x'], ['a', 'z'], ['a', 'y'], ['c', 'w'], ['b', 'a']]) s.put('t', obj(ns, n));
    expect(names(s.list('t').items)).toEqual(['a/y', 'a/z', 'b/a', 'b/x', 'c/w']);
    const first = s.list('t', { limit: 2 });
    expect(names(first.items)).toEqual(['a/y', 'a/z']);
    expect(first.remainingItemCount).toBe(3);
    expect(JSON.parse(Buffer.from(first.continue!, 'base64').toString())).toEqual({ v: 'meta.k8s.io/v1', rv: Number(first.resourceVersion), start: 'a/z\u0000' });
    s.put('t', obj('a', 'zz')); // written between pages: after the cursor, so seen
    const second = s.list('t', { limit: 2, continue: first.continue });
    expect(names(second.items)).toEqual(['a/zz', 'b/a']);
    expect(second.resourceVersion).toBe(first.resourceVersion);
    const last = s.list('t', { limit: 2, continue: second.continue });
    expect(names(last.items)).toEqual(['b/x', 'c/w']);
    expect(last.continue).toBeUndefined();
    expect(() => s.list('t', { continue: 'bm9wZQ' })).toThrow(/invalid continue token/);
  });

  it('leaves remainingItemCount out of filtered lists, as upstream', () => {
    const s = new ObjectStore();
    for (const n of ['a', 'b', 'c', 'd']) s.put('t', obj('ns', n, { keep: n === 'd' ? 'no' : 'yes' }));
    const page = s.list('t', { namespace: 'ns', limit: 1, filtered: true, match: (o) => o.metadata.labels?.keep === 'yes' });
    expect(names(page.items)).toEqual(['ns/a']);
    expect(page.continue).toBeDefined();
    expect(page.remainingItemCount).toBeUndefined();
  });

  it('starts a watch without a resourceVersion with the current objects as ADDED, then live changes', () => {
    const s = new ObjectStore(10);
    s.put('t', obj('ns', 'a'));
    s.put('t', obj('other', 'b'));
    const r = recorder();
    const stop = s.watch('t', { namespace: 'ns' }, r.send);
    s.put('t', obj('ns', 'a'));
    s.put('t', obj('other', 'b'));
    s.delete('t', 'ns', 'a');
    stop();
    s.put('t', obj('ns', 'c'));
    expect(r.events).toEqual(['ADDED a@11', 'MODIFIED a@13', 'DELETED a@15']);
  });

  it('replays the changes after a resourceVersion, and answers 410 once they are compacted', () => {
    const s = new ObjectStore(0);
    for (let i = 0; i < 3; i++) s.put('t', obj('ns', `o${i}`));
    const r = recorder();
    s.watch('t', { resourceVersion: '1' }, r.send)();
    expect(r.events).toEqual(['ADDED o1@2', 'ADDED o2@3']);
    for (let i = 0; i < 10_001; i++) s.put('t', obj('ns', 'hot'));
    expect(() => s.watch('t', { resourceVersion: '1' }, () => undefined)).toThrow(expect.objectContaining({ code: 410, message: 'too old resource version: 1 (5)' }));
    expect(() => s.watch('t', { resourceVersion: 'x' }, () => undefined)).toThrow(expect.objectContaining({ code: 400 }));
  });

  it('sends ADDED and DELETED when an object enters or leaves a watch filter', () => {
    const s = new ObjectStore(0);
    const r = recorder();
    s.watch('t', { match: (o) => o.metadata.labels?.app === 'web' }, r.send);
    s.put('t', obj('ns', 'a', { app: 'db' }));
    s.put('t', obj('ns', 'a', { app: 'web' }));
    s.put('t', obj('ns', 'a', { app: 'web', v: '2' }));
    s.put('t', obj('ns', 'a', { app: 'db' }));
    s.delete('t', 'ns', 'a');
    expect(r.events).toEqual(['ADDED a@2', 'MODIFIED a@3', 'DELETED a@4']);
  });

  it('drops a whole resource: its objects are DELETED and its watches closed', () => {
    const s = new ObjectStore(0);
    s.put('t', obj('ns', 'a'));
    const r = recorder();
    let closed = false;
    s.watch('t', {}, r.send, () => (closed = true));
    s.drop('t');
    expect(r.events).toEqual(['ADDED a@1', 'DELETED a@2']);
    expect(closed).toBe(true);
    expect(s.count('t')).toBe(0);
  });
});
