// What kube-apiserver does to a custom resource while decoding it: pruning of fields the
// structural schema does not declare (schema/pruning), removal of nulls where the schema
// allows none (schema/defaulting PruneNonNullableNullsWithoutDefaults), then defaults
// (schema/defaulting Default). All in place.
import type { JSONSchemaProps } from '#hpa/api';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Prunes the resource (its root keeps apiVersion, kind and metadata whatever the schema says). */
export function pruneResource(obj: Obj, schema: JSONSchemaProps): void {
  prune(obj, schema, true);
}

function prune(x: unknown, s: JSONSchemaProps | undefined, root = false): void {
  if (s?.['x-kubernetes-preserve-unknown-fields']) return skipPrune(x, s, root);
  if (isObj(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (root && META_FIELDS.has(k)) continue;
      const prop = s?.properties?.[k] ?? (s ? additional(s) : undefined);
      if (prop) prune(v, prop);
      else delete x[k];
    }
  } else if (Array.isArray(x)) {
    for (const v of x) prune(v, s?.items);
  }
}

// Under x-kubernetes-preserve-unknown-fields, unknown fields stay; declared ones are still pruned below.
function skipPrune(x: unknown, s: JSONSchemaProps | undefined, root = false): void {
  if (!s) return;
  if (isObj(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (root && META_FIELDS.has(k)) continue;
      const prop = s.properties?.[k] ?? additional(s);
      if (prop) prune(v, prop);
    }
  } else if (Array.isArray(x)) {
    for (const v of x) skipPrune(v, s.items);
  }
}

const additional = (s: JSONSchemaProps): JSONSchemaProps | undefined => (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);

/** Deletes object fields set to null where the schema is not nullable and has no default. */
export function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | undefined): void {
  if (isObj(x)) {
    for (const [k, v] of Object.entries(x)) {
      const field = s?.properties?.[k] ?? (s ? additional(s) : undefined);
      if (v === null && field && !field.nullable && field.default === undefined) delete x[k];
      else pruneNonNullableNulls(v, field);
    }
  } else if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNulls(v, s?.items);
  }
}

const nonNullableNull = (v: unknown, s: JSONSchemaProps | undefined): boolean => v === null && s !== undefined && !s.nullable;

/** Fills absent fields (and non-nullable nulls) from the schema's defaults, top-down. */
export function applySchemaDefaults(x: unknown, s: JSONSchemaProps | undefined): void {
  if (!s) return;
  if (isObj(x)) {
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (!(k in x) || nonNullableNull(x[k], prop)) x[k] = structuredClone(prop.default);
    }
    for (const k of Object.keys(x)) {
      const prop = s.properties?.[k];
      if (prop) applySchemaDefaults(x[k], prop);
      else {
        const extra = additional(s);
        if (!extra) continue;
        if (nonNullableNull(x[k], extra) && extra.default !== undefined) x[k] = structuredClone(extra.default);
        applySchemaDefaults(x[k], extra);
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => {
      if (nonNullableNull(v, s.items) && s.items?.default !== undefined) x[i] = structuredClone(s.items.default);
      applySchemaDefaults(x[i], s.items);
    });
  }
}
