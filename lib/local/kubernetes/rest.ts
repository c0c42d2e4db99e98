// The REST verbs of a stored resource, as kube-apiserver's generic registry and
// endpoint handlers serve them: get, list (selectors, limit/continue), watch,
// create, update, patch (JSON, merge, strategic, apply), delete and
// deletecollection, the status subresource, optimistic concurrency,
// fieldValidation and dryRun, Table output. What differs per kind comes in a
// ResourceSpec.
import { isDeepStrictEqual } from 'node:util';
import { alreadyExists, badRequest, conflict, HttpError, invalid, methodNotAllowed, notFound, resourceNotFound, unsupportedPatch } from './errors.js';
import { generateName, quote, systemFieldsFrom, timestamp, newUid } from './object-meta.js';
import type { K8sObject, ObjectFilter, ObjectMeta, ObjectStore, WatchEventType } from './object-store.js';
import { decodeJsonPatch, jsonPatch, mergePatch, PatchError, strategicMergePatch, type Json } from './patch.js';
import { fieldsMatch, labelFilter, parseFieldSelector } from './selectors.js';
import { toTable, type TableConvertor, type TableOptions } from './table.js';

export const PATCH_JSON = 'application/json-patch+json';
export const PATCH_MERGE = 'application/merge-patch+json';
export const PATCH_STRATEGIC = 'application/strategic-merge-patch+json';
export const PATCH_APPLY = 'application/apply-patch+yaml';

export interface Subresource {
  name: string;
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

export interface Admitted {
  object: K8sObject;
  /** paths strict decoding rejects (`spec.foo`), whatever the directive */
  unknownFields: string[];
  /** 422 of validation, raised after the unknown-field check as upstream decodes first */
  invalid?: HttpError;
}

export interface WriteStrategy {
  statusSubresource: boolean;
  /** PUT without metadata.resourceVersion is allowed (false for custom resources) */
  allowUnconditionalUpdate: boolean;
  /** PUT of a missing object creates it (Events) */
  allowCreateOnUpdate: boolean;
  /** DELETE answers the object rather than a Success Status */
  returnDeletedObject: boolean;
  /** metadata.generation: 1 on create, +1 when anything but metadata changes */
  generation: boolean;
  patchTypes: readonly string[];
  /** Defaulting, pruning and validation (metadata too) of what is about to be stored. */
  admit(o: K8sObject, old: K8sObject | undefined): Admitted;
  /** After a committed write (a CRD registers its resource). */
  committed?(o: K8sObject, deleted: boolean): void;
}

export interface ResourceSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** the store's key, one per group and resource whatever the version */
  key: string;
  verbs: readonly string[];
  subresources: readonly Subresource[];
  /** fieldSelector labels, and their values for an object */
  selectableFields: ReadonlySet<string>;
  fieldsOf(o: K8sObject): Record<string, string>;
  table: TableConvertor;
  /** absent: read-only */
  writes?: WriteStrategy;
  /** brings the stored objects (of a namespace, or all) up to date before a read (resources mirrored from the workload model) */
  refresh?(namespace: string | undefined): void;
}

export interface RestRequest {
  verb: string;
  namespace: string;
  name: string;
  subresource: string;
  query: Record<string, string>;
  contentType: string;
  body: unknown;
  table?: TableOptions;
  /** the server's clock (the workload model's) */
  clock: () => Date;
}

export interface RestReply {
  status: number;
  body: unknown;
  warnings?: string[];
}

export interface WatchRequest {
  key: string;
  namespace?: string;
  match?: ObjectFilter;
  resourceVersion?: string;
  timeoutSeconds?: number;
  /** the `object` of a watch event; `first` is true for the first event sent */
  encode(type: WatchEventType, o: K8sObject, first: boolean): unknown;
}

export function groupVersion(spec: { group: string; version: string }): string {
  return spec.group ? `${spec.group}/${spec.version}` : spec.version;
}

/** The qualified name in messages: `serverlesshorizontalpodautoscalers.shpa.dev`. */
const qualified = (spec: ResourceSpec) => ({ group: spec.group, resource: spec.resource });

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stripVersion(o: K8sObject): unknown {
  const { resourceVersion: _rv, ...meta } = o.metadata;
  return { ...o, metadata: meta };
}

