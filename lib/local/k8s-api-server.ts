// A local Kubernetes API server over HTTPS, serving a WorkloadModel with the
// real JSON shapes: discovery, /scale of any scalable kind, pods, and the
// metrics.k8s.io, custom.metrics.k8s.io and external.metrics.k8s.io APIs.
// Tests, benchmarks and the demo talk to it with @kubernetes/client-node.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { matchesLabels, parseSelector } from '../hpa/selector.js';
import { PendingTimers } from './pending-timers.js';
import { forbiddenMessage, requestAttributes, type RequestAttributes } from './k8s-rbac.js';
import { WorkloadModel, type ResourceType } from './workload-model.js';

export interface RequestRecord {
  method: string;
  /** pathname, without the query */
  path: string;
  query: Record<string, string>;
  contentType?: string;
  body?: unknown;
  status: number;
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
  /** never answer: the client has to time out */
  hang?: boolean;
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
  /** How many logged requests match. */
  count(method: string, path: string | RegExp): number;
  stop(): Promise<void>;
}

const reasons: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

function status(code: number, message: string, reason?: string, details?: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: reason ?? reasons[code] ?? 'Unknown', ...(details ? { details } : {}), code };
}

function qualified(t: ResourceType): string {
  return t.group ? `${t.resource}.${t.group}` : t.resource;
}

function notFound(t: { resource: string; group: string }, name: string): HttpError {
  return new HttpError(404, `${t.group ? `${t.resource}.${t.group}` : t.resource} "${name}" not found`, { name, group: t.group, kind: t.resource });
}

const NOT_FOUND = () => new HttpError(404, 'the server could not find the requested resource');

function selectorFilter(raw: string | undefined, what: string): (labels: Record<string, string> | undefined) => boolean {
  if (!raw) return () => true;
  let sel;
  try {
    sel = parseSelector(raw);
  } catch (e) {
    throw new HttpError(400, `unable to parse requirement: ${what}: ${(e as Error).message}`);
  }
  return (labels) => matchesLabels(sel, labels);
}

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

