// The patch formats kube-apiserver accepts, applied to JSON values: JSON merge
// patch (RFC 7386), JSON patch (RFC 6902, as evanphx/json-patch applies it) and
// the part of strategic merge patch that objects without merge-keyed lists
// (Events) need.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A patch that does not apply; kube-apiserver answers 422 (or 400 for a malformed patch). */
export class PatchError extends Error {
  constructor(
    message: string,
    readonly malformed = false,
  ) {
    super(message);
  }
}

function isObject(v: unknown): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386: objects merge key by key, null removes a key, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: { [key: string]: Json } = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k] ?? null, v);
  }
  return out;
}

/**
 * Strategic merge patch for types whose lists have no merge keys: a merge patch
 * where `$patch: replace|delete` acts on its map and other `$` directives are
 * dropped (apimachinery strategicpatch for such types).
 */
export function strategicMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const directive = patch.$patch;
  if (directive === 'delete') return null;
  const base: { [key: string]: Json } = directive === 'replace' || !isObject(target) ? {} : { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue;
    if (v === null) delete base[k];
    else {
      const merged = strategicMergePatch(base[k] ?? null, v);
      if (merged === null) delete base[k];
      else base[k] = merged;
    }
  }
  return base;
}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

function parsePointer(p: unknown, what: string): string[] {
  if (typeof p !== 'string') throw new PatchError(`${what} is not a string`, true);
  if (p === '') return [];
  if (!p.startsWith('/')) throw new PatchError(`JSON pointer must be empty or start with a "/": ${p}`);
  return p
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function clone<T extends Json>(v: T): T {
  return structuredClone(v);
}

function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

function arrayIndex(token: string, length: number, allowEnd: boolean, path: string): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchError(`invalid array index ${token} in ${path}`);
  const i = Number(token);
  if (i > length || (!allowEnd && i === length)) throw new PatchError(`index out of bounds: ${path}`);
  return i;
}

/** The container of the last token of a path, which must exist. */
function parentOf(doc: Json, tokens: string[], path: string, op: string): Json {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false, path)];
    else if (isObject(cur) && t in cur) cur = cur[t];
    else throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  return cur;
}

function getAt(doc: Json, tokens: string[], path: string, op: string): Json {
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens, path, op);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false, path)];
  if (!isObject(parent) || !(last in parent)) throw new PatchError(`${op} operation does not apply: doc is missing key: ${path}: missing value`);
  return parent[last];
}

function addAt(doc: Json, tokens: string[], value: Json, path: string): Json {
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens, path, 'add');
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true, path), 0, value);
  else (parent as { [key: string]: Json })[last] = value;
  return doc;
}

function removeAt(doc: Json, tokens: string[], path: string, op: string): Json {
  if (tokens.length === 0) throw new PatchError(`${op} operation does not apply: cannot remove the whole document`);
  const parent = parentOf(doc, tokens, path, op);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return parent.splice(arrayIndex(last, parent.length, false, path), 1)[0];
  const obj = parent as { [key: string]: Json };
  if (!(last in obj)) throw new PatchError(`${op} operation does not apply: doc is missing key: ${path}: missing value`);
  const v = obj[last];
  delete obj[last];
  return v;
}

/** Checks the shape of a JSON patch document (jsonpatch.DecodePatch). */
export function decodeJsonPatch(body: unknown): Operation[] {
  if (!Array.isArray(body)) throw new PatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch', true);
  return body.map((op) => {
    if (!isObject(op)) throw new PatchError('json: cannot unmarshal non-object into Go value of type jsonpatch.Operation', true);
    return op as unknown as Operation;
  });
}

/** RFC 6902, on a copy of `doc`. */
export function jsonPatch(doc: Json, ops: Operation[]): Json {
  let out = clone(doc);
  for (const op of ops) {
    const path = op.path;
    const tokens = parsePointer(path, 'path');
    switch (op.op) {
      case 'add':
        if (!('value' in op)) throw new PatchError(`add operation does not apply: missing value for ${path}`);
        out = addAt(out, tokens, clone(op.value as Json), path);
        break;
      case 'remove':
        removeAt(out, tokens, path, 'remove');
        break;
      case 'replace': {
        if (!('value' in op)) throw new PatchError(`replace operation does not apply: missing value for ${path}`);
        if (tokens.length === 0) {
          out = clone(op.value as Json);
          break;
        }
        removeAt(out, tokens, path, 'replace');
        out = addAt(out, tokens, clone(op.value as Json), path);
        break;
      }
      case 'move': {
        const from = parsePointer(op.from, 'from');
        if (path.startsWith(`${op.from}/`)) throw new PatchError(`move operation does not apply: cannot move ${op.from} into its own child ${path}`);
        const v = removeAt(out, from, op.from!, 'move');
        out = addAt(out, tokens, v, path);
        break;
      }
      case 'copy': {
        const v = getAt(out, parsePointer(op.from, 'from'), op.from!, 'copy');
        out = addAt(out, tokens, clone(v), path);
        break;
      }
      case 'test':
        if (!deepEqual(getAt(out, tokens, path, 'test'), (op.value ?? null) as Json)) throw new PatchError(`testing value ${path} failed: test failed`);
        break;
      default:
        throw new PatchError(`Unexpected kind: ${String(op.op)}`);
    }
  }
  return out;
}
