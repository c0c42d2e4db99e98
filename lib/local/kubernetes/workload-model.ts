// The workloads a local Kubernetes API server serves: scalable objects, their
// pods, and the metrics those pods report. Pure: time only comes from the clock
// passed in, names come from counters, so a virtual clock replays exactly.
//
// Pod life, as the kubelet and the ReplicaSet controller would show it:
// created Pending → Running (startTime) after startDelaySeconds → Ready after
// readyDelaySeconds more. Deleted pods get deletionTimestamp = now + grace and
// vanish when it passes. CPU/memory usage: a workload's load divided over its
// ready pods, plus a per-pod baseline.
import { parseGroupVersion } from '#hpa/api';
import { fromLabelSelector, type LabelSelector, type LabelSelectorRequirement, selectorToString } from '#hpa';
import type { Clock } from '#sync/ports';

export type QuantityValue = number | string;
export type MetricValue = QuantityValue | ((now: Date) => QuantityValue);
export type PodsMetricValue = QuantityValue | ((pod: string, now: Date) => QuantityValue);

export interface ContainerSpec {
  name: string;
  requests?: Record<string, string>;
}

/** What a workload's pods use in total: CPU in cores, memory in bytes. */
export type LoadFunction = (now: Date) => { cpu?: number; memory?: number };

export interface WorkloadSpec {
  kind: string;
  /** "apps/v1", "v1", or a custom resource's group/version */
  apiVersion: string;
  namespace: string;
  name: string;
  replicas: number;
  /** Labels of its pods, and its selector. Absent: its scale has no selector. */
  selector?: Record<string, string>;
  /**
   * Set-based requirements of its selector besides `selector` (matchExpressions), which its
   * pods meet through `podLabels`. Not checked: an object stored before validation was
   * tightened can hold one its /scale cannot convert (GET /scale is then a 400).
   */
  matchExpressions?: LabelSelectorRequirement[];
  /** Labels of its pods besides `selector`. */
  podLabels?: Record<string, string>;
  containers?: ContainerSpec[];
  load?: LoadFunction;
  /** When it and its first pods were created (default: now); in the past, its pods are ready and measured at once. */
  createdAt?: Date;
}

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  /** plural resource name */
  resource: string;
  namespaced: boolean;
  scale: boolean;
}

export interface ModelOptions {
  clock: Clock;
  startDelaySeconds?: number;
  readyDelaySeconds?: number;
  terminationGraceSeconds?: number;
  metricsWindowSeconds?: number;
  /** Usage of every running pod before its share of the load. */
  baseline?: { cpu: number; memory: number };
  /**
   * metrics-server's scrape loop: every `resolutionSeconds`, starting `phaseMs` after each multiple of it, each
   * workload's node `offsetMs` later. With `loopMs`, the loop's answers are served together from `loopMs` after
   * its start (every node within it), as metrics-server stores one batch once every node has answered (its tick:
   * Scrape, then Store); without, each node's as it is scraped (a Prometheus-backed adapter). PodMetrics then carry the load and the time of their pod's sample in the last stored loop; absent,
   * the load of now, stamped now. `sampleSpreadMs` (default 10 s, a cAdvisor housekeeping interval): how old each
   * container's sample can be at its node's scrape; kubelets stamp each container from cAdvisor's housekeeping
   * loop (10 s + jitter, kubernetes#55863) and metrics-server keeps the pod's earliest (metrics-server#119).
   */
  scrape?: { resolutionSeconds: number; phaseMs: number; offsetMs?: (namespace: string, workload: string) => number; loopMs?: number; sampleSpreadMs?: number };
}

interface PodState {
  name: string;
  uid: string;
  labels: Record<string, string>;
  containers: ContainerSpec[];
  createdMs: number;
  deletionMs?: number;
  ordinal?: number;
  owner: Workload;
}

interface Workload {
  spec: WorkloadSpec;
  type: ResourceType;
  uid: string;
  createdMs: number;
  resourceVersion: number;
  /** the namespace's revision at its last change: what lets a reader copy only the workloads changed since */
  revision: number;
  generation: number;
  templateHash: string;
}

export interface SeriesValue {
  labels?: Record<string, string>;
}

