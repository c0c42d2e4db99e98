// OpenAPI value validation of a custom resource, as apiextensions runs kube-openapi's
// validate.SchemaValidator and converts its results (apiserver/validation kubeOpenAPIResultToFieldErrors),
// with ratcheting on update; and the list-type set/map invariants (schema/listtype).
import { isDeepStrictEqual } from 'node:util';
import type { JSONSchemaProps } from '#hpa/api';
import { fieldSchema, oldField, oldItem, unchanged } from './correlation.js';
import {
  child,
  duplicate,
  index,
  invalid,
  key,
  NIL_PATH,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  type AdmissionError,
} from './field-errors.js';
import { stringFormat } from './structural.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** JSON type names as kube-openapi's typeValidator sees decoded values. */
function jsonType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

function schemaTypes(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

/** The resource against its schema; `old` on update ratchets unchanged parts. */
export function validateAgainstSchema(obj: Obj, s: JSONSchemaProps, old?: Obj): AdmissionError[] {
  const errs: AdmissionError[] = [];
  new Walker(errs, old !== undefined).node(obj, s, '', old, true);
  return errs;
}

class Walker {
  constructor(
    private readonly errs: AdmissionError[],
    private readonly ratcheting: boolean,
  ) {}

  /** kube-openapi's "<name> in body", which starts its messages. */
  private body(path: string): string {
    return `${path} in body`;
  }

  node(data: unknown, s: JSONSchemaProps, path: string, old: unknown, root = false): void {
    // Ratcheting: a correlated node equal to its old value reports nothing (its errors become warnings).
    if (this.ratcheting && unchanged(data, old, s)) return;
    const types = schemaTypes(s);
    const typeName = types.join(',');
    if (data === null) {
      if (types.length > 0 && !s.nullable) this.errs.push(typeInvalid(path, 'null', `${this.body(path)} must be of type ${typeName}: "null"`));
      if (s.enum) this.errs.push(notSupported(path, null, enumTexts(s.enum)));
      return;
    }
    const actual = jsonType(data);
    const typeOk = types.length === 0 || types.includes(actual) || (actual === 'integer' && types.includes('number'));
    if (!typeOk) this.errs.push(typeInvalid(path, actual, `${this.body(path)} must be of type ${typeName}: ${JSON.stringify(actual)}`));
    if (typeof data === 'string') this.string(data, s, path);
    if (typeof data === 'number') this.number(data, s, path, types);
    if (Array.isArray(data)) this.array(data, s, path, old);
    if (s.enum && !s.enum.some((e) => isDeepStrictEqual(e, data))) this.errs.push(notSupported(path, data, enumTexts(s.enum)));
    if (isObj(data)) this.object(data, s, path, old, root);
  }

  // stringValidator: maxLength, minLength, pattern, each returning at the first failure; then the format.
  private string(v: string, s: JSONSchemaProps, path: string): void {
    const length = [...v].length;
    if (s.maxLength !== undefined && length > s.maxLength) this.errs.push(tooLong(path, s.maxLength));
    else if (s.minLength !== undefined && length < s.minLength) this.errs.push(invalid(path, v, `${this.body(path)} should be at least ${s.minLength} chars long`));
    else if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v)) this.errs.push(invalid(path, v, `${this.body(path)} should match '${s.pattern}'`));
    const format = stringFormat(s);
    if (format && !validFormat(format, v)) this.errs.push(typeInvalid(path, v, `${this.body(path)} must be of type ${format}: ${JSON.stringify(v)}`));
  }

  private number(v: number, s: JSONSchemaProps, path: string, types: string[]): void {
    // IsValueValidAgainstRange: its plain error carries no field, so apiextensions reports it at the nil path.
    if (types.length === 1 && types[0] === 'integer') {
      const format = s.format === 'int32' || s.format === 'int64' ? s.format : '';
      const fits = Number.isInteger(v) && (format !== 'int32' || (v >= INT32.min && v <= INT32.max));
      if (!fits) {
        const what = format ? `integer with format ${format}` : 'integer (default format)';
        this.errs.push(invalid(NIL_PATH, '', `Checked value must be of type ${what} in ${path}`));
      }
    }
    if (s.multipleOf !== undefined && !Number.isInteger(v / s.multipleOf)) this.errs.push(invalid(path, v, `${this.body(path)} should be a multiple of ${s.multipleOf}`));
    if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
      this.errs.push(invalid(path, v, `${this.body(path)} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
    }
    if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
      this.errs.push(invalid(path, v, `${this.body(path)} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
    }
  }

  private array(v: unknown[], s: JSONSchemaProps, path: string, old: unknown): void {
    if (s.items) v.forEach((item, i) => this.node(item, s.items!, index(path, i), oldItem(old, item, s)));
    if (s.minItems !== undefined && v.length < s.minItems) this.errs.push(invalid(path, v.length, `${this.body(path)} should have at least ${s.minItems} items`));
    if (s.maxItems !== undefined && v.length > s.maxItems) this.errs.push(tooMany(path, v.length, s.maxItems));
  }

  private object(v: Obj, s: JSONSchemaProps, path: string, old: unknown, root: boolean): void {
    const count = Object.keys(v).length;
    if (s.minProperties !== undefined && count < s.minProperties) {
      this.errs.push(invalid(path, count, `${this.body(path)} should have at least ${s.minProperties} properties`));
    }
    if (s.maxProperties !== undefined && count > s.maxProperties) this.errs.push(tooMany(path, count, s.maxProperties));
    const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    // go-openapi names map entries with a dot, not with brackets.
    if (extra) for (const [k, val] of Object.entries(v)) if (!s.properties?.[k]) this.node(val, extra, child(path, k), oldField(old, v, k, s));
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      // apiVersion and kind of the resource are never ratcheted.
      if (k in v) this.node(v[k], prop, child(path, k), root && (k === 'apiVersion' || k === 'kind') ? undefined : oldField(old, v, k, s));
    }
    for (const k of s.required ?? []) if (!(k in v)) this.errs.push(required(child(path, k)));
  }
}

