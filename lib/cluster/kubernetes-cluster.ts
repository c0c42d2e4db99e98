// One cluster's Kubernetes API, as a sync cycle uses it: /scale of any target, pods, the
// metrics APIs, our custom resources (autoscalers, CloudWatchMetric objects, their status)
// and Events. Nothing is cached between calls but discovery (per cycle): the cycle itself
// reads each namespace once, so every decision is made on what was read in its cycle.
// Every call goes through the real
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
import { createHash } from 'node:crypto';
import {
  type CrossVersionObjectReference,
  fromLabelSelector,
  type MetricIdentifier,
  type MetricSample,
  type PodInfo,
  type PodMetric,
  type PodMetricSample,
  type ScaleInfo,
  selectorToString,
} from '#hpa';
import { addMetricObject, emptyMetricObjects, METRIC_KINDS } from '#api';
import {
  type AutoscalerObjects,
  type Clock,
  type ClusterAccess,
  ClusterApiError,
  type ClusterMetricsApi,
  type DecisionLogEntry,
  type KubernetesAutoscaler,
  type KubernetesAutoscalerStatus,
  type ListableScaleKind,
  type LiveHpaStatus,
  type ObjectReference,
} from '#sync/ports';
import { appsScalesOf, customObjectsOf, externalMetricSamplesOf, objectMetricSampleOf, podListOf, podMetricSamplesOf, podMetricsOf, scaleInfoOf } from './convert.js';
import type { TokenProvider } from './eks-token.js';
import { HttpStatusError, callWithPolicy, defaultRetryPolicy, describeTarget, type RequestTarget, type RetryPolicy } from './request-policy.js';
import { ResourceResolver, type ResourceRef } from './resources.js';
import { Gate } from '#transport';

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
  /** Page size of pod lists. */
  podPageSize?: number;
  /** Requests in flight at once to the API server; more wait their turn, in order. Default 8. */
  maxInFlight?: number;
  /** Page size of the Deployment, StatefulSet and ReplicaSet lists of listScales. */
  scaleListPageSize?: number;
  sleep?: (ms: number) => Promise<void>;
}

