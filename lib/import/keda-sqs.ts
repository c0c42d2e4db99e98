// KEDA's aws-sqs-queue trigger as an SQSQueueMetric read by an External metric, field by field,
// after kedacore/keda (main after v2.20) pkg/scalers/aws_sqs_queue_scaler.go (awsSqsQueueMetadata: its keys
// and defaults), pkg/scalers/aws/aws_common.go (GetAwsAuthorization: which identity reads) and
// pkg/scaling/resolver/scale_resolvers.go (podIdentity aws and aws-eks). Both read the queue
// live with GetQueueAttributes and count the same messages. Pure. Nothing from a Secret, the
// environment or a vault is read, and no credential written in the trigger is repeated.
import { parseQueueUrl, QUEUE_NAME, type SQSQueueMetric, type SQSQueueMetricSpec } from '#api';
import { isObj, str, type KedaAuthentication } from './result.js';
import { externalMetric, type TriggerContext, type TriggerOutcome } from './trigger-context.js';

/** KEDA's defaults: queueLength 5, activationQueueLength 0, scaleOnInFlight true, scaleOnDelayed false. */
const KEDA_QUEUE_LENGTH = '5';
const ROLE_ACCOUNT = /^arn:aws[a-z-]*:iam::(\d{12}):role\//;
/** AWS's own SQS endpoints: regional, FIPS, dual-stack and interface VPC endpoints. A queue read through one is the same queue. */
const AWS_SQS_HOST = /^(?:sqs(?:-fips)?\.[a-z0-9-]+\.(?:api\.aws|amazonaws\.com(?:\.cn)?)|(?:vpce-[a-z0-9-]+\.)?sqs\.[a-z0-9-]+\.vpce\.amazonaws\.com(?:\.cn)?)$/;
/** KEDA's boolean metadata, as Go's strconv.ParseBool reads it. */
const TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];
const STATIC_KEYS = ['awsAccessKeyID', 'awsAccessKeyId', 'awsSecretAccessKey', 'awsSessionToken'];

type Refusal = { error: string };

/** Which identity reads the queue in ours, and what was said about KEDA's. */
interface Identity {
  roleArn?: string;
  mapped: string[];
  unmapped: string[];
}

interface QueueSpec {
  spec: Pick<SQSQueueMetricSpec, 'queueURL' | 'queueName' | 'region' | 'accountId'>;
  /** "queue orders in eu-west-1, account 123456789012" */
  said: string;
  mapped: string[];
  unmapped: string[];
}

interface Counts {
  spec: Pick<SQSQueueMetricSpec, 'scaleOnInFlight' | 'scaleOnDelayed'>;
  said: string;
  mapped: string[];
}

/** The trigger as an SQSQueueMetric and its External metric, or not converted with why. */
export function sqsTrigger(ctx: TriggerContext): TriggerOutcome {
  const { at, objectName, namespace } = ctx;
  const identity = readIdentity(ctx);
  const length = readQueueLength(ctx);
  if ('error' in length) return notConverted(at, length);
  const counts = readCounts(ctx);
  if ('error' in counts) return notConverted(at, counts);
  const endpoint = readEndpoint(ctx);
  if ('error' in endpoint) return notConverted(at, endpoint);
  const queue = readQueue(ctx, identity.roleArn);
  if ('error' in queue) return notConverted(at, queue);
  const spec: SQSQueueMetricSpec = { ...queue.spec, ...(identity.roleArn ? { roleArn: identity.roleArn } : {}), ...counts.spec };
  const object: SQSQueueMetric = { apiVersion: 'shpa.dev/v1', kind: 'SQSQueueMetric', metadata: { name: objectName, namespace }, spec };
  const target = ctx.metricType === 'Value' ? 'Value' : 'AverageValue';
  const head =
    `${at} → SQSQueueMetric ${namespace}/${objectName} (${queue.said}; ${counts.said}, read live with GetQueueAttributes at every tick, as KEDA reads it), ` +
    `queueLength ${length.said} → External ${target} ${length.value}${target === 'AverageValue' ? ' (messages per replica)' : ''}`;
  return {
    object,
    metric: externalMetric(objectName, ctx.metricType, length.value),
    mapped: [head, ...queue.mapped, ...counts.mapped, ...endpoint.mapped, ...identity.mapped],
    unmapped: [...queue.unmapped, ...identity.unmapped],
    authenticated: true,
  };
}

