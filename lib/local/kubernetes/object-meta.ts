// ObjectMeta as kube-apiserver fills and checks it on writes
// (rest.BeforeCreate/BeforeUpdate, apimachinery ValidateObjectMeta).
import { randomUUID } from 'node:crypto';
import type { FieldCause } from './errors.js';
import type { ObjectMeta } from './object-store.js';

/** metav1.Time: RFC 3339 to the second. */
export function timestamp(d: Date): string {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

export function newUid(): string {
  return randomUUID();
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** validation.IsDNS1123Subdomain. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(SUBDOMAIN_MESSAGE);
  return errs;
}

/** names.SimpleNameGenerator: five characters from a consonant-and-digit alphabet. */
export function generateName(base: string): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const prefix = base.length > 58 ? base.slice(0, 58) : base;
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return prefix + s;
}

/** A value as field errors print it: %q for a string (JSON quoting matches it for what names hold). */
export function quote(v: unknown): string {
  return JSON.stringify(v) ?? 'null';
}

/** ValidateObjectMeta's name checks (generateName is checked as its prefix would be). */
export function nameCauses(meta: ObjectMeta, nameRule: (name: string) => string[] = dns1123SubdomainErrors): FieldCause[] {
  if (!meta.name) {
    if (!meta.generateName) return [{ field: 'metadata.name', type: 'FieldValueRequired', body: 'Required value: name or generateName is required' }];
    return [];
  }
  return nameRule(meta.name).map((m) => ({ field: 'metadata.name', type: 'FieldValueInvalid', body: `Invalid value: ${quote(meta.name)}: ${m}` }));
}

/** The fields of metav1.ObjectMeta. */
export const OBJECT_META_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Fields of metadata that ObjectMeta does not have: what strict decoding reports and pruning drops. */
export function unknownMetadataFields(meta: Record<string, unknown>): string[] {
  return Object.keys(meta)
    .filter((k) => !OBJECT_META_FIELDS.has(k))
    .map((k) => `metadata.${k}`);
}

/** Fields the server owns: set on create, kept from the stored object on update. */
export function systemFieldsFrom(old: ObjectMeta): Partial<ObjectMeta> {
  const out: Partial<ObjectMeta> = { uid: old.uid, creationTimestamp: old.creationTimestamp };
  if (old.deletionTimestamp) {
    out.deletionTimestamp = old.deletionTimestamp;
    out.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  }
  if (old.generation !== undefined) out.generation = old.generation;
  return out;
}
