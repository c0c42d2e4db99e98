// Core v1 Events as kube-apiserver stores them (pkg/registry/core/event):
// namespaced, created or replaced by PUT, patched by client-go's recorder
// (strategic merge of count/lastTimestamp), selectable by the involved object,
// reason, source and type.
import { invalid, type FieldCause } from './errors.js';
import { dns1123SubdomainErrors, nameCauses, quote } from './object-meta.js';
import type { K8sObject } from './object-store.js';
import { PATCH_APPLY, PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC, type ResourceSpec } from './rest.js';
import { builtInConvertors } from './table.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** event.ToSelectableFields. */
function eventFields(e: K8sObject): Record<string, string> {
  const involved = obj(e.involvedObject);
  return {
    'metadata.name': e.metadata.name,
    'metadata.namespace': e.metadata.namespace ?? '',
    'involvedObject.kind': text(involved.kind),
    'involvedObject.namespace': text(involved.namespace),
    'involvedObject.name': text(involved.name),
    'involvedObject.uid': text(involved.uid),
    'involvedObject.apiVersion': text(involved.apiVersion),
    'involvedObject.resourceVersion': text(involved.resourceVersion),
    'involvedObject.fieldPath': text(involved.fieldPath),
    reason: text(e.reason),
    reportingComponent: text(e.reportingComponent),
    source: text(obj(e.source).component) || text(e.reportingComponent),
    type: text(e.type),
  };
}

/** legacyValidateEvent: an event about a namespaced object lives in that object's namespace. */
function eventCauses(e: K8sObject): FieldCause[] {
  const causes: FieldCause[] = [];
  const involvedNs = text(obj(e.involvedObject).namespace);
  const ns = e.metadata.namespace ?? '';
  if (!e.eventTime) {
    const mismatch = involvedNs ? ns !== involvedNs : ns !== '' && ns !== 'default';
    if (mismatch) causes.push({ field: 'involvedObject.namespace', type: 'FieldValueInvalid', body: `Invalid value: ${quote(involvedNs)}: does not match event.namespace` });
  }
  for (const m of dns1123SubdomainErrors(ns)) causes.push({ field: 'namespace', type: 'FieldValueInvalid', body: `Invalid value: ${quote(ns)}: ${m}` });
  return causes;
}

export function eventSpec(): ResourceSpec {
  const sample = eventFields({ metadata: { name: '' } });
  return {
    group: '',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    listKind: 'EventList',
    singular: 'event',
    namespaced: true,
    shortNames: ['ev'],
    key: '/events',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    selectableFields: new Set(Object.keys(sample)),
    fieldsOf: eventFields,
    table: builtInConvertors['/events'],
    writes: {
      statusSubresource: false,
      allowUnconditionalUpdate: true,
      allowCreateOnUpdate: true,
      returnDeletedObject: false,
      generation: false,
      patchTypes: [PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC, PATCH_APPLY],
      admit(o) {
        const causes = [...nameCauses(o.metadata), ...eventCauses(o)];
        return { object: o, unknownFields: [], invalid: causes.length ? invalid('Event', '', o.metadata.name, causes) : undefined };
      },
    },
  };
}
