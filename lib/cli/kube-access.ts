// `shpa import`'s way into a cluster, as kubectl's: the user's kubeconfig (KUBECONFIG or
// ~/.kube/config, or --kubeconfig), its current context or --context, the context's namespace
// or -n, -A for every namespace, -l for a label selector. Reads HorizontalPodAutoscalers
// (autoscaling/v2) and KEDA ScaledObjects (keda.sh/v1alpha1) page by page (kubectl's chunks of
// 500), with the TriggerAuthentications whose roles the triggers may use, and applies objects by server-side apply, all of them checked by the server first.
import { ApiException, CustomObjectsApi, KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { CliError } from './context.js';
import { errorText } from '../shared/error-text.js';

export interface KubeOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  allNamespaces?: boolean;
  selector?: string;
}

export interface KubeAccess {
  config: KubeConfig;
  context: string;
  /** -n, else the context's namespace, else "default"; undefined with -A. */
  namespace?: string;
}

/** A document read from the cluster, and where from: "cluster prod, horizontalpodautoscalers.autoscaling". */
export interface ClusterDocument {
  value: unknown;
  origin: string;
}

/** The kubeconfig and context kubectl would use with these flags. */
export function openKubeconfig(opts: KubeOptions): KubeAccess {
  const config = new KubeConfig();
  const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  // client-node would otherwise fall back to http://localhost:8080, which no cluster serves.
  if (!opts.kubeconfig && fromEnv.length === 0 && !existsSync(join(homedir(), '.kube', 'config')) && !process.env.KUBERNETES_SERVICE_HOST) {
    throw new CliError('no kubeconfig: KUBECONFIG is unset and ~/.kube/config does not exist; pass --kubeconfig PATH (for EKS, "aws eks update-kubeconfig --name CLUSTER" writes one)');
  }
  try {
    if (opts.kubeconfig) config.loadFromFile(opts.kubeconfig);
    else config.loadFromDefault();
  } catch (e) {
    throw new CliError(`cannot read the kubeconfig${opts.kubeconfig ? ` ${opts.kubeconfig}` : ' (KUBECONFIG or ~/.kube/config)'}: ${errorText(e)}`);
  }
  if (opts.context) {
    if (!config.getContextObject(opts.context)) {
      const known = config.getContexts().map((c) => c.name);
      throw new CliError(`context "${opts.context}" does not exist in the kubeconfig${known.length ? `: the contexts are ${known.join(', ')}` : ''}`);
    }
    config.setCurrentContext(opts.context);
  }
  const context = config.getCurrentContext();
  if (!context || !config.getCurrentCluster()) throw new CliError('no current context in the kubeconfig: pass --context NAME, or run "kubectl config use-context NAME"');
  const namespace = opts.allNamespaces ? undefined : (opts.namespace ?? config.getContextObject(context)?.namespace ?? 'default');
  return { config, context, namespace };
}