/** Kinds every cluster serves. */
export const builtInTypes: ResourceType[] = [
  { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, scale: true },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', resource: 'statefulsets', namespaced: true, scale: true },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', resource: 'replicasets', namespaced: true, scale: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', resource: 'daemonsets', namespaced: true, scale: false },
  { group: '', version: 'v1', kind: 'ReplicationController', resource: 'replicationcontrollers', namespaced: true, scale: true },
  { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true, scale: false },
  { group: '', version: 'v1', kind: 'Service', resource: 'services', namespaced: true, scale: false },
  { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false, scale: false },
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', resource: 'ingresses', namespaced: true, scale: false },
];

const DEFAULT_CONTAINERS: ContainerSpec[] = [{ name: 'app', requests: { cpu: '100m', memory: '128Mi' } }];
const IMAGE = 'registry.k8s.io/pause:3.10';
/** How old a pod's earliest container sample can be at a scrape: one cAdvisor housekeeping interval. */
const DEFAULT_SAMPLE_SPREAD_MS = 10_000;
const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

/** A number as a Kubernetes quantity: integers plain, fractions in milli-units. */
export function toQuantity(v: QuantityValue): string {
  if (typeof v === 'string') return v;
  return Number.isInteger(v) ? String(v) : `${Math.round(v * 1000)}m`;
}

function nameSuffix(n: number, len: number): string {
  let s = '';
  let x = n;
  for (let i = 0; i < len; i++) {
    s = NAME_CHARS[x % NAME_CHARS.length] + s;
    x = Math.floor(x / NAME_CHARS.length);
  }
  return s;
}

function hashOf(s: string): number {
  let h = 2166136261;
  for (const ch of s) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h;
}

/** An apps/v1 object of the model: `stamp` changes whenever the object does; built on demand. */
export interface WorkloadView {
  kind: string;
  name: string;
  stamp: string;
  object(): Record<string, unknown>;
}

export class WorkloadModel {
  readonly clock: Clock;
  private readonly startMs: number;
  private readonly readyMs: number;
  private readonly graceMs: number;
  private readonly windowSeconds: number;
  private readonly scrape?: ModelOptions['scrape'];
  private readonly baseline: { cpu: number; memory: number };
  private readonly types: ResourceType[] = [...builtInTypes];
  private readonly workloads = new Map<string, Workload>();
  private pods: PodState[] = [];
  /** Bumped whenever pods leave (the grace period over): readers copying only changes must then look at all. */
  private podsGone = 0;
  /** The earliest deletionMs of a terminating pod: until then a sweep has nothing to do (and allocates nothing). */
  private nextGoneMs = Number.POSITIVE_INFINITY;
  private counter = 0;
  private resourceVersion = 1000;
  private readonly namespaceRevisions = new Map<string, number>();
  private readonly podsMetrics = new Map<string, { value: PodsMetricValue; labels?: Record<string, string> }[]>();
  private readonly objectMetrics = new Map<string, { value: MetricValue; labels?: Record<string, string> }[]>();
  private readonly externalMetrics = new Map<string, { value: MetricValue; labels?: Record<string, string> }[]>();

  constructor(opts: ModelOptions) {
    this.clock = opts.clock;
    this.startMs = (opts.startDelaySeconds ?? 2) * 1000;
    this.readyMs = (opts.readyDelaySeconds ?? 10) * 1000;
    this.graceMs = (opts.terminationGraceSeconds ?? 30) * 1000;
    this.windowSeconds = opts.metricsWindowSeconds ?? 15;
    this.scrape = opts.scrape;
    this.baseline = opts.baseline ?? { cpu: 0.002, memory: 32 * 1024 * 1024 };
  }

  // ---- set-up ----

  /** A custom resource (CRD); scale: it serves the scale subresource. */
  defineResource(t: Omit<ResourceType, 'namespaced'> & { namespaced?: boolean }): void {
    if (this.typeOf(t.group, t.kind)) throw new Error(`kind ${t.kind} in group "${t.group}" is already defined`);
    this.types.push({ namespaced: true, ...t });
  }

  resourceTypes(): readonly ResourceType[] {
    return this.types;
  }

