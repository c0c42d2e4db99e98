// Admission of a custom resource as kube-apiserver (apiextensions-apiserver) does it for one CRD
// version: decoding (pruning, nulls, defaults), then the customresource strategy's Validate or
// ValidateUpdate: type meta, object meta, the OpenAPI schema (ratcheted on update), list-type
// set/map invariants, and x-kubernetes-validations unless an earlier error blocks them.
// The caller does the strategy's PrepareForCreate/PrepareForUpdate (status handling, generation) first.
import { validateRules } from './cel.js';
import { errorBody, formatError, invalid, NIL_PATH, type AdmissionError } from './field-errors.js';
import { decodeObjectMeta, validateObjectMeta } from './object-meta.js';
import { applySchemaDefaults, pruneNonNullableNulls, pruneResource } from './prune.js';
import { validateAgainstSchema, validateListSetsAndMaps } from './schema-validation.js';
import { crdVersion, type CrdVersion } from './structural.js';

export type { AdmissionError, AdmissionErrorType } from './field-errors.js';
export { formatError } from './field-errors.js';

export interface AdmissionResult {
  errors: AdmissionError[];
  /** the object after defaulting and pruning of unknown fields */
  object: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates a custom resource as kube-apiserver does for this CRD version: structural schema, defaults, pruning, x-kubernetes-validations (with oldSelf on update). */
export function admitCustomResource(crd: unknown, version: string, object: unknown, old?: unknown): AdmissionResult {
  const v = crdVersion(crd, version);
  if (!isObj(object)) throw new TypeError(`admitCustomResource: the object must be a JSON object, got ${Array.isArray(object) ? 'an array' : typeof object}`);
  if (old !== undefined && !isObj(old)) throw new TypeError('admitCustomResource: the old object must be a JSON object');
  const obj = decode(object, v);
  const previous = old === undefined ? undefined : decode(old, v);

  const typeErrs = typeMetaErrors(obj, v);
  if (typeErrs.length > 0) return { errors: typeErrs, object: obj };

  const meta = (o: Obj): Obj => (isObj(o.metadata) ? o.metadata : {});
  const errors = [
    ...validateObjectMeta(meta(obj), v.namespaced, previous && meta(previous)),
    ...validateAgainstSchema(obj, v.schema, previous),
  ];
  // On update, list invariants are checked only if the old object kept them.
  if (previous === undefined || validateListSetsAndMaps(previous, v.schema).length === 0) errors.push(...validateListSetsAndMaps(obj, v.schema));
  // hasBlockingErr: rules are not run on an object of the wrong shape.
  if (errors.some((e) => BLOCKING.has(e.type))) {
    errors.push(invalid(NIL_PATH, null, 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
  } else {
    errors.push(...validateRules(obj, v.schema, previous));
  }
  return { errors, object: obj };
}

const BLOCKING = new Set<AdmissionError['type']>(['NotSupported', 'Required', 'TooLong', 'TooMany', 'TypeInvalid']);

/** What the decoder does: a copy, pruned (unless the schema preserves unknown fields), nulls dropped, defaults set. */
function decode(input: Obj, v: CrdVersion): Obj {
  const obj = structuredClone(input);
  if ('metadata' in obj) obj.metadata = decodeObjectMeta(obj.metadata);
  pruneResource(obj, v.schema);
  pruneNonNullableNulls(obj, v.schema);
  applySchemaDefaults(obj, v.schema);
  return obj;
}

// customResourceValidator.ValidateTypeMeta: errors here end validation.
function typeMetaErrors(obj: Obj, v: CrdVersion): AdmissionError[] {
  const errs: AdmissionError[] = [];
  const gv = `${v.group}/${v.version}`;
  if (obj.kind !== v.kind) errs.push(invalid('kind', obj.kind ?? '', `must be ${v.kind}`));
  if (obj.apiVersion !== gv) errs.push(invalid('apiVersion', obj.apiVersion ?? '', `must be ${gv}`));
  return errs;
}

/** The Status body kube-apiserver answers with (422 Invalid), e.g. ServerlessHorizontalPodAutoscaler.shpa.dev "web" is invalid: spec.maxReplicas: Invalid value: 0: ... */
export function invalidStatus(kind: string, group: string, name: string, errors: AdmissionError[]): Record<string, unknown> {
  const qualified = group ? `${kind}.${group}` : kind;
  // ErrorList.ToAggregate: identical messages once; one error bare, several in brackets.
  const messages = [...new Set(errors.map(formatError))];
  const aggregate = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: messages.length === 0 ? `${qualified} "${name}" is invalid` : `${qualified} "${name}" is invalid: ${aggregate}`,
    reason: 'Invalid',
    details: {
      name,
      group,
      kind,
      // StatusDetails.causes is omitempty.
      ...(errors.length > 0 ? { causes: errors.map((e) => ({ reason: `FieldValue${e.type}`, message: errorBody(e), field: e.field })) } : {}),
    },
    code: 422,
  };
}
