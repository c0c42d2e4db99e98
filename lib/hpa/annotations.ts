// Ours: the annotations our autoscalers read (pause, min-replica schedules), checked where an
// object is written (`shpa apply`, admission). The sync does not refuse an object for them:
// it reports a malformed one in the condition of its feature and acts as if it were absent.
import { FieldPath, forbidden, type FieldError } from './field-path.js';
import { validatePauseAnnotations } from './pause.js';
import { MIN_REPLICA_SCHEDULES_ANNOTATION, schedulesOf } from './schedules.js';
import type { FeatureGates, HorizontalPodAutoscaler } from './types.js';
import { validateHPA, type ValidationResult } from './validation.js';

/** The errors of our annotations on `hpa`, each naming its annotation. */
export function validateOurAnnotations(hpa: Pick<HorizontalPodAutoscaler, 'metadata' | 'spec'>): FieldError[] {
  const annotations = hpa.metadata.annotations;
  const errors = validatePauseAnnotations(annotations);
  if (annotations?.[MIN_REPLICA_SCHEDULES_ANNOTATION] === undefined) return errors;
  if (hpa.spec.minReplicaSchedules !== undefined) {
    return [...errors, forbidden(FieldPath.root('metadata').child('annotations').key(MIN_REPLICA_SCHEDULES_ANNOTATION), 'may not be set together with spec.minReplicaSchedules: keep one')];
  }
  return [...errors, ...schedulesOf(hpa).errors];
}

/** What `shpa apply` and admission refuse: upstream's validation, then our annotations. */
export function validateAutoscaler(input: unknown, gates?: Partial<FeatureGates>): ValidationResult {
  const r = validateHPA(input, gates);
  if (!r.valid) return r;
  const errors = validateOurAnnotations(r.hpa);
  return errors.length === 0 ? r : { valid: false, errors, warnings: r.warnings };
}
