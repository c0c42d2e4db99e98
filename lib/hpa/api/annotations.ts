// Ours: the annotations our autoscalers read (pause, min-replica schedules), checked where an
// object is written (`shpa apply`, admission). The sync does not refuse an object for them:
// it reports a malformed one in the condition of its feature and acts as if it were absent.
import leven from 'leven';
import { FieldPath, forbidden, invalid, type FieldError } from './field-path.js';
import { PAUSE_ANNOTATIONS, pauseState, validatePauseAnnotations } from '../pause.js';
import { MIN_REPLICA_SCHEDULES_ANNOTATION, schedulesOf } from '../schedules.js';
import type { FeatureGates, HorizontalPodAutoscaler } from '../types.js';
import { validateHPA, type ValidationResult } from './validation.js';

/** Every annotation of ours (lib/sync reads shpa.dev/dry-run in units.ts, shpa.dev/shadow-of in shadow.ts); any other under shpa.dev/ is a mistake. */
export const OUR_ANNOTATIONS: readonly string[] = [...PAUSE_ANNOTATIONS, MIN_REPLICA_SCHEDULES_ANNOTATION, 'shpa.dev/dry-run', 'shpa.dev/shadow-of'];

const PREFIX = 'shpa.dev/';

/** The annotation of ours `key` most likely means (a typo, a missing dash, another prefix), or undefined. */
function meantAnnotation(key: string): string | undefined {
  const squash = (k: string) => k.toLowerCase().replace(/[^a-z]/g, '');
  let best: { key: string; d: number } | undefined;
  for (const known of OUR_ANNOTATIONS) {
    const d = squash(key) === squash(known) ? 0 : leven(key.toLowerCase(), known);
    if (d <= 3 && (!best || d < best.d)) best = { key: known, d };
  }
  return best?.key;
}

/** Unknown annotations under shpa.dev/, and near-misses of ours elsewhere (shpa.io/pause), each refused with what was meant. */
function unknownAnnotationErrors(annotations: Record<string, string> | undefined): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(annotations ?? {})) {
    if (OUR_ANNOTATIONS.includes(key)) continue;
    const meant = meantAnnotation(key);
    if (!key.startsWith(PREFIX) && meant === undefined) continue;
    const path = FieldPath.root('metadata').child('annotations').key(key);
    errors.push(forbidden(path, meant ? `unknown annotation: did you mean ${meant}?` : `unknown annotation (ours are ${OUR_ANNOTATIONS.join(', ')})`));
  }
  return errors;
}

/** Warnings about our annotations at `now`, as kubectl prints a server's: a pause whose time has already passed. */
export function annotationWarnings(hpa: Pick<HorizontalPodAutoscaler, 'metadata'>, now: Date): { field: string; message: string }[] {
  const { expired } = pauseState(hpa.metadata.annotations, now);
  const seen = new Set<string>();
  const out: { field: string; message: string }[] = [];
  for (const pause of Object.values(expired)) {
    if (!pause?.until || seen.has(pause.annotation)) continue;
    seen.add(pause.annotation);
    out.push({
      field: String(FieldPath.root('metadata').child('annotations').key(pause.annotation)),
      message: `${pause.until.toISOString().replace(/\.000Z$/, 'Z')} has already passed: this pause is over and does nothing`,
    });
  }
  return out;
}

/** The errors of our annotations on `hpa`, each naming its annotation. */
export function validateOurAnnotations(hpa: Pick<HorizontalPodAutoscaler, 'metadata' | 'spec'>): FieldError[] {
  const annotations = hpa.metadata.annotations;
  const errors = [...unknownAnnotationErrors(annotations), ...validatePauseAnnotations(annotations)];
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
