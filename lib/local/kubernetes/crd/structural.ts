// Reads what admission needs from a CustomResourceDefinition object: the kind, scope and the
// structural schema of one version. Features this evaluator does not implement are refused
// here, with the field that uses them, rather than silently skipped.
import type { JSONSchemaProps } from '#hpa/api';
import { child, key } from './field-errors.js';
import { errorText } from '../../../shared/error-text.js';

export interface CrdVersion {
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  schema: JSONSchemaProps;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

// What StripUnsupportedFormats keeps and this evaluator validates; other formats apiextensions drops.
const VALIDATED_STRING_FORMATS = new Set(['date-time', 'datetime', 'date']);
// Compared without dashes, as go-openapi normalizes format names.
const APIEXTENSIONS_STRING_FORMATS = new Set(
  'bsonobjectid uri email hostname ipv4 ipv6 cidr mac uuid uuid3 uuid4 uuid5 isbn isbn10 isbn13 creditcard ssn hexcolor rgbcolor byte password date duration datetime k8sshortname k8slongname'.split(' '),
);
const UNSUPPORTED_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'not', 'uniqueItems', 'x-kubernetes-embedded-resource'] as const;

const cache = new WeakMap<object, Map<string, CrdVersion>>();

/** The named version of a CRD (apiextensions.k8s.io/v1); throws naming the problem when the CRD cannot be used. */
export function crdVersion(crd: unknown, version: string): CrdVersion {
  if (!isObj(crd)) throw new Error('CustomResourceDefinition: must be an object');
  let versions = cache.get(crd);
  const cached = versions?.get(version);
  if (cached) return cached;
  const name = isObj(crd.metadata) && typeof crd.metadata.name === 'string' ? crd.metadata.name : '(unnamed)';
  const fail = (msg: string): never => {
    throw new Error(`CustomResourceDefinition ${name}: ${msg}`);
  };
  const spec = isObj(crd.spec) ? crd.spec : fail('spec: must be an object');
  const names = isObj(spec.names) ? spec.names : fail('spec.names: must be an object');
  if (typeof spec.group !== 'string' || typeof names.kind !== 'string') fail('spec.group and spec.names.kind must be strings');
  const entry = Array.isArray(spec.versions) ? spec.versions.find((v): v is Obj => isObj(v) && v.name === version) : undefined;
  if (!entry) return fail(`has no version "${version}"`);
  if (entry.served !== true) fail(`version "${version}" is not served`);
  const schema = isObj(entry.schema) && isObj(entry.schema.openAPIV3Schema) ? entry.schema.openAPIV3Schema : fail(`spec.versions[${version}].schema.openAPIV3Schema: required`);
  checkSupported(schema, `spec.versions[${version}].schema.openAPIV3Schema`, fail);
  const result: CrdVersion = {
    group: spec.group as string,
    version,
    kind: names.kind as string,
    namespaced: spec.scope !== 'Cluster',
    schema: schema as JSONSchemaProps,
  };
  if (!versions) cache.set(crd, (versions = new Map()));
  versions.set(version, result);
  return result;
}

function checkSupported(s: Obj, path: string, fail: (msg: string) => never): void {
  for (const k of UNSUPPORTED_KEYWORDS) if (s[k] !== undefined && s[k] !== false) fail(`${path}.${k}: not supported by the local admission evaluator`);
  if (typeof s.additionalProperties === 'boolean') fail(`${path}.additionalProperties: a boolean is not supported by the local admission evaluator; give a schema`);
  if (typeof s.format === 'string' && (s.type === 'string' || s.type === undefined)) {
    const normalized = s.format.replaceAll('-', '');
    if (APIEXTENSIONS_STRING_FORMATS.has(normalized) && !VALIDATED_STRING_FORMATS.has(s.format)) {
      fail(`${path}.format: "${s.format}" is not supported by the local admission evaluator`);
    }
  }
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      if (!isObj(r) || typeof r.rule !== 'string') fail(`${path}.x-kubernetes-validations[${i}].rule: must be a string`);
      if (isObj(r) && r.optionalOldSelf === true) fail(`${path}.x-kubernetes-validations[${i}].optionalOldSelf: not supported by the local admission evaluator`);
      if (isObj(r) && typeof r.fieldPath === 'string') {
        try {
          normalizeFieldPath(r.fieldPath, s as JSONSchemaProps);
        } catch (e) {
          fail(`${path}.x-kubernetes-validations[${i}].fieldPath: ${errorText(e)}`);
        }
      }
    });
  }
  if (isObj(s.properties)) for (const [k, p] of Object.entries(s.properties)) if (isObj(p)) checkSupported(p, `${path}.properties.${k}`, fail);
  if (isObj(s.items)) checkSupported(s.items, `${path}.items`, fail);
  if (isObj(s.additionalProperties)) checkSupported(s.additionalProperties, `${path}.additionalProperties`, fail);
}

/** The format a string node is validated with, or undefined (apiextensions drops unknown formats). */
export function stringFormat(s: JSONSchemaProps): string | undefined {
  return s.format !== undefined && VALIDATED_STRING_FORMATS.has(s.format) ? s.format : undefined;
}

/** cel.ValidFieldPath: ".a.b" or "['a']" through the schema, rendered as a field path ("a.b", "[key]" for map entries). */
export function normalizeFieldPath(fieldPath: string, s: JSONSchemaProps): string {
  const tokens = fieldPath.match(/\.[^.[\]]+|\['(?:[^'\\]|\\.)*'\]/g) ?? [];
  if (tokens.join('') !== fieldPath) throw new Error(`${JSON.stringify(fieldPath)}: expected [ or . followed by a field name`);
  let schema: JSONSchemaProps | undefined = s;
  let out = '';
  for (const t of tokens) {
    const name = t.startsWith('.') ? t.slice(1) : t.slice(2, -2).replace(/\\(.)/g, '$1');
    if (schema?.properties) {
      schema = schema.properties[name];
      out = child(out, name);
    } else if (typeof schema?.additionalProperties === 'object') {
      schema = schema.additionalProperties;
      out = key(out, name);
    } else {
      schema = undefined;
    }
    if (!schema) throw new Error(`${JSON.stringify(fieldPath)}: does not refer to a valid field`);
  }
  return out;
}
