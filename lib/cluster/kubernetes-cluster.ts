// One cluster's Kubernetes API, as a sync cycle uses it: /scale of any
// target, pods and pod metrics listed once per namespace per cycle, and the
// custom and external metrics APIs. All calls go through the real
// @kubernetes/client-node over HTTPS with a bearer token.
import https from 'node:https';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  HttpMethod,
  Observable,
  PatchStrategy,
  ServerConfiguration,
  createConfiguration,
  setHeaderOptions,
  type Configuration,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type SecurityAuthentication,
  type V1Scale,
} from '@kubernetes/client-node';
import type { CrossVersionObjectReference, MetricIdentifier, MetricSample, PodInfo, PodMetric, PodMetricSample, ScaleInfo } from '../hpa/types.js';
import { fromLabelSelector, selectorToString } from '../hpa/selector.js';
import { ClusterApiError, type Clock, type ClusterAccess, type ClusterMetricsApi } from '../sync/ports.js';
import {
  externalMetricSamplesOf,
  objectMetricSampleOf,
  podInfoOf,
  podMetricSamplesOf,
  podMetricsOf,
  scaleInfoOf,
  scaleInfoOfJson,
} from './convert.js';
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
  auth: SecurityAuthentication;
  agent: https.Agent;
  apps: AppsV1Api;
  core: CoreV1Api;
  custom: CustomObjectsApi;
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

function signalMiddleware(signal: AbortSignal): ObservableMiddleware {
  return {
    pre: (ctx) => {
      ctx.setSignal(signal);
      return new Observable(Promise.resolve(ctx));
    },
    post: (res) => new Observable(Promise.resolve(res)),
  };
}

