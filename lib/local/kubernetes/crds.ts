// CustomResourceDefinitions and the custom resources they define: the
// apiextensions.k8s.io/v1 resource itself (checked and defaulted as the
// apiextensions-apiserver does the parts we rely on, Established at once), and
// for every served version a ResourceSpec: discovery names, printer columns,
// selectable fields, admission through crd-admission, strict unknown fields.
import { admitCustomResource, invalidStatus } from './crd/admission.js';
import { invalid, statusError, type FieldCause } from './errors.js';
import { compileJsonPath, evaluate, printValue } from './jsonpath.js';
import { nameCauses, quote, timestamp, unknownMetadataFields } from './object-meta.js';
import type { K8sObject, ObjectStore } from './object-store.js';
import { PATCH_APPLY, PATCH_JSON, PATCH_MERGE, type Admitted, type ResourceSpec } from './rest.js';
import { customResourceConvertor, defaultConvertor, type CustomColumn } from './table.js';
import { errorText } from '../../shared/error-text.js';

const CRD_GROUP = 'apiextensions.k8s.io';
const CRD_KIND = 'CustomResourceDefinition';

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: object; scale?: object };
  additionalPrinterColumns?: CustomColumn[];
  selectableFields?: { jsonPath: string }[];
}

interface CrdObject extends K8sObject {
  spec: {
    group: string;
    scope: string;
    names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] };
    versions: CrdVersion[];
    conversion?: unknown;
  };
  status?: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** version.CompareKubeAwareVersionStrings, highest priority first: v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > others alphabetically. */
export function compareVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma || !mb) return ma ? -1 : mb ? 1 : a < b ? -1 : a > b ? 1 : 0;
  const rank = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  if (rank(ma) !== rank(mb)) return rank(mb) - rank(ma);
  if (ma[1] !== mb[1]) return Number(mb[1]) - Number(ma[1]);
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const PRINTER_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];

/** validateSimpleJSONPath, and a path this server can evaluate. */
function simplePathCauses(field: string, path: unknown, causes: FieldCause[]): void {
  if (typeof path !== 'string' || !path) {
    causes.push({ field, type: 'FieldValueRequired', body: 'Required value' });
    return;
  }
  try {
    if (!path.startsWith('.')) throw new Error('must be a simple json path starting with .');
    compileJsonPath(path);
  } catch (e) {
    causes.push({ field, type: 'FieldValueInvalid', body: `Invalid value: ${quote(path)}: ${errorText(e)}` });
  }
}

/** The checks of ValidateCustomResourceDefinition this server relies on. */
function crdCauses(crd: Obj, old: CrdObject | undefined): FieldCause[] {
  const causes: FieldCause[] = [];
  const bad = (field: string, value: unknown, why: string) => causes.push({ field, type: 'FieldValueInvalid', body: `Invalid value: ${quote(value)}: ${why}` });
  const required = (field: string, why = '') => causes.push({ field, type: 'FieldValueRequired', body: `Required value${why ? `: ${why}` : ''}` });
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const group = spec.group;
  if (typeof group !== 'string' || !group) required('spec.group');
  else if (!group.includes('.')) bad('spec.group', group, 'should be a domain with at least one dot');
  if (typeof names.plural !== 'string' || !names.plural) required('spec.names.plural');
  else if (!DNS1123_LABEL.test(names.plural)) bad('spec.names.plural', names.plural, 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character');
  if (typeof names.kind !== 'string' || !names.kind) required('spec.names.kind');
  const name = (crd.metadata as Obj | undefined)?.name;
  if (typeof names.plural === 'string' && typeof group === 'string' && name !== `${names.plural}.${group}`) bad('metadata.name', name, 'must be spec.names.plural+"."+spec.group');
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({ field: 'spec.scope', type: 'FieldValueInvalid', body: `Unsupported value: ${quote(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"` });
  } else if (old && old.spec.scope !== spec.scope) bad('spec.scope', spec.scope, 'field is immutable');
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) required('spec.versions');
  versions.forEach((v: unknown, i) => {
    const at = `spec.versions[${i}]`;
    if (!isObject(v)) return bad(at, v, 'must be an object');
    if (typeof v.name !== 'string' || !DNS1035_LABEL.test(v.name)) bad(`${at}.name`, v.name ?? '', 'a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character');
    if (!isObject(v.schema) || !isObject(v.schema.openAPIV3Schema)) required(`${at}.schema.openAPIV3Schema`, 'schemas are required');
    const columns = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [];
    columns.forEach((c: unknown, j) => {
      const cat = `${at}.additionalPrinterColumns[${j}]`;
      const col = isObject(c) ? c : {};
      if (typeof col.name !== 'string' || !col.name) required(`${cat}.name`);
      if (!PRINTER_TYPES.includes(col.type as string)) {
        causes.push({ field: `${cat}.type`, type: 'FieldValueInvalid', body: `Unsupported value: ${quote(col.type ?? '')}: supported values: ${PRINTER_TYPES.map((t) => `"${t}"`).join(', ')}` });
      }
      simplePathCauses(`${cat}.jsonPath`, col.jsonPath, causes);
    });
    const selectable = Array.isArray(v.selectableFields) ? v.selectableFields : [];
    selectable.forEach((f: unknown, j) => simplePathCauses(`${at}.selectableFields[${j}].jsonPath`, isObject(f) ? f.jsonPath : undefined, causes));
  });
  if (versions.length && versions.filter((v: unknown) => isObject(v) && v.storage === true).length !== 1) {
    bad('spec.versions', versions, 'must have exactly one version marked as storage version');
  }
  return causes;
}

