// `shpa import` of KEDA's aws-sqs-queue trigger into an SQSQueueMetric, field by field, after
// kedacore/keda's aws_sqs_queue_scaler.go: KEDA's own documentation examples
// (test/cli/fixtures/import-real/README.md says which), then one case per field as a table:
// the queue as a URL or a bare name, what counts, the activation threshold, the identity KEDA
// reads with, and what cannot map (reported, never dropped, never repeating a credential).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { validateSQSQueueMetric } from '../../lib/api/sqs-validation.js';
import { importDocument, triggerAuthentications, type ImportResult } from '../../lib/import/convert.js';
import { kindFor } from '../../lib/cli/kinds.js';
import { checkActivation } from '../../lib/hpa/activation.js';
import type { MetricData } from '../../lib/hpa/replica-calculator.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';

const real = (f: string) => join(import.meta.dirname, 'fixtures', 'import-real', f);
const ACCOUNT = '123456789012';

/** Converts every document as `shpa import` does (its TriggerAuthentications seen by the triggers); the ScaledObjects' results. */
function convert(docs: unknown[], sqsAccountId?: string): ImportResult[] {
  const findAuthentication = triggerAuthentications(docs);
  return docs.map((d) => importDocument(d, 'default', { findAuthentication, ...(sqsAccountId ? { sqsAccountId } : {}) })).filter((r): r is ImportResult => 'objects' in r);
}
const convertFile = (file: string, sqsAccountId?: string) => convert(parseAllDocuments(readFileSync(real(file), 'utf8')).map((d) => d.toJS() as unknown), sqsAccountId);

/** The SQSQueueMetric and autoscaler of a result, each checked as `shpa apply` checks it. */
function pieces(r: ImportResult) {
  const sqs = r.objects.find((o) => o.kind === 'SQSQueueMetric');
  const hpa = r.objects.find((o) => o.kind === 'HorizontalPodAutoscaler') as HorizontalPodAutoscaler | undefined;
  if (sqs) expect(validateSQSQueueMetric(sqs)).toMatchObject({ valid: true });
  if (hpa) {
    const handler = kindFor(hpa);
    expect('check' in handler && handler.check(hpa)).toMatchObject({ ok: true });
  }
  return { sqs, hpa };
}

const text = (r: ImportResult) => [...r.mapped, ...r.unmapped, ...r.noEffect].join('\n');

