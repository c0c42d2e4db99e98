// Upstream pkg/apis/autoscaling/validation (ValidateHorizontalPodAutoscaler) for autoscaling/v2,
// plus JSON type checks so any decoded YAML can be passed in.
// CONTRACT (owned by the validation helper): keep these exports and signatures.
import type { FeatureGates, HorizontalPodAutoscaler } from './types.js';

export type FieldErrorType = 'Required' | 'Invalid' | 'NotSupported' | 'Forbidden' | 'Duplicate' | 'TooLong' | 'TypeInvalid';

/** One problem with a field, as upstream field.Error: "spec.maxReplicas: Invalid value: 0: must be greater than or equal to 1". */
export interface FieldError {
  field: string;
  type: FieldErrorType;
  message: string;
  value?: unknown;
}

export type ValidationResult =
  | { valid: true; hpa: HorizontalPodAutoscaler; errors: [] }
  | { valid: false; errors: FieldError[] };

/** Validates an object as decoded from YAML/JSON; on success returns it typed (not defaulted). */
export function validateHPA(input: unknown, gates?: Partial<FeatureGates>): ValidationResult {
  throw new Error('not implemented');
}

/** "spec.maxReplicas: Invalid value: 0: must be ..." */
export function formatFieldError(e: FieldError): string {
  throw new Error('not implemented');
}
