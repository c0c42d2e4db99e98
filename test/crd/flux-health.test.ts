// The Flux health check of docs/kubernetes.md (Kustomization healthCheckExprs), run with a CEL
// evaluator (@bufbuild/cel) on the object as Flux passes it: a new object (no status: kstatus alone
// says Current) is waited for, an evaluated one Current, a failing one Failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'kubernetes.md'), 'utf8');
const expr = (field: string) => {
  const m = new RegExp(`^\\s+${field}: "(.*)"$`, 'm').exec(doc);
  if (!m) throw new Error(`docs/kubernetes.md has no ${field} expression`);
  return m[1];
};
const env = celEnv({});
const toCel = (v: unknown): CelInput =>
  typeof v === 'number' && Number.isInteger(v)
    ? BigInt(v)
    : Array.isArray(v)
      ? v.map(toCel)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toCel(x)]))
        : (v as CelInput);

/**
 * Flux's CEL status reader (RFC-0009): InProgress while status.observedGeneration exists and differs
 * from metadata.generation; else failed, then current, the first true wins, none: InProgress. An
 * expression that cannot be evaluated (a missing status) is no verdict: Flux polls on ("waiting").
 */
function health(o: { metadata: { generation: number }; status?: { observedGeneration?: number } }): string {
  if (o.status?.observedGeneration !== undefined && o.status.observedGeneration !== o.metadata.generation) return 'InProgress';
  const vars = Object.fromEntries(Object.entries(o).map(([k, v]) => [k, toCel(v)]));
  for (const [field, verdict] of [['failed', 'Failed'], ['current', 'Current']] as const) {
    const r = plan(env, parse(expr(field)))(vars);
    if (isCelError(r)) return 'waiting';
    if (r === true) return verdict;
  }
  return 'InProgress';
}

const ready = (status: string, reason: string, generation = 2) => ({ type: 'Ready', status, reason, message: '', observedGeneration: generation });
const object = (status?: Record<string, unknown>) => ({
  apiVersion: 'shpa.dev/v1',
  kind: 'ServerlessHorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'demo', generation: 2 },
  spec: { maxReplicas: 10 },
  ...(status ? { status } : {}),
});

describe("docs/kubernetes.md's Flux health check", () => {
  it.each<[string, Record<string, unknown> | undefined, string]>([
    ['a new object, before its first evaluation (no status)', undefined, 'waiting'],
    ['an edit not yet evaluated', { observedGeneration: 1, currentReplicas: 2, desiredReplicas: 2, conditions: [ready('True', 'ValidMetricFound', 1)] }, 'InProgress'],
    ['evaluated and scaling', { observedGeneration: 2, currentReplicas: 2, desiredReplicas: 2, conditions: [ready('True', 'ValidMetricFound')] }, 'Current'],
    ['evaluated, invalid spec', { observedGeneration: 2, currentReplicas: 2, desiredReplicas: 2, conditions: [ready('False', 'InvalidSpec')] }, 'Failed'],
    ['target at zero by hand: not a failure', { observedGeneration: 2, currentReplicas: 0, desiredReplicas: 0, conditions: [ready('False', 'ScalingDisabled')] }, 'InProgress'],
  ])('%s: %s', (_, status, want) => {
    expect(health(object(status))).toBe(want);
  });
});
