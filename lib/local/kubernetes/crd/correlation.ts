// Correlation of a new object with the old one on update (apiserver cel/common CorrelatedObject):
// which old value a node of the new object is compared with, for oldSelf and for ratcheting
// (CRDValidationRatcheting: errors in an unchanged part of an object are not reported).
import type { JSONSchemaProps } from '#hpa/api';
import { isDeepStrictEqual } from 'node:util';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema of a field of an object node. */
export function fieldSchema(s: JSONSchemaProps | undefined, k: string): JSONSchemaProps | undefined {
  return s?.properties?.[k] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
}

/** The old value of field k, when both old and new objects have it; undefined: not correlated. */
export function oldField(oldObj: unknown, newObj: unknown, k: string, s: JSONSchemaProps | undefined): unknown {
  if (!isObj(oldObj) || !isObj(newObj) || !(k in oldObj) || !(k in newObj) || !fieldSchema(s, k)) return undefined;
  return oldObj[k];
}

/** The old item with the same map keys, for x-kubernetes-list-type map; other lists do not correlate items. */
export function oldItem(oldList: unknown, item: unknown, s: JSONSchemaProps | undefined): unknown {
  const keys = s?.['x-kubernetes-list-map-keys'];
  if (s?.['x-kubernetes-list-type'] !== 'map' || !keys || !Array.isArray(oldList) || !isObj(item)) return undefined;
  return oldList.find((o) => isObj(o) && keys.every((k) => isDeepStrictEqual(o[k], item[k])));
}

/** CachedDeepEqual: map lists compare item by key, whatever their order; the rest by value. */
export function unchanged(value: unknown, old: unknown, s: JSONSchemaProps | undefined): boolean {
  if (value === undefined || old === undefined) return false;
  if (Array.isArray(value) && Array.isArray(old)) {
    if (value.length !== old.length) return false;
    if (s?.['x-kubernetes-list-type'] !== 'map') return isDeepStrictEqual(value, old);
    return value.every((item) => unchanged(item, oldItem(old, item, s), s.items));
  }
  if (isObj(value) && isObj(old)) {
    const ks = Object.keys(value);
    return ks.length === Object.keys(old).length && ks.every((k) => unchanged(value[k], oldField(old, value, k, s), fieldSchema(s, k)));
  }
  return isDeepStrictEqual(value, old);
}
