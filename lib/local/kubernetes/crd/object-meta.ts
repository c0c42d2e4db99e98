// ObjectMeta of a custom resource: decoded into metav1.ObjectMeta (unknown fields dropped), then
// apimachinery api/validation ValidateObjectMetaAccessor (create, names as DNS subdomains, the
// customresource strategy's NameIsDNSSubdomain) or ValidateObjectMetaAccessorUpdate (update).
// Not checked: ownerReferences and managedFields.
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '#hpa/api';
import { child, forbidden, invalid, required, tooLong, typeInvalid, type AdmissionError } from './field-errors.js';
import { OBJECT_META_FIELDS } from '../object-meta.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;
const PATH = 'metadata';

/** metadata as metav1.ObjectMeta decodes it: fields it does not have are dropped. */
export function decodeObjectMeta(meta: unknown): Obj {
  if (!isObj(meta)) return {};
  return Object.fromEntries(Object.entries(meta).filter(([k, v]) => OBJECT_META_FIELDS.has(k) && v !== null));
}

/** Go reads these fields as strings or string maps: other JSON types fail decoding. */
function typeErrors(meta: Obj): AdmissionError[] {
  const errs: AdmissionError[] = [];
  for (const k of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion']) {
    if (meta[k] !== undefined && typeof meta[k] !== 'string') errs.push(typeInvalid(child(PATH, k), meta[k], 'must be a string'));
  }
  for (const k of ['labels', 'annotations']) {
    const m = meta[k];
    if (m !== undefined && !(isObj(m) && Object.values(m).every((v) => typeof v === 'string'))) {
      errs.push(typeInvalid(child(PATH, k), m, 'must be a map of strings'));
    }
  }
  const f = meta.finalizers;
  if (f !== undefined && !(Array.isArray(f) && f.every((v) => typeof v === 'string'))) errs.push(typeInvalid(child(PATH, 'finalizers'), f, 'must be a list of strings'));
  const g = meta.generation;
  if (g !== undefined && !Number.isSafeInteger(g)) errs.push(typeInvalid(child(PATH, 'generation'), g, 'must be an integer'));
  return errs;
}

// NameIsDNSSubdomain: a generateName prefix may end with "-".
const nameErrors = (name: string, prefix: boolean): string[] => isDNS1123Subdomain(prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);

export function validateObjectMeta(meta: Obj, namespaced: boolean, old?: Obj): AdmissionError[] {
  const typeErrs = typeErrors(meta);
  if (typeErrs.length > 0) return typeErrs;
  const errs: AdmissionError[] = [];
  const str = (k: string): string => (meta[k] as string | undefined) ?? '';
  if (old === undefined) {
    if (str('generateName')) errs.push(...nameErrors(str('generateName'), true).map((m) => invalid(child(PATH, 'generateName'), str('generateName'), m)));
    if (!str('name')) errs.push(required(child(PATH, 'name'), 'name or generateName is required'));
    else errs.push(...nameErrors(str('name'), false).map((m) => invalid(child(PATH, 'name'), str('name'), m)));
    if (namespaced) {
      if (!str('namespace')) errs.push(required(child(PATH, 'namespace')));
      else errs.push(...isDNS1123Label(str('namespace')).map((m) => invalid(child(PATH, 'namespace'), str('namespace'), m)));
    } else if (str('namespace')) {
      errs.push(forbidden(child(PATH, 'namespace'), 'not allowed on this type'));
    }
  } else {
    if (!str('resourceVersion')) errs.push(invalid(child(PATH, 'resourceVersion'), '', 'must be specified for an update'));
  }
  const generation = (meta.generation as number | undefined) ?? 0;
  if (generation < 0) errs.push(invalid(child(PATH, 'generation'), generation, 'must be greater than or equal to 0'));
  if (old !== undefined) {
    if (generation < ((old.generation as number | undefined) ?? 0)) errs.push(invalid(child(PATH, 'generation'), generation, 'must not be decremented'));
    for (const k of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp']) {
      if (meta[k] !== old[k]) errs.push(invalid(child(PATH, k), meta[k] ?? '', 'field is immutable'));
    }
  }
  errs.push(...labelErrors(meta.labels as Record<string, string> | undefined));
  errs.push(...annotationErrors(meta.annotations as Record<string, string> | undefined));
  if (old === undefined) {
    for (const f of (meta.finalizers as string[] | undefined) ?? []) errs.push(...isQualifiedName(f).map((m) => invalid(child(PATH, 'finalizers'), f, m)));
  }
  return errs;
}

// metav1validation.ValidateLabels: every error at the map's path.
function labelErrors(labels: Record<string, string> | undefined): AdmissionError[] {
  const path = child(PATH, 'labels');
  return Object.entries(labels ?? {}).flatMap(([k, v]) => [
    ...isQualifiedName(k).map((m) => invalid(path, k, m)),
    ...isValidLabelValue(v).map((m) => invalid(path, v, m)),
  ]);
}

function annotationErrors(annotations: Record<string, string> | undefined): AdmissionError[] {
  const path = child(PATH, 'annotations');
  const entries = Object.entries(annotations ?? {});
  const errs = entries.flatMap(([k]) => isQualifiedName(k.toLowerCase()).map((m) => invalid(path, k, m)));
  const size = entries.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}
