// A local Kubernetes API server over HTTPS, serving a WorkloadModel with the
// real JSON shapes: discovery (legacy and aggregated), /scale of any scalable
// kind, Deployments/StatefulSets/ReplicaSets/Pods/Namespaces mirrored from the
// model, Events, autoscaling/v2 HorizontalPodAutoscalers (stored, not acted on), CustomResourceDefinitions and their custom resources (with
// watches, Tables, OpenAPI v3), and the metrics.k8s.io, custom.metrics.k8s.io
// and external.metrics.k8s.io APIs. Tests, benchmarks and the demo talk to it
// with @kubernetes/client-node; kubectl works against it too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { parse as parseYaml } from 'yaml';
import { SelectorError } from '#hpa';
import { compareVersions, CustomResourceRegistry } from './crds.js';
import { aggregatedList, AGGREGATED_V2, apiGroup, apiGroupList, apiVersions, resourceList, wantsAggregated, type DiscoveryGroup, type DiscoveryResource } from './discovery.js';
import { badRequest, HttpError, notFound, resourceNotFound, statusBody } from './errors.js';
import { eventSpec } from './events.js';
import { hpaSpec } from './hpas.js';
import { customMetric, externalMetric, podMetrics } from './metrics-apis.js';
import { ObjectStore, type K8sObject } from './object-store.js';
import { OpenApiV3 } from './openapi.js';
import { PendingTimers } from '../shared/pending-timers.js';
import { forbiddenMessage, requestAttributes, type RequestAttributes } from './rbac.js';
import { PATCH_APPLY, serveResource, type ResourceSpec, type RestReply, type WatchRequest } from './rest.js';
import type { IncludeObject, TableOptions } from './table.js';
import { scaleSubresource, WorkloadMirror } from './workload-mirror.js';
import { WorkloadModel, type ResourceType } from './workload-model.js';
import { errorText } from '../../shared/error-text.js';

export interface RequestRecord {
  method: string;
  /** pathname, without the query */
  path: string;
  query: Record<string, string>;
  contentType?: string;
  body?: unknown;
  status: number;
  /** The client's User-Agent: which controller wrote (kube-controller-manager's HPA stand-in, the sync, kubectl). */
  userAgent?: string;
  /** When the request came, on the system clock (ms). */
  at?: number;
}

export interface Fault {
  method?: string;
  /** pathname, exact or a pattern */
  path: string | RegExp;
  /** answer with this status (and a Status body) instead of serving */
  status?: number;
  reason?: string;
  message?: string;
  retryAfterSeconds?: number;
  /** delay before answering (or before the fault's status) */
  latencyMs?: number;
  /** wait for this before answering: requests held by it are served in the order they came */
  waitFor?: Promise<unknown>;
  /** never answer: the client has to time out */
  hang?: boolean;
  /** reset the connection: before serving the request ("request"), or after serving it, instead of its answer ("answer") */
  reset?: 'request' | 'answer';
  /** how many matching requests it affects; default: all */
  times?: number;
}

export interface FaultInjector {
  /** Returns a function that removes it. */
  add(f: Fault): () => void;
  /** The next `times` PATCH/PUT requests on a path answer 409 Conflict. */
  conflict(path: string | RegExp, times?: number): () => void;
  clear(): void;
}

export interface K8sApiServerOptions {
  /** The workload model to serve; default: a new one on the system clock. */
  model?: WorkloadModel;
  /** The bearer token clients must send, or a check of it; default: a random static token. */
  token?: string | ((token: string) => boolean);
  /** RBAC: which requests the caller may make (see rulesAuthorizer). Default: all. */
  authorize?: (a: RequestAttributes) => boolean;
  /** Which aggregated metrics APIs are registered; default: all three. */
  apis?: { metrics?: boolean; customMetrics?: boolean; externalMetrics?: boolean };
  /** The user name in 403 messages. */
  user?: string;
  /** apiextensions.k8s.io/v1 CustomResourceDefinitions installed at start (as YAML parses them). */
  crds?: unknown[];
}