function withoutMetadata(o: K8sObject): unknown {
  const { metadata: _m, ...rest } = o;
  return rest;
}

/** The object as the requested version serves it (custom resources keep one stored copy for all versions). */
function served(spec: ResourceSpec, o: K8sObject): K8sObject {
  const gv = groupVersion(spec);
  return o.apiVersion === gv ? o : { ...o, apiVersion: gv };
}

type Directive = 'Strict' | 'Warn' | 'Ignore';

function directiveOf(r: RestRequest, optionsKind: string): Directive {
  const v = r.query.fieldValidation ?? '';
  if (v === '') return 'Warn'; // handlers.fieldValidation: the default
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw invalid(optionsKind, 'meta.k8s.io', '', [
    { field: 'fieldValidation', type: 'FieldValueInvalid', body: `Unsupported value: ${quote(v)}: supported values: "", "Ignore", "Strict", "Warn"` },
  ]);
}

function isDryRun(r: RestRequest): boolean {
  if (r.query.dryRun === undefined) return false;
  if (r.query.dryRun !== 'All') throw badRequest(`dryRun: Unsupported value: ${quote(r.query.dryRun)}: supported values: "All"`);
  return true;
}

const unknownText = (fields: string[]) => fields.map((f) => `unknown field "${f}"`).join(', ');

