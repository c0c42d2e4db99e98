// OpenAPI v3 documents per group/version, as far as kubectl needs them:
// `kubectl apply` (default --validate=strict) looks for the fieldValidation
// parameter on the PATCH operation of the kind (cli-runtime
// queryParamVerifierV3) and then leaves validation to the server;
// `kubectl explain` reads the kind's schema (x-kubernetes-group-version-kind).
// Custom resources get their CRD's schema; built-in kinds an outline.
import { createHash } from 'node:crypto';
import type { ResourceSpec } from './rest.js';

type Obj = Record<string, unknown>;

const META_REF = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META_REF = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

const apiVersionProperty = {
  description:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  type: 'string',
};
const kindProperty = {
  description:
    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  type: 'string',
};

const stringMap = { type: 'object', additionalProperties: { type: 'string', default: '' } };

const metaSchemas: Obj = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Name must be unique within a namespace.' },
      generateName: { type: 'string', description: 'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.' },
      namespace: { type: 'string', description: 'Namespace defines the space within which each name must be unique.' },
      uid: { type: 'string', description: 'UID is the unique in time and space value for this object.' },
      resourceVersion: { type: 'string', description: 'An opaque value that represents the internal version of this object.' },
      generation: { type: 'integer', format: 'int64', description: 'A sequence number representing a specific generation of the desired state.' },
      creationTimestamp: { type: 'string', format: 'date-time', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' },
      deletionTimestamp: { type: 'string', format: 'date-time', description: 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.' },
      labels: { ...stringMap, description: 'Map of string keys and values that can be used to organize and categorize (scope and select) objects.' },
      annotations: { ...stringMap, description: 'Annotations is an unstructured key value map stored with a resource.' },
      finalizers: { type: 'array', items: { type: 'string', default: '' }, description: 'Must be empty before the object is deleted from the registry.' },
      ownerReferences: { type: 'array', items: { type: 'object' }, description: 'List of objects depended by this object.' },
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta': {
    description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    type: 'object',
    properties: { resourceVersion: { type: 'string' }, continue: { type: 'string' }, remainingItemCount: { type: 'integer', format: 'int64' } },
  },
};

const BUILT_IN_PREFIX: Record<string, string> = { '': 'io.k8s.api.core', apps: 'io.k8s.api.apps', 'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions' };

/** Upstream's schema names: io.k8s.api.apps.v1.Deployment, dev.shpa.v1.ServerlessHorizontalPodAutoscaler. */
function schemaName(group: string, version: string, kind: string): string {
  const prefix = BUILT_IN_PREFIX[group] ?? group.split('.').reverse().join('.');
  return `${prefix}.${version}.${kind}`;
}

function queryParam(name: string, description: string, type = 'string'): Obj {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

const dryRun = queryParam('dryRun', 'When present, indicates that modifications should not be persisted. Valid value: All');
const fieldManager = queryParam('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.');
const fieldValidation = queryParam(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn (default), Strict.',
);
const force = queryParam('force', 'Force is going to "force" Apply requests. It must be unset for non-apply patch requests.', 'boolean');
const listParams = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'].map((n) =>
  queryParam(n, `${n} of a list or watch request`, n === 'limit' || n === 'timeoutSeconds' ? 'integer' : n === 'watch' || n === 'allowWatchBookmarks' || n === 'sendInitialEvents' ? 'boolean' : 'string'),
);

function pathParam(name: string): Obj {
  return { name, in: 'path', required: true, description: `${name} of the object`, schema: { type: 'string', uniqueItems: true } };
}

const json = (ref: string) => ({ 'application/json': { schema: { $ref: ref } } });