  addWorkload(spec: WorkloadSpec): void {
    const gv = parseGroupVersion(spec.apiVersion);
    if ('error' in gv) throw new Error(gv.error);
    const { group } = gv;
    const type = this.typeOf(group, spec.kind);
    if (!type) throw new Error(`unknown kind ${spec.kind} in group "${group}": define it first`);
    if (!type.scale) throw new Error(`${type.resource} have no scale subresource`);
    const key = this.key(spec.namespace, type, spec.name);
    if (this.workloads.has(key)) throw new Error(`${key} already exists`);
    const w: Workload = {
      spec: { ...spec, containers: spec.containers ?? DEFAULT_CONTAINERS },
      type,
      uid: this.uid(),
      createdMs: spec.createdAt?.getTime() ?? this.clock.now().getTime(),
      resourceVersion: this.bump(spec.namespace),
      revision: this.revisionOf(spec.namespace),
      generation: 1,
      templateHash: nameSuffix(hashOf(key), 5) + nameSuffix(hashOf(`${key}#`), 5),
    };
    this.workloads.set(key, w);
    this.reconcile(w, w.createdMs);
  }

  setLoad(namespace: string, kind: string, name: string, load: LoadFunction | undefined): void {
    this.workload(namespace, kind, name).spec.load = load;
  }

  setPodsMetric(namespace: string, metric: string, value: PodsMetricValue, labels?: Record<string, string>): void {
    this.upsert(this.podsMetrics, `${namespace}/${metric}`, value, labels);
  }

  setObjectMetric(namespace: string, object: { kind: string; name: string }, metric: string, value: MetricValue, labels?: Record<string, string>): void {
    this.upsert(this.objectMetrics, `${namespace}/${object.kind}/${object.name}/${metric}`, value, labels);
  }

  /** One series per distinct label set. */
  setExternalMetric(namespace: string, metric: string, value: MetricValue, labels?: Record<string, string>): void {
    this.upsert(this.externalMetrics, `${namespace}/${metric}`, value, labels);
  }

  // ---- what the API server reads ----