function objectBody(spec: ResourceSpec, body: unknown): K8sObject {
  if (!isObject(body)) throw badRequest(`the object provided is unrecognized (must be of type ${spec.kind}): couldn't get version/kind; json parse error`);
  if (body.kind !== undefined && body.kind !== spec.kind) {
    throw badRequest(`${String(body.kind)} in version "${spec.version}" cannot be handled as a ${spec.kind}: the kind in the data does not match the expected kind ${spec.kind}`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== groupVersion(spec)) {
    throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${groupVersion(spec)})`);
  }
  const metadata = isObject(body.metadata) ? (body.metadata as ObjectMeta) : ({} as ObjectMeta);
  return { apiVersion: groupVersion(spec), kind: spec.kind, ...body, metadata: { ...metadata } };
}

/** rest.BeforeCreate/BeforeUpdate: an object's namespace must be the request's. */
function checkNamespace(spec: ResourceSpec, o: K8sObject, namespace: string): void {
  if (!spec.namespaced) {
    delete o.metadata.namespace;
    return;
  }
  if (o.metadata.namespace && o.metadata.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  o.metadata.namespace = namespace;
}

/** The labelSelector and fieldSelector of a request as one filter; undefined when it has neither. */
function selection(spec: ResourceSpec, r: RestRequest): ObjectFilter | undefined {
  const fields = parseFieldSelector(r.query.fieldSelector, spec.selectableFields);
  if (!r.query.labelSelector && fields.length === 0) return undefined;
  const labels = labelFilter(r.query.labelSelector);
  return fields.length === 0 ? (o) => labels(o.metadata.labels) : (o) => labels(o.metadata.labels) && fieldsMatch(fields, spec.fieldsOf(o));
}

function list(store: ObjectStore, spec: ResourceSpec, r: RestRequest): RestReply | { watch: WatchRequest } {
  const match = selection(spec, r);
  const namespace = spec.namespaced && r.namespace ? r.namespace : undefined;
  if (r.query.watch === 'true' || r.query.watch === '1') {
    const timeout = Number(r.query.timeoutSeconds);
    const table = r.table;
    return {
      watch: {
        key: spec.key,
        namespace,
        match,
        resourceVersion: r.query.resourceVersion,
        timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
        // upstream watchEmbeddedEncoder: a Table's headers go with the first event only
        encode: (_type, o, first) =>
          table ? toTable(spec.table, [served(spec, o)], { resourceVersion: o.metadata.resourceVersion }, { ...table, noHeaders: !first || table.noHeaders }, r.clock()) : served(spec, o),
      },
    };
  }
  const limit = r.query.limit ? Number(r.query.limit) : undefined;
  const result = store.list(spec.key, { namespace, match, filtered: match !== undefined, limit, continue: r.query.continue });
  const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) metadata.continue = result.continue;
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
  const items = result.items.map((o) => served(spec, o));
  if (r.table) return { status: 200, body: toTable(spec.table, items, metadata, r.table, r.clock()) };
  return { status: 200, body: { kind: spec.listKind, apiVersion: groupVersion(spec), metadata, items } };
}

function checkStrict(spec: ResourceSpec, admitted: Admitted, directive: Directive, patched: K8sObject | undefined): string[] {
  if (admitted.unknownFields.length === 0 || directive === 'Ignore') return [];
  const text = unknownText(admitted.unknownFields);
  if (directive === 'Warn') return admitted.unknownFields.map((f) => `unknown field "${f}"`);
  if (patched) {
    // jsonPatcher.applyPatchToCurrentObject: NewInvalid with an empty GroupKind and name
    throw invalid('', '', '', [{ field: 'patch', type: 'FieldValueInvalid', body: `Invalid value: ${quote(JSON.stringify(patched))}: strict decoding error: ${text}` }]);
  }
  throw badRequest(`${spec.kind} in version "${spec.version}" cannot be handled as a ${spec.kind}: strict decoding error: ${text}`);
}

function create(store: ObjectStore, spec: ResourceSpec, writes: WriteStrategy, r: RestRequest, input: K8sObject, directive: Directive): RestReply {
  checkNamespace(spec, input, r.namespace);
  const meta = input.metadata;
  if (meta.resourceVersion) throw new HttpError(500, 'Internal error occurred: resourceVersion should not be set on objects to be created');
  if (!meta.name && typeof meta.generateName === 'string' && meta.generateName) meta.name = generateName(meta.generateName);
  meta.name ??= '';
  for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink']) delete meta[k];
  meta.uid = newUid();
  meta.creationTimestamp = timestamp(r.clock());
  if (writes.generation) meta.generation = 1;
  else delete meta.generation;
  if (writes.statusSubresource) delete input.status; // PrepareForCreate: create cannot set status
  const admitted = writes.admit(input, undefined);
  const warnings = checkStrict(spec, admitted, directive, undefined);
  if (admitted.invalid) throw admitted.invalid;
  if (store.get(spec.key, meta.namespace ?? '', meta.name)) throw alreadyExists(qualified(spec), meta.name);
  if (isDryRun(r)) return { status: 201, body: admitted.object, warnings };
  const stored = store.put(spec.key, admitted.object);
  writes.committed?.(stored, false);
  return { status: 201, body: served(spec, stored), warnings };
}

/**
 * The common end of PUT and PATCH: preconditions, the strategy's PrepareForUpdate
 * (status kept or alone changed, generation), admission, then the write — none
 * when nothing changed, as etcd3 GuaranteedUpdate.
 */
function update(
  store: ObjectStore,
  spec: ResourceSpec,
  writes: WriteStrategy,
  r: RestRequest,
  old: K8sObject,
  input: K8sObject,
  directive: Directive,
  patched?: K8sObject,
): RestReply {
  const name = old.metadata.name;
  const rv = input.metadata.resourceVersion;
  if (!rv && !writes.allowUnconditionalUpdate) {
    throw invalid(spec.kind, spec.group, name, [{ field: 'metadata.resourceVersion', type: 'FieldValueInvalid', body: 'Invalid value: 0x0: must be specified for an update' }]);
  }
  if (rv && rv !== old.metadata.resourceVersion) throw conflict(qualified(spec), name);
  let next: K8sObject;
  if (r.subresource === 'status') {
    // statusStrategy.PrepareForUpdate: the stored object with the new status only
    next = { ...old, metadata: { ...old.metadata } };
    if (input.status === undefined) delete next.status;
    else next.status = input.status;
  } else {
    next = { ...input, metadata: { ...input.metadata, ...systemFieldsFrom(old.metadata), namespace: old.metadata.namespace } };
    delete next.metadata.managedFields;
    if (!spec.namespaced) delete next.metadata.namespace;
    if (writes.statusSubresource) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
  }
  next.metadata.resourceVersion = old.metadata.resourceVersion;
  const admitted = writes.admit(next, old);
  const warnings = checkStrict(spec, admitted, directive, patched);
  if (admitted.invalid) throw admitted.invalid;
  const result = admitted.object;
  if (writes.generation && r.subresource !== 'status' && !isDeepStrictEqual(withoutMetadata(result), withoutMetadata(old))) {
    result.metadata = { ...result.metadata, generation: (old.metadata.generation ?? 0) + 1 };
  }
  if (isDeepStrictEqual(stripVersion(result), stripVersion(old))) return { status: 200, body: served(spec, old), warnings };
  if (isDryRun(r)) return { status: 200, body: served(spec, result), warnings };
  // the last finalizer removed from an object being deleted: it goes
  if (result.metadata.deletionTimestamp && !result.metadata.finalizers?.length) {
    const gone = store.delete(spec.key, result.metadata.namespace ?? '', name)!;
    writes.committed?.(gone, true);
    return { status: 200, body: served(spec, gone), warnings };
  }
  const stored = store.put(spec.key, result);
  writes.committed?.(stored, false);
  return { status: 200, body: served(spec, stored), warnings };
}

function applyPatch(contentType: string, current: K8sObject, body: unknown): K8sObject {
  let out: Json;
  try {
    if (contentType === PATCH_JSON) out = jsonPatch(current as unknown as Json, decodeJsonPatch(body));
    else {
      if (!isObject(body)) throw new PatchError('Invalid JSON Patch', true);
      out = contentType === PATCH_STRATEGIC ? strategicMergePatch(current as unknown as Json, body as Json) : mergePatch(current as unknown as Json, body as Json);
    }
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    if (e.malformed) throw badRequest(e.message);
    // NewGenericServerResponse(422) keeps its own message, not the patch error's
    throw new HttpError(422, 'the server rejected our request due to an error in our request', { group: '', kind: '', name: '' });
  }
  if (!isObject(out)) throw badRequest('the patched object is not a JSON object');
  const patched = out as unknown as K8sObject;
  if (!isObject(patched.metadata)) patched.metadata = {} as ObjectMeta;
  return patched;
}

function patch(store: ObjectStore, spec: ResourceSpec, writes: WriteStrategy, r: RestRequest): RestReply {
  if (!writes.patchTypes.includes(r.contentType)) throw unsupportedPatch(writes.patchTypes as string[]);
  const directive = directiveOf(r, 'PatchOptions');
  const old = store.get(spec.key, spec.namespaced ? r.namespace : '', r.name);
  if (!old) {
    // server-side apply creates what does not exist
    if (r.contentType !== PATCH_APPLY || r.subresource) throw notFound(qualified(spec), r.name);
    const input = objectBody(spec, r.body);
    if (input.metadata.name !== r.name) throw badRequest(`the name of the object (${input.metadata.name ?? ''}) does not match the name on the URL (${r.name})`);
    return create(store, spec, writes, r, input, directive);
  }
  const current = served(spec, old);
  const patched = applyPatch(r.contentType, current, r.body);
  if (patched.metadata.name !== r.name) throw badRequest(`the name of the object (${String(patched.metadata.name)}) does not match the name on the URL (${r.name})`);
  const input = objectBody(spec, patched);
  // a patch without metadata.resourceVersion carries the current one: no conflict
  return update(store, spec, writes, r, old, input, directive, patched);
}

function put(store: ObjectStore, spec: ResourceSpec, writes: WriteStrategy, r: RestRequest): RestReply {
  const directive = directiveOf(r, 'UpdateOptions');
  const input = objectBody(spec, r.body);
  if (input.metadata.name !== r.name) throw badRequest(`the name of the object (${input.metadata.name ?? ''}) does not match the name on the URL (${r.name})`);
  checkNamespace(spec, input, r.namespace);
  const old = store.get(spec.key, spec.namespaced ? r.namespace : '', r.name);
  if (!old) {
    if (!writes.allowCreateOnUpdate || r.subresource) throw notFound(qualified(spec), r.name);
    delete input.metadata.resourceVersion;
    return create(store, spec, writes, r, input, directive);
  }
  return update(store, spec, writes, r, old, input, directive);
}

interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

/** Deletes one object; `object` is what was deleted (or marked, while finalizers remain). */
function remove(store: ObjectStore, spec: ResourceSpec, writes: WriteStrategy, r: RestRequest, old: K8sObject, options: DeleteOptions): RestReply & { object: K8sObject } {
  const name = old.metadata.name;
  const pre = options.preconditions ?? {};
  if (pre.uid && pre.uid !== old.metadata.uid) throw conflict(qualified(spec), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`);
  if (pre.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
    throw conflict(qualified(spec), name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`);
  }
  const dry = isDryRun(r) || (options.dryRun?.includes('All') ?? false);
  if (old.metadata.finalizers?.length) {
    // graceful: marked, gone once its finalizers are
    if (old.metadata.deletionTimestamp || dry) return { status: 200, body: served(spec, old), object: old };
    const marked = store.put(spec.key, { ...old, metadata: { ...old.metadata, deletionTimestamp: timestamp(r.clock()), deletionGracePeriodSeconds: 0 } });
    writes.committed?.(marked, false);
    return { status: 200, body: served(spec, marked), object: marked };
  }
  const gone = dry ? old : store.delete(spec.key, old.metadata.namespace ?? '', name)!;
  if (!dry) writes.committed?.(gone, true);
  if (writes.returnDeletedObject) return { status: 200, body: served(spec, gone), object: gone };
  // Store.finalizeDelete: a Success Status naming the object (Kind holds the resource)
  return {
    status: 200,
    body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: spec.group, kind: spec.resource, uid: old.metadata.uid } },
    object: gone,
  };
}

function deleteOptions(body: unknown): DeleteOptions {
  if (body === undefined || body === null) return {};
  if (!isObject(body)) throw badRequest('DeleteOptions must be a JSON object');
  return body as DeleteOptions;
}

/** Serves one request on a stored resource. Watches come back as a WatchRequest for the HTTP layer to stream. */
export function serveResource(store: ObjectStore, spec: ResourceSpec, r: RestRequest): RestReply | { watch: WatchRequest } {
  if (r.subresource && !(r.subresource === 'status' && spec.subresources.some((s) => s.name === 'status'))) throw resourceNotFound();
  const namespace = spec.namespaced ? r.namespace : '';
  spec.refresh?.(namespace || undefined);
  if (r.verb === 'get' || r.verb === 'list' || r.verb === 'watch') {
    if (!r.name) return list(store, spec, r);
    const o = store.get(spec.key, namespace, r.name);
    if (!o) throw notFound(qualified(spec), r.name);
    if (r.table && !r.subresource) return { status: 200, body: toTable(spec.table, [served(spec, o)], { resourceVersion: o.metadata.resourceVersion }, r.table, r.clock()) };
    return { status: 200, body: served(spec, o) };
  }
  const writes = spec.writes;
  if (!writes) throw methodNotAllowed();
  switch (r.verb) {
    case 'create':
      if (r.name || r.subresource) throw methodNotAllowed();
      return create(store, spec, writes, r, objectBody(spec, r.body), directiveOf(r, 'CreateOptions'));
    case 'update':
      return put(store, spec, writes, r);
    case 'patch':
      return patch(store, spec, writes, r);
    case 'delete': {
      if (r.subresource) throw methodNotAllowed();
      const old = store.get(spec.key, namespace, r.name);
      if (!old) throw notFound(qualified(spec), r.name);
      return remove(store, spec, writes, r, old, deleteOptions(r.body));
    }
    case 'deletecollection': {
      const options = deleteOptions(r.body);
      const targets = store.list(spec.key, { namespace: spec.namespaced && r.namespace ? r.namespace : undefined, match: selection(spec, r) }).items;
      const items = targets.map((o) => served(spec, remove(store, spec, writes, r, o, { dryRun: options.dryRun }).object));
      return { status: 200, body: { kind: spec.listKind, apiVersion: groupVersion(spec), metadata: { resourceVersion: store.resourceVersion }, items } };
    }
    default:
      throw methodNotAllowed();
  }
}