export interface K8sApiServer {
  url: string;
  /** CA certificate, PEM */
  caPem: string;
  /** CA certificate as kubeconfig and EKS give it: base64 of the PEM */
  caData: string;
  /** the static token (when the option was a string or absent) */
  token: string;
  model: WorkloadModel;
  requestLog: RequestRecord[];
  faults: FaultInjector;
  /** Custom resources, events, CRDs and the mirrored workloads, with their resourceVersions. */
  store: ObjectStore;
  /** How many logged requests match. */
  count(method: string, path: string | RegExp): number;
  /** The server dies: every connection is dropped and new ones are refused, until restart(). The model and objects survive, as etcd would. */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** What a handler answers: a body (JSON unless `raw`), or a watch to stream. */
interface Reply {
  status: number;
  body: unknown;
  contentType?: string;
  warnings?: string[];
  /** an already serialized body */
  raw?: string;
}

const ok = (body: unknown): Reply => ({ status: 200, body });

async function makeCertificates(): Promise<{ caPem: string; key: string; cert: string }> {
  const notAfterDate = new Date(Date.now() + 7 * 24 * 3600_000);
  const ca = await generate([{ name: 'commonName', value: 'serverless-hpa local CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    curve: 'P-256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'kube-apiserver' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    curve: 'P-256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  return { caPem: ca.cert, key: server.private, cert: server.cert };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The Table a request's Accept header asks for, if it prefers one to plain JSON (kubectl get). */
function tableOptions(accept: string | undefined, query: Record<string, string>): TableOptions | undefined {
  for (const range of (accept ?? '').split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim());
    const p = Object.fromEntries(params.map((x) => x.split('=').map((y) => y.trim())));
    if (type === 'application/json' && p.as === 'Table' && p.g === 'meta.k8s.io' && (p.v === 'v1' || p.v === 'v1beta1')) {
      const include = query.includeObject;
      if (include !== undefined && include !== 'None' && include !== 'Metadata' && include !== 'Object') throw badRequest(`includeObject: Unsupported value: "${include}"`);
      return { version: p.v, includeObject: (include ?? 'Metadata') as IncludeObject };
    }
    if ((type === 'application/json' || type === '*/*') && !p.as) return undefined;
  }
  return undefined;
}

/** A Warning header value (RFC 7234): code 299, no agent, the text quoted. */
function warningHeader(text: string): string {
  return `299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** How often open watches on mirrored resources look at the model for changes. */
const MIRROR_WATCH_INTERVAL_MS = 200;
/** kube-apiserver's default --min-request-timeout for watches without timeoutSeconds. */
const DEFAULT_WATCH_SECONDS = 1800;

export async function startK8sApiServer(opts: K8sApiServerOptions = {}): Promise<K8sApiServer> {
  const model = opts.model ?? new WorkloadModel({ clock: { now: () => new Date() } });
  const staticToken = typeof opts.token === 'string' ? opts.token : `local-${Math.random().toString(36).slice(2)}`;
  const tokenOk = typeof opts.token === 'function' ? opts.token : (t: string) => t === staticToken;
  const apis = { metrics: true, customMetrics: true, externalMetrics: true, ...opts.apis };
  const user = opts.user ?? 'arn:aws:sts::000000000000:assumed-role/serverless-hpa/sync';
  const requestLog: RequestRecord[] = [];
  let faults: (Fault & { left: number })[] = [];
  const { caPem, key, cert } = await makeCertificates();

  const store = new ObjectStore();
  const mirror = new WorkloadMirror(model, store);
  const crds = new CustomResourceRegistry(store, () => model.clock.now());
  const builtIn = new Map<string, ResourceSpec>([...mirror.specs, eventSpec(), hpaSpec(), crds.crdSpec].map((s) => [`${s.group}/${s.version}/${s.resource}`, s]));
  const openapi = new OpenApiV3();

  const findSpec = (group: string, version: string, resource: string): ResourceSpec | undefined =>
    builtIn.get(`${group}/${version}/${resource}`) ?? crds.find(group, version, resource);
  const servedSpecs = (): ResourceSpec[] => [...builtIn.values(), ...crds.specs()];
  const schemaOf = (spec: ResourceSpec) => crds.schemaOf(spec);

  const fromSpec = (spec: ResourceSpec, extra: DiscoveryResource['subresources'] = []): DiscoveryResource => ({
    name: spec.resource,
    singularName: spec.singular,
    namespaced: spec.namespaced,
    kind: spec.kind,
    verbs: spec.verbs,
    shortNames: spec.shortNames,
    categories: spec.categories,
    subresources: [...spec.subresources, ...extra.filter((e) => !spec.subresources.some((s) => s.name === e.name))],
  });

  let cached: { stamp: string; groups: DiscoveryGroup[] } | undefined;
  /** Every group, version and resource served, built-in groups first (their discovery order); rebuilt when a CRD or a model kind is added. */
  function catalogue(): DiscoveryGroup[] {
    const stamp = `${crds.generation}/${model.resourceTypes().length}`;
    if (cached?.stamp !== stamp) cached = { stamp, groups: buildCatalogue() };
    return cached.groups;
  }

  function buildCatalogue(): DiscoveryGroup[] {
    const groups = new Map<string, Map<string, DiscoveryResource[]>>();
    const add = (group: string, version: string, r?: DiscoveryResource) => {
      const versions = groups.get(group) ?? new Map<string, DiscoveryResource[]>();
      groups.set(group, versions);
      const list = versions.get(version) ?? [];
      versions.set(version, list);
      if (r && !list.some((x) => x.name === r.name)) list.push(r);
    };
    for (const t of model.resourceTypes()) {
      const spec = builtIn.get(`${t.group}/${t.version}/${t.resource}`);
      const subresources = t.scale ? [scaleSubresource] : [];
      add(
        t.group,
        t.version,
        spec
          ? fromSpec(spec, subresources)
          : { name: t.resource, singularName: t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'list', 'patch', 'update'], subresources },
      );
    }
    for (const spec of [...builtIn.values(), ...crds.specs()]) add(spec.group, spec.version, fromSpec(spec));
    if (apis.metrics) add('metrics.k8s.io', 'v1beta1', { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'], subresources: [] });
    if (apis.customMetrics) add('custom.metrics.k8s.io', 'v1beta2');
    if (apis.externalMetrics) add('external.metrics.k8s.io', 'v1beta1');
    // a group's versions by priority: the first is the preferred one
    return [...groups].map(([name, versions]) => ({
      name,
      versions: [...versions].sort(([a], [b]) => compareVersions(a, b)).map(([version, resources]) => ({ version, resources })),
    }));
  }

  const findGroup = (name: string) => catalogue().find((g) => g.name === name);

  function discovery(path: string, accept: string | undefined): Reply {
    const aggregated = wantsAggregated(accept);
    const all = catalogue();
    if (path === '/api') return aggregated ? { status: 200, body: aggregatedList(all.filter((g) => g.name === '')), contentType: AGGREGATED_V2 } : ok(apiVersions());
    if (path === '/apis') return aggregated ? { status: 200, body: aggregatedList(all.filter((g) => g.name !== '')), contentType: AGGREGATED_V2 } : ok(apiGroupList(all));
    if (path === '/api/v1') return ok(resourceList('', 'v1', all.find((g) => g.name === '')?.versions[0].resources ?? []));
    const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    const g = m ? all.find((x) => x.name === m[1]) : undefined;
    if (!m || !g) throw resourceNotFound();
    if (!m[2]) return ok(apiGroup(g));
    const v = g.versions.find((x) => x.version === m[2]);
    if (!v) throw resourceNotFound();
    return ok(resourceList(g.name, v.version, v.resources));
  }

  function scaleType(a: RequestAttributes): ResourceType | undefined {
    if (a.subresource !== 'scale' || !a.name) return undefined;
    const t = model.typeByResource(a.apiGroup, a.apiVersion, a.resource);
    return t?.scale ? t : undefined;
  }

  /** A workload's Scale: made from its apps/v1 object when it has one (so it shares the object's resourceVersion), else from the model. */
  function currentScale(t: ResourceType, a: RequestAttributes): Record<string, unknown> {
    let s: Record<string, unknown> | null | undefined;
    try {
      s = mirror.scaleOf(t, a.namespace, a.name) ?? model.scale(a.namespace, t, a.name);
    } catch (e) {
      // upstream's scale GET and update answer a selector that does not convert with BadRequest
      if (e instanceof SelectorError) throw badRequest(e.message);
      throw e;
    }
    if (!s) throw notFound(t, a.name);
    return s;
  }

  function patchScale(t: ResourceType, a: RequestAttributes, contentType: string, body: unknown) {
    const current = currentScale(t, a);
    let replicas: unknown = (current.spec as { replicas: number }).replicas;
    let resourceVersion: unknown;
    if (contentType === 'application/merge-patch+json' || contentType === 'application/strategic-merge-patch+json') {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'the patch is not a JSON object');
      const b = body as { spec?: { replicas?: unknown }; metadata?: { resourceVersion?: unknown } };
      if (b.spec?.replicas !== undefined) replicas = b.spec.replicas;
      resourceVersion = b.metadata?.resourceVersion;
    } else if (contentType === 'application/json-patch+json') {
      if (!Array.isArray(body)) throw new HttpError(400, 'the JSON patch is not a list of operations');
      for (const op of body as { op?: string; path?: string; value?: unknown }[]) {
        if ((op.op === 'replace' || op.op === 'add') && op.path === '/spec/replicas') replicas = op.value;
        else if (op.op !== 'test') throw new HttpError(422, `unsupported JSON patch operation ${op.op} ${op.path}`);
      }
    } else {
      throw new HttpError(
        415,
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
      );
    }
    return writeScale(t, a, current, replicas, resourceVersion);
  }

  function writeScale(t: ResourceType, a: RequestAttributes, current: Record<string, unknown>, replicas: unknown, resourceVersion: unknown) {
    const meta = current.metadata as { resourceVersion: string };
    if (resourceVersion !== undefined && resourceVersion !== meta.resourceVersion) {
      throw new HttpError(
        409,
        `Operation cannot be fulfilled on ${t.group ? `${t.resource}.${t.group}` : t.resource} "${a.name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name: a.name, group: t.group, kind: t.resource },
      );
    }
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw new HttpError(422, `Scale.autoscaling "${a.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, {
        name: a.name,
        group: 'autoscaling',
        kind: 'Scale',
      });
    }
    model.setReplicas(a.namespace, t, a.name, replicas);
    mirror.written(a.namespace);
    return currentScale(t, a);
  }

  function route(method: string, path: string, a: RequestAttributes, q: Record<string, string>, req: IncomingMessage, contentType: string, body: unknown): Reply | { watch: WatchRequest } {
    if (!a.resourceRequest) {
      if (method !== 'GET') throw new HttpError(405, 'the server does not allow this method on the requested resource');
      if (path === '/version') return ok({ major: '1', minor: '35', gitVersion: 'v1.35.0-shpa-local', platform: 'linux/amd64' });
      if (path === '/openapi/v3') return ok(openapi.index(crds.generation, servedSpecs(), schemaOf));
      if (path.startsWith('/openapi/v3/')) {
        const doc = openapi.document(crds.generation, servedSpecs(), schemaOf, path.slice('/openapi/v3/'.length));
        if (doc === undefined) throw resourceNotFound();
        return { status: 200, body: undefined, raw: doc };
      }
      return discovery(path, req.headers.accept);
    }
    const group = findGroup(a.apiGroup);
    if (!group?.versions.some((v) => v.version === a.apiVersion)) throw resourceNotFound();
    if (a.apiGroup === 'metrics.k8s.io') {
      if (a.resource !== 'pods' || (a.verb !== 'list' && a.verb !== 'get')) throw resourceNotFound();
      return ok(podMetrics(model, a, q));
    }
    if (a.apiGroup === 'custom.metrics.k8s.io') {
      if (a.verb !== 'get' && a.verb !== 'list') throw new HttpError(405, 'the server does not allow this method on the requested resource');
      return ok(customMetric(model, a, q));
    }
    if (a.apiGroup === 'external.metrics.k8s.io') {
      if (a.verb !== 'list') throw resourceNotFound();
      return ok(externalMetric(model, a, q));
    }
    const t = scaleType(a);
    if (t) {
      if (a.verb === 'get') return ok(currentScale(t, a));
      if (a.verb === 'patch') return ok(patchScale(t, a, contentType, body));
      if (a.verb === 'update') {
        const current = currentScale(t, a);
        const b = body as { spec?: { replicas?: unknown }; metadata?: { resourceVersion?: unknown } } | null;
        return ok(writeScale(t, a, current, b?.spec?.replicas, b?.metadata?.resourceVersion));
      }
      throw new HttpError(405, 'the server does not allow this method on the requested resource');
    }
    const spec = findSpec(a.apiGroup, a.apiVersion, a.resource);
    // a namespaced kind is addressed in a namespace (but listed across them); a cluster-scoped one never is
    if (spec && (spec.namespaced ? a.namespace || !a.name : !a.namespace)) {
      const reply = serveResource(store, spec, {
        verb: a.verb,
        namespace: a.namespace,
        name: a.name,
        subresource: a.subresource,
        query: q,
        contentType,
        body,
        table: tableOptions(req.headers.accept, q),
        clock: () => model.clock.now(),
      });
      if ('watch' in reply) return reply;
      if (spec.namespaced && reply.status < 300 && !mirror.isMirrored(spec.key)) mirror.touchNamespace(a.namespace);
      return restReply(reply, req.headers.accept, q);
    }
    const known = model.typeByResource(a.apiGroup, a.apiVersion, a.resource);
    if (known && a.name && a.subresource === '') throw notFound(known, a.name);
    throw resourceNotFound();
  }

  function restReply(r: RestReply, accept: string | undefined, q: Record<string, string>): Reply {
    const table = (r.body as { kind?: string } | undefined)?.kind === 'Table' ? tableOptions(accept, q) : undefined;
    return { status: r.status, body: r.body, warnings: r.warnings, contentType: table ? `application/json;as=Table;v=${table.version ?? 'v1'};g=meta.k8s.io` : undefined };
  }

  function send(res: ServerResponse, r: Reply, headers: Record<string, string> = {}) {
    const h: Record<string, string | string[]> = { 'content-type': r.contentType ?? 'application/json', ...headers };
    if (r.warnings?.length) h.warning = r.warnings.map(warningHeader);
    res.writeHead(r.status, h);
    res.end(r.raw ?? JSON.stringify(r.body));
  }

  const timers = new PendingTimers();
  const openWatches = new Set<() => void>();
  let mirroredWatches = 0;
  let mirrorTimer: NodeJS.Timeout | undefined;

  /** Streams watch events, one JSON object a line, until timeoutSeconds, the client leaving, or the server stopping. */
  function streamWatch(res: ServerResponse, w: WatchRequest, record: RequestRecord) {
    const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;
    // the current objects come while the watch starts: held until the headers are out
    const pending: string[] = [];
    let started = false;
    let first = true;
    let timeout: NodeJS.Timeout | undefined;
    let stop: (() => void) | undefined;
    let ended = false;
    const mirrored = mirror.isMirrored(w.key);
    const end = () => {
      if (ended) return;
      ended = true;
      stop?.();
      clearTimeout(timeout);
      openWatches.delete(end);
      if (mirrored && --mirroredWatches === 0) {
        clearInterval(mirrorTimer);
        mirrorTimer = undefined;
      }
      res.end();
    };
    try {
      stop = store.watch(
        w.key,
        { namespace: w.namespace, match: w.match, resourceVersion: w.resourceVersion },
        (type, o: K8sObject) => {
          const text = line(type, w.encode(type, o, first));
          first = false;
          if (started) res.write(text);
          else pending.push(text);
        },
        end,
      );
    } catch (e) {
      // the watch cache answers a too old resourceVersion with an ERROR event, not an HTTP error
      if (!(e instanceof HttpError) || e.code !== 410) throw e;
      record.status = 200;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(line('ERROR', e.body));
      return;
    }
    record.status = 200;
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders(); // the client's watch is established before any event
    started = true;
    for (const text of pending) res.write(text);
    openWatches.add(end);
    if (mirrored && mirroredWatches++ === 0) mirrorTimer = setInterval(() => mirror.sync(), MIRROR_WATCH_INTERVAL_MS);
    timeout = setTimeout(end, (w.timeoutSeconds ?? DEFAULT_WATCH_SECONDS) * 1000);
    res.on('close', end);
  }

  const server = createServer({ key, cert }, (req, res) => {
    // Only reading the body can reject (the client went away): there is no one to answer.
    handle(req, res).catch(() => res.destroy());
  });

  function parseBody(raw: string, contentType: string): unknown {
    if (contentType === PATCH_APPLY) {
      try {
        return parseYaml(raw) as unknown;
      } catch (e) {
        throw new HttpError(400, `error decoding YAML: ${errorText(e)}`);
      }
    }
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new HttpError(400, 'the request body is not valid JSON');
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const query = Object.fromEntries(url.searchParams);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
    const raw = await readBody(req);
    let body: unknown;
    const record: RequestRecord = { method, path, query, contentType: contentType || undefined, status: 0, userAgent: req.headers['user-agent'], at: Date.now() };
    requestLog.push(record);
    const reply = (r: Reply, headers?: Record<string, string>) => {
      record.status = r.status;
      send(res, r, headers);
    };
    const fail = (code: number, b: Record<string, unknown>, headers?: Record<string, string>) => reply({ status: code, body: b }, headers);
    try {
      if (raw) {
        body = parseBody(raw, contentType);
        record.body = body;
      }
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !tokenOk(auth.slice('Bearer '.length))) {
        fail(401, statusBody(401, 'Unauthorized'));
        return;
      }
      const fault = faults.find((f) => f.left > 0 && (!f.method || f.method === method) && (typeof f.path === 'string' ? f.path === path : f.path.test(path)));
      if (fault) {
        fault.left--;
        if (fault.latencyMs) await timers.delay(fault.latencyMs);
        if (fault.waitFor) await fault.waitFor;
        if (fault.hang || fault.reset === 'request') {
          record.status = -1;
          if (fault.reset) req.socket.destroy();
          return; // a hung socket stays open until the client gives up or the server stops
        }
        if (fault.status) {
          const headers: Record<string, string> = fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
          fail(fault.status, statusBody(fault.status, fault.message ?? `injected fault on ${method} ${path}`, fault.reason), headers);
          return;
        }
      }
      const a = requestAttributes(method, path);
      // RequestInfoFactory: a list with watch=true is a watch; a DELETE without a name deletes a collection
      if (a.resourceRequest && a.verb === 'list' && (query.watch === 'true' || query.watch === '1')) a.verb = 'watch';
      if (a.resourceRequest && a.verb === 'delete' && !a.name) a.verb = 'deletecollection';
      if (opts.authorize && !opts.authorize(a)) {
        fail(403, statusBody(403, forbiddenMessage(user, a), 'Forbidden', { name: a.name || undefined, group: a.apiGroup, kind: a.resource }));
        return;
      }
      const r = route(method, path, a, query, req, contentType, body);
      if ('watch' in r) streamWatch(res, r.watch, record);
      else if (fault?.reset === 'answer') {
        // served, but the answer is lost
        record.status = r.status;
        req.socket.destroy();
      } else reply(r);
    } catch (err) {
      if (err instanceof HttpError) fail(err.code, err.body);
      else fail(500, statusBody(500, `Internal error occurred: ${(err as Error).message}`));
    }
  }

  for (const [i, crd] of (opts.crds ?? []).entries()) {
    const name = (crd as { metadata?: { name?: unknown } } | null)?.metadata?.name;
    try {
      serveResource(store, crds.crdSpec, { verb: 'create', namespace: '', name: '', subresource: '', query: {}, contentType: 'application/json', body: crd, clock: () => model.clock.now() });
    } catch (e) {
      throw new Error(`crds[${i}]${typeof name === 'string' ? ` (${name})` : ''}: ${errorText(e)}`);
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const faultInjector: FaultInjector = {
    add(f) {
      const entry = { ...f, left: f.times ?? Number.POSITIVE_INFINITY };
      faults.push(entry);
      return () => {
        faults = faults.filter((x) => x !== entry);
      };
    },
    conflict(path, times = 1) {
      return faultInjector.add({ method: 'PATCH', path, status: 409, reason: 'Conflict', times, message: `Operation cannot be fulfilled on ${path}: the object has been modified; please apply your changes to the latest version and try again` });
    },
    clear() {
      faults = [];
    },
  };

  return {
    url: `https://127.0.0.1:${port}`,
    caPem,
    caData: Buffer.from(caPem, 'utf8').toString('base64'),
    token: staticToken,
    model,
    store,
    requestLog,
    faults: faultInjector,
    count(method, path) {
      return requestLog.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path))).length;
    },
    kill() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    restart() {
      return new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    stop() {
      timers.cancelAll();
      for (const end of [...openWatches]) end();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
