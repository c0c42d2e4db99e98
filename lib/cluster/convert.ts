// Kubernetes API answers (raw JSON, untrusted) into the inputs lib/hpa reads.
// Every field is checked; a wrong one is named by its path.
import {
  fromLabelSelector,
  type LabelSelector,
  type LabelSelectorRequirement,
  type MetricSample,
  type PodInfo,
  type PodMetric,
  type PodMetricSample,
  type ScaleInfo,
  SelectorError,
  selectorToString,
} from '#hpa';
import { errorText } from '../shared/error-text.js';

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
  optStr(v: unknown, path: string): string | undefined {
    return v === undefined || v === null ? undefined : this.str(v, path);
  }
  /** A map of strings (labels, resource requests). */
  strings(v: unknown, path: string): Record<string, string> {
    return Object.fromEntries(Object.entries(this.obj(v, path)).map(([k, x]) => [k, this.str(x, `${path}.${k}`)]));
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
        const usage = container.usage ?? {};
        return {
          name: r.str(container.name, `${path}.name`),
          usage: r.strings(usage, `${path}.usage`),
        };
      }),
    };
  });
}

function parseWindow(r: Reader, v: unknown, path: string): number {
  try {
    return parseGoDuration(r.str(v, path));
  } catch (e) {
    return r.fail(path, `a duration (${errorText(e)})`);
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

/** autoscaling/v1 Scale. */
export function scaleInfoOf(body: unknown): ScaleInfo {
  const r = new Reader('Scale');
  const scale = r.obj(body, 'response');
  const spec = r.obj(scale.spec ?? {}, 'spec');
  const status = r.obj(scale.status ?? {}, 'status');
  const meta = r.obj(scale.metadata ?? {}, 'metadata');
  const info: ScaleInfo = {
    specReplicas: spec.replicas === undefined ? 0 : r.num(spec.replicas, 'spec.replicas'),
    statusReplicas: status.replicas === undefined ? 0 : r.num(status.replicas, 'status.replicas'),
    selector: status.selector === undefined ? '' : r.str(status.selector, 'status.selector'),
  };
  const rv = r.optStr(meta.resourceVersion, 'metadata.resourceVersion');
  if (rv) info.resourceVersion = rv;
  return info;
}

/**
 * One page of an apps/v1 DeploymentList, StatefulSetList or ReplicaSetList as the Scale the
 * /scale subresource of each object gives, by name, and the token of the next page ("" on the
 * last). An object whose selector upstream cannot convert has no scale (its GET /scale is a
 * 400): it is in `unconvertible`, with the reason, and the page goes on.
 */
export function appsScalesOf(body: unknown, kind: string): { scales: Map<string, ScaleInfo>; unconvertible: Map<string, string>; continue: string } {
  const r = new Reader(`${kind}List`);
  const scales = new Map<string, ScaleInfo>();
  const unconvertible = new Map<string, string>();
  r.items(body, `${kind}List`).forEach((item, i) => {
    const name = r.str(r.obj(item.metadata, `items[${i}].metadata`).name, `items[${i}].metadata.name`);
    const scale = scaleFromObject(r, item, `items[${i}]`);
    if (scale instanceof SelectorError) unconvertible.set(name, scale.message);
    else scales.set(name, scale);
  });
  const meta = r.obj(r.obj(body, 'response').metadata ?? {}, 'metadata');
  return { scales, unconvertible, continue: r.optStr(meta.continue, 'metadata.continue') ?? '' };
}

/**
 * The Scale upstream's scaleFromDeployment, scaleFromStatefulSet and scaleFromReplicaSet make of
 * an object (pkg/registry/apps/{deployment,statefulset,replicaset}/storage/storage.go,
 * release-1.35): the scale's resourceVersion is the object's, so a PATCH of /scale made with it
 * conflicts with any change to the object since. The SelectorError when the selector does not convert.
 */
function scaleFromObject(r: Reader, o: Json, at: string): ScaleInfo | SelectorError {
  const meta = r.obj(o.metadata, `${at}.metadata`);
  const spec = r.obj(o.spec ?? {}, `${at}.spec`);
  const status = r.obj(o.status ?? {}, `${at}.status`);
  const ls = labelSelectorAt(r, spec.selector, `${at}.spec.selector`);
  let selector: string;
  try {
    selector = selectorToString(fromLabelSelector(ls));
  } catch (e) {
    if (e instanceof SelectorError) return e;
    throw e;
  }
  const info: ScaleInfo = {
    // the API server defaults a missing spec.replicas to 1 before it makes the scale (SetDefaults_Deployment and its twins, pkg/apis/apps/v1/defaults.go)
    specReplicas: spec.replicas === undefined || spec.replicas === null ? 1 : r.num(spec.replicas, `${at}.spec.replicas`),
    statusReplicas: status.replicas === undefined || status.replicas === null ? 0 : r.num(status.replicas, `${at}.status.replicas`),
    selector,
  };
  const rv = r.optStr(meta.resourceVersion, `${at}.metadata.resourceVersion`);
  if (rv) info.resourceVersion = rv;
  return info;
}

/** A metav1.LabelSelector of an answer, its shape checked (what it may select is LabelSelectorAsSelector's to judge); absent or null is nil. */
function labelSelectorAt(r: Reader, v: unknown, path: string): LabelSelector | undefined {
  if (v === undefined || v === null) return undefined;
  const o = r.obj(v, path);
  const ls: LabelSelector = {};
  if (o.matchLabels !== undefined && o.matchLabels !== null) ls.matchLabels = r.strings(o.matchLabels, `${path}.matchLabels`);
  if (o.matchExpressions !== undefined && o.matchExpressions !== null) {
    ls.matchExpressions = r.arr(o.matchExpressions, `${path}.matchExpressions`).map((x, i) => {
      const at = `${path}.matchExpressions[${i}]`;
      const e = r.obj(x, at);
      const req: LabelSelectorRequirement = { key: r.str(e.key, `${at}.key`), operator: r.str(e.operator, `${at}.operator`) as LabelSelectorRequirement['operator'] };
      if (e.values !== undefined && e.values !== null) req.values = r.arr(e.values, `${at}.values`).map((value, j) => r.str(value, `${at}.values[${j}]`));
      return req;
    });
  }
  return ls;
}

/** A list of custom resources (our autoscalers, CloudWatchMetric objects): items with metadata, spec and status, unchecked beyond that. */
export function customObjectsOf(body: unknown, kind: string): { items: { metadata: Json; spec: unknown; status?: unknown }[]; continue: string } {
  const r = new Reader(`${kind}List`);
  const list = r.obj(body, 'response');
  const items = r.arr(list.items ?? [], 'items').map((item, i) => {
    const o = r.obj(item, `items[${i}]`);
    const metadata = r.obj(o.metadata, `items[${i}].metadata`);
    r.str(metadata.name, `items[${i}].metadata.name`);
    r.str(metadata.namespace, `items[${i}].metadata.namespace`);
    r.str(metadata.uid, `items[${i}].metadata.uid`);
    return { metadata, spec: o.spec, ...(o.status !== undefined ? { status: o.status } : {}) };
  });
  const meta = r.obj(list.metadata ?? {}, 'metadata');
  return { items, continue: r.optStr(meta.continue, 'metadata.continue') ?? '' };
}

/** An APIResourceList: resource name → kind (for discovery). */
export function apiResourcesOf(body: unknown): { name: string; kind: string }[] {
  const r = new Reader('APIResourceList');
  const list = r.obj(body, 'response');
  return r.arr(list.resources ?? [], 'resources').map((res, i) => {
    const o = r.obj(res, `resources[${i}]`);
    return {
      name: r.str(o.name, `resources[${i}].name`),
      kind: r.str(o.kind, `resources[${i}].kind`),
    };
  });
}

/** One page of a core/v1 PodList, and the token of the next page ("" on the last). */
export function podListOf(body: unknown): { pods: PodInfo[]; continue: string } {
  const r = new Reader('PodList');
  const pods = r.items(body, 'PodList').map((item, i) => podInfoOf(r, item, `items[${i}]`));
  const meta = r.obj(r.obj(body, 'response').metadata ?? {}, 'metadata');
  return { pods, continue: r.optStr(meta.continue, 'metadata.continue') ?? '' };
}

function podInfoOf(r: Reader, pod: Json, at: string): PodInfo {
  const meta = r.obj(pod.metadata ?? {}, `${at}.metadata`);
  const spec = r.obj(pod.spec ?? {}, `${at}.spec`);
  const status = r.obj(pod.status ?? {}, `${at}.status`);
  const info: PodInfo = {
    name: r.optStr(meta.name, `${at}.metadata.name`) ?? '',
    phase: r.optStr(status.phase, `${at}.status.phase`) ?? '',
    containers: r.arr(spec.containers ?? [], `${at}.spec.containers`).map((c, j) => {
      const path = `${at}.spec.containers[${j}]`;
      const container = r.obj(c, path);
      const resources = r.obj(container.resources ?? {}, `${path}.resources`);
      return { name: r.str(container.name, `${path}.name`), requests: r.strings(resources.requests ?? {}, `${path}.resources.requests`) };
    }),
  };
  if (meta.labels !== undefined && meta.labels !== null) info.labels = r.strings(meta.labels, `${at}.metadata.labels`);
  const conditions = r.arr(status.conditions ?? [], `${at}.status.conditions`).map((c, j) => r.obj(c, `${at}.status.conditions[${j}]`));
  const j = conditions.findIndex((c) => c.type === 'Ready');
  if (j >= 0) {
    const path = `${at}.status.conditions[${j}]`;
    info.ready = r.str(conditions[j].status, `${path}.status`) as PodInfo['ready'];
    const t = r.optStr(conditions[j].lastTransitionTime, `${path}.lastTransitionTime`);
    if (t) info.readyTransitionTime = t;
  }
  const start = r.optStr(status.startTime, `${at}.status.startTime`);
  if (start) info.startTime = start;
  const deletion = r.optStr(meta.deletionTimestamp, `${at}.metadata.deletionTimestamp`);
  if (deletion) info.deletionTimestamp = deletion;
  return info;
}