interface Listed {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

const HPAS: Listed = { group: 'autoscaling', version: 'v2', plural: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler' };
const SCALED_OBJECTS: Listed = { group: 'keda.sh', version: 'v1alpha1', plural: 'scaledobjects', kind: 'ScaledObject' };
const TRIGGER_AUTHENTICATIONS: Listed = { group: 'keda.sh', version: 'v1alpha1', plural: 'triggerauthentications', kind: 'TriggerAuthentication' };
const CLUSTER_TRIGGER_AUTHENTICATIONS: Listed = { group: 'keda.sh', version: 'v1alpha1', plural: 'clustertriggerauthentications', kind: 'ClusterTriggerAuthentication' };
/** kubectl get's default --chunk-size. */
const CHUNK = 500;

/** Every HPA and ScaledObject the flags select, the (Cluster)TriggerAuthentications their triggers may name, and notes (KEDA not installed). */
export async function readAutoscalers(access: KubeAccess, selector?: string): Promise<{ documents: ClusterDocument[]; authentications: unknown[]; notes: string[] }> {
  const api = access.config.makeApiClient(CustomObjectsApi);
  const documents: ClusterDocument[] = [];
  const notes: string[] = [];
  for (const kind of [HPAS, SCALED_OBJECTS]) {
    const origin = `context ${access.context}, ${kind.plural}.${kind.group}`;
    try {
      for (const value of await listAll(api, kind, access.namespace, selector)) documents.push({ value, origin });
    } catch (e) {
      if (kind !== SCALED_OBJECTS || !(e instanceof ApiException) || e.code !== 404) throw explainKubeError(e, access, `list ${kind.plural}.${kind.group}`);
      notes.push(`no ScaledObjects read: the cluster serves no ${kind.plural}.${kind.group}/${kind.version} (KEDA is not installed)`);
      return { documents, authentications: [], notes };
    }
  }
  return { documents, authentications: await readAuthentications(api, access, notes), notes };
}

/** The TriggerAuthentications (of the namespace read) and ClusterTriggerAuthentications, for the roles they assume; without the right to list them, said. */
async function readAuthentications(api: CustomObjectsApi, access: KubeAccess, notes: string[]): Promise<unknown[]> {
  const found: unknown[] = [];
  for (const kind of [TRIGGER_AUTHENTICATIONS, CLUSTER_TRIGGER_AUTHENTICATIONS]) {
    try {
      found.push(...(await listAll(api, kind, kind === CLUSTER_TRIGGER_AUTHENTICATIONS ? undefined : access.namespace, undefined)));
    } catch (e) {
      const why = e instanceof ApiException ? `${e.code}${statusMessage(e.body) ? ` ${statusMessage(e.body)}` : ''}` : (e as Error)?.message;
      notes.push(`${kind.plural}.${kind.group} not read (${why}): the roles they assume are not carried over`);
    }
  }
  return found;
}

async function listAll(api: CustomObjectsApi, kind: Listed, namespace: string | undefined, labelSelector: string | undefined): Promise<unknown[]> {
  const items: unknown[] = [];
  let next: string | undefined;
  do {
    const page = { group: kind.group, version: kind.version, plural: kind.plural, labelSelector, limit: CHUNK, _continue: next };
    const list = (namespace === undefined ? await api.listClusterCustomObject(page) : await api.listNamespacedCustomObject({ ...page, namespace })) as {
      items?: unknown[];
      metadata?: { continue?: string };
    };
    // A list's items carry no apiVersion and kind on the wire: they are the list's.
    for (const item of list.items ?? []) items.push({ apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind, ...(item as object) });
    next = list.metadata?.continue || undefined;
  } while (next);
  return items;
}

/** What applyObjects takes: any object with its type and name. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** Applies every object (server-side apply, field manager shpa-import): first all as a server dry run, so a refusal stores nothing. */
export async function applyObjects(access: KubeAccess, objects: Manifest[]): Promise<string[]> {
  const api = KubernetesObjectApi.makeApiClient(access.config);
  const apply = (o: Manifest, dryRun?: string) => api.patch<KubernetesObject>(o, undefined, dryRun, 'shpa-import', true, PatchStrategy.ServerSideApply);
  for (const o of objects) {
    try {
      await apply(o, 'All');
    } catch (e) {
      throw explainKubeError(e, access, `apply ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`, ' (nothing was applied)');
    }
  }
  const done: string[] = [];
  for (const o of objects) {
    try {
      await apply(o);
      done.push(`${o.kind.toLowerCase()}.${o.apiVersion.split('/')[0]}/${o.metadata.name} serverside-applied`);
    } catch (e) {
      throw explainKubeError(e, access, `apply ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`, done.length ? ` (applied before it: ${done.join(', ')})` : ' (nothing was applied)');
    }
  }
  return done;
}

/** One line: what failed, the server's message (a Status), and what to check. */
function explainKubeError(e: unknown, access: KubeAccess, what: string, after = ''): CliError {
  const where = `context ${access.context} (${access.config.getCurrentCluster()?.server ?? '?'})`;
  if (e instanceof ApiException) {
    const status = statusMessage(e.body);
    const hint =
      e.code === 401 ? ': the kubeconfig\'s credentials were refused' : e.code === 403 ? `: check "kubectl auth can-i" for it` : e.code === 404 ? ': is the CRD installed (kubectl apply -f infra/crds/)?' : '';
    return new CliError(`cannot ${what} in ${where}: ${e.code}${status ? ` ${status}` : ''}${hint}${after}`);
  }
  return new CliError(`cannot ${what} in ${where}: ${(e as Error)?.message ?? String(e)}${after}`);
}

function statusMessage(body: unknown): string | undefined {
  let b = body;
  if (typeof b === 'string') {
    try {
      b = JSON.parse(b);
    } catch {
      return undefined;
    }
  }
  return typeof b === 'object' && b !== null && typeof (b as { message?: unknown }).message === 'string' ? (b as { message: string }).message : undefined;
}
