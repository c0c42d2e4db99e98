// `shpa import`: existing autoscalers into ours. A HorizontalPodAutoscaler of any served
// version becomes autoscaling/v2 (lib/import/hpa-versions.ts); a KEDA ScaledObject
// (keda.sh/v1alpha1) an HPA whose triggers are Resource metrics and External metrics read by
// CloudWatchMetric, PrometheusMetric or SQSQueueMetric objects (lib/import/scaled-object.ts). Every other
// document is skipped with why, never a failure: real files hold TriggerAuthentications,
// Secrets and Deployments beside their autoscalers. What ours cannot express is listed, each
// item with why, never dropped silently. Pure: documents in, documents out.
import { fromHpa, HPA_VERSIONS } from './hpa-versions.js';
import { KUBERNETES_KIND } from './kubernetes-kind.js';
import { isObj, str, type FindAuthentication, type ImportContext, type ImportedObject, type ImportMetadata, type ImportResult, type KedaAuthentication, type Obj, type SkippedDocument } from './result.js';
import { fromScaledObject } from './scaled-object.js';

export type { FindAuthentication, ImportContext, ImportedObject, ImportResult, KedaAuthentication, SkippedDocument } from './result.js';
export { DRY_RUN_ANNOTATION, KUBERNETES_KIND, toKubernetesKind } from './kubernetes-kind.js';

/** Converts one decoded document, or says why it is skipped. */
export function importDocument(doc: unknown, defaultNamespace = 'default', context: ImportContext = {}): ImportResult | SkippedDocument {
  if (!isObj(doc) || typeof doc.kind !== 'string') return { skipped: 'a document', why: 'not a Kubernetes object (no kind)' };
  const meta = isObj(doc.metadata) ? doc.metadata : {};
  const metadata: ImportMetadata = {
    name: str(meta.name) ?? '',
    namespace: str(meta.namespace) ?? defaultNamespace,
    ...(isObj(meta.labels) ? { labels: meta.labels as Record<string, string> } : {}),
  };
  const what = `${doc.kind} ${metadata.namespace}/${metadata.name}`;
  const version = str(doc.apiVersion) ?? '';
  if (doc.kind === 'HorizontalPodAutoscaler' && version.startsWith('autoscaling/')) {
    if (!(HPA_VERSIONS as readonly string[]).includes(version)) return { skipped: what, why: `${version} is no version import reads (${HPA_VERSIONS.join(', ')})` };
    const owner = scaledObjectOwner(meta);
    if (owner) return { skipped: what, why: `made by KEDA for ScaledObject ${owner}: import the ScaledObject instead` };
    return fromHpa(doc, metadata);
  }
  if (doc.kind === 'ScaledObject' && version.startsWith('keda.sh/')) return fromScaledObject(doc, metadata, context);
  if (version === 'shpa.dev/v1' && OURS.includes(doc.kind)) return keepOurs(doc, metadata);
  return { skipped: what, why: skipReason(doc.kind, version, doc) };
}

const OURS = [KUBERNETES_KIND, 'CloudWatchMetric', 'PrometheusMetric', 'SQSQueueMetric'];

