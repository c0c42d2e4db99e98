// What one cycle reads, each thing once, shared by every autoscaler that needs it: a scale per
// target, a pod list per namespace, a metric per distinct query, and one batched fetch of the
// metric objects (every provider's). Each read is its own promise, so an autoscaler waits only for what it needs (a
// hung call holds up only what depends on it), and none of them rejects: a failure is the
// value { error }. Everything is read in this cycle: no answer outlives it.
import { type CrossVersionObjectReference, type Fetched, type PodInfo, PodSelectorIndex, type ScaleInfo } from '#hpa';
import { awaitChange, podAnswersOf, type GateRequest, type GateResult } from './fresh-gate.js';
import { queryKey } from './metric-queries.js';
import { coveringSelectors } from './part-selectors.js';
import { type ClusterAccess, ClusterApiError, type ListableScaleKind } from './ports/cluster-access.js';
import type { Clock } from './ports/clock.js';
import type { MetricAnswer, MetricQuery, MetricReadOptions, MetricsAccess, ObjectMetricQuery } from './ports/metrics-access.js';
import { errorText, type CycleCalls } from './report.js';
import type { PodAnswerSeen } from './visibility.js';

const LISTABLE: ReadonlySet<string> = new Set<ListableScaleKind>(['Deployment', 'StatefulSet', 'ReplicaSet']);
/** A namespace's workloads of a kind are listed when this many of its autoscalers target that kind: one LIST instead of that many GETs. */
const LIST_FROM = 2;
/** After a 403 on a list (RBAC without list on apps workloads), each target is read with GET /scale for this long before a list is tried again. */
const LIST_REFUSED_MS = 600_000;
/** Clusters whose API server refused a list, and when: kept with the cluster adapter, which lives as long as the container. */
const listRefused = new WeakMap<ClusterAccess, number>();

export class CycleReads {
  private readonly scales = new Map<string, Promise<Fetched<ScaleInfo>>>();
  private readonly scaleLists = new Map<string, Promise<Fetched<Map<string, ScaleInfo>>>>();
  /** "namespace/Kind" read by one list this cycle. */
  private readonly listed = new Set<string>();
  private readonly podLists = new Map<string, Promise<Fetched<PodInfo[]>>>();
  private readonly podIndexes = new Map<string, PodSelectorIndex>();
  /** Namespaces the shard holds a part of, and its targets there: their pods are read by the targets' selectors. */
  private readonly partTargets = new Map<string, CrossVersionObjectReference[]>();
  private readonly partSelectors = new Map<string, Promise<string[] | undefined>>();
  private readonly answers = new Map<string, Promise<MetricAnswer>>();
  private objectReads?: Promise<Map<string, MetricAnswer>>;
  /** The pod metrics answers read this cycle: what the shard's tick phase is learned from (lib/sync/tick-phase.ts). */
  readonly podAnswers: PodAnswerSeen[] = [];
  /** A tick's wait for the answers to change (lib/sync/fresh-gate.ts): pod metrics are read once it is over. */
  private gate?: Promise<GateResult>;

  constructor(
    private readonly access: ClusterAccess,
    private readonly metrics: MetricsAccess,
    private readonly now: Date,
    private readonly signal: AbortSignal,
    readonly calls: CycleCalls,
    private readonly readOptions: MetricReadOptions = {},
  ) {}

