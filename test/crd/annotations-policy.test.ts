// infra/admission/annotations.yaml: the ValidatingAdmissionPolicy that refuses malformed pause
// annotations on a ServerlessHorizontalPodAutoscaler. The local API server runs no admission
// policies, so its CEL expressions are evaluated here with @bufbuild/cel (the engine of our CRD
// admission), against the same cases lib/hpa's validation decides: both must agree.
import { readFileSync } from 'node:fs';
import { celEnv, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { validateOurAnnotations } from '../../lib/hpa/api/annotations.js';
import { parseShadowTarget } from '../../lib/sync/shadow.js';
import { autoscaler } from '../hpa/drive.js';

interface Policy {
  kind: string;
  spec: { variables: { name: string; expression: string }[]; validations: { expression: string; message: string; messageExpression?: string }[] };
}
const docs = parseAllDocuments(readFileSync('infra/admission/annotations.yaml', 'utf8')).map((d) => d.toJS() as Policy);
const policy = docs.find((d) => d.kind === 'ValidatingAdmissionPolicy')!;
const env = celEnv({ funcs: [...strings] });
const run = (expr: string, vars: Record<string, CelInput>) => plan(env, parse(expr))(vars);

/** The messages of the validations that fail for an object with these annotations. */
function denied(annotations: Record<string, string> | undefined): string[] {
  const object = { metadata: { name: 'web', ...(annotations ? { annotations } : {}) } } as CelInput;
  const variables: Record<string, CelInput> = {};
  for (const v of policy.spec.variables) variables[v.name] = run(v.expression, { object, variables }) as CelInput;
  // As the API server does: the messageExpression's text when it has one, else the message.
  return policy.spec.validations
    .filter((v) => run(v.expression, { object, variables }) !== true)
    .map((v) => (v.messageExpression ? String(run(v.messageExpression, { object, variables })) : v.message));
}

describe('the admission policy of our annotations', () => {
  it.each<{ name: string; annotations?: Record<string, string>; fields: string[] }>([
    { name: 'none', annotations: undefined, fields: [] },
    { name: 'a pause until a time', annotations: { 'shpa.dev/pause-scale-down': '2026-11-27T18:00:00Z' }, fields: [] },
    { name: 'an offset and a fraction', annotations: { 'shpa.dev/pause': '2026-11-27T19:00:00.5+01:00' }, fields: [] },
    { name: 'true and false', annotations: { 'shpa.dev/pause-scale-up': 'true', 'shpa.dev/pause': 'false' }, fields: [] },
    { name: 'a word', annotations: { 'shpa.dev/pause-scale-down': 'tomorrow' }, fields: ['metadata.annotations[shpa.dev/pause-scale-down]'] },
    { name: 'a time without a zone', annotations: { 'shpa.dev/pause': '2026-11-27T18:00:00' }, fields: ['metadata.annotations[shpa.dev/pause]'] },
    { name: '"True"', annotations: { 'shpa.dev/pause-scale-up': 'True' }, fields: ['metadata.annotations[shpa.dev/pause-scale-up]'] },
    { name: 'an impossible date', annotations: { 'shpa.dev/pause': '2026-13-45T99:00:00Z' }, fields: ['metadata.annotations[shpa.dev/pause]'] },
    { name: 'April 31', annotations: { 'shpa.dev/pause': '2026-04-31T10:00:00Z' }, fields: ['metadata.annotations[shpa.dev/pause]'] },
    { name: 'an hour of 24', annotations: { 'shpa.dev/pause-scale-up': '2026-04-30T24:00:00Z' }, fields: ['metadata.annotations[shpa.dev/pause-scale-up]'] },
    { name: 'an offset of +25:00', annotations: { 'shpa.dev/pause': '2026-04-30T10:00:00+25:00' }, fields: ['metadata.annotations[shpa.dev/pause]'] },
    { name: 'the last days of months', annotations: { 'shpa.dev/pause': '2026-12-31T23:59:59Z', 'shpa.dev/pause-scale-up': '2028-02-29T00:00:00Z', 'shpa.dev/pause-scale-down': '2026-06-30T12:00:00-07:00' }, fields: [] },
    { name: 'an unknown annotation under shpa.dev/', annotations: { 'shpa.dev/pause-scaledown': 'true' }, fields: ['metadata.annotations[shpa.dev/pause-scaledown]'] },
    { name: 'dry-run and the annotations of others', annotations: { 'shpa.dev/dry-run': 'true', 'argocd.argoproj.io/sync-wave': '1' }, fields: [] },
  ])('$name', (c) => {
    const messages = denied(c.annotations);
    expect(messages.map((m) => m.split(':')[0])).toEqual(c.fields);
    const lib = validateOurAnnotations(autoscaler({ annotations: c.annotations }));
    expect(lib.map((e) => e.field)).toEqual(c.fields);
  });

  it.each([
    ['HorizontalPodAutoscaler/web', true],
    ['hpa/web', true],
    ['horizontalpodautoscalers.autoscaling/web', true],
    ['ScaledObject/queue', true],
    ['scaledobjects.keda.sh/queue', true],
    ['so/queue', true],
    ['hpa.keda.sh/web', false],
    ['Deployment/web', false],
    ['web', false],
    ['hpa/Web_1', false],
    [' hpa/web', false],
  ])('shpa.dev/shadow-of %s: admitted %s, as lib/sync/shadow.ts reads it', (value, ok) => {
    expect(denied({ 'shpa.dev/shadow-of': value }).length === 0).toBe(ok);
    expect('error' in parseShadowTarget(value)).toBe(!ok);
  });

  it('refuses the table form of schedules on the Kubernetes kind, which has spec.minReplicaSchedules', () => {
    expect(denied({ 'shpa.dev/min-replica-schedules': '[]' })).toEqual([expect.stringMatching(/^metadata\.annotations\[shpa\.dev\/min-replica-schedules\]: .*spec\.minReplicaSchedules/)]);
  });

  it('binds the policy it names, denying', () => {
    const binding = docs.find((d) => d.kind === 'ValidatingAdmissionPolicyBinding') as unknown as { spec: { policyName: string; validationActions: string[] } };
    expect(binding.spec).toEqual({ policyName: 'shpa-annotations', validationActions: ['Deny'] });
  });
});
