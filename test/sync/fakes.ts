// In-memory cluster and metrics ports with a call log, hung and failing calls on demand; the
// lib/sync tests pair them with the real store on dynalite and the real lib/hpa.
import type { CrossVersionObjectReference, MetricIdentifier, MetricSample, PodInfo, PodMetric, PodMetricSample, ScaleInfo } from '../../lib/hpa/types.js';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';
import { matchesLabels, parseSelector } from '../../lib/hpa/selector.js';
import type { DecisionLogEntry } from '../../lib/sync/event-log.js';
import {
  type ClusterAccess,
  ClusterApiError,
  type KubernetesAutoscaler,
  type KubernetesAutoscalerStatus,
  type ListableScaleKind,
  type ObjectReference,
} from '../../lib/sync/ports/cluster-access.js';
import type { Clock } from '../../lib/sync/ports/clock.js';
import type { ClusterMetricsApi } from '../../lib/sync/ports/cluster-metrics-api.js';
import type { MetricAnswer, MetricQuery, MetricsAccess } from '../../lib/sync/ports/metrics-access.js';

export interface Call {
  op: string;
  arg: string;
  start: number;
  end: number;
}

export class CallLog {
  readonly calls: Call[] = [];
  /** "op arg" of calls that never answer (until aborted). */
  readonly hang = new Set<string>();
  /** "op arg" → the error that call throws. */
  readonly fail = new Map<string, Error>();
  /** op → milliseconds each such call takes (a slow API server). */
  readonly delay = new Map<string, number>();

  count(op: string, arg?: string): number {
    return this.calls.filter((c) => c.op === op && (arg === undefined || c.arg === arg)).length;
  }

  async run<T>(op: string, arg: string, signal: AbortSignal | undefined, fn: () => T): Promise<T> {
    const call: Call = { op, arg, start: performance.now(), end: Number.NaN };
    this.calls.push(call);
    try {
      const key = `${op} ${arg}`;
      if (this.hang.has(key)) {
        await new Promise((_, reject) => {
          if (signal?.aborted) reject(new ClusterApiError(`${key}: abandoned`, undefined, true));
          signal?.addEventListener('abort', () => reject(new ClusterApiError(`${key}: abandoned (cycle deadline)`, undefined, true)), { once: true });
        });
      }
      const ms = this.delay.get(op);
      if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
      await Promise.resolve();
      const failure = this.fail.get(key);
      if (failure) throw failure;
      return fn();
    } finally {
      call.end = performance.now();
    }
  }
}