function operation(spec: ResourceSpec, action: string, verb: string, ref: string, params: Obj[], body?: string[]): Obj {
  const subject = spec.kind;
  return {
    tags: [spec.group ? `${spec.group.split('.')[0]}${spec.version}` : `core${spec.version}`],
    description: `${action} ${subject}`,
    operationId: `${verb}${subject}`,
    parameters: params,
    ...(body ? { requestBody: { content: Object.fromEntries(body.map((t) => [t, { schema: { type: 'object' } }])), required: true } } : {}),
    responses: { '200': { description: 'OK', content: json(ref) }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': verb,
    'x-kubernetes-group-version-kind': { group: spec.group, version: spec.version, kind: spec.kind },
  };
}

/** The kind's schema: the CRD version's openAPIV3Schema, or an outline for a built-in kind. */
export type SchemaOf = (spec: ResourceSpec) => Obj | undefined;

function kindSchema(spec: ResourceSpec, schemaOf: SchemaOf): Obj {
  const base = structuredClone(schemaOf(spec) ?? { type: 'object', description: `${spec.kind} (served by the local API server)` });
  const properties = { ...((base.properties as Obj | undefined) ?? {}) };
  properties.apiVersion = apiVersionProperty;
  properties.kind = kindProperty;
  properties.metadata = { description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata", allOf: [{ $ref: META_REF }] };
  return { ...base, type: 'object', properties, 'x-kubernetes-group-version-kind': [{ group: spec.group, version: spec.version, kind: spec.kind }] };
}

function document(specs: readonly ResourceSpec[], schemaOf: SchemaOf): Obj {
  const paths: Obj = {};
  const schemas: Obj = { ...metaSchemas };
  for (const spec of specs) {
    const name = schemaName(spec.group, spec.version, spec.kind);
    const ref = `#/components/schemas/${name}`;
    const listRef = `#/components/schemas/${name}List`;
    schemas[name] = kindSchema(spec, schemaOf);
    schemas[`${name}List`] = {
      type: 'object',
      required: ['items'],
      properties: { apiVersion: apiVersionProperty, items: { type: 'array', items: { $ref: ref } }, kind: kindProperty, metadata: { allOf: [{ $ref: LIST_META_REF }] } },
      'x-kubernetes-group-version-kind': [{ group: spec.group, version: spec.version, kind: spec.listKind }],
    };
    const base = spec.group ? `/apis/${spec.group}/${spec.version}` : `/api/${spec.version}`;
    const collection = spec.namespaced ? `${base}/namespaces/{namespace}/${spec.resource}` : `${base}/${spec.resource}`;
    const scope = spec.namespaced ? [pathParam('namespace')] : [];
    const writable = spec.writes !== undefined;
    const patchTypes = spec.writes?.patchTypes;
    paths[collection] = {
      get: operation(spec, 'list or watch objects of kind', 'list', listRef, listParams),
      ...(writable
        ? {
            post: operation(spec, 'create a', 'post', ref, [dryRun, fieldManager, fieldValidation], ['application/json', 'application/yaml']),
            delete: operation(spec, 'delete collection of', 'deletecollection', '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status', [dryRun, ...listParams]),
          }
        : {}),
      parameters: scope,
    };
    const item = {
      get: operation(spec, 'read the specified', 'get', ref, []),
      ...(writable
        ? {
            put: operation(spec, 'replace the specified', 'put', ref, [dryRun, fieldManager, fieldValidation], ['application/json', 'application/yaml']),
            patch: operation(spec, 'partially update the specified', 'patch', ref, [dryRun, fieldManager, fieldValidation, force], patchTypes as string[]),
            delete: operation(spec, 'delete a', 'delete', ref, [dryRun]),
          }
        : {}),
      parameters: [pathParam('name'), ...scope],
    };
    paths[`${collection}/{name}`] = item;
    if (writable && spec.subresources.some((s) => s.name === 'status')) {
      paths[`${collection}/{name}/status`] = {
        get: operation(spec, 'read status of the specified', 'get', ref, []),
        put: operation(spec, 'replace status of the specified', 'put', ref, [dryRun, fieldManager, fieldValidation], ['application/json']),
        patch: operation(spec, 'partially update status of the specified', 'patch', ref, [dryRun, fieldManager, fieldValidation, force], patchTypes as string[]),
        parameters: [pathParam('name'), ...scope],
      };
    }
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.35.0' }, paths, components: { schemas } };
}

/** /openapi/v3 and its per group/version documents, rebuilt when the served resources change. */
export class OpenApiV3 {
  private stamp: unknown;
  private docs = new Map<string, { body: string; hash: string }>();

  private refresh(stamp: unknown, specs: readonly ResourceSpec[], schemaOf: SchemaOf): void {
    if (stamp === this.stamp) return;
    const byGv = new Map<string, ResourceSpec[]>();
    for (const s of specs) {
      const key = s.group ? `apis/${s.group}/${s.version}` : `api/${s.version}`;
      byGv.set(key, [...(byGv.get(key) ?? []), s]);
    }
    this.docs = new Map(
      [...byGv].map(([key, list]) => {
        const body = JSON.stringify(document(list, schemaOf));
        return [key, { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() }];
      }),
    );
    this.stamp = stamp;
  }

  /** GET /openapi/v3. */
  index(stamp: unknown, specs: readonly ResourceSpec[], schemaOf: SchemaOf): Obj {
    this.refresh(stamp, specs, schemaOf);
    return { paths: Object.fromEntries([...this.docs].map(([key, d]) => [key, { serverRelativeURL: `/openapi/v3/${key}?hash=${d.hash}` }])) };
  }

  /** GET /openapi/v3/<api/v1 | apis/group/version>, serialized; undefined when not served. */
  document(stamp: unknown, specs: readonly ResourceSpec[], schemaOf: SchemaOf, key: string): string | undefined {
    this.refresh(stamp, specs, schemaOf);
    return this.docs.get(key)?.body;
  }
}
