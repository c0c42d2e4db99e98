// autoscaling/v2 HorizontalPodAutoscalers as kube-apiserver stores them (pkg/registry/autoscaling/
// horizontalpodautoscaler): namespaced, a status subresource, generation bumped by spec changes,
// printed as kubectl get hpa prints them. The objects only: kube-controller-manager's HPA controller
// is not part of an API server (the stand-in for migrations is lib/local/kubernetes/hpa-controller.ts).
import { invalid, type FieldCause } from './errors.js';
import { nameCauses, quote } from './object-meta.js';
import type { K8sObject } from './object-store.js';
import { PATCH_APPLY, PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC, type ResourceSpec } from './rest.js';
import { since, type TableConvertor } from './table.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const col = (name: string, type: string, description: string) => ({ name, type, format: name === 'Name' ? 'name' : '', description, priority: 0 });

/** printHorizontalPodAutoscaler: TARGETS as "<current>/<target>" of each metric (utilization and average values). */
function targetsText(o: K8sObject): string {
  const metrics = Array.isArray(obj(o.spec).metrics) ? (obj(o.spec).metrics as unknown[]) : [];
  const current = Array.isArray(obj(o.status).currentMetrics) ? (obj(o.status).currentMetrics as unknown[]) : [];
  if (metrics.length === 0) return '<none>';
  return metrics
    .map((m, i) => {
      const r = obj(obj(m).resource);
      const t = obj(r.target);
      const c = obj(obj(obj(current[i]).resource).current);
      const want = t.averageUtilization !== undefined ? `${String(t.averageUtilization)}%` : text(t.averageValue) || text(t.value) || '<unset>';
      const have = c.averageUtilization !== undefined ? `${String(c.averageUtilization)}%` : text(c.averageValue) || '<unknown>';
      return `${text(r.name) ? `${text(r.name)}: ` : ''}${have}/${want}`;
    })
    .join(', ');
}

const table: TableConvertor = {
  columns: [
    col('Name', 'string', 'Name must be unique within a namespace.'),
    col('Reference', 'string', 'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.'),
    col('Targets', 'string', 'metrics contains the specifications for which to use to calculate the desired replica count.'),
    col('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
    col('MaxPods', 'integer', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.'),
    col('Replicas', 'integer', 'currentReplicas is current number of replicas of pods managed by this autoscaler.'),
    col('Age', 'string', 'CreationTimestamp is a timestamp representing the server time when this object was created.'),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const ref = obj(spec.scaleTargetRef);
    return [
      o.metadata.name,
      `${text(ref.kind)}/${text(ref.name)}`,
      targetsText(o),
      spec.minReplicas === undefined ? '<unset>' : String(spec.minReplicas as number),
      spec.maxReplicas ?? 0,
      obj(o.status).currentReplicas ?? 0,
      since(o.metadata.creationTimestamp, now),
    ];
  },
};

/** ValidateHorizontalPodAutoscalerSpec, the parts a stand-in needs: a target and a maximum. */
function specCauses(o: K8sObject): FieldCause[] {
  const spec = obj(o.spec);
  const ref = obj(spec.scaleTargetRef);
  const causes: FieldCause[] = [];
  if (!text(ref.kind)) causes.push({ field: 'spec.scaleTargetRef.kind', type: 'FieldValueRequired', body: 'Required value' });
  if (!text(ref.name)) causes.push({ field: 'spec.scaleTargetRef.name', type: 'FieldValueRequired', body: 'Required value' });
  const max = spec.maxReplicas;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) causes.push({ field: 'spec.maxReplicas', type: 'FieldValueInvalid', body: `Invalid value: ${quote(max)}: must be greater than or equal to 1` });
  const min = spec.minReplicas;
  if (min !== undefined && (typeof min !== 'number' || !Number.isInteger(min) || min < 1)) {
    causes.push({ field: 'spec.minReplicas', type: 'FieldValueInvalid', body: `Invalid value: ${quote(min)}: must be greater than or equal to 1` });
  }
  return causes;
}

export function hpaSpec(): ResourceSpec {
  const status = { name: 'status', group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', verbs: ['get', 'patch', 'update'] };
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
    subresources: [status],
    selectableFields: new Set(['metadata.name', 'metadata.namespace']),
    fieldsOf: (o) => ({ 'metadata.name': o.metadata.name, 'metadata.namespace': o.metadata.namespace ?? '' }),
    table,
    writes: {
      statusSubresource: true,
      allowUnconditionalUpdate: true,
      allowCreateOnUpdate: false,
      returnDeletedObject: false,
      generation: true,
      patchTypes: [PATCH_JSON, PATCH_MERGE, PATCH_STRATEGIC, PATCH_APPLY],
      admit(o) {
        const causes = [...nameCauses(o.metadata), ...specCauses(o)];
        return { object: o, unknownFields: [], invalid: causes.length ? invalid('HorizontalPodAutoscaler', 'autoscaling', o.metadata.name, causes) : undefined };
      },
    },
  };
}