function withSignal(signal: AbortSignal): ConfigurationOptions<ObservableMiddleware> {
  return { middleware: [signalMiddleware(signal)], middlewareMergeStrategy: 'append' };
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
    this.resolver = new ResourceResolver((path) =>
      this.call({ verb: 'get', group: '', resource: 'discovery', namespace: '', name: path }, (c, signal) => this.rawGet(c, path, {}, signal)),
    );
  }

  /** Starts a sync cycle: pods and pod metrics are listed afresh, once per namespace. */
  beginCycle(): void {
    this.memo.clear();
    this.knownReplicas.clear();
  }

  /** Closes kept-alive connections. */
  async close(): Promise<void> {
    if (this.client) (await this.client.catch(() => undefined))?.agent.destroy();
  }

  async getScale(namespace: string, ref: CrossVersionObjectReference): Promise<ScaleInfo> {
    const target = await this.scaleTarget(namespace, ref);
    const info = await this.readScale(namespace, ref.name, target);
    this.knownReplicas.set(this.scaleKey(namespace, ref.name, target), { at: this.nowMs(), replicas: info.specReplicas });
    return info;
  }

  async updateScale(namespace: string, ref: CrossVersionObjectReference, replicas: number): Promise<void> {
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw new ClusterApiError(`spec.replicas must be a non-negative integer, got ${replicas}`);
    }
    const target = await this.scaleTarget(namespace, ref);
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
      let cont: string | undefined;
      do {
        const page = await this.call({ verb: 'list', group: '', resource: 'pods', namespace }, (c, signal) =>
          c.core.listNamespacedPod({ namespace, limit: this.opts.podPageSize ?? 500, _continue: cont }, withSignal(signal)),
        );
        for (const p of page.items) pods.push(podInfoOf(p));
        cont = page.metadata?._continue || undefined;
      } while (cont);
      return pods;
    });
  }

  listPodMetrics(namespace: string): Promise<PodMetric[]> {
    return this.once(`podmetrics/${namespace}`, async () => {
      const target: RequestTarget = { verb: 'list', group: 'metrics.k8s.io', resource: 'pods', namespace };
      const body = await this.call(target, (c, signal) => this.rawGet(c, `${METRICS}/namespaces/${seg(namespace)}/pods`, {}, signal));
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
    const body = await this.call(target, (c, signal) => this.rawGet(c, path, query, signal));
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
    const body = await this.call(target, (c, signal) => this.rawGet(c, path, metricSelector ? { metricLabelSelector: metricSelector } : {}, signal));
    return this.decode(target, () => objectMetricSampleOf(body));
  }

  async getExternalMetric(namespace: string, metric: MetricIdentifier): Promise<MetricSample[]> {
    const target: RequestTarget = { verb: 'list', group: 'external.metrics.k8s.io', resource: metric.name, namespace };
    const selector = metricSelectorString(metric);
    const path = `${EXTERNAL_METRICS}/namespaces/${seg(namespace)}/${seg(metric.name)}`;
    const body = await this.call(target, (c, signal) => this.rawGet(c, path, selector ? { labelSelector: selector } : {}, signal));
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

  private scaleTarget(namespace: string, ref: CrossVersionObjectReference): Promise<ResourceRef> {
    return this.resolve(ref, true);
  }

  private decode<T>(target: RequestTarget, f: () => T): T {
    try {
      return f();
    } catch (err) {
      throw new ClusterApiError(`${describeTarget(target)}: unexpected answer: ${(err as Error).message}`);
    }
  }

  private async readScale(namespace: string, name: string, t: ResourceRef): Promise<ScaleInfo> {
    const target: RequestTarget = { verb: 'get', group: t.group, resource: t.resource, subresource: 'scale', namespace, name };
    return this.call(target, async (c, signal) => {
      const o = withSignal(signal);
      const p = { name, namespace };
      const typed = (s: Promise<V1Scale>) => s.then(scaleInfoOf);
      if (t.group === 'apps' && t.resource === 'deployments') return typed(c.apps.readNamespacedDeploymentScale(p, o));
      if (t.group === 'apps' && t.resource === 'statefulsets') return typed(c.apps.readNamespacedStatefulSetScale(p, o));
      if (t.group === 'apps' && t.resource === 'replicasets') return typed(c.apps.readNamespacedReplicaSetScale(p, o));
      if (t.group === '' && t.resource === 'replicationcontrollers') return typed(c.core.readNamespacedReplicationControllerScale(p, o));
      const body: unknown = await c.custom.getNamespacedCustomObjectScale({ ...p, group: t.group, version: t.version, plural: t.resource }, o);
      return this.decode(target, () => scaleInfoOfJson(body));
    });
  }

  private async patchScale(namespace: string, name: string, t: ResourceRef, replicas: number): Promise<void> {
    const target: RequestTarget = { verb: 'patch', group: t.group, resource: t.resource, subresource: 'scale', namespace, name };
    const body = { spec: { replicas } };
    await this.call(target, async (c, signal) => {
      const o = setHeaderOptions('Content-Type', PatchStrategy.MergePatch, withSignal(signal));
      const p = { name, namespace, body };
      if (t.group === 'apps' && t.resource === 'deployments') return void (await c.apps.patchNamespacedDeploymentScale(p, o));
      if (t.group === 'apps' && t.resource === 'statefulsets') return void (await c.apps.patchNamespacedStatefulSetScale(p, o));
      if (t.group === 'apps' && t.resource === 'replicasets') return void (await c.apps.patchNamespacedReplicaSetScale(p, o));
      if (t.group === '' && t.resource === 'replicationcontrollers') return void (await c.core.patchNamespacedReplicationControllerScale(p, o));
      await c.custom.patchNamespacedCustomObjectScale({ ...p, group: t.group, version: t.version, plural: t.resource }, o);
    });
  }

  private call<T>(target: RequestTarget, fn: (c: Client, signal: AbortSignal) => Promise<T>): Promise<T> {
    return callWithPolicy(target, this.policy, { onUnauthorized: () => this.opts.tokens.invalidate(), sleep: this.opts.sleep }, async (signal) =>
      fn(await this.connect(), signal),
    );
  }

  private connect(): Promise<Client> {
    if (!this.client) {
      this.client = this.opts.connect().then(({ endpoint, caPem }) => {
        const agent = new https.Agent({ ca: caPem, keepAlive: true });
        const auth = new BearerAuth(this.opts.tokens, agent);
        const config = createConfiguration({ baseServer: new ServerConfiguration(endpoint.replace(/\/+$/, ''), {}), authMethods: { default: auth } });
        return { config, auth, agent, apps: new AppsV1Api(config), core: new CoreV1Api(config), custom: new CustomObjectsApi(config) };
      });
      // A failed DescribeCluster is retried on the next call, not cached.
      this.client.catch(() => {
        this.client = undefined;
      });
    }
    return this.client;
  }

  /** A GET through the client's own request pipeline (auth, agent, fetch) for APIs it has no typed call for. */
  private async rawGet(c: Client, path: string, query: Record<string, string>, signal: AbortSignal): Promise<unknown> {
    const ctx = c.config.baseServer.makeRequestContext(path, HttpMethod.GET);
    for (const [k, v] of Object.entries(query)) ctx.setQueryParam(k, v);
    ctx.setHeaderParam('Accept', 'application/json');
    await c.auth.applySecurityAuthentication(ctx);
    ctx.setSignal(signal);
    const res = await c.config.httpApi.send(ctx).toPromise();
    const text = await res.body.text();
    if (res.httpStatusCode < 200 || res.httpStatusCode > 299) throw new HttpStatusError(res.httpStatusCode, text, res.headers);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`GET ${path}: answer is not JSON`);
    }
  }
}
