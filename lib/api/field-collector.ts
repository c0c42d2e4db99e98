// Field errors collected while walking a decoded document: what the validations of our own
// kinds share (unknown fields, types, lengths), with paths as upstream's field errors.
import { type FieldError, isDNS1123Label, isDNS1123Subdomain } from '#hpa/api';

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
  /**
   * The envelope of one of our kinds (shpa.dev/v1): apiVersion, kind and metadata checked by
   * upstream's ObjectMeta rules; returns the spec object, or undefined when there is none to check.
   */
  envelope(input: unknown, kind: string): Obj | undefined {
    const doc = this.object('', input, true);
    if (!doc) {
      this.errors.forEach((e) => (e.field ||= '<root>'));
      return undefined;
    }
    this.unknownFields('', doc, ['apiVersion', 'kind', 'metadata', 'spec']);
    if (doc.apiVersion !== 'shpa.dev/v1') this.add('apiVersion', 'NotSupported', 'must be "shpa.dev/v1"', doc.apiVersion);
    if (doc.kind !== kind) this.add('kind', 'NotSupported', `must be "${kind}"`, doc.kind);
    const meta = this.object('metadata', doc.metadata, true);
    if (meta) {
      // Upstream's ObjectMeta rules: name a DNS-1123 subdomain, namespace a DNS-1123 label.
      const name = this.string('metadata.name', meta.name, true, Infinity);
      for (const m of name ? isDNS1123Subdomain(name) : []) this.add('metadata.name', 'Invalid', m, name);
      const ns = this.string('metadata.namespace', meta.namespace, false, Infinity);
      for (const m of ns ? isDNS1123Label(ns) : []) this.add('metadata.namespace', 'Invalid', m, ns);
    }
    return this.object('spec', doc.spec, true);
  }
}