describe("shpa import: KEDA's aws-sqs-queue documentation examples", () => {
  it('the trigger specification (queueURL as a URL, awsRegion) → an SQSQueueMetric on that URL and an External AverageValue of queueLength', () => {
    const [r] = convertFile('keda-aws-sqs-queue-url.yaml');
    const { sqs, hpa } = pieces(r);
    expect(sqs).toEqual({
      apiVersion: 'shpa.dev/v1',
      kind: 'SQSQueueMetric',
      metadata: { name: 'aws-sqs-queue-scaledobject-0', namespace: 'keda-test' },
      spec: { queueURL: `https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/QueueName` },
    });
    expect(hpa?.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx-deployment' },
      minReplicas: 0,
      maxReplicas: 100,
      metrics: [{ type: 'External', external: { metric: { name: 'aws-sqs-queue-scaledobject-0' }, target: { type: 'AverageValue', averageValue: '5' } } }],
    });
    expect(r.mapped[0]).toBe(
      `triggers[0] (aws-sqs-queue) → SQSQueueMetric keda-test/aws-sqs-queue-scaledobject-0 (queue QueueName in eu-west-1, account ${ACCOUNT}; visible + in flight messages, read live with GetQueueAttributes at every tick, as KEDA reads it), queueLength 5 → External AverageValue 5 (messages per replica)`,
    );
    expect(text(r)).not.toMatch(/CloudWatch|minute/);
  });

  it('podIdentity aws and a bare queue name with awsRegion → queueName, region and the account given, read with the worker function\'s role', () => {
    const [r] = convertFile('keda-aws-sqs-queue-pod-identity.yaml', ACCOUNT);
    const { sqs, hpa } = pieces(r);
    expect(sqs?.spec).toEqual({ queueName: 'myQueue', region: 'eu-west-1', accountId: ACCOUNT });
    expect(hpa?.spec.metrics).toEqual([{ type: 'External', external: { metric: { name: 'aws-sqs-queue-scaledobject-0' }, target: { type: 'AverageValue', averageValue: '5' } } }]);
    expect(r.mapped).toContain(`triggers[0] (aws-sqs-queue) queueURL myQueue (a queue name) and awsRegion eu-west-1 → spec.queueName myQueue, spec.region eu-west-1, spec.accountId ${ACCOUNT} (from --sqs-account)`);
    expect(r.mapped).toContain(
      "triggers[0] (aws-sqs-queue) authenticationRef (TriggerAuthentication keda-trigger-auth-aws-credentials): podIdentity aws without roleArn (KEDA's operator role) → the worker function's role, the autoscaler's own identity as in KEDA",
    );
    expect(r.unmapped).toEqual([]);
  });

  it('a bare queue name without an account to resolve it in is not converted, and says how to give one', () => {
    const [r] = convertFile('keda-aws-sqs-queue-pod-identity.yaml');
    expect(r.objects).toEqual([]);
    expect(r.unmapped[0]).toBe(
      'triggers[0] (aws-sqs-queue): metadata.queueURL "myQueue" is a bare queue name, which SQS resolves in the account of the identity KEDA reads with; ours needs that account: import with --sqs-account <12-digit account id>, or write the queue\'s URL; not converted',
    );
  });

  it('an IAM role from a Secret: named (Secret and key), never read; the object reads with the worker function\'s role until spec.roleArn is set', () => {
    const [r] = convertFile('keda-aws-sqs-queue-role.yaml', ACCOUNT);
    const { sqs } = pieces(r);
    expect(sqs?.spec).toEqual({ queueName: 'myQueue', region: 'eu-west-1', accountId: ACCOUNT });
    expect(r.unmapped).toEqual([
      "triggers[0] (aws-sqs-queue) authenticationRef (TriggerAuthentication keda-trigger-auth-aws-credentials): awsRoleArn comes from Secret test-secrets key AWS_ROLE_ARN, which import does not read: set SQSQueueMetric keda-test/aws-sqs-queue-scaledobject-0 spec.roleArn to that role; that role must trust the worker function's role (not KEDA's operator) and allow sqs:GetQueueAttributes, be in param assumeRoleArns and in metricAccess roles for namespace keda-test",
    ]);
    expect(text(r)).not.toContain('encoded');
  });

  it('IAM user keys (Secret) and scaleOnInFlight false: visible messages only; the keys are reported by name, their values never', () => {
    const [r] = convertFile('keda-aws-sqs-queue-visible-only.yaml', ACCOUNT);
    const { sqs, hpa } = pieces(r);
    expect(sqs?.spec).toEqual({ queueName: 'myQueue', region: 'eu-west-1', accountId: ACCOUNT, scaleOnInFlight: false });
    expect(hpa?.spec.metrics?.[0].external?.target).toEqual({ type: 'AverageValue', averageValue: '5' });
    expect(r.mapped).toContain('triggers[0] (aws-sqs-queue) scaleOnInFlight false → spec.scaleOnInFlight false (messages received and not yet deleted are not counted)');
    expect(r.mapped[0]).toContain('visible messages, read live');
    expect(r.unmapped).toEqual([
      "triggers[0] (aws-sqs-queue) static AWS access keys (awsAccessKeyID (Secret test-secrets key AWS_ACCESS_KEY_ID), awsSecretAccessKey (Secret test-secrets key AWS_SECRET_ACCESS_KEY), awsSessionToken (Secret test-secrets key AWS_SESSION_TOKEN); values not shown): ours signs with roles only, never with stored keys: the worker function's role reads the queue (param sqsQueueArns), or set spec.roleArn to a role it may assume; then retire the keys",
    ]);
    expect(text(r)).not.toContain('encoded');
  });
});

