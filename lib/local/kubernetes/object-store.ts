// The local API server's storage, as etcd plus the watch cache behave for a
// client: one global resourceVersion counter, objects kept per resource and
// namespace in key order, lists with limit/continue, and watches that replay
// the recent changes after a resourceVersion (410 Expired once they are gone).
// Stored objects are never mutated: every write stores a new object.
import { badRequest, expired } from './errors.js';
import { errorText } from '../../shared/error-text.js';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  [key: string]: unknown;
}

export interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Change {
  rv: number;
  type: WatchEventType;
  object: K8sObject;
  previous?: K8sObject;
}

export type ObjectFilter = (o: K8sObject) => boolean;

interface Watcher {
  namespace: string | undefined;
  match: ObjectFilter;
  send: (type: WatchEventType, o: K8sObject) => void;
  close?: () => void;
}

export interface ListOptions {
  /** undefined: every namespace */
  namespace?: string;
  match?: ObjectFilter;
  /** label or field selectors are set (remainingItemCount is only given without them, as upstream) */
  filtered?: boolean;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: K8sObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchOptions {
  namespace?: string;
  match?: ObjectFilter;
  /** absent or "0": the current objects first, as ADDED events */
  resourceVersion?: string;
}

/** Recent changes kept per resource for watches that resume from a resourceVersion. */
const HISTORY = 10_000;

const everything: ObjectFilter = () => true;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** First index whose value sorts after `key` (or at it, when inclusive). */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

class Collection {
  readonly byNamespace = new Map<string, Map<string, K8sObject>>();
  private sortedNames = new Map<string, string[]>();
  private sortedNamespaces: string[] | undefined;
  private history: Change[] = [];
  private historyStart = 0;
  /** the newest resourceVersion no longer in history */
  compactedRv = 0;
  readonly watchers = new Set<Watcher>();
  size = 0;

  get(namespace: string, name: string): K8sObject | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  set(namespace: string, o: K8sObject): void {
    let m = this.byNamespace.get(namespace);
    if (!m) {
      m = new Map();
      this.byNamespace.set(namespace, m);
      this.sortedNamespaces = undefined;
    }
    if (!m.has(o.metadata.name)) {
      this.sortedNames.delete(namespace);
      this.size++;
    }
    m.set(o.metadata.name, o);
  }

  remove(namespace: string, name: string): void {
    const m = this.byNamespace.get(namespace);
    if (!m?.delete(name)) return;
    this.size--;
    this.sortedNames.delete(namespace);
    if (m.size === 0) {
      this.byNamespace.delete(namespace);
      this.sortedNamespaces = undefined;
    }
  }

  names(namespace: string): string[] {
    let s = this.sortedNames.get(namespace);
    if (!s) {
      s = [...(this.byNamespace.get(namespace)?.keys() ?? [])].sort(compare);
      this.sortedNames.set(namespace, s);
    }
    return s;
  }

  namespaces(): string[] {
    this.sortedNamespaces ??= [...this.byNamespace.keys()].sort(compare);
    return this.sortedNamespaces;
  }

  record(change: Change): void {
    this.history.push(change);
    if (this.history.length - this.historyStart > HISTORY) {
      this.compactedRv = this.history[this.historyStart].rv;
      this.historyStart++;
      // drop the consumed prefix now and then, not on every change
      if (this.historyStart > HISTORY) {
        this.history = this.history.slice(this.historyStart);
        this.historyStart = 0;
      }
    }
    for (const w of this.watchers) deliver(w, change);
  }

  changesAfter(rv: number): Change[] {
    const h = this.history;
    let lo = this.historyStart;
    let hi = h.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (h[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return h.slice(lo);
  }
}

/** A change as one watcher sees it: objects entering or leaving its filter are ADDED or DELETED (upstream cacheWatcher). */
function deliver(w: Watcher, c: Change): void {
  if (w.namespace !== undefined && (c.object.metadata.namespace ?? '') !== w.namespace) return;
  const now = c.type !== 'DELETED' && w.match(c.object);
  const before = c.type === 'DELETED' ? w.match(c.object) : c.previous !== undefined && w.match(c.previous);
  if (c.type === 'DELETED') {
    if (before) w.send('DELETED', c.object);
  } else if (now && before) w.send('MODIFIED', c.object);
  else if (now) w.send('ADDED', c.object);
  else if (before) w.send('DELETED', c.object);
}

interface ContinueToken {
  rv: number;
  namespace: string;
  name: string;
}

// The shape of upstream's token (storage.encodeContinue): base64 of {"v","rv","start"}, start = last key + "\x00".
function encodeContinue(rv: number, namespace: string, name: string): string {
  const start = `${namespace ? `${namespace}/` : ''}${name}\u0000`;
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start }), 'utf8').toString('base64');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown };
    if (t.v !== 'meta.k8s.io/v1') throw new Error(`unrecognized continue token version (${String(t.v)})`);
    if (typeof t.rv !== 'number' || typeof t.start !== 'string' || !t.start.endsWith('\u0000')) throw new Error('continue key is not valid');
    const key = t.start.slice(0, -1);
    // names cannot hold a slash: one means a namespaced key
    const slash = key.indexOf('/');
    return slash < 0 ? { rv: t.rv, namespace: '', name: key } : { rv: t.rv, namespace: key.slice(0, slash), name: key.slice(slash + 1) };
  } catch (e) {
    throw badRequest(`invalid continue token: ${errorText(e)}`);
  }
}

