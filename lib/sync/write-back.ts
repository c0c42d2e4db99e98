// For an autoscaler defined as a Kubernetes object: its status (through the status
// subresource) and its events, so `kubectl get shpa` and `kubectl describe shpa` tell the
// whole story. Both follow the stored state: the status is written when the state was (a
// material change, metric values at most every few minutes) or differs from the object's in
// what kubectl shows, and an Event for each log entry that is new or counted again.
import { redactAll } from '#api';
import { formatTargets, type HorizontalPodAutoscaler, type HorizontalPodAutoscalerCondition, type HorizontalPodAutoscalerStatus, type TargetNote } from '#hpa';
import { changedEntries, type DecisionLogEntry } from './event-log.js';
import type { ClusterAccess, KubernetesAutoscalerStatus } from './ports/cluster-access.js';
import { withReadyCondition } from './readiness.js';
import { errorText, type CycleCalls } from './report.js';
import type { Unit } from './units.js';

/** What writing back needs of the cycle: the cluster, its call counts, its deadline, its time. */
export interface WriteBackContext {
  cluster: ClusterAccess;
  calls: CycleCalls;
  signal: AbortSignal;
  now: Date;
}

export async function writeBack(unit: Unit, evaluated: HorizontalPodAutoscalerStatus, log: DecisionLogEntry[], ctx: WriteBackContext): Promise<void> {
  const { object, record, report } = unit;
  if (!object) return;
  const status = withReadyCondition(evaluated, object.metadata.generation, conditionsOf(object.status), ctx.now);
  const hpa = { ...record.hpa, status } as HorizontalPodAutoscaler;
  const ref = hpa.spec?.scaleTargetRef;
  const desired: KubernetesAutoscalerStatus = redactAll({
    ...status,
    ...(status.lastScaleTime ? { lastScaleTime: kubeTime(status.lastScaleTime) } : {}),
    ...(status.conditions ? { conditions: status.conditions.map((c) => (c.lastTransitionTime ? { ...c, lastTransitionTime: kubeTime(c.lastTransitionTime) } : c)) } : {}),
    reference: ref ? `${ref.kind}/${ref.name}` : '',
    targets: Array.isArray(hpa.spec?.metrics) ? safeTargets(hpa, notesOf(report)) : '',
  });
  if (report.stored === 'written' || shownDiffers(object.status, desired)) {
    try {
      ctx.calls.statusWrites++;
      await ctx.cluster.writeAutoscalerStatus(record.namespace, record.name, desired, ctx.signal);
    } catch (e) {
      report.errors.push({ stage: 'status', message: `writing the status of ${record.namespace}/${record.name}: ${errorText(e)}` });
      report.notable = true;
    }
  }
  if (report.stored !== 'written') return;
  const involved = { apiVersion: 'shpa.dev/v1', kind: 'ServerlessHorizontalPodAutoscaler', namespace: record.namespace, name: record.name, uid: object.metadata.uid };
  for (const entry of changedEntries(record.log ?? [], log)) {
    try {
      ctx.calls.events++;
      await ctx.cluster.recordEvent(involved, entry, ctx.signal);
    } catch (e) {
      report.errors.push({ stage: 'event', message: `recording event ${entry.reason}: ${errorText(e)}` });
      report.notable = true;
    }
  }
}

/** metav1.Time serializes to whole seconds (RFC 3339), as kubectl and GitOps diffs expect. */
function kubeTime(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

/** At zero replicas, each metric's value against its activation threshold, from this cycle's decision. */
function notesOf(report: Unit['report']): TargetNote[] {
  const notes: TargetNote[] = [];
  for (const m of report.decision?.metrics ?? []) {
    const a = m.activation;
    if (a) notes[m.index] = { activation: { threshold: a.threshold, ...(a.value !== undefined ? { value: a.value } : {}) } };
  }
  return notes;
}

function safeTargets(hpa: HorizontalPodAutoscaler, notes: TargetNote[]): string {
  try {
    return formatTargets(hpa, false, notes);
  } catch {
    return '';
  }
}

function conditionsOf(status: unknown): HorizontalPodAutoscalerCondition[] | undefined {
  const list = (status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(list) ? (list as HorizontalPodAutoscalerCondition[]) : undefined;
}

/** What `kubectl get/describe shpa` or a GitOps tool would see differently: replicas, scale time, generation, conditions, the printed columns. */
function shownDiffers(current: unknown, desired: KubernetesAutoscalerStatus): boolean {
  if (typeof current !== 'object' || current === null) return true;
  const c = current as Partial<KubernetesAutoscalerStatus>;
  const conditions = (s: Partial<HorizontalPodAutoscalerStatus>) => JSON.stringify((s.conditions ?? []).map((x) => [x.type, x.status, x.reason, x.observedGeneration]));
  return (
    c.observedGeneration !== desired.observedGeneration ||
    c.currentReplicas !== desired.currentReplicas ||
    c.desiredReplicas !== desired.desiredReplicas ||
    c.lastScaleTime !== desired.lastScaleTime ||
    c.reference !== desired.reference ||
    conditions(c) !== conditions(desired)
  );
}
