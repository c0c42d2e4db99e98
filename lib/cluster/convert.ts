// Kubernetes objects (as @kubernetes/client-node or the raw JSON gives them)
// into the inputs lib/hpa reads.
import type { V1Pod, V1Scale } from '@kubernetes/client-node';
import type { MetricSample, PodInfo, PodMetric, PodMetricSample, ScaleInfo, Timestamp } from '../hpa/types.js';

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function toTimestamp(d: Date | string | undefined): Timestamp | undefined {
  if (d === undefined) return undefined;
  if (typeof d === 'string') return d;
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

export function podInfoOf(pod: V1Pod): PodInfo {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const info: PodInfo = {
    name: pod.metadata?.name ?? '',
    phase: pod.status?.phase ?? '',
    containers: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, requests: { ...(c.resources?.requests ?? {}) } })),
  };
  if (pod.metadata?.labels) info.labels = { ...pod.metadata.labels };
  if (ready) {
    info.ready = ready.status as PodInfo['ready'];
    const t = toTimestamp(ready.lastTransitionTime);
    if (t) info.readyTransitionTime = t;
  }
  const start = toTimestamp(pod.status?.startTime);
  if (start) info.startTime = start;
  const deletion = toTimestamp(pod.metadata?.deletionTimestamp);
  if (deletion) info.deletionTimestamp = deletion;
  return info;
}

export function scaleInfoOf(scale: V1Scale): ScaleInfo {
  return {
    specReplicas: scale.spec?.replicas ?? 0,
    statusReplicas: scale.status?.replicas ?? 0,
    selector: scale.status?.selector ?? '',
  };
}

// ---- raw JSON of the aggregated APIs ----

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a field path of an untrusted answer, naming the path when it has the wrong type. */
class Reader {
  constructor(readonly what: string) {}
  fail(path: string, expected: string): never {
    throw new Error(`${this.what}: ${path} is not ${expected}`);
  }
  obj(v: unknown, path: string): Json {
    return isObject(v) ? v : this.fail(path, 'an object');
  }
  arr(v: unknown, path: string): unknown[] {
    return Array.isArray(v) ? v : this.fail(path, 'a list');
  }
  str(v: unknown, path: string): string {
    return typeof v === 'string' ? v : this.fail(path, 'a string');
  }
  num(v: unknown, path: string): number {
    return typeof v === 'number' && Number.isFinite(v) ? v : this.fail(path, 'a number');
  }
  items(body: unknown, kind: string): Json[] {
    const list = this.obj(body, 'response');
    if (list.kind !== undefined && list.kind !== kind) this.fail('kind', `"${kind}" (got ${JSON.stringify(list.kind)})`);
    return this.arr(list.items ?? [], 'items').map((item, i) => this.obj(item, `items[${i}]`));
  }
}

/** Go's time.Duration text ("30s", "1m0.5s", "500ms") in seconds. */
export function parseGoDuration(s: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, ns: 1e-9 };
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(h|ms|m|s|us|µs|ns)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * units[m[2]];
    end = re.lastIndex;
  }
  if (s === '' || end !== s.length) throw new Error(`invalid duration "${s}"`);
  return total;
}

/** metrics.k8s.io/v1beta1 PodMetricsList. */
export function podMetricsOf(body: unknown): PodMetric[] {
  const r = new Reader('PodMetricsList');
  return r.items(body, 'PodMetricsList').map((item, i) => {
    const meta = r.obj(item.metadata, `items[${i}].metadata`);
    const window = item.window === undefined ? 0 : parseWindow(r, item.window, `items[${i}].window`);
    return {
      pod: r.str(meta.name, `items[${i}].metadata.name`),
      timestamp: r.str(item.timestamp, `items[${i}].timestamp`),
      windowSeconds: window,
      containers: r.arr(item.containers ?? [], `items[${i}].containers`).map((c, j) => {
        const path = `items[${i}].containers[${j}]`;
        const container = r.obj(c, path);
        const usage = r.obj(container.usage ?? {}, `${path}.usage`);
        return {
          name: r.str(container.name, `${path}.name`),
          usage: Object.fromEntries(Object.entries(usage).map(([k, v]) => [k, r.str(v, `${path}.usage.${k}`)])),
        };
      }),
    };
  });
}

function parseWindow(r: Reader, v: unknown, path: string): number {
  try {
    return parseGoDuration(r.str(v, path));
  } catch (e) {
    return r.fail(path, `a duration (${(e as Error).message})`);
  }
}

/** custom.metrics.k8s.io/v1beta2 MetricValueList, one sample per described pod. */
export function podMetricSamplesOf(body: unknown): PodMetricSample[] {
  const r = new Reader('MetricValueList');
  return r.items(body, 'MetricValueList').map((item, i) => ({
    pod: r.str(r.obj(item.describedObject, `items[${i}].describedObject`).name, `items[${i}].describedObject.name`),
    value: r.str(item.value, `items[${i}].value`),
    timestamp: r.str(item.timestamp, `items[${i}].timestamp`),
  }));
}

/** custom.metrics.k8s.io/v1beta2 MetricValueList for one object: exactly one item, as upstream's client insists. */
export function objectMetricSampleOf(body: unknown): MetricSample {
  const r = new Reader('MetricValueList');
  const items = r.items(body, 'MetricValueList');
  if (items.length !== 1) {
    throw new Error(`the custom metrics API server returned ${items.length} results when we asked for exactly one`);
  }
  return { value: r.str(items[0].value, 'items[0].value'), timestamp: r.str(items[0].timestamp, 'items[0].timestamp') };
}

/** external.metrics.k8s.io/v1beta1 ExternalMetricValueList. */
export function externalMetricSamplesOf(body: unknown): MetricSample[] {
  const r = new Reader('ExternalMetricValueList');
  return r.items(body, 'ExternalMetricValueList').map((item, i) => ({
    value: r.str(item.value, `items[${i}].value`),
    timestamp: r.str(item.timestamp, `items[${i}].timestamp`),
  }));
}

/** autoscaling/v1 Scale of a custom resource, as raw JSON. */
export function scaleInfoOfJson(body: unknown): ScaleInfo {
  const r = new Reader('Scale');
  const scale = r.obj(body, 'response');
  const spec = r.obj(scale.spec ?? {}, 'spec');
  const status = r.obj(scale.status ?? {}, 'status');
  return {
    specReplicas: spec.replicas === undefined ? 0 : r.num(spec.replicas, 'spec.replicas'),
    statusReplicas: status.replicas === undefined ? 0 : r.num(status.replicas, 'status.replicas'),
    selector: status.selector === undefined ? '' : r.str(status.selector, 'status.selector'),
  };
}

/** An APIResourceList: resource name → kind, namespaced (for discovery). */
export function apiResourcesOf(body: unknown): { name: string; kind: string; namespaced: boolean }[] {
  const r = new Reader('APIResourceList');
  const list = r.obj(body, 'response');
  return r.arr(list.resources ?? [], 'resources').map((res, i) => {
    const o = r.obj(res, `resources[${i}]`);
    return {
      name: r.str(o.name, `resources[${i}].name`),
      kind: r.str(o.kind, `resources[${i}].kind`),
      namespaced: o.namespaced === true,
    };
  });
}