export async function startK8sApiServer(opts: K8sApiServerOptions = {}): Promise<K8sApiServer> {
  const model = opts.model ?? new WorkloadModel({ clock: { now: () => new Date() } });
  const staticToken = typeof opts.token === 'string' ? opts.token : `local-${Math.random().toString(36).slice(2)}`;
  const tokenOk = typeof opts.token === 'function' ? opts.token : (t: string) => t === staticToken;
  const apis = { metrics: true, customMetrics: true, externalMetrics: true, ...opts.apis };
  const user = opts.user ?? 'arn:aws:sts::000000000000:assumed-role/serverless-hpa/sync';
  const requestLog: RequestRecord[] = [];
  let faults: (Fault & { left: number })[] = [];
  const { caPem, key, cert } = await makeCertificates();

  const groups = (): { name: string; version: string }[] => {
    const out = new Map<string, string>();
    for (const t of model.resourceTypes()) if (t.group) out.set(t.group, t.version);
    if (apis.metrics) out.set('metrics.k8s.io', 'v1beta1');
    if (apis.customMetrics) out.set('custom.metrics.k8s.io', 'v1beta2');
    if (apis.externalMetrics) out.set('external.metrics.k8s.io', 'v1beta1');
    return [...out].map(([name, version]) => ({ name, version }));
  };

  const apiGroup = (g: { name: string; version: string }) => ({
    name: g.name,
    versions: [{ groupVersion: `${g.name}/${g.version}`, version: g.version }],
    preferredVersion: { groupVersion: `${g.name}/${g.version}`, version: g.version },
  });

  function resourceList(group: string, version: string) {
    const gv = group ? `${group}/${version}` : version;
    const resources: Record<string, unknown>[] = [];
    if (group === 'metrics.k8s.io') {
      resources.push({ name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] });
    } else {
      for (const t of model.resourceTypes().filter((r) => r.group === group && r.version === version)) {
        resources.push({ name: t.resource, singularName: t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'list', 'patch', 'update'] });
        if (t.scale) resources.push({ name: `${t.resource}/scale`, singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
      }
    }
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources };
  }

  function metricTimestamp(): string {
    return model.clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  function scaleType(a: RequestAttributes): ResourceType | undefined {
    if (a.subresource !== 'scale' || !a.name) return undefined;
    const t = model.typeByResource(a.apiGroup, a.apiVersion, a.resource);
    return t?.scale ? t : undefined;
  }

  function patchScale(t: ResourceType, a: RequestAttributes, contentType: string, body: unknown) {
    const current = model.scale(a.namespace, t, a.name);
    if (!current) throw notFound(t, a.name);
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
        `Operation cannot be fulfilled on ${qualified(t)} "${a.name}": the object has been modified; please apply your changes to the latest version and try again`,
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
    return model.scale(a.namespace, t, a.name);
  }

  function listPods(a: RequestAttributes, q: Record<string, string>) {
    const match = selectorFilter(q.labelSelector, 'labelSelector');
    const all = model.podObjects(a.namespace).filter((p) => match((p.metadata as { labels?: Record<string, string> }).labels));
    const limit = q.limit ? Number(q.limit) : 0;
    let offset = 0;
    if (q.continue) {
      offset = Number(Buffer.from(q.continue, 'base64url').toString('utf8'));
      if (!Number.isInteger(offset) || offset < 0) throw new HttpError(400, 'invalid continue token');
    }
    const items = limit > 0 ? all.slice(offset, offset + limit) : all.slice(offset);
    const next = offset + items.length;
    const metadata: Record<string, unknown> = { resourceVersion: String(Date.now()) };
    if (limit > 0 && next < all.length) {
      metadata.continue = Buffer.from(String(next), 'utf8').toString('base64url');
      metadata.remainingItemCount = all.length - next;
    }
    return { kind: 'PodList', apiVersion: 'v1', metadata, items };
  }

  function podMetrics(a: RequestAttributes, q: Record<string, string>) {
    const match = selectorFilter(q.labelSelector, 'labelSelector');
    const items = model.podMetrics(a.namespace).filter((m) => match((m.metadata as { labels?: Record<string, string> }).labels));
    if (a.name) {
      const one = items.find((m) => (m.metadata as { name: string }).name === a.name);
      if (!one) throw new HttpError(404, `podmetrics.metrics.k8s.io "${a.namespace}/${a.name}" not found`, { name: a.name, group: 'metrics.k8s.io', kind: 'pods' });
      return one;
    }
    return { kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items };
  }

  function customMetric(a: RequestAttributes, q: Record<string, string>) {
    if (!a.name || (!a.subresource && a.resource !== 'metrics')) throw NOT_FOUND();
    const metricMatch = selectorFilter(q.metricLabelSelector, 'metricLabelSelector');
    const timestamp = metricTimestamp();
    const metricOf = (name: string, labels?: Record<string, string>) => ({ name, ...(labels ? { selector: { matchLabels: labels } } : {}) });
    if (a.resource === 'pods' && a.name === '*') {
      const podMatch = selectorFilter(q.labelSelector, 'labelSelector');
      const values = model.podsMetricValues(a.namespace, a.subresource).filter((v) => podMatch(v.labels) && metricMatch(v.metricLabels));
      if (values.length === 0) throw new HttpError(404, `the server could not find the metric ${a.subresource} for pods`);
      return {
        kind: 'MetricValueList',
        apiVersion: 'custom.metrics.k8s.io/v1beta2',
        metadata: {},
        items: values.map((v) => ({
          describedObject: { kind: 'Pod', namespace: a.namespace, name: v.pod, apiVersion: '/v1' },
          metric: metricOf(a.subresource, v.metricLabels),
          timestamp,
          windowSeconds: 60,
          value: v.value,
        })),
      };
    }
    // namespaces/<ns>/metrics/<metric> describes the namespace itself
    const isNamespace = a.resource === 'metrics';
    const [resource, group = ''] = isNamespace ? ['namespaces', ''] : splitOnce(a.resource);
    const type = model.resourceTypes().find((t) => t.resource === resource && t.group === group);
    if (!type) throw new HttpError(404, `the server could not find the requested resource (${a.resource})`);
    const objectName = isNamespace ? a.namespace : a.name;
    const metric = isNamespace ? a.name : a.subresource;
    const values = model.objectMetricValues(isNamespace ? '' : a.namespace, type.kind, objectName, metric).filter((v) => metricMatch(v.metricLabels));
    if (values.length === 0) throw new HttpError(404, `the server could not find the metric ${metric} for ${qualified(type)} ${objectName}`);
    return {
      kind: 'MetricValueList',
      apiVersion: 'custom.metrics.k8s.io/v1beta2',
      metadata: {},
      items: values.map((v) => ({
        describedObject: { kind: type.kind, namespace: isNamespace ? '' : a.namespace, name: objectName, apiVersion: type.group ? `${type.group}/${type.version}` : `/${type.version}` },
        metric: metricOf(metric, v.metricLabels),
        timestamp,
        windowSeconds: 60,
        value: v.value,
      })),
    };
  }

  function externalMetric(a: RequestAttributes, q: Record<string, string>) {
    if (!a.resource || a.name) throw NOT_FOUND();
    const match = selectorFilter(q.labelSelector, 'labelSelector');
    const values = model.externalMetricValues(a.namespace, a.resource).filter((v) => match(v.metricLabels));
    if (values.length === 0 && model.externalMetricValues(a.namespace, a.resource).length === 0) {
      throw new HttpError(404, `the server could not find the requested resource (get ${a.resource}.external.metrics.k8s.io)`);
    }
    const timestamp = metricTimestamp();
    return {
      kind: 'ExternalMetricValueList',
      apiVersion: 'external.metrics.k8s.io/v1beta1',
      metadata: {},
      items: values.map((v) => ({ metricName: a.resource, metricLabels: v.metricLabels ?? {}, timestamp, value: v.value })),
    };
  }

  function route(method: string, path: string, a: RequestAttributes, q: Record<string, string>, contentType: string, body: unknown): unknown {
    if (!a.resourceRequest) {
      if (method !== 'GET') throw new HttpError(405, 'the server does not allow this method on the requested resource');
      if (path === '/version') return { major: '1', minor: '35', gitVersion: 'v1.35.0-shpa-local', platform: 'linux/amd64' };
      if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] };
      if (path === '/api/v1') return resourceList('', 'v1');
      if (path === '/apis') return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups().map(apiGroup) };
      const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
      const g = m && groups().find((x) => x.name === m[1] && (!m[2] || x.version === m[2]));
      if (g && m) return m[2] ? resourceList(g.name, g.version) : { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) };
      throw NOT_FOUND();
    }
    const group = groups().find((g) => g.name === a.apiGroup && g.version === a.apiVersion);
    if (a.apiGroup !== '' && !group) throw NOT_FOUND();
    if (a.apiGroup === '' && a.apiVersion !== 'v1') throw NOT_FOUND();
    if (a.apiGroup === 'metrics.k8s.io') {
      if (a.resource !== 'pods' || (a.verb !== 'list' && a.verb !== 'get')) throw NOT_FOUND();
      return podMetrics(a, q);
    }
    if (a.apiGroup === 'custom.metrics.k8s.io') {
      if (a.verb !== 'get' && a.verb !== 'list') throw new HttpError(405, 'the server does not allow this method on the requested resource');
      return customMetric(a, q);
    }
    if (a.apiGroup === 'external.metrics.k8s.io') {
      if (a.verb !== 'list') throw NOT_FOUND();
      return externalMetric(a, q);
    }
    if (a.apiGroup === '' && a.resource === 'pods' && a.verb === 'list' && a.namespace) return listPods(a, q);
    const t = scaleType(a);
    if (t) {
      if (a.verb === 'get') {
        const s = model.scale(a.namespace, t, a.name);
        if (!s) throw notFound(t, a.name);
        return s;
      }
      if (a.verb === 'patch') return patchScale(t, a, contentType, body);
      if (a.verb === 'update') {
        const current = model.scale(a.namespace, t, a.name);
        if (!current) throw notFound(t, a.name);
        const b = body as { spec?: { replicas?: unknown }; metadata?: { resourceVersion?: unknown } } | null;
        return writeScale(t, a, current, b?.spec?.replicas, b?.metadata?.resourceVersion);
      }
      throw new HttpError(405, 'the server does not allow this method on the requested resource');
    }
    const known = model.typeByResource(a.apiGroup, a.apiVersion, a.resource);
    if (known && a.name && a.subresource === '') throw notFound(known, a.name);
    throw NOT_FOUND();
  }

  function send(res: ServerResponse, code: number, payload: unknown, headers: Record<string, string> = {}) {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(payload));
  }

  const timers = new PendingTimers();

  const server = createServer({ key, cert }, (req, res) => {
    // Only reading the body can reject (the client went away): there is no one to answer.
    handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const query = Object.fromEntries(url.searchParams);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
    const raw = await readBody(req);
    let body: unknown;
    const record: RequestRecord = { method, path, query, contentType: contentType || undefined, status: 0 };
    requestLog.push(record);
    const reply = (code: number, payload: unknown, headers?: Record<string, string>) => {
      record.status = code;
      send(res, code, payload, headers);
    };
    try {
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          throw new HttpError(400, 'the request body is not valid JSON');
        }
        record.body = body;
      }
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !tokenOk(auth.slice('Bearer '.length))) {
        reply(401, status(401, 'Unauthorized'));
        return;
      }
      const fault = faults.find((f) => f.left > 0 && (!f.method || f.method === method) && (typeof f.path === 'string' ? f.path === path : f.path.test(path)));
      if (fault) {
        fault.left--;
        if (fault.latencyMs) await timers.delay(fault.latencyMs);
        if (fault.hang) {
          record.status = -1;
          return; // the socket stays open until the client gives up or the server stops
        }
        if (fault.status) {
          const headers: Record<string, string> = fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
          reply(fault.status, status(fault.status, fault.message ?? `injected fault on ${method} ${path}`, fault.reason), headers);
          return;
        }
      }
      const a = requestAttributes(method, path);
      if (opts.authorize && !opts.authorize(a)) {
        reply(403, status(403, forbiddenMessage(user, a), 'Forbidden', { name: a.name || undefined, group: a.apiGroup, kind: a.resource }));
        return;
      }
      reply(200, route(method, path, a, query, contentType, body));
    } catch (err) {
      if (err instanceof HttpError) reply(err.code, status(err.code, err.message, undefined, err.details));
      else reply(500, status(500, `Internal error occurred: ${(err as Error).message}`));
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
    requestLog,
    faults: faultInjector,
    count(method, path) {
      return requestLog.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path))).length;
    },
    stop() {
      timers.cancelAll();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function splitOnce(s: string): [string, string] {
  const i = s.indexOf('.');
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}