  typeOf(group: string, kind: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.kind === kind);
  }

  typeByResource(group: string, version: string, resource: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.version === version && t.resource === resource);
  }

  /** The autoscaling/v1 Scale of a workload, or undefined when there is none. */
  scale(namespace: string, type: ResourceType, name: string): Record<string, unknown> | undefined {
    const w = this.workloads.get(this.key(namespace, type, name));
    if (!w) return undefined;
    this.sweep();
    const status: Record<string, unknown> = { replicas: this.activePods(w).length };
    if (w.spec.selector || w.spec.matchExpressions) status.selector = selectorToString(fromLabelSelector(labelSelectorOf(w)));
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name,
        namespace,
        uid: w.uid,
        resourceVersion: String(w.resourceVersion),
        creationTimestamp: rfc3339(w.createdMs),
      },
      spec: { replicas: w.spec.replicas },
      status,
    };
  }

  /** Sets spec.replicas (what PATCH/PUT of /scale does); returns false when the workload does not exist. */
  setReplicas(namespace: string, type: ResourceType, name: string, replicas: number): boolean {
    const w = this.workloads.get(this.key(namespace, type, name));
    if (!w) return false;
    if (w.spec.replicas !== replicas) {
      w.spec.replicas = replicas;
      w.resourceVersion = this.bump(namespace);
      w.revision = this.revisionOf(namespace);
      w.generation++;
      this.reconcile(w);
    }
    return true;
  }

  replicasOf(namespace: string, kind: string, name: string): number {
    return this.workload(namespace, kind, name).spec.replicas;
  }

  /** Pods of a namespace as v1 Pod objects. */
  podObjects(namespace: string): Record<string, unknown>[] {
    this.sweep();
    const now = this.clock.now().getTime();
    return this.pods.filter((p) => p.owner.spec.namespace === namespace).map((p) => this.podObject(p, now));
  }

  /**
   * Pods (of a namespace, or all) with a `state` that changes whenever the pod
   * object does (but for metadata.resourceVersion), the object built only on
   * demand: what an API server needs to keep per-object resourceVersions and
   * watches cheaply. since: only pods of workloads changed after that revision.
   */
  podViews(namespace?: string, since = -1): { namespace: string; name: string; state: number; object(): Record<string, unknown> }[] {
    this.sweep();
    const now = this.clock.now().getTime();
    const out = [];
    for (const p of this.pods) {
      if ((namespace !== undefined && p.owner.spec.namespace !== namespace) || p.owner.revision <= since) continue;
      const stage = this.isReady(p, now) ? 2 : this.isRunning(p, now) ? 1 : 0;
      out.push({ namespace: p.owner.spec.namespace, name: p.name, state: stage + (p.deletionMs === undefined ? 0 : 3), object: () => this.podObject(p, now) });
    }
    return out;
  }

  /**
   * The next time a pod of the namespace starts, becomes ready or goes away; Infinity when none will.
   * since: only pods of workloads changed after that revision of the namespace.
   */
  nextChangeMs(namespace: string, since = -1): number {
    this.sweep();
    const now = this.clock.now().getTime();
    let next = Number.POSITIVE_INFINITY;
    for (const p of this.pods) {
      if (p.owner.spec.namespace !== namespace || p.owner.revision <= since) continue;
      const running = p.createdMs + this.startMs;
      const ready = running + this.readyMs;
      const t = now < running ? running : now < ready ? ready : Number.POSITIVE_INFINITY;
      next = Math.min(next, t, p.deletionMs ?? Number.POSITIVE_INFINITY);
    }
    return next;
  }

  /** Bumped by every change of a workload of the namespace (not by the passing of time: see podViews). */
  revisionOf(namespace: string): number {
    return this.namespaceRevisions.get(namespace) ?? 0;
  }

  /** Changes whenever pods left (in any namespace): a copy of only the workloads changed since a revision then misses some. */
  podsGoneCount(): number {
    this.sweep();
    return this.podsGone;
  }

  /** Namespaces holding workloads, created with their first workload. */
  namespaces(): { name: string; createdMs: number }[] {
    const out = new Map<string, number>();
    for (const w of this.workloads.values()) {
      const ns = w.spec.namespace;
      out.set(ns, Math.min(out.get(ns) ?? Number.POSITIVE_INFINITY, w.createdMs));
    }
    return [...out].map(([name, createdMs]) => ({ name, createdMs }));
  }

  /**
   * apps/v1 Deployments, StatefulSets and ReplicaSets as the controllers keep
   * them (status from the pods: a pod is available once ready, minReadySeconds 0),
   * plus the ReplicaSet each Deployment owns.
   */
  workloadObjects(namespace?: string): Record<string, unknown>[] {
    return this.workloadViews(namespace).map((v) => v.object());
  }

  /**
   * The same objects, each with a `stamp` that changes whenever it does and built only on
   * demand: what an API server needs to copy only the objects that changed (a subclass that
   * dresses them then pays only for those). since: only workloads changed after that revision.
   */
  workloadViews(namespace?: string, since = -1): WorkloadView[] {
    this.sweep();
    const now = this.clock.now().getTime();
    const counts = new Map<Workload, { active: number; ready: number }>();
    for (const p of this.pods) {
      if (p.deletionMs !== undefined || p.owner.revision <= since) continue;
      const c = counts.get(p.owner) ?? { active: 0, ready: 0 };
      c.active++;
      if (this.isReady(p, now)) c.ready++;
      counts.set(p.owner, c);
    }
    const out: WorkloadView[] = [];
    for (const w of this.workloads.values()) {
      const kind = w.type.kind;
      if ((namespace !== undefined && w.spec.namespace !== namespace) || w.revision <= since) continue;
      if (w.type.group !== 'apps' || (kind !== 'Deployment' && kind !== 'StatefulSet' && kind !== 'ReplicaSet')) continue;
      const c = counts.get(w) ?? { active: 0, ready: 0 };
      // All appsObjects reads that can change: replicas (with the generation) and the pod counts.
      const stamp = `${w.generation}/${w.spec.replicas}/${c.active}/${c.ready}`;
      let built: Record<string, unknown>[] | undefined;
      const names = kind === 'Deployment' ? [kind, 'ReplicaSet'] : [kind];
      names.forEach((k, i) => out.push({ kind: k, name: i === 0 ? w.spec.name : `${w.spec.name}-${w.templateHash}`, stamp, object: () => (built ??= appsObjects(w, c))[i] }));
    }
    return out;
  }

  /** When the last stored loop scraped this workload's node (now without a scrape loop). */
  private lastScrape(w: Workload, nowMs: number): number {
    if (!this.scrape) return nowMs;
    const res = this.scrape.resolutionSeconds * 1000;
    const offset = this.scrape.offsetMs?.(w.spec.namespace, w.spec.name) ?? 0;
    const { loopMs } = this.scrape;
    // Each node served as it is scraped (a source such as Prometheus, each target on its own).
    if (loopMs === undefined) return Math.floor((nowMs - this.scrape.phaseMs - offset) / res) * res + this.scrape.phaseMs + offset;
    return Math.floor((nowMs - this.scrape.phaseMs - loopMs) / res) * res + this.scrape.phaseMs + Math.min(loopMs, offset);
  }

  /**
   * The time of a pod's earliest container sample in the scrape at `scrapeMs`: each container's latest housekeeping
   * sample lies up to the spread before the scrape (its own loop, varying per scrape: jitter), and metrics-server
   * reports the earliest of them (metrics-server#119), so a pod of more containers is stamped older.
   */
  private sampleTime(pod: PodState, scrapeMs: number): number {
    if (!this.scrape) return scrapeMs;
    const spread = this.scrape.sampleSpreadMs ?? DEFAULT_SAMPLE_SPREAD_MS;
    const ages = pod.containers.map((c, i) => Math.floor(((hashOf(i === 0 ? `${pod.name}@${scrapeMs}` : `${pod.name}/${c.name}@${scrapeMs}`) >>> 0) / 2 ** 32) * spread));
    return scrapeMs - Math.max(0, ...ages);
  }

  /** match: a request's labelSelector, applied before any pod's usage is worked out (a list by selector costs what it returns). */
  podMetrics(namespace: string, match: (labels: Record<string, string>) => boolean = () => true): Record<string, unknown>[] {
    this.sweep();
    const now = this.clock.now();
    const nowMs = now.getTime();
    const out: Record<string, unknown>[] = [];
    // Ready pods per owner in one pass (a filter per owner was quadratic in a namespace's pods). With a scrape loop,
    // an answer is what the last stored scrape saw: the pods ready then, each its share then.
    const scrapedOf = new Map<Workload, { atMs: number; ready: number }>();
    for (const q of this.pods) {
      if (q.owner.spec.namespace !== namespace) continue;
      let s = scrapedOf.get(q.owner);
      if (!s) scrapedOf.set(q.owner, (s = { atMs: this.lastScrape(q.owner, nowMs), ready: 0 }));
      const at = this.scrape ? s.atMs : nowMs;
      if ((q.deletionMs === undefined || q.deletionMs > at) && this.isReady(q, at)) s.ready++;
    }
    const scraped = (w: Workload) => scrapedOf.get(w)!;
    for (const p of this.pods) {
      if (p.owner.spec.namespace !== namespace || !this.isRunning(p, nowMs) || !match(p.labels)) continue;
      const { atMs: scrapedMs, ready } = scraped(p.owner);
      // Not yet scraped: metrics-server has no answer for it.
      if (this.scrape && !this.isRunning(p, scrapedMs)) continue;
      // The value is the load at the pod's own sample, served from its loop's store on.
      const sampledMs = this.sampleTime(p, scrapedMs);
      const load = p.owner.spec.load?.(new Date(sampledMs)) ?? {};
      const share = { cpu: ready ? (load.cpu ?? 0) / ready : 0, memory: ready ? (load.memory ?? 0) / ready : 0, sampledMs };
      const mine = p.deletionMs === undefined && this.isReady(p, this.scrape ? scrapedMs : nowMs) ? share : { cpu: 0, memory: 0 };
      const n = p.containers.length;
      out.push({
        kind: 'PodMetrics',
        apiVersion: 'metrics.k8s.io/v1beta1',
        metadata: { name: p.name, namespace, labels: p.labels, creationTimestamp: rfc3339(nowMs) },
        timestamp: rfc3339(share.sampledMs),
        window: `${this.windowSeconds}s`,
        containers: p.containers.map((c) => ({
          name: c.name,
          usage: {
            cpu: `${Math.round(((this.baseline.cpu + mine.cpu) / n) * 1e9)}n`,
            memory: `${Math.round((this.baseline.memory + mine.memory) / n / 1024)}Ki`,
          },
        })),
      });
    }
    return out;
  }

  /** custom.metrics.k8s.io values of a Pods metric, for the running pods of a namespace. */
  podsMetricValues(namespace: string, metric: string): { pod: string; labels: Record<string, string>; metricLabels?: Record<string, string>; value: string }[] {
    const series = this.podsMetrics.get(`${namespace}/${metric}`) ?? [];
    this.sweep();
    const now = this.clock.now();
    const running = this.pods.filter((p) => p.owner.spec.namespace === namespace && this.isRunning(p, now.getTime()));
    return series.flatMap((s) =>
      running.map((p) => ({
        pod: p.name,
        labels: p.labels,
        metricLabels: s.labels,
        value: toQuantity(typeof s.value === 'function' ? s.value(p.name, now) : s.value),
      })),
    );
  }

  objectMetricValues(namespace: string, kind: string, name: string, metric: string): { metricLabels?: Record<string, string>; value: string }[] {
    return this.evaluate(this.objectMetrics.get(`${namespace}/${kind}/${name}/${metric}`));
  }

  externalMetricValues(namespace: string, metric: string): { metricLabels?: Record<string, string>; value: string }[] {
    return this.evaluate(this.externalMetrics.get(`${namespace}/${metric}`));
  }

  // ---- internals ----

  private bump(namespace: string): number {
    this.namespaceRevisions.set(namespace, this.revisionOf(namespace) + 1);
    return ++this.resourceVersion;
  }

  private evaluate(series: { value: MetricValue; labels?: Record<string, string> }[] | undefined) {
    const now = this.clock.now();
    return (series ?? []).map((s) => ({
      metricLabels: s.labels,
      value: toQuantity(typeof s.value === 'function' ? s.value(now) : s.value),
    }));
  }

  private upsert<V>(map: Map<string, { value: V; labels?: Record<string, string> }[]>, key: string, value: V, labels?: Record<string, string>) {
    const list = map.get(key) ?? [];
    const same = (a?: Record<string, string>, b?: Record<string, string>) => selectorString(a ?? {}) === selectorString(b ?? {});
    const i = list.findIndex((s) => same(s.labels, labels));
    if (i >= 0) list[i] = { value, labels };
    else list.push({ value, labels });
    map.set(key, list);
  }

  private key(namespace: string, type: ResourceType, name: string): string {
    return `${type.group}/${type.resource}/${namespace}/${name}`;
  }

  private workload(namespace: string, kind: string, name: string): Workload {
    for (const w of this.workloads.values()) {
      if (w.spec.namespace === namespace && w.spec.kind === kind && w.spec.name === name) return w;
    }
    throw new Error(`no ${kind} ${namespace}/${name}`);
  }

  private uid(): string {
    const n = ++this.counter;
    return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  }

  private activePods(w: Workload): PodState[] {
    return this.pods.filter((p) => p.owner === w && p.deletionMs === undefined);
  }

  private isRunning(p: PodState, nowMs: number): boolean {
    return nowMs >= p.createdMs + this.startMs;
  }

  private isReady(p: PodState, nowMs: number): boolean {
    return nowMs >= p.createdMs + this.startMs + this.readyMs;
  }

  /** Terminated pods leave once their grace period is over. */
  private sweep(): void {
    const now = this.clock.now().getTime();
    if (now < this.nextGoneMs) return;
    const before = this.pods.length;
    this.pods = this.pods.filter((p) => p.deletionMs === undefined || now < p.deletionMs);
    if (this.pods.length !== before) this.podsGone++;
    this.nextGoneMs = Number.POSITIVE_INFINITY;
    for (const p of this.pods) if (p.deletionMs !== undefined && p.deletionMs < this.nextGoneMs) this.nextGoneMs = p.deletionMs;
  }

  private reconcile(w: Workload, nowMs = this.clock.now().getTime()): void {
    this.sweep();
    const active = this.activePods(w);
    const want = w.spec.replicas;
    if (active.length < want) {
      const used = new Set(active.map((p) => p.ordinal));
      for (let i = active.length, ordinal = 0; i < want; i++) {
        let name: string;
        let podOrdinal: number | undefined;
        if (w.type.kind === 'StatefulSet') {
          while (used.has(ordinal)) ordinal++;
          podOrdinal = ordinal;
          used.add(ordinal);
          name = `${w.spec.name}-${ordinal}`;
        } else {
          const suffix = nameSuffix(hashOf(`${w.uid}/${++this.counter}`), 5);
          name = w.type.kind === 'Deployment' ? `${w.spec.name}-${w.templateHash}-${suffix}` : `${w.spec.name}-${suffix}`;
        }
        const labels = podLabelsOf(w);
        if (w.type.kind === 'Deployment') labels['pod-template-hash'] = w.templateHash;
        if (w.type.kind === 'StatefulSet') labels['statefulset.kubernetes.io/pod-name'] = name;
        this.pods.push({ name, uid: this.uid(), labels, containers: w.spec.containers ?? DEFAULT_CONTAINERS, createdMs: nowMs, ordinal: podOrdinal, owner: w });
      }
    } else if (active.length > want) {
      // StatefulSets remove the highest ordinals; ReplicaSets prefer pending, then unready, then the newest pods.
      const rank = (p: PodState) => (this.isRunning(p, nowMs) ? (this.isReady(p, nowMs) ? 2 : 1) : 0);
      const victims = [...active]
        .sort((a, b) =>
          w.type.kind === 'StatefulSet' ? (b.ordinal ?? 0) - (a.ordinal ?? 0) : rank(a) - rank(b) || b.createdMs - a.createdMs,
        )
        .slice(0, active.length - want);
      for (const p of victims) p.deletionMs = nowMs + this.graceMs;
      this.nextGoneMs = Math.min(this.nextGoneMs, nowMs + this.graceMs);
      this.sweep();
    }
  }

  private podObject(p: PodState, nowMs: number): Record<string, unknown> {
    const w = p.owner;
    const running = this.isRunning(p, nowMs);
    const ready = this.isReady(p, nowMs);
    const startMs = p.createdMs + this.startMs;
    const metadata: Record<string, unknown> = {
      name: p.name,
      namespace: w.spec.namespace,
      uid: p.uid,
      labels: p.labels,
      creationTimestamp: rfc3339(p.createdMs),
      resourceVersion: String(this.resourceVersion),
      ownerReferences: [
        w.type.kind === 'Deployment'
          ? { apiVersion: w.spec.apiVersion, kind: 'ReplicaSet', name: `${w.spec.name}-${w.templateHash}`, uid: replicaSetUid(w), controller: true }
          : { apiVersion: w.spec.apiVersion, kind: w.type.kind, name: w.spec.name, uid: w.uid, controller: true },
      ],
    };
    if (p.deletionMs !== undefined) {
      metadata.deletionTimestamp = rfc3339(p.deletionMs);
      metadata.deletionGracePeriodSeconds = this.graceMs / 1000;
    }
    const status: Record<string, unknown> = {
      phase: running ? 'Running' : 'Pending',
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: rfc3339(p.createdMs) },
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          lastTransitionTime: rfc3339(ready ? startMs + this.readyMs : running ? startMs : p.createdMs),
        },
      ],
    };
    if (running) {
      status.startTime = rfc3339(startMs);
      status.podIP = `10.0.${(hashOf(p.uid) >> 8) & 255}.${hashOf(p.uid) & 255}`;
      status.podIPs = [{ ip: status.podIP }];
    }
    status.containerStatuses = p.containers.map((c, i) => ({
      name: c.name,
      image: IMAGE,
      imageID: '',
      ready,
      restartCount: 0,
      started: running,
      state: running ? { running: { startedAt: rfc3339(startMs) } } : { waiting: { reason: 'ContainerCreating' } },
      ...(running ? { containerID: `containerd://${nameSuffix(hashOf(`${p.uid}/${i}`), 12)}` } : {}),
    }));
    status.qosClass = 'Burstable';
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata,
      spec: {
        containers: p.containers.map((c) => ({ name: c.name, image: IMAGE, resources: { requests: c.requests ?? {} } })),
      },
      status,
    };
  }
}

