// One cluster's Kubernetes API, as a sync cycle uses it: /scale of any
// target, pods and pod metrics listed once per namespace per cycle, and the
// custom and external metrics APIs. Every call goes through the real
// @kubernetes/client-node request pipeline (ServerConfiguration → RequestContext
// → the configuration's httpApi) over HTTPS with a bearer token; answers are
// parsed by convert.ts. Only the client's lower layers are imported (deep
// paths): its package index pulls in every generated model and the kubeconfig
// stack, over a megabyte in the Lambda bundle.
import https from 'node:https';
import type { Configuration, RequestContext, SecurityAuthentication } from '@kubernetes/client-node';
import { createConfiguration } from '@kubernetes/client-node/dist/gen/configuration.js';
import { HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import { ServerConfiguration } from '@kubernetes/client-node/dist/gen/servers.js';
import type { CrossVersionObjectReference, MetricIdentifier, MetricSample, PodInfo, PodMetric, PodMetricSample, ScaleInfo } from '../hpa/types.js';
import { fromLabelSelector, selectorToString } from '../hpa/selector.js';
import { ClusterApiError, type Clock, type ClusterAccess, type ClusterMetricsApi } from '../sync/ports.js';
import { externalMetricSamplesOf, objectMetricSampleOf, podListOf, podMetricSamplesOf, podMetricsOf, scaleInfoOf } from './convert.js';
import type { TokenProvider } from './eks-token.js';
import { HttpStatusError, callWithPolicy, defaultRetryPolicy, describeTarget, type RequestTarget, type RetryPolicy } from './request-policy.js';
import { ResourceResolver, type ResourceRef } from './resources.js';

/** Where the API server is and how to trust it. */
export interface ClusterConnection {
  endpoint: string;
  /** PEM of the cluster CA. */
  caPem: string;
}

export interface KubernetesClusterOptions {
  /** Resolved once, on first use (DescribeCluster for EKS). */
  connect: () => Promise<ClusterConnection>;
  tokens: TokenProvider;
  clock: Clock;
  retry?: Partial<RetryPolicy>;
  /** Per-cycle memos older than this are not reused, even without beginCycle(). */
  memoTtlMs?: number;
  /** Page size of pod lists. */
  podPageSize?: number;
  sleep?: (ms: number) => Promise<void>;
}

const METRICS = '/apis/metrics.k8s.io/v1beta1';
const CUSTOM_METRICS = '/apis/custom.metrics.k8s.io/v1beta2';
const EXTERNAL_METRICS = '/apis/external.metrics.k8s.io/v1beta1';

interface Client {
  config: Configuration;
  agent: https.Agent;
}

/** One API request; the answer is JSON. */
interface ApiRequest {
  method: HttpMethod;
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON with this Content-Type. */
  body?: { json: unknown; contentType: string };
}

/** Sets the current bearer token and the agent that trusts the cluster CA (kept alive across calls). */
class BearerAuth implements SecurityAuthentication {
  constructor(
    private readonly tokens: TokenProvider,
    private readonly agent: https.Agent,
  ) {}
  getName(): string {
    return 'BearerToken';
  }
  async applySecurityAuthentication(context: RequestContext): Promise<void> {
    context.setHeaderParam('Authorization', `Bearer ${await this.tokens.getToken()}`);
    context.setAgent(this.agent);
  }
}

/** Sends one request as the generated APIs do: context from the base server, auth, then the configuration's httpApi. */
async function send(c: Client, req: ApiRequest, signal: AbortSignal): Promise<unknown> {
  const ctx = c.config.baseServer.makeRequestContext(req.path, req.method);
  for (const [k, v] of Object.entries(req.query ?? {})) ctx.setQueryParam(k, v);
  ctx.setHeaderParam('Accept', 'application/json');
  if (req.body) {
    ctx.setHeaderParam('Content-Type', req.body.contentType);
    ctx.setBody(JSON.stringify(req.body.json));
  }
  await c.config.authMethods.default?.applySecurityAuthentication(ctx);
  ctx.setSignal(signal);
  const res = await c.config.httpApi.send(ctx).toPromise();
  const text = await res.body.text();
  if (res.httpStatusCode < 200 || res.httpStatusCode > 299) throw new HttpStatusError(res.httpStatusCode, text, res.headers);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${req.method} ${req.path}: answer is not JSON`);
  }
}

/** The REST path of a resource collection: /api/v1 for the core group, /apis/<group>/<version> otherwise. */
function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

function seg(s: string): string {
  return s === '*' ? s : encodeURIComponent(s);
}

function metricSelectorString(metric: MetricIdentifier): string {
  return metric.selector ? selectorToString(fromLabelSelector(metric.selector)) : '';
}

export class KubernetesCluster implements ClusterAccess, ClusterMetricsApi {
  private client?: Promise<Client>;
  private readonly policy: RetryPolicy;
  private readonly memoTtlMs: number;
  private readonly memo = new Map<string, { at: number; value: Promise<unknown> }>();
  /** spec.replicas last read or written this cycle, so an unchanged value is never patched. */
  private readonly knownReplicas = new Map<string, { at: number; replicas: number }>();
  private readonly resolver: ResourceResolver;

  constructor(
    readonly name: string,
    private readonly opts: KubernetesClusterOptions,
  ) {
    this.policy = { ...defaultRetryPolicy, ...opts.retry };
    this.memoTtlMs = opts.memoTtlMs ?? 30_000;
    this.resolver = new ResourceResolver((path) => this.request({ verb: 'get', nonResourceURL: path }, { method: HttpMethod.GET, path }));
  }

  /** Starts a sync cycle: pods, pod metrics and discovery are read afresh, once per namespace or group. */
  beginCycle(): void {
    this.memo.clear();
    this.knownReplicas.clear();
    this.resolver.reset();
  }

  /** Closes kept-alive connections. */
  async close(): Promise<void> {
    if (this.client) (await this.client.catch(() => undefined))?.agent.destroy();
  }

  async getScale(namespace: string, ref: CrossVersionObjectReference): Promise<ScaleInfo> {
    const target = await this.resolve(ref, true);
    const info = await this.readScale(namespace, ref.name, target);
    this.knownReplicas.set(this.scaleKey(namespace, ref.name, target), { at: this.nowMs(), replicas: info.specReplicas });
    return info;
  }

  async updateScale(namespace: string, ref: CrossVersionObjectReference, replicas: number): Promise<void> {
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw new ClusterApiError(`spec.replicas must be a non-negative integer, got ${replicas}`);
    }
    const target = await this.resolve(ref, true);
    const key = this.scaleKey(namespace, ref.name, target);
    const known = this.knownReplicas.get(key);
    if (known && this.fresh(known.at) && known.replicas === replicas) return;
    try {
      await this.patchScale(namespace, ref.name, target, replicas);
    } catch (err) {
      if (!(err instanceof ClusterApiError) || err.statusCode !== 409) throw err;
      // Conflict: reread, and write once more unless someone already set the same value.
      const current = await this.readScale(namespace, ref.name, target);
      if (current.specReplicas !== replicas) await this.patchScale(namespace, ref.name, target, replicas);
    }
    this.knownReplicas.set(key, { at: this.nowMs(), replicas });
  }

  listPods(namespace: string): Promise<PodInfo[]> {
    return this.once(`pods/${namespace}`, async () => {
      const pods: PodInfo[] = [];
      const target: RequestTarget = { verb: 'list', group: '', resource: 'pods', namespace };
      const path = `/api/v1/namespaces/${seg(namespace)}/pods`;
      let cont = '';
      do {
        const query: Record<string, string> = { limit: String(this.opts.podPageSize ?? 500) };
        if (cont) query.continue = cont;
        const body = await this.request(target, { method: HttpMethod.GET, path, query });
        const page = this.decode(target, () => podListOf(body));
        pods.push(...page.pods);
        cont = page.continue;
      } while (cont);
      return pods;
    });
  }

  listPodMetrics(namespace: string): Promise<PodMetric[]> {
    return this.once(`podmetrics/${namespace}`, async () => {
      const target: RequestTarget = { verb: 'list', group: 'metrics.k8s.io', resource: 'pods', namespace };
      const body = await this.request(target, { method: HttpMethod.GET, path: `${METRICS}/namespaces/${seg(namespace)}/pods` });
      return this.decode(target, () => podMetricsOf(body));
    });
  }

  async getPodsMetric(namespace: string, metric: MetricIdentifier, podSelector: string): Promise<PodMetricSample[]> {
    const target: RequestTarget = { verb: 'get', group: 'custom.metrics.k8s.io', resource: 'pods', subresource: metric.name, namespace, name: '*' };
    const query: Record<string, string> = {};
    if (podSelector) query.labelSelector = podSelector;
    const metricSelector = metricSelectorString(metric);
    if (metricSelector) query.metricLabelSelector = metricSelector;
    const path = `${CUSTOM_METRICS}/namespaces/${seg(namespace)}/pods/*/${seg(metric.name)}`;
    const body = await this.request(target, { method: HttpMethod.GET, path, query });
    return this.decode(target, () => podMetricSamplesOf(body));
  }

  async getObjectMetric(namespace: string, describedObject: CrossVersionObjectReference, metric: MetricIdentifier): Promise<MetricSample> {
    const ref = await this.resolve(describedObject, false);
    // Namespaces are described as namespaces/<name>/metrics/<metric> (upstream custom_metrics client).
    const isNamespace = ref.group === '' && ref.kind === 'Namespace';
    // Resources are group-qualified ("deployments.apps"), as GroupResource.String() in upstream's client.
    const resource = ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
    const path = isNamespace
      ? `${CUSTOM_METRICS}/namespaces/${seg(describedObject.name)}/metrics/${seg(metric.name)}`
      : `${CUSTOM_METRICS}/namespaces/${seg(namespace)}/${seg(resource)}/${seg(describedObject.name)}/${seg(metric.name)}`;
    const target: RequestTarget = isNamespace
      ? { verb: 'get', group: 'custom.metrics.k8s.io', resource: 'metrics', namespace: describedObject.name, name: metric.name }
      : { verb: 'get', group: 'custom.metrics.k8s.io', resource, subresource: metric.name, namespace, name: describedObject.name };
    const metricSelector = metricSelectorString(metric);
    const body = await this.request(target, { method: HttpMethod.GET, path, query: metricSelector ? { metricLabelSelector: metricSelector } : {} });
    return this.decode(target, () => objectMetricSampleOf(body));
  }

  async getExternalMetric(namespace: string, metric: MetricIdentifier): Promise<MetricSample[]> {
    const target: RequestTarget = { verb: 'list', group: 'external.metrics.k8s.io', resource: metric.name, namespace };
    const selector = metricSelectorString(metric);
    const path = `${EXTERNAL_METRICS}/namespaces/${seg(namespace)}/${seg(metric.name)}`;
    const body = await this.request(target, { method: HttpMethod.GET, path, query: selector ? { labelSelector: selector } : {} });
    return this.decode(target, () => externalMetricSamplesOf(body));
  }

  // ---- internals ----

  private nowMs(): number {
    return this.opts.clock.now().getTime();
  }

  private fresh(at: number): boolean {
    return this.nowMs() - at < this.memoTtlMs;
  }

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.memo.get(key);
    if (hit && this.fresh(hit.at)) return hit.value as Promise<T>;
    // Failures are memoised too: every autoscaler of the namespace sees the same error, with no second call.
    const value = load();
    value.catch(() => undefined);
    this.memo.set(key, { at: this.nowMs(), value });
    return value;
  }

  private scaleKey(namespace: string, name: string, t: ResourceRef): string {
    return `${t.group}/${t.resource}/${namespace}/${name}`;
  }

  private async resolve(ref: CrossVersionObjectReference, needScale: boolean): Promise<ResourceRef> {
    try {
      return await this.resolver.resolve(ref.apiVersion, ref.kind, needScale);
    } catch (err) {
      if (err instanceof ClusterApiError) throw err;
      throw new ClusterApiError(`unable to determine resource for ${ref.kind} "${ref.name}": ${(err as Error).message}`);
    }
  }

  private decode<T>(target: RequestTarget, f: () => T): T {
    try {
      return f();
    } catch (err) {
      throw new ClusterApiError(`${describeTarget(target)}: unexpected answer: ${(err as Error).message}`);
    }
  }

  private scalePath(namespace: string, name: string, t: ResourceRef): string {
    return `${groupVersionPath(t.group, t.version)}/namespaces/${seg(namespace)}/${seg(t.resource)}/${seg(name)}/scale`;
  }

  private async readScale(namespace: string, name: string, t: ResourceRef): Promise<ScaleInfo> {
    const target: RequestTarget = { verb: 'get', group: t.group, resource: t.resource, subresource: 'scale', namespace, name };
    const body = await this.request(target, { method: HttpMethod.GET, path: this.scalePath(namespace, name, t) });
    return this.decode(target, () => scaleInfoOf(body));
  }

  private async patchScale(namespace: string, name: string, t: ResourceRef, replicas: number): Promise<void> {
    const target: RequestTarget = { verb: 'patch', group: t.group, resource: t.resource, subresource: 'scale', namespace, name };
    // PatchStrategy.MergePatch of the typed client: the API server needs this Content-Type, and CRDs take no strategic merge.
    const body = { json: { spec: { replicas } }, contentType: 'application/merge-patch+json' };
    await this.request(target, { method: HttpMethod.PATCH, path: this.scalePath(namespace, name, t), body });
  }

  private request(target: RequestTarget, req: ApiRequest): Promise<unknown> {
    return callWithPolicy(target, this.policy, { onUnauthorized: () => this.opts.tokens.invalidate(), sleep: this.opts.sleep }, async (signal) =>
      send(await this.connect(), req, signal),
    );
  }

  private connect(): Promise<Client> {
    if (!this.client) {
      this.client = this.opts.connect().then(({ endpoint, caPem }) => {
        const agent = new https.Agent({ ca: caPem, keepAlive: true });
        const config = createConfiguration({
          baseServer: new ServerConfiguration(endpoint.replace(/\/+$/, ''), {}),
          authMethods: { default: new BearerAuth(this.opts.tokens, agent) },
        });
        return { config, agent };
      });
      // A failed DescribeCluster is retried on the next call, not cached.
      this.client.catch(() => {
        this.client = undefined;
      });
    }
    return this.client;
  }
}