/** A ScaledObject with one aws-sqs-queue trigger of the metadata given; `extra` adds to the trigger (authenticationRef, metricType) and the spec. */
const scaledObject = (metadata: Record<string, unknown>, extra: { trigger?: Record<string, unknown>; spec?: Record<string, unknown> } = {}) => ({
  apiVersion: 'keda.sh/v1alpha1',
  kind: 'ScaledObject',
  metadata: { name: 'worker', namespace: 'jobs' },
  spec: { scaleTargetRef: { name: 'worker' }, triggers: [{ type: 'aws-sqs-queue', metadata, ...extra.trigger }], ...extra.spec },
});
const URL = `https://sqs.eu-west-1.amazonaws.com/${ACCOUNT}/jobs`;
const auth = (spec: Record<string, unknown>, kind = 'TriggerAuthentication') => ({ apiVersion: 'keda.sh/v1alpha1', kind, metadata: { name: 'aws', namespace: 'jobs' }, spec });
const ref = (kind = 'TriggerAuthentication') => ({ trigger: { authenticationRef: { name: 'aws', kind } } });

interface FieldCase {
  name: string;
  docs: unknown[];
  account?: string;
  /** The SQSQueueMetric's spec, or null when the trigger is not converted. */
  spec: Record<string, unknown> | null;
  /** The External metric, where it matters. */
  external?: Record<string, unknown>;
  mapped?: string[];
  unmapped?: string[];
  /** Strings the report must never contain (credentials written in the trigger). */
  never?: string[];
}