export const fixedClock = (iso: string): Clock & { set(iso: string): void; advance(ms: number): void } => {
  let t = new Date(iso).getTime();
  return {
    now: () => new Date(t),
    set: (s: string) => {
      t = new Date(s).getTime();
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
};

interface Target {
  replicas: number;
  selector: string;
  rv: number;
}

/** One cluster: targets by "ns/Kind/name", pods and pod metrics by namespace, external metric values by "ns/name". */
export class FakeCluster implements ClusterAccess, ClusterMetricsApi {
  readonly targets = new Map<string, Target>();
  readonly pods = new Map<string, PodInfo[]>();
  readonly podMetrics = new Map<string, PodMetric[]>();
  readonly external = new Map<string, number>();
  readonly objects: KubernetesAutoscaler[] = [];
  readonly cloudWatchObjects: CloudWatchMetric[] = [];
  readonly statusWrites: { name: string; status: KubernetesAutoscalerStatus }[] = [];
  readonly events: { involved: ObjectReference; entry: DecisionLogEntry }[] = [];
  /** PATCHes of /scale received: replicas and the resourceVersion they carried. */
  readonly patches: { target: string; replicas: number; resourceVersion?: string }[] = [];
  /** Runs after a scale is read, by getScale or listScales (someone acting between our read and our write). */
  afterGetScale?: (key: string) => void;
  /** The next PATCH of /scale is applied, but its answer is lost. */
  loseNextPatchAnswer = false;

  constructor(readonly log = new CallLog()) {}

  addTarget(namespace: string, name: string, replicas: number, kind = 'Deployment'): void {
    this.targets.set(`${namespace}/${kind}/${name}`, { replicas, selector: `app=${name}`, rv: 1 });
  }

  replicas(namespace: string, name: string, kind = 'Deployment'): number | undefined {
    return this.targets.get(`${namespace}/${kind}/${name}`)?.replicas;
  }

  /** Someone else (kubectl scale) changes the target. */
  scaleByHand(namespace: string, name: string, replicas: number, kind = 'Deployment'): void {
    const t = this.targets.get(`${namespace}/${kind}/${name}`)!;
    t.replicas = replicas;
    t.rv++;
  }

  getScale(namespace: string, ref: CrossVersionObjectReference, signal?: AbortSignal): Promise<ScaleInfo> {
    const k = `${namespace}/${ref.kind}/${ref.name}`;
    return this.log.run('getScale', k, signal, () => {
      const t = this.targets.get(k);
      if (!t) throw new ClusterApiError(`deployments.apps "${ref.name}" not found`, 404);
      const info = { specReplicas: t.replicas, statusReplicas: t.replicas, selector: t.selector, resourceVersion: String(t.rv) };
      this.afterGetScale?.(k);
      return info;
    });
  }

  /** The targets of one kind in a namespace, as getScale reads each. */
  listScales(namespace: string, kind: ListableScaleKind, signal?: AbortSignal): Promise<Map<string, ScaleInfo>> {
    const prefix = `${namespace}/${kind}/`;
    return this.log.run('listScales', `${namespace}/${kind}`, signal, () => {
      const scales = new Map<string, ScaleInfo>();
      for (const [k, t] of this.targets) {
        if (!k.startsWith(prefix)) continue;
        scales.set(k.slice(prefix.length), { specReplicas: t.replicas, statusReplicas: t.replicas, selector: t.selector, resourceVersion: String(t.rv) });
        this.afterGetScale?.(k);
      }
      return scales;
    });
  }

  updateScale(namespace: string, ref: CrossVersionObjectReference, replicas: number, resourceVersion?: string, signal?: AbortSignal): Promise<void> {
    const k = `${namespace}/${ref.kind}/${ref.name}`;
    return this.log.run('updateScale', k, signal, () => {
      this.patches.push({ target: k, replicas, ...(resourceVersion ? { resourceVersion } : {}) });
      const t = this.targets.get(k);
      if (!t) throw new ClusterApiError(`deployments.apps "${ref.name}" not found`, 404);
      if (resourceVersion !== undefined && resourceVersion !== String(t.rv)) {
        throw new ClusterApiError(`Operation cannot be fulfilled on deployments.apps "${ref.name}": the object has been modified`, 409);
      }
      t.replicas = replicas;
      t.rv++;
      if (this.loseNextPatchAnswer) {
        this.loseNextPatchAnswer = false;
        throw new ClusterApiError(`patch scale "${ref.name}": socket hang up`, undefined, true);
      }
    });
  }

  /** With a label selector: the pods it selects, logged as "namespace?selector". */
  listPods(namespace: string, signal?: AbortSignal, labelSelector?: string): Promise<PodInfo[]> {
    const arg = labelSelector ? `${namespace}?${labelSelector}` : namespace;
    return this.log.run('listPods', arg, signal, () => structuredClone((this.pods.get(namespace) ?? []).filter((p) => selects(labelSelector, p.labels))));
  }

  /** With a label selector: the metrics of the pods (of this.pods) it selects. */
  listPodMetrics(namespace: string, signal?: AbortSignal, labelSelector?: string): Promise<PodMetric[]> {
    const arg = labelSelector ? `${namespace}?${labelSelector}` : namespace;
    const labels = new Map((this.pods.get(namespace) ?? []).map((p) => [p.name, p.labels]));
    return this.log.run('listPodMetrics', arg, signal, () => structuredClone((this.podMetrics.get(namespace) ?? []).filter((m) => selects(labelSelector, labels.get(m.pod)))));
  }

  getPodsMetric(namespace: string, metric: MetricIdentifier, _selector: string, signal?: AbortSignal): Promise<PodMetricSample[]> {
    return this.log.run('getPodsMetric', `${namespace}/${metric.name}`, signal, () => []);
  }

  getObjectMetric(namespace: string, _o: CrossVersionObjectReference, metric: MetricIdentifier, signal?: AbortSignal): Promise<MetricSample> {
    return this.log.run('getObjectMetric', `${namespace}/${metric.name}`, signal, () => {
      throw new ClusterApiError(`the server could not find the metric ${metric.name}`, 404);
    });
  }

  getExternalMetric(namespace: string, metric: MetricIdentifier, signal?: AbortSignal): Promise<MetricSample[]> {
    return this.log.run('getExternalMetric', `${namespace}/${metric.name}`, signal, () => {
      const v = this.external.get(`${namespace}/${metric.name}`);
      if (v === undefined) throw new ClusterApiError(`the server could not find the requested resource (get ${metric.name}.external.metrics.k8s.io)`, 404);
      return [{ value: String(v), timestamp: new Date().toISOString() }];
    });
  }

  listAutoscalerObjects(namespaces: string[] | undefined, signal?: AbortSignal) {
    return this.log.run('listAutoscalerObjects', (namespaces ?? ['*']).join(','), signal, () => ({
      autoscalers: structuredClone(this.objects.filter((o) => !namespaces || namespaces.includes(o.metadata.namespace))),
      cloudWatchMetrics: structuredClone(this.cloudWatchObjects),
    }));
  }

  autoscalerGeneration(namespace: string, name: string, signal?: AbortSignal): Promise<number | undefined> {
    return this.log.run('autoscalerGeneration', `${namespace}/${name}`, signal, () => this.objects.find((o) => o.metadata.namespace === namespace && o.metadata.name === name)?.metadata.generation);
  }

  writeAutoscalerStatus(namespace: string, name: string, status: KubernetesAutoscalerStatus, signal?: AbortSignal): Promise<void> {
    return this.log.run('writeAutoscalerStatus', `${namespace}/${name}`, signal, () => {
      this.statusWrites.push({ name: `${namespace}/${name}`, status: structuredClone(status) });
      const o = this.objects.find((x) => x.metadata.namespace === namespace && x.metadata.name === name);
      if (o) o.status = structuredClone(status);
    });
  }

  recordEvent(involved: ObjectReference, entry: DecisionLogEntry, signal?: AbortSignal): Promise<void> {
    return this.log.run('recordEvent', `${involved.namespace}/${involved.name}`, signal, () => {
      this.events.push({ involved, entry });
    });
  }
}

/** MetricsAccess over a FakeCluster, and CloudWatch (Prometheus) values by CloudWatchMetric (PrometheusMetric) name. */
export class FakeMetrics implements MetricsAccess {
  readonly cloudWatch = new Map<string, number>();
  readonly prometheus = new Map<string, number>();
  readonly received: MetricQuery[][] = [];

  constructor(
    readonly cluster: FakeCluster,
    readonly log = cluster.log,
  ) {}

  async fetchAll(queries: MetricQuery[], _now: Date, signal?: AbortSignal): Promise<MetricAnswer[]> {
    this.received.push(queries);
    return Promise.all(
      queries.map(async (q): Promise<MetricAnswer> => {
        try {
          switch (q.type) {
            case 'PodResource':
              return { type: q.type, result: { value: await this.cluster.listPodMetrics(q.namespace, signal, q.selector) } };
            case 'External':
              return { type: q.type, result: { value: await this.cluster.getExternalMetric(q.namespace, q.metric, signal) } };
            case 'CloudWatch': {
              const value = await this.log.run('GetMetricData', q.source.metadata.name, signal, () => this.cloudWatch.get(q.source.metadata.name));
              return value === undefined
                ? { type: q.type, result: { error: `CloudWatchMetric ${q.namespace}/${q.source.metadata.name}: no datapoint` } }
                : { type: q.type, result: { value: [{ value: String(value), timestamp: new Date().toISOString() }] } };
            }
            case 'SQS':
              return { type: q.type, result: { error: `SQSQueueMetric ${q.namespace}/${q.source.metadata.name}: the fake reads no queues` } };
            case 'Prometheus': {
              const value = await this.log.run('PromQL', q.source.metadata.name, signal, () => this.prometheus.get(q.source.metadata.name));
              return value === undefined
                ? { type: q.type, result: { error: `PrometheusMetric ${q.namespace}/${q.source.metadata.name}: the query returned an empty vector` } }
                : { type: q.type, result: { value: [{ value: String(value), timestamp: new Date().toISOString() }] } };
            }
            case 'Pods':
              return { type: q.type, result: { value: await this.cluster.getPodsMetric(q.namespace, q.metric, q.podSelector, signal) } };
            case 'Object':
              return { type: q.type, result: { value: await this.cluster.getObjectMetric(q.namespace, q.describedObject, q.metric, signal) } };
          }
        } catch (e) {
          return { type: q.type, result: { error: (e as Error).message } } as MetricAnswer;
        }
      }),
    );
  }
}

function selects(selector: string | undefined, labels: Record<string, string> | undefined): boolean {
  return !selector || matchesLabels(parseSelector(selector), labels);
}