  /**
   * The targets the cycle will read, known from the specs: a namespace's Deployments (StatefulSets,
   * ReplicaSets) are read with one LIST when enough of its autoscalers target them.
   */
  expectTargets(targets: { namespace: string; ref: CrossVersionObjectReference }[], part = false): void {
    if (part) {
      // A part of a namespace: its own targets are read (a GET /scale each, pods and pod metrics by their selectors), not the namespace's every workload and pod.
      for (const { namespace, ref } of targets) {
        const refs = this.partTargets.get(namespace) ?? [];
        refs.push(ref);
        this.partTargets.set(namespace, refs);
      }
      return;
    }
    const refused = listRefused.get(this.access);
    if (refused !== undefined && performance.now() - refused < LIST_REFUSED_MS) return;
    const counts = new Map<string, number>();
    for (const { namespace, ref } of targets) {
      if (ref.apiVersion !== 'apps/v1' || !LISTABLE.has(ref.kind)) continue;
      const key = `${namespace}/${ref.kind}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const [key, n] of counts) if (n >= LIST_FROM) this.listed.add(key);
  }

  scale(namespace: string, ref: CrossVersionObjectReference): Promise<Fetched<ScaleInfo>> {
    return memo(this.scales, `${namespace}/${ref.apiVersion ?? ''}/${ref.kind}/${ref.name}`, async () => {
      if (ref.apiVersion === 'apps/v1' && this.listed.has(`${namespace}/${ref.kind}`)) {
        const list = await this.scaleList(namespace, ref.kind as ListableScaleKind);
        const found = list.value?.get(ref.name);
        if (found) return { value: found };
        // Not in the list (gone, a selector that does not convert) or the list failed: the target's own read says why.
      }
      this.calls.getScale++;
      return settle(this.access.getScale(namespace, ref, this.signal));
    });
  }

  private scaleList(namespace: string, kind: ListableScaleKind): Promise<Fetched<Map<string, ScaleInfo>>> {
    return memo(this.scaleLists, `${namespace}/${kind}`, async () => {
      this.calls.listScales++;
      return settle(
        this.access.listScales(namespace, kind, this.signal).catch((e: unknown) => {
          if (e instanceof ClusterApiError && e.statusCode === 403) listRefused.set(this.access, performance.now());
          throw e;
        }),
      );
    });
  }

  pods(namespace: string): Promise<Fetched<PodInfo[]>> {
    return memo(this.podLists, namespace, async () => {
      const selectors = await this.selectorsOf(namespace);
      this.calls.listPods += selectors?.length ?? 1;
      if (!selectors) return settle(this.access.listPods(namespace, this.signal));
      return settle(Promise.all(selectors.map((s) => this.access.listPods(namespace, this.signal, s))).then((lists) => distinct(lists, (p) => p.name)));
    });
  }

  /** For a namespace the shard holds a part of: list selectors covering its targets' pods (once their scales are read); undefined: the whole namespace. */
  private selectorsOf(namespace: string): Promise<string[] | undefined> {
    const refs = this.partTargets.get(namespace);
    if (!refs) return Promise.resolve(undefined);
    return memo(this.partSelectors, namespace, async () => {
      const scales = await Promise.all(refs.map((ref) => this.scale(namespace, ref)));
      const selectors = scales.flatMap((s) => (s.value?.selector ? [s.value.selector] : []));
      return selectors.length > 0 ? coveringSelectors(selectors) : undefined;
    });
  }

  /** Pod metrics: of the namespace, or of a part shard's targets (merged when they take more than one list). */
  private async podResource(q: Extract<MetricQuery, { type: 'PodResource' }>): Promise<MetricAnswer> {
    const selectors = await this.selectorsOf(q.namespace);
    if (!selectors) return this.fetchOne(q);
    const answers = await Promise.all(selectors.map((selector) => this.fetchOne({ ...q, selector })));
    const failed = answers.find((a) => a.type === 'PodResource' && a.result.error !== undefined);
    if (failed) return failed;
    const lists = answers.map((a) => (a.type === 'PodResource' ? (a.result.value ?? []) : []));
    return { type: 'PodResource', result: { value: distinct(lists, (m) => m.pod) } };
  }

  /** The namespace's pods indexed by selector, shared by its autoscalers (call once its pods are read). */
  podIndex(namespace: string, pods: PodInfo[]): PodSelectorIndex {
    let index = this.podIndexes.get(namespace);
    if (!index || index.pods !== pods) this.podIndexes.set(namespace, (index = new PodSelectorIndex(pods)));
    return index;
  }

  /**
   * Reads one namespace's pod metrics until they change (call after expectTargets): every pod metrics read of the
   * cycle waits for it, and that namespace's is its last read. Not for a namespace the shard holds a part of.
   */
  startGate(cluster: string, req: GateRequest, clock: Clock): void {
    if (this.gate || this.partTargets.has(req.namespace)) return;
    const q = { type: 'PodResource' as const, cluster, namespace: req.namespace };
    this.gate = awaitChange(req, () => this.fetchOne(q), clock, this.signal);
  }

  /** What the tick's gate saw, once it is over; undefined without one. */
  gateResult(): Promise<GateResult> | undefined {
    return this.gate;
  }

  /** A cluster metric (pod metrics, custom, external). */
  metric(q: Exclude<MetricQuery, ObjectMetricQuery>): Promise<MetricAnswer> {
    return memo(this.answers, queryKey(q), async () => {
      this.calls.metricQueries++;
      const answer = q.type === 'PodResource' ? await this.podResourceAfterGate(q) : await this.fetchOne(q);
      if (q.type === 'PodResource') this.podAnswers.push(...podAnswersOf(q.namespace, answer));
      return answer;
    });
  }

  private async podResourceAfterGate(q: Extract<MetricQuery, { type: 'PodResource' }>): Promise<MetricAnswer> {
    if (!this.gate) return this.podResource(q);
    const gated = await this.gate;
    return q.namespace === gated.namespace && q.selector === undefined && gated.answer ? gated.answer : this.podResource(q);
  }

  /** Starts the one fetch of the cycle's metric objects (one batched read per provider): every query an autoscaler may need, known from the specs. */
  startObjectReads(queries: ObjectMetricQuery[]): void {
    if (this.objectReads || queries.length === 0) return;
    const distinct = new Map(queries.map((q) => [queryKey(q), q]));
    const list = [...distinct.values()];
    this.calls.fetchAll++;
    this.objectReads = this.metrics.fetchAll(list, this.now, this.signal, this.readOptions).then(
      (answers) => new Map(list.map((q, i) => [queryKey(q), answers[i] ?? unanswered(q)])),
      (e: unknown) => new Map(list.map((q) => [queryKey(q), { type: q.type, result: { error: `${q.type}: ${errorText(e)}` } } as MetricAnswer])),
    );
  }

  /** The cycle's metric-object answers once they are in, by query; undefined when it asked for none. */
  objectAnswers(): Promise<Map<string, MetricAnswer>> | undefined {
    return this.objectReads;
  }

  async objectAnswer(q: ObjectMetricQuery): Promise<MetricAnswer> {
    this.startObjectReads([q]);
    return (await this.objectReads!).get(queryKey(q)) ?? unanswered(q);
  }

  private async fetchOne(q: MetricQuery): Promise<MetricAnswer> {
    this.calls.fetchAll++;
    try {
      const [answer] = await this.metrics.fetchAll([q], this.now, this.signal, this.readOptions);
      return answer ?? unanswered(q);
    } catch (e) {
      return { type: q.type, result: { error: `unable to fetch metrics: ${errorText(e)}` } } as MetricAnswer;
    }
  }
}

function unanswered(q: MetricQuery): MetricAnswer {
  return { type: q.type, result: { error: 'the metrics source gave no answer for this query' } } as MetricAnswer;
}

/** The lists' items, each once (pods selected by two list selectors). */
function distinct<T>(lists: T[][], key: (t: T) => string): T[] {
  if (lists.length === 1) return lists[0];
  const seen = new Map<string, T>();
  for (const list of lists) for (const t of list) if (!seen.has(key(t))) seen.set(key(t), t);
  return [...seen.values()];
}

function memo<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let p = map.get(key);
  if (!p) map.set(key, (p = load()));
  return p;
}

async function settle<T>(p: Promise<T>): Promise<Fetched<T>> {
  try {
    return { value: await p };
  } catch (e) {
    return { error: errorText(e) };
  }
}
