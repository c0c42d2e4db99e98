// autoscaling/v2 HorizontalPodAutoscalers as kube-apiserver stores them
// (pkg/registry/autoscaling/horizontalpodautoscaler), enough for a client to create, list,
// watch and read them (`shpa import` reads the cluster's HPAs): namespaced, short name hpa,
// category all, a status subresource. Stored as sent: no defaulting, and validation of the
// metadata only (the controller is not emulated: nothing acts on them).
import { invalid } from './errors.js';
import { nameCauses } from './object-meta.js';
import type { K8sObject } from './object-store.js';
import { PATCH_APPLY, PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC, type ResourceSpec } from './rest.js';
import { defaultConvertor } from './table.js';

export function horizontalPodAutoscalerSpec(): ResourceSpec {
  const fieldsOf = (o: K8sObject) => ({ 'metadata.name': o.metadata.name, 'metadata.namespace': o.metadata.namespace ?? '' });
  return {
    group: 'autoscaling',
    version: 'v2',
    resource: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
    listKind: 'HorizontalPodAutoscalerList',
    singular: 'horizontalpodautoscaler',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    key: 'autoscaling/horizontalpodautoscalers',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'status', group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', verbs: ['get', 'patch', 'update'] }],
    selectableFields: new Set(['metadata.name', 'metadata.namespace']),
    fieldsOf,
    table: defaultConvertor,
    writes: {
      statusSubresource: true,
      allowUnconditionalUpdate: true,
      allowCreateOnUpdate: false,
      returnDeletedObject: false,
      generation: true,
      patchTypes: [PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC, PATCH_APPLY],
      admit(o) {
        const causes = nameCauses(o.metadata);
        return { object: o, unknownFields: [], invalid: causes.length ? invalid('HorizontalPodAutoscaler', 'autoscaling', o.metadata.name, causes) : undefined };
      },
    },
  };
}
