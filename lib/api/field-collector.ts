// Field errors collected while walking a decoded document: what the validations of our own
// kinds share (unknown fields, types, lengths), with paths as upstream's field errors.
import type { FieldError } from '../hpa/field-path.js';

export type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class FieldCollector {
  readonly errors: FieldError[] = [];
  add(field: string, type: FieldError['type'], message: string, value?: unknown): void {
    this.errors.push(value === undefined ? { field, type, message } : { field, type, message, value });
  }
  unknownFields(path: string, o: Obj, known: string[]): void {
    for (const k of Object.keys(o)) {
      if (!known.includes(k)) this.add(path ? `${path}.${k}` : k, 'NotSupported', `unknown field "${k}"`);
    }
  }
  // null counts as unset, as the API server's decoding treats it; a bare Required has no detail, as upstream field.Required(path, "").
  object(path: string, v: unknown, required: boolean): Obj | undefined {
    if (v === undefined || v === null) {
      if (required) this.add(path, 'Required', '');
      return undefined;
    }
    if (!isObject(v)) {
      this.add(path, 'TypeInvalid', 'must be an object', v);
      return undefined;
    }
    return v;
  }
  string(path: string, v: unknown, required: boolean, max: number): string | undefined {
    if (v === undefined || v === null) {
      if (required) this.add(path, 'Required', '');
      return undefined;
    }
    if (typeof v !== 'string') {
      this.add(path, 'TypeInvalid', 'must be a string', v);
      return undefined;
    }
    if (required && v.length === 0) this.add(path, 'Required', '');
    else if (v.length > max) this.add(path, 'TooLong', `must be at most ${max} characters`);
    return v;
  }
  integer(path: string, v: unknown, min: number, max: number): void {
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v)) this.add(path, 'TypeInvalid', 'must be an integer', v);
    else if (v < min || v > max) this.add(path, 'Invalid', `must be between ${min} and ${max}`, v);
  }
}