const notConverted = (at: string, r: Refusal): TriggerOutcome => ({ mapped: [], unmapped: [`${at}: ${r.error}; not converted`], authenticated: true });

/** queueLength (KEDA: an integer, default 5), and activationQueueLength checked as KEDA parses it (the generic activation mapping writes it). */
function readQueueLength(ctx: TriggerContext): { value: string; said: string } | Refusal {
  for (const key of ['queueLength', 'activationQueueLength']) {
    const v = str(ctx.md[key]);
    if (v !== undefined && v !== '' && !/^-?\d+$/.test(v.trim())) return { error: `metadata.${key} "${v}" is not an integer (KEDA refuses it too)` };
  }
  const given = str(ctx.md.queueLength)?.trim();
  return given ? { value: given, said: given } : { value: KEDA_QUEUE_LENGTH, said: `unset (KEDA's default ${KEDA_QUEUE_LENGTH})` };
}

function readBool(ctx: TriggerContext, key: string): boolean | undefined | Refusal {
  const raw = ctx.md[key];
  // The CRD keeps metadata values as strings; a YAML boolean written unquoted means the same.
  const v = typeof raw === 'boolean' ? String(raw) : str(raw);
  if (v === undefined || v === '') return undefined;
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  return { error: `metadata.${key} "${v}" must be true or false` };
}

/** What counts: visible always, in flight unless scaleOnInFlight is false, delayed when scaleOnDelayed is true (KEDA's sum). */
function readCounts(ctx: TriggerContext): Counts | Refusal {
  const inFlight = readBool(ctx, 'scaleOnInFlight');
  const delayed = readBool(ctx, 'scaleOnDelayed');
  if (typeof inFlight === 'object') return inFlight;
  if (typeof delayed === 'object') return delayed;
  const mapped: string[] = [];
  if (inFlight !== undefined) mapped.push(`${ctx.at} scaleOnInFlight ${inFlight} → spec.scaleOnInFlight ${inFlight}${inFlight ? '' : ' (messages received and not yet deleted are not counted)'}`);
  if (delayed !== undefined) mapped.push(`${ctx.at} scaleOnDelayed ${delayed} → spec.scaleOnDelayed ${delayed}${delayed ? ' (messages sent with a delay count before they are visible)' : ''}`);
  const parts = ['visible', ...(inFlight === false ? [] : ['in flight']), ...(delayed === true ? ['delayed'] : [])];
  return {
    spec: { ...(inFlight !== undefined ? { scaleOnInFlight: inFlight } : {}), ...(delayed !== undefined ? { scaleOnDelayed: delayed } : {}) },
    said: `${parts.join(' + ')} messages`,
    mapped,
  };
}

/** awsEndpoint: one of AWS's own SQS endpoints reads the same queue; any other (LocalStack, ElasticMQ) holds another queue of that name. */
function readEndpoint(ctx: TriggerContext): { mapped: string[] } | Refusal {
  const endpoint = str(ctx.md.awsEndpoint)?.trim();
  if (!endpoint) return { mapped: [] };
  let host = '';
  try {
    host = new URL(endpoint).hostname;
  } catch {
    return { error: 'metadata.awsEndpoint is not a URL' };
  }
  if (AWS_SQS_HOST.test(host)) {
    return { mapped: [`${ctx.at} awsEndpoint (${host}): one of AWS's own SQS endpoints, the same queue; ours reads it through the deploy's SQS endpoint`] };
  }
  return { error: `metadata.awsEndpoint points at ${host}, not at AWS's SQS: a queue there is not the queue of that name in AWS, and ours reads AWS's SQS only` };
}