/** SetDefaults_CustomResourceDefinitionSpec, and the status the establishing controllers would write. */
function establish(crd: CrdObject, old: CrdObject | undefined, now: Date): CrdObject {
  const names = { ...crd.spec.names };
  names.singular ||= names.kind.toLowerCase();
  names.listKind ||= `${names.kind}List`;
  const storage = crd.spec.versions.find((v) => v.storage)!.name;
  const previous = old?.status ?? {};
  const stored = Array.isArray(previous.storedVersions) ? (previous.storedVersions as string[]) : [];
  const since = (type: string) =>
    (Array.isArray(previous.conditions) ? (previous.conditions as Obj[]) : []).find((c) => c.type === type)?.lastTransitionTime ?? timestamp(now);
  return {
    ...crd,
    spec: { conversion: { strategy: 'None' }, ...crd.spec, names },
    status: {
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: since('NamesAccepted'), reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: since('Established'), reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      acceptedNames: names,
      storedVersions: stored.includes(storage) ? stored : [...stored, storage],
    },
  };
}

/** Paths present in what was sent but pruned from what admission kept: strict decoding's unknown fields. */
function prunedPaths(sent: unknown, kept: unknown, path: string, out: string[]): void {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    sent.forEach((v, i) => prunedPaths(v, kept[i], `${path}[${i}]`, out));
    return;
  }
  if (!isObject(sent) || !isObject(kept)) return;
  for (const [k, v] of Object.entries(sent)) {
    if (!path && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const p = path ? `${path}.${k}` : k;
    if (!(k in kept)) out.push(p);
    else prunedPaths(v, kept[k], p, out);
  }
}

/** What a field selector on a selectableField compares: the value as a string. */
function fieldValue(v: unknown): string {
  return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : printValue(v);
}