/** matchLabels as a selector string, sorted by key (as labels.SelectorFromSet().String()). */
export function selectorString(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

/** The workload's selector as its object holds it. */
function labelSelectorOf(w: Workload): LabelSelector {
  const matchExpressions = w.spec.matchExpressions;
  return { matchLabels: { ...(w.spec.selector ?? {}) }, ...(matchExpressions ? { matchExpressions: structuredClone(matchExpressions) } : {}) };
}

/** The labels of its pods (and of its pod template). */
function podLabelsOf(w: Workload): Record<string, string> {
  return { ...(w.spec.selector ?? {}), ...(w.spec.podLabels ?? {}) };
}

/** The uid of the ReplicaSet a Deployment owns. */
function replicaSetUid(w: Workload): string {
  return `${w.uid.slice(0, -12)}${(hashOf(`${w.uid}/rs`) >>> 0).toString(16).padStart(12, '0')}`;
}

/** The pod template every workload of the model runs. */
function podTemplate(w: Workload, labels: Record<string, string>): Record<string, unknown> {
  return {
    metadata: { labels },
    spec: { containers: (w.spec.containers ?? DEFAULT_CONTAINERS).map((c) => ({ name: c.name, image: IMAGE, resources: { requests: c.requests ?? {} } })) },
  };
}

/** A workload's apps/v1 object(s): a Deployment comes with the ReplicaSet it owns. */
function appsObjects(w: Workload, c: { active: number; ready: number }): Record<string, unknown>[] {
  const { namespace, name, replicas } = w.spec;
  const labels = podLabelsOf(w);
  const metadata = { name, namespace, uid: w.uid, generation: w.generation, creationTimestamp: rfc3339(w.createdMs) };
  const selector = labelSelectorOf(w);
  // zero counts are omitted, as omitempty does
  const counts = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== 0));
  if (w.type.kind === 'StatefulSet') {
    const revision = `${name}-${w.templateHash}`;
    return [
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata,
        spec: { replicas, selector, serviceName: name, template: podTemplate(w, labels), podManagementPolicy: 'OrderedReady', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, revisionHistoryLimit: 10 },
        status: {
          observedGeneration: w.generation,
          ...counts({ replicas: c.active, readyReplicas: c.ready, currentReplicas: c.active, updatedReplicas: c.active, availableReplicas: c.ready }),
          currentRevision: revision,
          updateRevision: revision,
          collisionCount: 0,
        },
      },
    ];
  }
  const rsStatus = { ...counts({ replicas: c.active, fullyLabeledReplicas: c.active, readyReplicas: c.ready, availableReplicas: c.ready }), observedGeneration: w.generation };
  if (w.type.kind === 'ReplicaSet') {
    return [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata, spec: { replicas, selector, template: podTemplate(w, labels) }, status: rsStatus }];
  }
  const rsName = `${name}-${w.templateHash}`;
  const podLabels = { ...labels, 'pod-template-hash': w.templateHash };
  const since = rfc3339(w.createdMs);
  // deployment controller: available when at most maxUnavailable (25%, rounded down) are missing
  const available = c.ready >= replicas - Math.floor(replicas * 0.25);
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { ...metadata, annotations: { 'deployment.kubernetes.io/revision': '1' } },
      spec: {
        replicas,
        selector,
        template: podTemplate(w, labels),
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
      status: {
        observedGeneration: w.generation,
        ...counts({ replicas: c.active, updatedReplicas: c.active, readyReplicas: c.ready, availableReplicas: c.ready, unavailableReplicas: Math.max(0, replicas - c.ready) }),
        conditions: [
          available
            ? { type: 'Available', status: 'True', lastUpdateTime: since, lastTransitionTime: since, reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
            : { type: 'Available', status: 'False', lastUpdateTime: since, lastTransitionTime: since, reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
          { type: 'Progressing', status: 'True', lastUpdateTime: since, lastTransitionTime: since, reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` },
        ],
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: rsName,
        namespace,
        uid: replicaSetUid(w),
        generation: w.generation,
        creationTimestamp: rfc3339(w.createdMs),
        labels: podLabels,
        annotations: { 'deployment.kubernetes.io/desired-replicas': String(replicas), 'deployment.kubernetes.io/max-replicas': String(replicas + Math.ceil(replicas * 0.25)), 'deployment.kubernetes.io/revision': '1' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: w.uid, controller: true, blockOwnerDeletion: true }],
      },
      // the deployment controller adds the hash to a copy of the Deployment's selector (CloneSelectorAndAddLabel)
      spec: { replicas, selector: { ...selector, matchLabels: { ...selector.matchLabels, 'pod-template-hash': w.templateHash } }, template: podTemplate(w, podLabels) },
      status: rsStatus,
    },
  ];
}
