// Field errors as apimachinery's util/validation/field writes them ("spec.x: Invalid value: 0: detail"),
// and the paths apiextensions builds them with.

export type AdmissionErrorType = 'Required' | 'Invalid' | 'NotSupported' | 'TooLong' | 'TooMany' | 'Forbidden' | 'TypeInvalid' | 'Duplicate';

export interface AdmissionError {
  /** The field path, as upstream renders it: "spec.metrics[0].type"; "<nil>" for errors upstream raises without a path. */
  field: string;
  /** field.ErrorType without its FieldValue prefix; Duplicate comes from list-type set/map and CEL reason FieldValueDuplicate. */
  type: AdmissionErrorType;
  /** The bad value; absent where upstream omits it (Required, Forbidden, TooLong, and CEL rules on objects and lists). */
  value?: unknown;
  detail: string;
}

/** What field.Path renders for a nil path. */
export const NIL_PATH = '<nil>';

export const child = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);
export const index = (path: string, i: number): string => `${path}[${i}]`;
export const key = (path: string, k: string): string => `${path}[${k}]`;
/** A path for an error: the root is upstream's nil path. */
export const at = (path: string): string => (path === '' ? NIL_PATH : path);

export function required(field: string, detail = ''): AdmissionError {
  return { field, type: 'Required', detail };
}

export function forbidden(field: string, detail: string): AdmissionError {
  return { field, type: 'Forbidden', detail };
}

/** value undefined: shown as no value (field.OmitValueType). */
export function invalid(field: string, value: unknown, detail: string): AdmissionError {
  return value === undefined ? { field, type: 'Invalid', detail } : { field, type: 'Invalid', value, detail };
}

export function typeInvalid(field: string, value: unknown, detail: string): AdmissionError {
  return { field, type: 'TypeInvalid', value, detail };
}

/** field.NotSupported: the allowed values quoted, in the order given. */
export function notSupported(field: string, value: unknown, allowed: readonly string[]): AdmissionError {
  return { field, type: 'NotSupported', value, detail: allowed.length ? `supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}` : '' };
}

export function tooLong(field: string, max: number): AdmissionError {
  return { field, type: 'TooLong', detail: max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long' };
}

export function tooMany(field: string, actual: number, max: number): AdmissionError {
  return { field, type: 'TooMany', value: actual, detail: `must have at most ${max} ${max === 1 ? 'item' : 'items'}` };
}

export function duplicate(field: string, value: unknown): AdmissionError {
  return value === undefined ? { field, type: 'Duplicate', detail: '' } : { field, type: 'Duplicate', value, detail: '' };
}

const typeText: Record<AdmissionErrorType, string> = {
  Required: 'Required value',
  Invalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  TooLong: 'Too long',
  TooMany: 'Too many',
  Forbidden: 'Forbidden',
  TypeInvalid: 'Invalid value',
  Duplicate: 'Duplicate value',
};

const valueless = new Set<AdmissionErrorType>(['Required', 'Forbidden', 'TooLong']);

/** field.Error.ErrorBody: "Invalid value: 0: must be greater than 0". */
export function errorBody(e: AdmissionError): string {
  let s = typeText[e.type];
  if (!valueless.has(e.type) && e.value !== undefined) s += `: ${goValue(e.value)}`;
  return e.detail ? `${s}: ${e.detail}` : s;
}

/** field.Error.Error: "spec.maxReplicas: Invalid value: 0: must be greater than 0". */
export function formatError(e: AdmissionError): string {
  return `${e.field}: ${errorBody(e)}`;
}

// ErrorBody prints numbers and booleans with %v, strings with %q, anything else as Go's json.Marshal does.
function goValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  return goJson(v);
}

// %v of a float64 writes exponents with at least two digits.
const goNumber = (n: number): string => String(n).replace(/e([+-])(\d)$/, 'e$10$2');

/** encoding/json: map keys sorted, <, > and & escaped. */
function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sorted);
    if (typeof x === 'object' && x !== null) {
      return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sorted((x as Record<string, unknown>)[k])]));
    }
    return x;
  };
  return JSON.stringify(sorted(v)).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}
