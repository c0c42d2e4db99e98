// Upstream 1.37's ScaledToZero condition (pkg/controller/podautoscaler/horizontal.go, kubernetes/kubernetes#135118):
// True, reason ScaledToZero, once the autoscaler itself scaled its target to zero; False, reason ScaledFromZero,
// once it scaled it back up. planReconcile reads it (a target the autoscaler scaled to zero is not "disabled").
// Kept out of completeReconcile so that the conformance vectors of the releases before it still compare;
// the sync applies it to each rescale it completes.
import { applyDefaults } from './api/defaults.js';
import { setConditionInList, type ReconcilePlan, type ReconcileResult } from './reconcile.js';
import type { FeatureGates } from './types.js';

/** The result with ScaledToZero set when its rescale went to or from zero; the input is not modified. */
export function withScaledToZeroCondition(plan: ReconcilePlan, result: ReconcileResult, gates: FeatureGates): ReconcileResult {
  const current = plan.decision.currentReplicas;
  if (!gates.HPAScaleToZero || !result.scaled || current === undefined) return result;
  const { spec, metadata } = applyDefaults(plan.input.hpa);
  const desired = plan.desiredReplicas;
  const objectOrExternal = (spec.metrics ?? []).some((m) => m.type === 'Object' || m.type === 'External');
  let set: [status: 'True' | 'False', reason: string, message: string] | undefined;
  if (current > 0 && desired === 0 && (spec.minReplicas ?? 1) === 0 && objectOrExternal) set = ['True', 'ScaledToZero', 'the HPA controller scaled the workload to zero'];
  else if (current === 0 && desired > 0) set = ['False', 'ScaledFromZero', 'the HPA controller scaled the workload from zero'];
  if (!set) return result;
  const conditions = result.conditions.map((c) => ({ ...c }));
  setConditionInList(conditions, 'ScaledToZero', ...set, plan.input.now, metadata.generation);
  return { ...result, conditions, status: { ...result.status, conditions } };
}