const CASES: FieldCase[] = [
  { name: 'a FIFO queue URL', docs: [scaledObject({ queueURL: `${URL}.fifo` })], spec: { queueURL: `${URL}.fifo` } },
  { name: "queueLength unset: KEDA's default 5", docs: [scaledObject({ queueURL: URL })], spec: { queueURL: URL }, external: { metric: { name: 'worker-0' }, target: { type: 'AverageValue', averageValue: '5' } }, mapped: ["queueLength unset (KEDA's default 5) → External AverageValue 5"] },
  { name: 'metricType Value: the whole backlog against queueLength', docs: [scaledObject({ queueURL: URL, queueLength: '100' }, { trigger: { metricType: 'Value' } })], spec: { queueURL: URL }, external: { metric: { name: 'worker-0' }, target: { type: 'Value', value: '100' } } },
  { name: 'activationQueueLength → the activation threshold', docs: [scaledObject({ queueURL: URL, queueLength: '10', activationQueueLength: '3' })], spec: { queueURL: URL }, external: { metric: { name: 'worker-0' }, target: { type: 'AverageValue', averageValue: '10' }, activation: { value: '3' } }, mapped: ['activation 3 → activation.value'] },
  { name: "activationQueueLength empty: KEDA's default (0), no threshold", docs: [scaledObject({ queueURL: URL, activationQueueLength: '' })], spec: { queueURL: URL }, external: { metric: { name: 'worker-0' }, target: { type: 'AverageValue', averageValue: '5' } } },
  { name: 'scaleOnDelayed true (a string, as the CRD keeps it): delayed messages count', docs: [scaledObject({ queueURL: URL, scaleOnDelayed: 'true', scaleOnInFlight: 'True' })], spec: { queueURL: URL, scaleOnDelayed: true, scaleOnInFlight: true }, mapped: ['visible + in flight + delayed messages', 'scaleOnDelayed true → spec.scaleOnDelayed true'] },
  { name: 'scaleOnDelayed not a boolean: not converted', docs: [scaledObject({ queueURL: URL, scaleOnDelayed: 'sometimes' })], spec: null, unmapped: ['triggers[0] (aws-sqs-queue): metadata.scaleOnDelayed "sometimes" must be true or false; not converted'] },
  { name: 'queueLength not an integer: not converted, as KEDA refuses it', docs: [scaledObject({ queueURL: URL, queueLength: '2.5' })], spec: null, unmapped: ['metadata.queueLength "2.5" is not an integer (KEDA refuses it too); not converted'] },
  { name: 'awsRegion other than the URL\'s: the URL wins, said', docs: [scaledObject({ queueURL: URL, awsRegion: 'us-east-1' })], spec: { queueURL: URL }, unmapped: ['awsRegion us-east-1: the queue URL says eu-west-1; ours reads the queue the URL names'] },
  { name: 'a bare name without awsRegion', docs: [scaledObject({ queueURL: 'jobs' })], account: ACCOUNT, spec: null, unmapped: ['metadata.queueURL "jobs" is a queue name: KEDA then needs metadata.awsRegion, and so does ours'] },
  { name: 'the placeholder URL of the docs\' trigger specification: names the field', docs: [scaledObject({ queueURL: 'https://sqs.eu-west-1.amazonaws.com/account_id/QueueName', awsRegion: 'eu-west-1' })], spec: null, unmapped: ['metadata.queueURL "https://sqs.eu-west-1.amazonaws.com/account_id/QueueName" must end in /<12-digit account>/<queue name>; not converted'] },
  { name: 'a LocalStack queue URL: not an SQS queue URL', docs: [scaledObject({ queueURL: 'http://localstack:4566/000000000000/jobs', awsRegion: 'us-east-1' })], spec: null, unmapped: ['must be an https SQS queue URL'] },
  { name: 'awsEndpoint elsewhere than AWS: refused (another queue of that name)', docs: [scaledObject({ queueURL: 'jobs', awsRegion: 'us-east-1', awsEndpoint: 'http://localstack.infra:4566' })], account: ACCOUNT, spec: null, unmapped: ['metadata.awsEndpoint points at localstack.infra, not at AWS\'s SQS'] },
  { name: 'awsEndpoint of a VPC endpoint of SQS: the same queue', docs: [scaledObject({ queueURL: URL, awsEndpoint: 'https://vpce-0a1b2c3d4e5f-abcdefgh.sqs.eu-west-1.vpce.amazonaws.com' })], spec: { queueURL: URL }, mapped: ["awsEndpoint (vpce-0a1b2c3d4e5f-abcdefgh.sqs.eu-west-1.vpce.amazonaws.com): one of AWS's own SQS endpoints"] },
  { name: "queueURLFromEnv: the target's environment is not read", docs: [scaledObject({ queueURLFromEnv: 'QUEUE_URL', awsRegion: 'eu-west-1' })], spec: null, unmapped: ["metadata.queueURLFromEnv reads the queue from the target's environment"] },
  {
    name: 'podIdentity aws with roleArn → spec.roleArn, and a bare name resolves in the role\'s account',
    docs: [auth({ podIdentity: { provider: 'aws', roleArn: 'arn:aws:iam::210987654321:role/sqs-reader' } }), scaledObject({ queueURL: 'jobs', awsRegion: 'ap-south-1' }, ref())],
    account: ACCOUNT,
    spec: { queueName: 'jobs', region: 'ap-south-1', accountId: '210987654321', roleArn: 'arn:aws:iam::210987654321:role/sqs-reader' },
    mapped: ['podIdentity aws with roleArn → spec.roleArn arn:aws:iam::210987654321:role/sqs-reader; that role must trust the worker function\'s role', '(from the account of the role that reads it (arn:aws:iam::210987654321:role/sqs-reader))'],
    unmapped: [`--sqs-account ${ACCOUNT}: not used; SQS resolves queue name jobs in the account of the role that reads it (210987654321)`],
  },
  {
    name: 'a ClusterTriggerAuthentication\'s roleArn, with an externalID that ours does not send',
    docs: [auth({ podIdentity: { provider: 'aws', roleArn: 'arn:aws:iam::210987654321:role/r', externalID: 'x' } }, 'ClusterTriggerAuthentication'), scaledObject({ queueURL: URL }, ref('ClusterTriggerAuthentication'))],
    spec: { queueURL: URL, roleArn: 'arn:aws:iam::210987654321:role/r' },
    unmapped: ['podIdentity.externalID: ours assumes spec.roleArn without an external ID'],
    never: ["'x'"],
  },
  {
    name: 'podIdentity aws, identityOwner workload: the service account\'s role is named, not guessed',
    docs: [auth({ podIdentity: { provider: 'aws', identityOwner: 'workload' } }), scaledObject({ queueURL: URL }, ref())],
    spec: { queueURL: URL },
    unmapped: ["podIdentity aws, identityOwner workload: KEDA assumed the role of the target's service account (annotation eks.amazonaws.com/role-arn), which import does not read"],
  },
  { name: 'identityOwner operator: KEDA\'s own identity → the worker function\'s role', docs: [scaledObject({ queueURL: URL, identityOwner: 'operator' })], spec: { queueURL: URL }, mapped: ["identityOwner operator (KEDA's operator identity) → the worker function's role", 'param metricAccess must list it in sqsQueues for namespace jobs'] },
  {
    name: 'an authenticationRef not among the documents: said, read with the worker function\'s role',
    docs: [scaledObject({ queueURL: URL }, ref())],
    spec: { queueURL: URL },
    unmapped: ["authenticationRef (TriggerAuthentication aws): not among the documents imported, so the identity KEDA read with is unknown"],
  },
  {
    name: 'access keys written in the trigger: reported by name, never repeated',
    docs: [scaledObject({ queueURL: URL, awsAccessKeyID: 'AKIAIOSFODNN7EXAMPLE', awsSecretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' })],
    spec: { queueURL: URL },
    unmapped: ['static AWS access keys (metadata.awsAccessKeyID, metadata.awsSecretAccessKey; values not shown)'],
    never: ['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI'],
  },
  { name: 'metadata.awsRoleArn (KEDA reads it from a TriggerAuthentication): the role meant', docs: [scaledObject({ queueURL: URL, awsRoleArn: 'arn:aws:iam::123456789012:role/meant' })], spec: { queueURL: URL, roleArn: 'arn:aws:iam::123456789012:role/meant' }, mapped: ['metadata.awsRoleArn → spec.roleArn (KEDA reads it from a TriggerAuthentication only'] },
];

describe('shpa import: aws-sqs-queue field by field', () => {
  it.each(CASES)('$name', (c) => {
    const [r] = convert(c.docs, c.account);
    const { sqs, hpa } = pieces(r);
    if (c.spec === null) expect(sqs).toBeUndefined();
    else expect(sqs?.spec).toEqual(c.spec);
    if (c.external) expect(hpa?.spec.metrics?.[0]).toEqual({ type: 'External', external: c.external });
    const has = (lines: string[], items: string[] | undefined) => {
      for (const item of items ?? []) expect(lines.some((l) => l.includes(item)), `${item}\n${lines.join('\n')}`).toBe(true);
    };
    has(r.mapped, c.mapped);
    has(r.unmapped, c.unmapped);
    for (const secret of c.never ?? []) expect(text(r)).not.toContain(secret);
  });

  it('the activation threshold leaves zero above activationQueueLength, as KEDA (queue length > activation); with minReplicaCount 2 it has no effect, said', () => {
    const [atZero] = convert([scaledObject({ queueURL: URL, activationQueueLength: '3' })]);
    const [above] = convert([scaledObject({ queueURL: URL, activationQueueLength: '3' }, { spec: { minReplicaCount: 2 } })]);
    const zero = pieces(atZero).hpa!;
    expect(zero.spec.minReplicas).toBe(0);
    const spec = zero.spec.metrics![0];
    const at = (messages: string) => checkActivation([{ spec, name: 'worker-0', proposal: 1, data: { externalMetrics: { value: [{ value: messages, timestamp: '2026-11-28T10:00:00Z' }] } } as MetricData }])!.active;
    expect([at('3'), at('4')]).toEqual([false, true]);
    expect(pieces(above).hpa!.spec.minReplicas).toBe(2);
    expect(above.noEffect).toContain('activation thresholds: they act only at zero replicas (in KEDA too), and minReplicas is 2');
    // KEDA's default (0): active above zero, as ours is without a threshold.
    const [none] = convert([scaledObject({ queueURL: URL })]);
    expect(pieces(none).hpa!.spec.metrics?.[0].external).not.toHaveProperty('activation');
  });

  it('an SQSQueueMetric already ours is carried along as written', () => {
    const ours = { apiVersion: 'shpa.dev/v1', kind: 'SQSQueueMetric', metadata: { name: 'jobs', namespace: 'shop' }, spec: { queueURL: URL, scaleOnDelayed: true } };
    const [r] = convert([ours]);
    expect(r.asWritten).toBe(true);
    expect(r.objects).toEqual([ours]);
  });
});
