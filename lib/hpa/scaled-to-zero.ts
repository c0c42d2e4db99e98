// Upstream's ScaledToZero condition (HPAScaleToZero, pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler,
// kubernetes/kubernetes#135118): set after every successful rescale, True, reason ScaledToZero, when the autoscaler
// itself took its target to zero; otherwise False, reason NotScaledToZero (a scale from zero included).
// planReconcile reads it (a target the autoscaler scaled to zero is not "disabled").
// Kept out of completeReconcile so that the conformance vectors of the releases before it still compare;
// the sync applies it to each rescale it completes.
import { applyDefaults } from './api/defaults.js';
import { setConditionInList, type ReconcilePlan, type ReconcileResult } from './reconcile.js';
import type { FeatureGates } from './types.js';

/** The result of a completed rescale with ScaledToZero set, as upstream sets it; the input is not modified. */
export function withScaledToZeroCondition(plan: ReconcilePlan, result: ReconcileResult, gates: FeatureGates): ReconcileResult {
  const current = plan.decision.currentReplicas;
  if (!gates.HPAScaleToZero || !result.scaled || current === undefined) return result;
  const { spec, metadata } = applyDefaults(plan.input.hpa);
  const desired = plan.desiredReplicas;
  const objectOrExternal = (spec.metrics ?? []).some((m) => m.type === 'Object' || m.type === 'External');
  const set: [status: 'True' | 'False', reason: string, message: string] =
    current > 0 && desired === 0 && (spec.minReplicas ?? 1) === 0 && objectOrExternal
      ? ['True', 'ScaledToZero', 'the HPA controller scaled the workload to zero']
      : ['False', 'NotScaledToZero', 'the HPA controller did not scale the workload to zero'];
  const conditions = result.conditions.map((c) => ({ ...c }));
  setConditionInList(conditions, 'ScaledToZero', ...set, plan.input.now, metadata.generation);
  return { ...result, conditions, status: { ...result.status, conditions } };
}
