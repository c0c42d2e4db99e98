// Field paths and field errors as apimachinery's util/validation/field: paths render
// as "spec.metrics[0].resource", errors as "<path>: <Type>: <value>: <detail>".

export type FieldErrorType = 'Required' | 'Invalid' | 'NotSupported' | 'Forbidden' | 'Duplicate' | 'TooLong' | 'TypeInvalid';

/** One problem with a field, as upstream field.Error: "spec.maxReplicas: Invalid value: 0: must be ..." */
export interface FieldError {
  field: string;
  type: FieldErrorType;
  /** The detail (upstream Error.Detail); formatFieldError renders the whole line. */
  message: string;
  value?: unknown;
}

export class FieldPath {
  private constructor(private readonly text: string) {}

  static root(name: string): FieldPath {
    return new FieldPath(name);
  }

  child(name: string): FieldPath {
    return new FieldPath(this.text === '' ? name : `${this.text}.${name}`);
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

export function required(path: FieldPath, detail: string): FieldError {
  return { field: String(path), type: 'Required', message: detail };
}

export function invalid(path: FieldPath, value: unknown, detail: string): FieldError {
  return { field: String(path), type: 'Invalid', message: detail, value };
}

/** field.NotSupported: the detail lists the allowed values, quoted, as upstream. */
export function notSupported(path: FieldPath, value: unknown, allowed: readonly string[]): FieldError {
  return { field: String(path), type: 'NotSupported', message: `supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, value };
}

export function forbidden(path: FieldPath, detail: string): FieldError {
  return { field: String(path), type: 'Forbidden', message: detail };
}

export function tooLong(path: FieldPath, maxBytes: number): FieldError {
  return { field: String(path), type: 'TooLong', message: `may not be more than ${maxBytes} bytes` };
}

/** A value of the wrong JSON type (upstream rejects these while decoding). */
export function typeInvalid(path: FieldPath, value: unknown, detail: string): FieldError {
  return { field: String(path), type: 'TypeInvalid', message: detail, value };
}

const typeText: Record<FieldErrorType, string> = {
  Required: 'Required value',
  Invalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  Forbidden: 'Forbidden',
  Duplicate: 'Duplicate value',
  TooLong: 'Too long',
  TypeInvalid: 'Invalid value',
};

// Upstream ErrorBody: Required/Forbidden/TooLong omit the value; numbers print bare, strings quoted.
function body(e: FieldError): string {
  let s = typeText[e.type];
  if (e.type !== 'Required' && e.type !== 'Forbidden' && e.type !== 'TooLong') {
    s += `: ${renderValue(e.value)}`;
  }
  return e.message === '' ? s : `${s}: ${e.message}`;
}

function renderValue(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** "spec.maxReplicas: Invalid value: 0: must be ..." */
export function formatFieldError(e: FieldError): string {
  return e.field === '' ? body(e) : `${e.field}: ${body(e)}`;
}