const METRICS = '/apis/metrics.k8s.io/v1beta1';
const APPS_RESOURCES: Record<ListableScaleKind, string> = { Deployment: 'deployments', StatefulSet: 'statefulsets', ReplicaSet: 'replicasets' };
/** Our custom resources (infra/crds/). */
export const SHPA_GROUP = 'shpa.dev';
const SHPA = `/apis/${SHPA_GROUP}/v1`;
const AUTOSCALERS = 'serverlesshorizontalpodautoscalers';
/** The User-Agent of every request: who wrote /scale, in the cluster's audit log. */
export const USER_AGENT = 'serverless-hpa/sync';
/** Events we write name this component, as upstream's name "horizontal-pod-autoscaler". */
export const EVENT_SOURCE = 'serverless-hpa';
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
  // As client-go names its binary: audit logs (and the local API server) attribute each write to us.
  ctx.setHeaderParam('User-Agent', USER_AGENT);
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
  private readonly resolver: ResourceResolver;
  private readonly gate: Gate;

  constructor(
    readonly name: string,
    private readonly opts: KubernetesClusterOptions,
  ) {
    this.policy = { ...defaultRetryPolicy, ...opts.retry };
    this.gate = new Gate(opts.maxInFlight ?? 8);
    this.resolver = new ResourceResolver((path) => this.request({ verb: 'get', nonResourceURL: path }, { method: HttpMethod.GET, path }));
  }

  /** Starts a sync cycle: discovery is read afresh (a CRD installed since is found). */
  beginCycle(): void {
    this.resolver.reset();
  }

  /** Closes kept-alive connections. */
  async close(): Promise<void> {
    if (this.client) (await this.client.catch(() => undefined))?.agent.destroy();
  }

  async getScale(namespace: string, ref: CrossVersionObjectReference, signal?: AbortSignal): Promise<ScaleInfo> {
    const target = await this.resolve(ref, true);
    return this.readScale(namespace, ref.name, target, signal);
  }

  async updateScale(namespace: string, ref: CrossVersionObjectReference, replicas: number, resourceVersion?: string, signal?: AbortSignal): Promise<void> {
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw new ClusterApiError(`spec.replicas must be a non-negative integer, got ${replicas}`);
    }
    const t = await this.resolve(ref, true);
    const target: RequestTarget = { verb: 'patch', group: t.group, resource: t.resource, subresource: 'scale', namespace, name: ref.name };
    // Upstream updates the scale with the version it read: a change since (a kubectl scale) is a
    // 409 Conflict, and the next evaluation decides again on what is there now.
    const json = resourceVersion ? { metadata: { resourceVersion }, spec: { replicas } } : { spec: { replicas } };
    // PatchStrategy.MergePatch of the typed client: the API server needs this Content-Type, and CRDs take no strategic merge.
    const body = { json, contentType: 'application/merge-patch+json' };
    await this.request(target, { method: HttpMethod.PATCH, path: this.scalePath(namespace, ref.name, t), body }, signal);
  }

  async listScales(namespace: string, kind: ListableScaleKind, signal?: AbortSignal): Promise<Map<string, ScaleInfo>> {
    const resource = Object.hasOwn(APPS_RESOURCES, kind) ? APPS_RESOURCES[kind] : undefined;
    if (!resource) throw new ClusterApiError(`listScales: kind must be one of ${Object.keys(APPS_RESOURCES).join(', ')}, got ${JSON.stringify(kind)}`);
    const scales = new Map<string, ScaleInfo>();
    const target: RequestTarget = { verb: 'list', group: 'apps', resource, namespace };
    const path = `/apis/apps/v1/namespaces/${seg(namespace)}/${resource}`;
    let cont = '';
    do {
      const query: Record<string, string> = { limit: String(this.opts.scaleListPageSize ?? 500) };
      if (cont) query.continue = cont;
      const body = await this.request(target, { method: HttpMethod.GET, path, query }, signal);
      // an object whose selector does not convert is left out: its own GET /scale says why
      const page = this.decode(target, () => appsScalesOf(body, kind));
      for (const [name, scale] of page.scales) scales.set(name, scale);
      cont = page.continue;
    } while (cont);
    return scales;
  }

  async listPods(namespace: string, signal?: AbortSignal, labelSelector?: string): Promise<PodInfo[]> {
    const pods: PodInfo[] = [];
    const target: RequestTarget = { verb: 'list', group: '', resource: 'pods', namespace };
    const path = `/api/v1/namespaces/${seg(namespace)}/pods`;
    let cont = '';
    do {
      const query: Record<string, string> = { limit: String(this.opts.podPageSize ?? 500), ...(labelSelector ? { labelSelector } : {}) };
      if (cont) query.continue = cont;
      const body = await this.request(target, { method: HttpMethod.GET, path, query }, signal);
      const page = this.decode(target, () => podListOf(body));
      pods.push(...page.pods);
      cont = page.continue;
    } while (cont);
    return pods;
  }

  async listPodMetrics(namespace: string, signal?: AbortSignal, labelSelector?: string): Promise<PodMetric[]> {
    const target: RequestTarget = { verb: 'list', group: 'metrics.k8s.io', resource: 'pods', namespace };
    const body = await this.request(target, { method: HttpMethod.GET, path: `${METRICS}/namespaces/${seg(namespace)}/pods`, ...(labelSelector ? { query: { labelSelector } } : {}) }, signal);
    return this.decode(target, () => podMetricsOf(body));
  }

  async getPodsMetric(namespace: string, metric: MetricIdentifier, podSelector: string, signal?: AbortSignal): Promise<PodMetricSample[]> {
    const target: RequestTarget = { verb: 'get', group: 'custom.metrics.k8s.io', resource: 'pods', subresource: metric.name, namespace, name: '*' };
    const query: Record<string, string> = {};
    if (podSelector) query.labelSelector = podSelector;
    const metricSelector = metricSelectorString(metric);
    if (metricSelector) query.metricLabelSelector = metricSelector;
    const path = `${CUSTOM_METRICS}/namespaces/${seg(namespace)}/pods/*/${seg(metric.name)}`;
    const body = await this.request(target, { method: HttpMethod.GET, path, query }, signal);
    return this.decode(target, () => podMetricSamplesOf(body));
  }

  async getObjectMetric(namespace: string, describedObject: CrossVersionObjectReference, metric: MetricIdentifier, signal?: AbortSignal): Promise<MetricSample> {
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
    const body = await this.request(target, { method: HttpMethod.GET, path, query: metricSelector ? { metricLabelSelector: metricSelector } : {} }, signal);
    return this.decode(target, () => objectMetricSampleOf(body));
  }

  async getExternalMetric(namespace: string, metric: MetricIdentifier, signal?: AbortSignal): Promise<MetricSample[]> {
    const target: RequestTarget = { verb: 'list', group: 'external.metrics.k8s.io', resource: metric.name, namespace };
    const selector = metricSelectorString(metric);
    const path = `${EXTERNAL_METRICS}/namespaces/${seg(namespace)}/${seg(metric.name)}`;
    const body = await this.request(target, { method: HttpMethod.GET, path, query: selector ? { labelSelector: selector } : {} }, signal);
    return this.decode(target, () => externalMetricSamplesOf(body));
  }

  async listAutoscalerObjects(
    namespaces: string[] | undefined,
    signal?: AbortSignal,
  ): Promise<AutoscalerObjects> {
    const scopes = namespaces ?? [undefined];
    const list = (resource: string, kind: string) => Promise.all(scopes.map((ns) => this.listCustom(resource, kind, ns, signal))).then((l) => l.flat());
    // A cluster without one of the metric CRDs (an older install) answers 404: none of that kind (listCustom).
    const [autoscalers, ...metrics] = await Promise.all([list(AUTOSCALERS, 'ServerlessHorizontalPodAutoscaler'), ...METRIC_KINDS.map((k) => list(k.plural, k.kind))]);
    const objects: AutoscalerObjects = { autoscalers: autoscalers as unknown as KubernetesAutoscaler[], ...emptyMetricObjects() };
    METRIC_KINDS.forEach((k, i) => {
      for (const m of metrics[i]!) {
        const object = { apiVersion: 'shpa.dev/v1', kind: k.kind, metadata: m.metadata, spec: m.spec };
        addMetricObject(objects, object);
      }
    });
    return objects;
  }

  async autoscalerGeneration(namespace: string, name: string, signal?: AbortSignal): Promise<number | undefined> {
    const target: RequestTarget = { verb: 'get', group: SHPA_GROUP, resource: AUTOSCALERS, namespace, name };
    try {
      const body = await this.request(target, { method: HttpMethod.GET, path: `${SHPA}/namespaces/${seg(namespace)}/${AUTOSCALERS}/${seg(name)}` }, signal);
      const generation = (body as { metadata?: { generation?: unknown } }).metadata?.generation;
      return typeof generation === 'number' ? generation : 0;
    } catch (e) {
      if (e instanceof ClusterApiError && e.statusCode === 404) return undefined;
      throw e;
    }
  }

  async getLiveHpa(namespace: string, name: string, signal?: AbortSignal): Promise<LiveHpaStatus | undefined> {
    const target: RequestTarget = { verb: 'get', group: 'autoscaling', resource: 'horizontalpodautoscalers', namespace, name };
    try {
      const body = await this.request(target, { method: HttpMethod.GET, path: `/apis/autoscaling/v2/namespaces/${seg(namespace)}/horizontalpodautoscalers/${seg(name)}` }, signal);
      const st = (body as { status?: { desiredReplicas?: unknown; currentReplicas?: unknown; lastScaleTime?: unknown } }).status ?? {};
      const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
      return {
        desiredReplicas: count(st.desiredReplicas),
        currentReplicas: count(st.currentReplicas),
        ...(typeof st.lastScaleTime === 'string' ? { lastScaleTime: st.lastScaleTime } : {}),
      };
    } catch (e) {
      if (e instanceof ClusterApiError && e.statusCode === 404) return undefined;
      throw e;
    }
  }

  async writeAutoscalerStatus(namespace: string, name: string, status: KubernetesAutoscalerStatus, signal?: AbortSignal): Promise<void> {
    const target: RequestTarget = { verb: 'patch', group: SHPA_GROUP, resource: AUTOSCALERS, subresource: 'status', namespace, name };
    // A merge patch replaces lists whole and removes fields set to null: the status is exactly ours.
    const json = { status: { lastScaleTime: null, observedGeneration: null, currentMetrics: null, conditions: null, ...status } };
    const path = `${SHPA}/namespaces/${seg(namespace)}/${AUTOSCALERS}/${seg(name)}/status`;
    await this.request(target, { method: HttpMethod.PATCH, path, body: { json, contentType: 'application/merge-patch+json' } }, signal);
  }

  async recordEvent(involved: ObjectReference, entry: DecisionLogEntry, signal?: AbortSignal): Promise<void> {
    // One Event per distinct (type, reason, message), named deterministically so repeats patch it,
    // as client-go's EventCorrelator aggregates them (count, lastTimestamp).
    const hash = createHash('sha256').update(`${involved.uid}\0${entry.type}\0${entry.reason}\0${entry.message}`).digest('hex').slice(0, 16);
    const name = `${involved.name}.${hash}`;
    const ns = involved.namespace;
    const base = `/api/v1/namespaces/${seg(ns)}/events`;
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: ns },
      involvedObject: involved,
      type: entry.type,
      reason: entry.reason,
      message: entry.message,
      source: { component: EVENT_SOURCE },
      reportingComponent: EVENT_SOURCE,
      firstTimestamp: entry.firstTimestamp,
      lastTimestamp: entry.lastTimestamp,
      count: entry.count,
    };
    const create = () => this.request({ verb: 'create', group: '', resource: 'events', namespace: ns }, { method: HttpMethod.POST, path: base, body: { json: event, contentType: 'application/json' } }, signal);
    const patch = () =>
      this.request(
        { verb: 'patch', group: '', resource: 'events', namespace: ns, name },
        { method: HttpMethod.PATCH, path: `${base}/${seg(name)}`, body: { json: { count: entry.count, lastTimestamp: entry.lastTimestamp, message: entry.message }, contentType: 'application/merge-patch+json' } },
        signal,
      );
    try {
      await (entry.count > 1 ? patch() : create());
    } catch (e) {
      if (!(e instanceof ClusterApiError)) throw e;
      // Expired (events live an hour) or already there: the other verb does it.
      if (e.statusCode === 404) await create();
      else if (e.statusCode === 409) await patch();
      else throw e;
    }
  }

  // ---- internals ----

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

  private async readScale(namespace: string, name: string, t: ResourceRef, signal?: AbortSignal): Promise<ScaleInfo> {
    const target: RequestTarget = { verb: 'get', group: t.group, resource: t.resource, subresource: 'scale', namespace, name };
    const body = await this.request(target, { method: HttpMethod.GET, path: this.scalePath(namespace, name, t) }, signal);
    return this.decode(target, () => scaleInfoOf(body));
  }

  /** Every object of one of our kinds, in a namespace or all; none when the CRD is not installed. */
  private async listCustom(resource: string, kind: string, namespace: string | undefined, signal?: AbortSignal) {
    const target: RequestTarget = { verb: 'list', group: SHPA_GROUP, resource, namespace: namespace ?? '' };
    const path = namespace === undefined ? `${SHPA}/${resource}` : `${SHPA}/namespaces/${seg(namespace)}/${resource}`;
    const items: ReturnType<typeof customObjectsOf>['items'] = [];
    let cont = '';
    try {
      do {
        const query: Record<string, string> = { limit: '500' };
        if (cont) query.continue = cont;
        const body = await this.request(target, { method: HttpMethod.GET, path, query }, signal);
        const decoded = this.decode(target, () => customObjectsOf(body, kind));
        items.push(...decoded.items);
        cont = decoded.continue;
      } while (cont);
    } catch (e) {
      // The group is not served: the CRDs are not installed, so there are no such objects.
      if (e instanceof ClusterApiError && e.statusCode === 404 && items.length === 0) return [];
      throw e;
    }
    return items;
  }

  private request(target: RequestTarget, req: ApiRequest, signal?: AbortSignal): Promise<unknown> {
    return callWithPolicy(
      target,
      this.policy,
      { onUnauthorized: () => this.opts.tokens.invalidate(), sleep: this.opts.sleep, gate: this.gate },
      async (attempt) => send(await this.connect(), req, attempt),
      signal,
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