/** The queue: a URL as written; a bare name (as KEDA, anything that is not a URL) with awsRegion, in the account of the identity that reads it. */
function readQueue(ctx: TriggerContext, roleArn: string | undefined): QueueSpec | Refusal {
  const { md, at } = ctx;
  const url = str(md.queueURL)?.trim();
  if (!url) {
    if (md.queueURLFromEnv !== undefined) return { error: "metadata.queueURLFromEnv reads the queue from the target's environment, which ours does not read: write the queue's URL in metadata.queueURL" };
    return { error: 'metadata.queueURL is required (KEDA requires it too)' };
  }
  const region = str(md.awsRegion)?.trim() || undefined;
  if (url.includes('://') || url.startsWith('/')) {
    const parsed = parseQueueUrl(url);
    if (typeof parsed === 'string') return { error: `metadata.queueURL "${url}" ${parsed}` };
    const unmapped = region && region !== parsed.region ? [`${at} awsRegion ${region}: the queue URL says ${parsed.region}; ours reads the queue the URL names`] : [];
    return { spec: { queueURL: url }, said: `queue ${parsed.name} in ${parsed.region}, account ${parsed.accountId}`, mapped: [], unmapped };
  }
  if (!region) return { error: `metadata.queueURL "${url}" is a queue name: KEDA then needs metadata.awsRegion, and so does ours` };
  if (!QUEUE_NAME.test(url)) return { error: `metadata.queueURL "${url}" is neither a queue URL nor a queue name (1 to 80 letters, digits, - or _, ending in .fifo for a FIFO queue)` };
  // SQS resolves a bare name in the account of the caller: the role's, else KEDA's own identity's.
  const roleAccount = roleArn ? ROLE_ACCOUNT.exec(roleArn)?.[1] : undefined;
  const accountId = roleAccount ?? ctx.sqsAccountId;
  if (!accountId) {
    return { error: `metadata.queueURL "${url}" is a bare queue name, which SQS resolves in the account of the identity KEDA reads with; ours needs that account: import with --sqs-account <12-digit account id>, or write the queue's URL` };
  }
  const from = roleAccount ? `the account of the role that reads it (${roleArn})` : '--sqs-account';
  const unmapped = roleAccount && ctx.sqsAccountId && ctx.sqsAccountId !== roleAccount ? [`${at} --sqs-account ${ctx.sqsAccountId}: not used; SQS resolves queue name ${url} in the account of the role that reads it (${roleAccount})`] : [];
  return {
    spec: { queueName: url, region, accountId },
    said: `queue ${url} in ${region}, account ${accountId}`,
    mapped: [`${at} queueURL ${url} (a queue name) and awsRegion ${region} → spec.queueName ${url}, spec.region ${region}, spec.accountId ${accountId} (from ${from})`],
    unmapped,
  };
}

/** The identity KEDA reads with, as ours: a role it assumes → spec.roleArn; its own identity → the worker function's role; static keys → reported, never repeated. */
function readIdentity(ctx: TriggerContext): Identity {
  const ref = isObj(ctx.authenticationRef) ? ctx.authenticationRef : undefined;
  const kind = (ref && str(ref.kind)) || 'TriggerAuthentication';
  const by = ref ? `authenticationRef (${kind} ${(ref && str(ref.name)) || ''})` : undefined;
  const auth = ref ? ctx.findAuthentication?.(kind, ctx.namespace, str(ref.name) ?? '') : undefined;
  const out: Identity = { mapped: [], unmapped: [] };
  const target = `SQSQueueMetric ${ctx.namespace}/${ctx.objectName}`;
  if (by && !auth) out.unmapped.push(`${ctx.at} ${by}: not among the documents imported, so the identity KEDA read with is unknown; ours reads with the worker function's role: give ${target} a spec.roleArn if KEDA assumed a role`);
  const keys = reportStaticKeys(ctx, auth, out);
  if (auth?.provider === 'aws') {
    podIdentityAws(ctx, auth, by!, target, out);
    if (ctx.md.identityOwner !== undefined) out.mapped.push(`${ctx.at} metadata.identityOwner: no effect with podIdentity aws (KEDA reads it for aws-eks and static keys only)`);
  }
  else legacyIdentity(ctx, { auth, by, target, keys }, out);
  // KEDA reads awsRoleArn from a TriggerAuthentication only; written in the trigger, it still says which role was meant.
  const written = str(ctx.md.awsRoleArn);
  if (written && !out.roleArn) {
    out.roleArn = written;
    out.mapped.push(`${ctx.at} metadata.awsRoleArn → spec.roleArn (KEDA reads it from a TriggerAuthentication only; here it names the role meant)${trustNote(ctx)}`);
  } else if (written) out.unmapped.push(`${ctx.at} metadata.awsRoleArn: not read (KEDA reads it from a TriggerAuthentication only); spec.roleArn is the authentication's role`);
  if (!out.roleArn) out.mapped.push(`${ctx.at} the worker function's role reads the queue: the deploy grants sqs:GetQueueAttributes on it with param sqsQueueArns, and param metricAccess must list it in sqsQueues for namespace ${ctx.namespace}`);
  return out;
}