export class ObjectStore {
  private rv: number;
  private readonly collections = new Map<string, Collection>();

  constructor(startResourceVersion = 1000) {
    this.rv = startResourceVersion;
  }

  /** The newest resourceVersion, as a list answers it. */
  get resourceVersion(): string {
    return String(this.rv);
  }

  private collection(key: string): Collection {
    let c = this.collections.get(key);
    if (!c) {
      c = new Collection();
      this.collections.set(key, c);
    }
    return c;
  }

  get(key: string, namespace: string, name: string): K8sObject | undefined {
    return this.collections.get(key)?.get(namespace, name);
  }

  count(key: string): number {
    return this.collections.get(key)?.size ?? 0;
  }

  /** Stores a new or changed object under the next resourceVersion and tells the watchers. */
  put(key: string, o: K8sObject): K8sObject {
    const c = this.collection(key);
    const namespace = o.metadata.namespace ?? '';
    const previous = c.get(namespace, o.metadata.name);
    const rv = ++this.rv;
    const stored: K8sObject = { ...o, metadata: { ...o.metadata, resourceVersion: String(rv) } };
    c.set(namespace, stored);
    c.record({ rv, type: previous ? 'MODIFIED' : 'ADDED', object: stored, previous });
    return stored;
  }

  /** Removes an object; the DELETED event carries it at the deletion's resourceVersion (etcd3 watcher). */
  delete(key: string, namespace: string, name: string): K8sObject | undefined {
    const c = this.collections.get(key);
    const previous = c?.get(namespace, name);
    if (!c || !previous) return undefined;
    const rv = ++this.rv;
    const gone: K8sObject = { ...previous, metadata: { ...previous.metadata, resourceVersion: String(rv) } };
    c.remove(namespace, name);
    c.record({ rv, type: 'DELETED', object: gone, previous });
    return gone;
  }

  /** Deletes every object of a resource and ends its watches (a CRD went away). */
  drop(key: string): void {
    const c = this.collections.get(key);
    if (!c) return;
    for (const ns of [...c.namespaces()]) for (const name of [...c.names(ns)]) this.delete(key, ns, name);
    for (const w of c.watchers) w.close?.();
    this.collections.delete(key);
  }

  /** Objects in key order (namespace, then name); work is proportional to what is scanned. */
  list(key: string, opts: ListOptions = {}): ListResult {
    const c = this.collections.get(key);
    const match = opts.match ?? everything;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Number.POSITIVE_INFINITY;
    let listRv = this.rv;
    let from: ContinueToken | undefined;
    if (opts.continue) {
      from = decodeContinue(opts.continue);
      listRv = from.rv;
    }
    const items: K8sObject[] = [];
    let last: K8sObject | undefined;
    let more = false;
    let remaining = 0;
    if (c) {
      const namespaces = opts.namespace !== undefined ? [opts.namespace] : c.namespaces();
      let nsIndex = from ? lowerBound(namespaces, from.namespace) : 0;
      outer: for (; nsIndex < namespaces.length; nsIndex++) {
        const ns = namespaces[nsIndex];
        const names = c.names(ns);
        let i = from && ns === from.namespace ? lowerBound(names, `${from.name}\u0000`) : 0;
        for (; i < names.length; i++) {
          const o = c.get(ns, names[i])!;
          if (items.length >= limit) {
            more = true;
            if (!opts.filtered) remaining = names.length - i + countAfter(c, namespaces, nsIndex);
            break outer;
          }
          if (match(o)) {
            items.push(o);
            last = o;
          }
        }
      }
    }
    const out: ListResult = { items, resourceVersion: String(listRv) };
    if (more && last) {
      out.continue = encodeContinue(listRv, last.metadata.namespace ?? '', last.metadata.name);
      if (!opts.filtered) out.remainingItemCount = remaining;
    }
    return out;
  }

  /**
   * Starts a watch. From a resourceVersion: the changes after it, then live ones;
   * without one (or "0"): the current objects as ADDED, then live changes.
   */
  watch(key: string, opts: WatchOptions, send: (type: WatchEventType, o: K8sObject) => void, close?: () => void): () => void {
    const c = this.collection(key);
    const w: Watcher = { namespace: opts.namespace, match: opts.match ?? everything, send, close };
    const raw = opts.resourceVersion;
    if (raw === undefined || raw === '' || raw === '0') {
      for (const o of this.list(key, { namespace: opts.namespace, match: w.match }).items) send('ADDED', o);
    } else {
      const from = Number(raw);
      if (!/^\d+$/.test(raw)) throw badRequest(`invalid resource version: strconv.ParseUint: parsing "${raw}": invalid syntax`);
      if (from < c.compactedRv) throw expired(`too old resource version: ${from} (${c.compactedRv + 1})`);
      for (const change of c.changesAfter(from)) deliver(w, change);
    }
    c.watchers.add(w);
    return () => {
      c.watchers.delete(w);
    };
  }

  /** How many watches are open on a resource. */
  watching(key: string): number {
    return this.collections.get(key)?.watchers.size ?? 0;
  }
}

function countAfter(c: Collection, namespaces: readonly string[], nsIndex: number): number {
  let n = 0;
  for (let i = nsIndex + 1; i < namespaces.length; i++) n += c.byNamespace.get(namespaces[i])?.size ?? 0;
  return n;
}