/** Our own kinds, carried along so the output is whole: the Kubernetes autoscaler as the table's HPA (the same spec). */
function keepOurs(doc: Obj, metadata: ImportMetadata): ImportResult {
  const { status: _status, metadata: _meta, ...rest } = doc;
  const annotations = isObj(_meta) && isObj(_meta.annotations) ? { annotations: _meta.annotations as Record<string, string> } : {};
  const object = doc.kind === KUBERNETES_KIND ? { ...rest, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' } : rest;
  return {
    source: `${String(doc.kind)} ${metadata.namespace}/${metadata.name}`,
    objects: [{ ...object, metadata: { ...metadata, ...annotations } } as unknown as ImportedObject],
    mapped: ['already ours: kept as written'],
    unmapped: [],
    noEffect: [],
    asWritten: true,
  };
}

/** The ScaledObject that owns a KEDA-made HPA (keda-hpa-NAME), if it is one. */
function scaledObjectOwner(meta: Obj): string | undefined {
  const owners = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  const owner = owners.find((o: unknown) => isObj(o) && o.kind === 'ScaledObject' && String(o.apiVersion).startsWith('keda.sh/'));
  return isObj(owner) ? `${str(meta.namespace) ?? ''}/${str(owner.name) ?? ''}` : undefined;
}

/** Why a kind is not converted, and what to do about it where there is something. */
function skipReason(kind: string, version: string, doc: Obj): string {
  if ((kind === 'TriggerAuthentication' || kind === 'ClusterTriggerAuthentication') && version.startsWith('keda.sh/')) {
    const role = isObj(doc.spec) && isObj(doc.spec.podIdentity) ? str(doc.spec.podIdentity.roleArn) : undefined;
    if (role) return "its podIdentity.roleArn goes to the spec.roleArn of the metric objects whose triggers name it; nothing else to import";
    return "ours reads AWS with the worker function's role, or the role in a metric object's spec.roleArn (the triggers that name it say so): nothing to import";
  }
  if (kind === 'Secret') return 'not read: ours takes no credentials from Secrets';
  if (kind === 'ScaledJob') return 'a ScaledJob starts Jobs; ours scales workloads through /scale: no equivalent';
  if (kind.endsWith('List')) return 'an empty list';
  return 'not an autoscaler';
}

/** A `kind: List` (or HorizontalPodAutoscalerList, as `kubectl get -o yaml` writes) as its items; any other document as itself. */
export function expandLists(doc: unknown): unknown[] {
  if (!isObj(doc) || typeof doc.kind !== 'string' || !doc.kind.endsWith('List') || !Array.isArray(doc.items)) return [doc];
  // A typed list's items carry no apiVersion and kind on the wire: they are the list's.
  const kind = doc.kind === 'List' ? undefined : doc.kind.slice(0, -'List'.length);
  return doc.items.map((item: unknown) => (kind && isObj(item) && item.kind === undefined ? { apiVersion: doc.apiVersion, kind, ...item } : item));
}

/** The (Cluster)TriggerAuthentications among the documents, as triggers that name them read them. */
export function triggerAuthentications(docs: unknown[], defaultNamespace = 'default'): FindAuthentication {
  const found = new Map<string, KedaAuthentication>();
  for (const doc of docs) {
    if (!isObj(doc) || !String(doc.apiVersion).startsWith('keda.sh/') || (doc.kind !== 'TriggerAuthentication' && doc.kind !== 'ClusterTriggerAuthentication')) continue;
    const meta = isObj(doc.metadata) ? doc.metadata : {};
    const namespace = doc.kind === 'ClusterTriggerAuthentication' ? '' : (str(meta.namespace) ?? defaultNamespace);
    found.set(`${doc.kind}/${namespace}/${str(meta.name) ?? ''}`, summarizeAuthentication(isObj(doc.spec) ? doc.spec : {}));
  }
  return (kind, namespace, name) => found.get(`${kind}/${kind === 'ClusterTriggerAuthentication' ? '' : namespace}/${name}`);
}

/** A TriggerAuthentication's spec: its podIdentity, and where each parameter comes from (names, never values). */
function summarizeAuthentication(spec: Obj): KedaAuthentication {
  const identity = isObj(spec.podIdentity) ? spec.podIdentity : {};
  const parameters: Record<string, string> = {};
  const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
  for (const r of list(spec.secretTargetRef)) parameters[str(r.parameter) ?? ''] = `Secret ${str(r.name) ?? ''} key ${str(r.key) ?? ''}`;
  for (const r of list(spec.configMapTargetRef)) parameters[str(r.parameter) ?? ''] = `ConfigMap ${str(r.name) ?? ''} key ${str(r.key) ?? ''}`;
  for (const r of list(spec.env)) parameters[str(r.parameter) ?? ''] = `the target's environment variable ${str(r.name) ?? ''}`;
  const vaults: [string, string][] = [['hashiCorpVault', 'HashiCorp Vault'], ['awsSecretManager', 'AWS Secrets Manager'], ['azureKeyVault', 'Azure Key Vault'], ['gcpSecretManager', 'GCP Secret Manager']];
  for (const [field, what] of vaults) {
    const vault = isObj(spec[field]) ? spec[field] : {};
    for (const r of list(vault.secrets)) parameters[str(r.parameter) ?? ''] = what;
  }
  delete parameters[''];
  return {
    ...(str(identity.provider) ? { provider: str(identity.provider) } : {}),
    ...(str(identity.roleArn) ? { roleArn: str(identity.roleArn) } : {}),
    ...(str(identity.identityOwner) ? { identityOwner: str(identity.identityOwner) } : {}),
    ...(identity.externalID !== undefined ? { externalId: true } : {}),
    parameters,
  };
}