const trustNote = (ctx: TriggerContext) =>
  `; that role must trust the worker function's role (not KEDA's operator) and allow sqs:GetQueueAttributes, be in param assumeRoleArns and in metricAccess roles for namespace ${ctx.namespace}`;

/** podIdentity provider aws: roleArn, else identityOwner workload (the target's service account role), else KEDA's operator role (or an awsRoleArn parameter). */
function podIdentityAws(ctx: TriggerContext, auth: KedaAuthentication, by: string, target: string, out: Identity): void {
  if (auth.roleArn) {
    out.roleArn = auth.roleArn;
    out.mapped.push(`${ctx.at} ${by}: podIdentity aws with roleArn → spec.roleArn ${auth.roleArn}${trustNote(ctx)}`);
    if (auth.externalId) out.unmapped.push(`${ctx.at} ${by} podIdentity.externalID: ours assumes spec.roleArn without an external ID; the role's trust policy must not require one of the worker function's role`);
    return;
  }
  if (auth.identityOwner === 'workload') {
    out.unmapped.push(`${ctx.at} ${by}: podIdentity aws, identityOwner workload: KEDA assumed the role of the target's service account (annotation eks.amazonaws.com/role-arn), which import does not read: set ${target} spec.roleArn to that role${trustNote(ctx)}`);
    return;
  }
  if (roleParameter(ctx, auth, by, target, out)) return;
  out.mapped.push(`${ctx.at} ${by}: podIdentity aws without roleArn (KEDA's operator role) → the worker function's role, the autoscaler's own identity as in KEDA`);
}

/** No podIdentity aws: KEDA's identityOwner (deprecated): operator → its own identity; pod (the default) → aws-eks' service account role, an awsRoleArn parameter, or static keys. */
function legacyIdentity(ctx: TriggerContext, given: { auth?: KedaAuthentication; by?: string; target: string; keys: boolean }, out: Identity): void {
  const { auth, by, target } = given;
  const owner = str(ctx.md.identityOwner) || 'pod';
  if (owner === 'operator') {
    out.mapped.push(`${ctx.at} identityOwner operator (KEDA's operator identity) → the worker function's role, the autoscaler's own identity as in KEDA`);
    return;
  }
  if (owner !== 'pod') out.unmapped.push(`${ctx.at} metadata.identityOwner "${owner}": KEDA knows pod and operator only`);
  if (auth?.provider === 'aws-eks') {
    out.unmapped.push(`${ctx.at} ${by}: podIdentity aws-eks: KEDA assumed the role of the target's service account (annotation eks.amazonaws.com/role-arn), which import does not read: set ${target} spec.roleArn to that role${trustNote(ctx)}`);
    return;
  }
  if (auth && by && roleParameter(ctx, auth, by, target, out)) return;
  if (!given.keys) out.mapped.push(`${ctx.at} no role and no keys given: KEDA finds no credentials here (awsAccessKeyID not found) unless identityOwner is operator`);
}

/** awsRoleArn given by a Secret, the environment or a vault: named, not read. */
function roleParameter(ctx: TriggerContext, auth: KedaAuthentication, by: string, target: string, out: Identity): boolean {
  const source = auth.parameters.awsRoleArn;
  if (!source) return false;
  out.unmapped.push(`${ctx.at} ${by}: awsRoleArn comes from ${source}, which import does not read: set ${target} spec.roleArn to that role${trustNote(ctx)}`);
  return true;
}

/** Static access keys, in the authentication or in the trigger: reported by name, never by value (ours uses roles only); whether there were any. */
function reportStaticKeys(ctx: TriggerContext, auth: KedaAuthentication | undefined, out: Identity): boolean {
  const fromAuth = STATIC_KEYS.filter((k) => auth?.parameters[k] !== undefined).map((k) => `${k} (${auth!.parameters[k]})`);
  const inTrigger = [...STATIC_KEYS, 'awsAccessKeyIDFromEnv', 'awsSecretAccessKeyFromEnv'].filter((k) => ctx.md[k] !== undefined).map((k) => `metadata.${k}`);
  const keys = [...fromAuth, ...inTrigger];
  if (keys.length === 0) return false;
  out.unmapped.push(
    `${ctx.at} static AWS access keys (${keys.join(', ')}; values not shown): ours signs with roles only, never with stored keys: the worker function's role reads the queue (param sqsQueueArns), or set spec.roleArn to a role it may assume; then retire the keys`,
  );
  return true;
}
