// Imported objects as our Kubernetes kinds (docs/kubernetes.md): the HPA becomes a
// ServerlessHorizontalPodAutoscaler (shpa.dev/v1, the same spec), its scheduled minimums move
// from the table form's annotation to spec.minReplicaSchedules (the annotation is refused on
// that kind), and it carries shpa.dev/dry-run unless asked not to, so that applying it beside
// the live HPA or ScaledObject leaves one controller writing /scale, with shpa.dev/shadow-of naming
// that live autoscaler, so that it reports each decision against it (docs/migrate.md, "Shadow"). The metric objects are
// already shpa.dev/v1 kinds. Pure.
import { type HorizontalPodAutoscaler, MIN_REPLICA_SCHEDULES_ANNOTATION, type MinReplicaSchedule } from '#hpa';
import { DRY_RUN_ANNOTATION, SHADOW_ANNOTATION } from '#sync';
import type { ImportedObject } from './result.js';

export { DRY_RUN_ANNOTATION };

export const KUBERNETES_KIND = 'ServerlessHorizontalPodAutoscaler';

export type KubernetesObject = Omit<ImportedObject, 'apiVersion' | 'kind'> & { apiVersion: string; kind: string };

/** The object as it goes to a cluster; `dryRun` adds shpa.dev/dry-run: "true" to an autoscaler, and shpa.dev/shadow-of: `live` where known. */
export function toKubernetesKind(o: ImportedObject, dryRun: boolean, live?: string): KubernetesObject {
  if (o.kind !== 'HorizontalPodAutoscaler') return o;
  const hpa = o as HorizontalPodAutoscaler;
  const { [MIN_REPLICA_SCHEDULES_ANNOTATION]: schedules, ...annotations } = hpa.metadata.annotations ?? {};
  if (dryRun) annotations[DRY_RUN_ANNOTATION] = 'true';
  if (dryRun && live) annotations[SHADOW_ANNOTATION] = live;
  const minReplicaSchedules = schedules !== undefined ? (JSON.parse(schedules) as MinReplicaSchedule[]) : undefined;
  const { annotations: _old, ...metadata } = hpa.metadata;
  return {
    apiVersion: 'shpa.dev/v1',
    kind: KUBERNETES_KIND,
    metadata: { ...metadata, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
    spec: { ...hpa.spec, ...(minReplicaSchedules ? { minReplicaSchedules } : {}) },
  };
}