const enumTexts = (values: unknown[]): string[] => values.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));

// strfmt IsDate / IsDateTime.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(.\d+)?(z|[+-]\d{2}:\d{2})$/;

function validDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

function validFormat(format: string, v: string): boolean {
  if (format === 'date') return validDate(v);
  if (v.length < 4) return false;
  const parts = v.toLowerCase().split('t');
  if (parts.length < 2 || !validDate(parts[0])) return false;
  const m = TIME.exec(parts[1]);
  return m !== null && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

/** schema/listtype ValidateListSetsAndMaps: duplicate items of sets, duplicate keys of maps. */
export function validateListSetsAndMaps(obj: Obj, s: JSONSchemaProps): AdmissionError[] {
  const errs: AdmissionError[] = [];
  const walk = (x: unknown, sch: JSONSchemaProps | undefined, path: string): void => {
    if (!sch) return;
    if (Array.isArray(x)) {
      const type = sch['x-kubernetes-list-type'];
      if (type === 'set') for (const i of repeated(x)) errs.push(duplicate(index(path, i), x[i]));
      if (type === 'map') errs.push(...listMapDuplicates(x, sch, path));
      if (sch.items) x.forEach((item, i) => walk(item, sch.items, index(path, i)));
    } else if (isObj(x)) {
      for (const [k, v] of Object.entries(x)) walk(v, fieldSchema(sch, k), sch.properties?.[k] ? child(path, k) : key(path, k));
    }
  };
  walk(obj, s, '');
  return errs;
}

/** Indexes of items equal to an earlier one, each value reported once (at its second occurrence). */
function repeated(items: unknown[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  items.forEach((item, i) => {
    const k = JSON.stringify(canonical(item));
    const n = seen.get(k) ?? 0;
    if (n === 1) out.push(i);
    seen.set(k, n + 1);
  });
  return out;
}

function listMapDuplicates(items: unknown[], s: JSONSchemaProps, path: string): AdmissionError[] {
  const bad = items.findIndex((x) => x !== null && !isObj(x));
  if (bad >= 0) return [invalid(index(path, bad), items[bad], 'must be an object for an array of list-type map')];
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  const keyOf = (x: unknown): Obj => Object.fromEntries(keys.filter((k) => isObj(x) && k in x).map((k) => [k, (x as Obj)[k]]));
  const keyValues = items.map(keyOf);
  return repeated(keyValues).map((i) => duplicate(index(path, i), keyValues[i]));
}

const canonical = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(canonical) : isObj(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, canonical(x[k])])) : x;