export class CustomResourceRegistry {
  private readonly crds = new Map<string, CrdObject>();
  private specsByPath = new Map<string, ResourceSpec>();
  private servedSpecs: ResourceSpec[] = [];
  /** apiextensions.k8s.io/v1 customresourcedefinitions */
  readonly crdSpec: ResourceSpec;
  /** Bumped on every CRD change: what discovery and OpenAPI caches key on. */
  generation = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly now: () => Date,
  ) {
    this.crdSpec = {
      group: CRD_GROUP,
      version: 'v1',
      resource: 'customresourcedefinitions',
      kind: CRD_KIND,
      listKind: 'CustomResourceDefinitionList',
      singular: 'customresourcedefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      key: `${CRD_GROUP}/customresourcedefinitions`,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      subresources: [{ name: 'status', group: CRD_GROUP, version: 'v1', kind: CRD_KIND, verbs: ['get', 'patch', 'update'] }],
      selectableFields: new Set(['metadata.name']),
      fieldsOf: (o) => ({ 'metadata.name': o.metadata.name }),
      table: defaultConvertor,
      writes: {
        statusSubresource: true,
        allowUnconditionalUpdate: false,
        allowCreateOnUpdate: false,
        returnDeletedObject: true,
        generation: true,
        patchTypes: [PATCH_JSON, PATCH_MERGE, PATCH_APPLY],
        admit: (o, old) => this.admitCrd(o, old as CrdObject | undefined),
        committed: (o, deleted) => this.changed(o as CrdObject, deleted),
      },
    };
  }

  private admitCrd(o: K8sObject, old: CrdObject | undefined): Admitted {
    const causes = [...nameCauses(o.metadata), ...crdCauses(o, old)];
    if (causes.length) return { object: o, unknownFields: [], invalid: invalid(CRD_KIND, CRD_GROUP, o.metadata.name, causes) };
    return { object: establish(o as CrdObject, old, this.now()), unknownFields: [] };
  }

  private changed(crd: CrdObject, deleted: boolean): void {
    const key = `${crd.spec.group}/${crd.spec.names.plural}`;
    if (deleted) {
      this.crds.delete(crd.metadata.name);
      this.store.drop(key); // the finalizer's cleanup, at once
    } else this.crds.set(crd.metadata.name, crd);
    this.rebuild();
  }

  private rebuild(): void {
    this.generation++;
    // apiextensions' discovery controller lists a group version's resources by name
    const byName = [...this.crds.values()].sort((a, b) => (a.spec.names.plural < b.spec.names.plural ? -1 : 1));
    this.servedSpecs = byName.flatMap((crd) =>
      [...crd.spec.versions].sort((a, b) => compareVersions(a.name, b.name)).filter((v) => v.served).map((v) => this.versionSpec(crd, v)),
    );
    this.specsByPath = new Map(this.servedSpecs.map((s) => [`${s.group}/${s.version}/${s.resource}`, s]));
  }

  private versionSpec(crd: CrdObject, v: CrdVersion): ResourceSpec {
    const { group, names } = crd.spec;
    const namespaced = crd.spec.scope === 'Namespaced';
    const selectable = (v.selectableFields ?? []).map((f) => ({ label: f.jsonPath.replace(/^\./, ''), path: compileJsonPath(f.jsonPath) }));
    const fields = new Set(['metadata.name', ...(namespaced ? ['metadata.namespace'] : []), ...selectable.map((f) => f.label)]);
    return {
      group,
      version: v.name,
      resource: names.plural,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      singular: names.singular ?? names.kind.toLowerCase(),
      namespaced,
      shortNames: names.shortNames,
      categories: names.categories,
      key: `${group}/${names.plural}`,
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      subresources: v.subresources?.status ? [{ name: 'status', group, version: v.name, kind: names.kind, verbs: ['get', 'patch', 'update'] }] : [],
      selectableFields: fields,
      fieldsOf: (o) => {
        const out: Record<string, string> = { 'metadata.name': o.metadata.name };
        if (namespaced) out['metadata.namespace'] = o.metadata.namespace ?? '';
        for (const f of selectable) out[f.label] = fieldValue(evaluate(o, f.path)[0]);
        return out;
      },
      table: customResourceConvertor(v.additionalPrinterColumns),
      writes: {
        statusSubresource: !!v.subresources?.status,
        allowUnconditionalUpdate: false,
        allowCreateOnUpdate: false,
        returnDeletedObject: false,
        generation: true,
        // no strategic merge patch for custom resources
        patchTypes: [PATCH_JSON, PATCH_MERGE, PATCH_APPLY],
        admit: (o, old) => this.admitResource(crd, v.name, o, old),
      },
    };
  }

  private admitResource(crd: CrdObject, version: string, o: K8sObject, old: K8sObject | undefined): Admitted {
    // the evaluator decodes as the server does: unknown fields (metadata's too) pruned, defaults set
    const result = admitCustomResource(crd, version, o, old);
    const object = result.object as K8sObject;
    const unknownFields = unknownMetadataFields(o.metadata);
    prunedPaths(o, object, '', unknownFields);
    const invalidBody = result.errors.length ? invalidStatus(crd.spec.names.kind, crd.spec.group, o.metadata.name, result.errors) : undefined;
    return { object, unknownFields, invalid: invalidBody ? statusError(invalidBody) : undefined };
  }

  /** The served custom resource of a request path, if any. */
  find(group: string, version: string, resource: string): ResourceSpec | undefined {
    return this.specsByPath.get(`${group}/${version}/${resource}`);
  }

  /** Every served version of every custom resource, preferred versions first within a CRD. */
  specs(): readonly ResourceSpec[] {
    return this.servedSpecs;
  }

  /** A served version's openAPIV3Schema (undefined for kinds no CRD defines). */
  schemaOf(spec: ResourceSpec): Record<string, unknown> | undefined {
    return this.crds.get(`${spec.resource}.${spec.group}`)?.spec.versions.find((v) => v.name === spec.version)?.schema?.openAPIV3Schema;
  }
}
