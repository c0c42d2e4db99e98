// Warnings that need more than the object itself, computed against what the table holds and what
// the same command applies: printed as kubectl prints an API server's warnings, the object accepted.
import { KIND_HPA, type StoredSpec } from '../store/index.js';
import type { ClusterSnapshot } from '#sync/ports';
import { allMetricObjects } from '#api';
import { metricKindsText } from '#metrics';
import type { FieldWarning } from '#hpa/api';
import type { HorizontalPodAutoscaler } from '#hpa';

/** The objects a warning can refer to: the table's, with those being applied in their place. */
export interface KnownObjects {
  autoscalers: { namespace: string; name: string; ref?: { apiVersion?: string; kind?: string; name?: string } }[];
  /** "namespace/name" of every metric object (CloudWatchMetric, PrometheusMetric). */
  metricObjects: Set<string>;
}

const key = (namespace: string | undefined, name: string) => `${namespace ?? 'default'}/${name}`;

export function knownObjects(snap: ClusterSnapshot | undefined, applying: StoredSpec[]): KnownObjects {
  const replaced = new Set(applying.filter((o) => o.kind === KIND_HPA).map((o) => key(o.metadata.namespace, o.metadata.name)));
  const autoscalers = (snap?.autoscalers ?? [])
    .filter((r) => !replaced.has(key(r.namespace, r.name)))
    .map((r) => ({ namespace: r.namespace, name: r.name, ref: r.hpa.spec?.scaleTargetRef }));
  for (const o of applying) {
    if (o.kind === KIND_HPA) autoscalers.push({ namespace: o.metadata.namespace ?? 'default', name: o.metadata.name, ref: o.spec.scaleTargetRef });
  }
  const metricObjects = new Set(allMetricObjects(snap).map((m) => key(m.metadata.namespace, m.metadata.name)));
  for (const o of applying) if (o.kind !== KIND_HPA) metricObjects.add(key(o.metadata.namespace, o.metadata.name));
  return { autoscalers, metricObjects };
}

/** "apps/v1" -> "apps": two references name the same workload when group, kind and name agree. */
const group = (apiVersion: string | undefined) => (apiVersion?.includes('/') ? apiVersion.split('/')[0] : '');

/** What upstream's API server accepts but will not work: another autoscaler on the same target, an External metric without its CloudWatchMetric. */
export function contextWarnings(obj: StoredSpec, known: KnownObjects): FieldWarning[] {
  if (obj.kind !== KIND_HPA) return [];
  const hpa = obj as HorizontalPodAutoscaler;
  const ns = hpa.metadata.namespace ?? 'default';
  const ref = hpa.spec.scaleTargetRef;
  const out: FieldWarning[] = [];
  const others = known.autoscalers.filter(
    (a) => a.namespace === ns && a.name !== hpa.metadata.name && a.ref?.kind === ref.kind && a.ref?.name === ref.name && group(a.ref?.apiVersion) === group(ref.apiVersion),
  );
  if (others.length > 0) {
    // Upstream's controller: pods selected by two autoscalers fail both (AmbiguousSelector).
    out.push({
      field: 'spec.scaleTargetRef',
      message: `${ref.kind}/${ref.name} is also the target of ${others.map((a) => `horizontalpodautoscaler "${a.name}"`).join(', ')} in namespace "${ns}": the controller then scales neither (ScalingActive False, AmbiguousSelector); keep one autoscaler per workload`,
    });
  }
  const cwms = [...known.metricObjects].filter((k) => k.startsWith(`${ns}/`)).map((k) => k.slice(ns.length + 1));
  (hpa.spec.metrics ?? []).forEach((m, i) => {
    const name = m.type === 'External' ? m.external?.metric.name : undefined;
    if (name === undefined || known.metricObjects.has(key(ns, name))) return;
    const existing = cwms.length > 0 ? ` (metric objects in "${ns}": ${cwms.sort().join(', ')})` : '';
    out.push({
      field: `spec.metrics[${i}].external.metric.name`,
      message: `no ${metricKindsText('or')} "${name}" in namespace "${ns}", stored or in this apply${existing}: the sync will ask the cluster's external metrics API (external.metrics.k8s.io) for it; apply one of those kinds named "${name}" to read its source`,
    });
  });
  return out;
}
