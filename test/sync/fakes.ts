// Small in-memory implementations of the sync ports, with a call log and optional
// latency per call; used by the lib/sync unit tests and the sync benchmark.
import type { CrossVersionObjectReference, PodInfo, ScaleInfo } from '../../lib/hpa/types.js';
import type { CloudWatchMetric } from '../../lib/metrics/cloudwatch-types.js';
import {
  VersionConflictError,
  type AutoscalerRecord,
  type AutoscalerStateUpdate,
  type AutoscalerStore,
  type BrokenRecord,
  type Clock,
  type ClusterAccess,
  type ClusterSnapshot,
  type MetricAnswer,
  type MetricQuery,
  type MetricsAccess,
} from '../../lib/sync/ports.js';

export interface CallLog {
  calls: { op: string; arg: string; start: number; end: number }[];
  latencyMs: number;
}

export function newCallLog(latencyMs = 0): CallLog {
  return { calls: [], latencyMs };
}

async function call<T>(log: CallLog, op: string, arg: string, fn: () => T | Promise<T>): Promise<T> {
  const entry = { op, arg, start: performance.now(), end: Number.NaN };
  log.calls.push(entry);
  try {
    if (log.latencyMs > 0) await new Promise((r) => setTimeout(r, log.latencyMs));
    return await fn();
  } finally {
    entry.end = performance.now();
  }
}

export function count(log: CallLog, op: string): number {
  return log.calls.filter((c) => c.op === op).length;
}

/** The longest chain of calls where each started after the previous one ended. */
export function sequentialRoundTrips(log: CallLog): number {
  const sorted = [...log.calls].sort((a, b) => a.start - b.start);
  const byEnd = [...sorted].sort((a, b) => a.end - b.end);
  const depth = new Map<object, number>();
  let best = 0;
  let j = 0;
  let finishedMax = 0;
  for (const c of sorted) {
    while (j < byEnd.length && byEnd[j].end <= c.start) {
      finishedMax = Math.max(finishedMax, depth.get(byEnd[j]) ?? 0);
      j++;
    }
    const d = finishedMax + 1;
    depth.set(c, d);
    best = Math.max(best, d);
  }
  return best;
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

export class MemoryStore implements AutoscalerStore {
  readonly records = new Map<string, AutoscalerRecord>();
  readonly broken: BrokenRecord[] = [];
  readonly cloudWatchMetrics: CloudWatchMetric[] = [];
  readonly leases = new Map<string, { owner: string; expires: number }>();
  /** Keys whose next save throws this error once. */
  readonly failSave = new Map<string, Error>();
  failLoad = new Set<string>();

  constructor(readonly log: CallLog = newCallLog()) {}

  put(record: AutoscalerRecord): void {
    this.records.set(recordKey(record), structuredClone(record));
  }

  get(cluster: string, namespace: string, name: string): AutoscalerRecord | undefined {
    return this.records.get(`${cluster}/${namespace}/${name}`);
  }

  loadCluster(cluster: string): Promise<ClusterSnapshot> {
    return call(this.log, 'loadCluster', cluster, () => {
      if (this.failLoad.has(cluster)) throw new Error(`table unreachable for ${cluster}`);
      return {
        autoscalers: [...this.records.values()].filter((r) => r.cluster === cluster).map((r) => structuredClone(r)),
        cloudWatchMetrics: structuredClone(this.cloudWatchMetrics),
        broken: this.broken.filter((b) => b.cluster === cluster),
      };
    });
  }

  saveState(record: AutoscalerRecord, update: AutoscalerStateUpdate, now: Date): Promise<number> {
    const k = recordKey(record);
    return call(this.log, 'saveState', k, () => {
      const failure = this.failSave.get(k);
      if (failure) {
        this.failSave.delete(k);
        throw failure;
      }
      const current = this.records.get(k);
      if (!current || current.version !== record.version) throw new VersionConflictError(k, record.version);
      const next: AutoscalerRecord = {
        ...current,
        hpa: { ...current.hpa, status: structuredClone(update.status) },
        history: structuredClone(update.history),
        version: current.version + 1,
        updatedAt: now.toISOString(),
      };
      this.records.set(k, next);
      return next.version;
    });
  }

  acquireLease(name: string, owner: string, now: Date, ttlSeconds: number): Promise<boolean> {
    return call(this.log, 'acquireLease', name, () => {
      const held = this.leases.get(name);
      if (held && held.owner !== owner && held.expires > now.getTime()) return false;
      this.leases.set(name, { owner, expires: now.getTime() + ttlSeconds * 1000 });
      return true;
    });
  }

  releaseLease(name: string, owner: string): Promise<void> {
    return call(this.log, 'releaseLease', name, () => {
      if (this.leases.get(name)?.owner === owner) this.leases.delete(name);
    });
  }
}

function recordKey(r: { cluster: string; namespace: string; name: string }): string {
  return `${r.cluster}/${r.namespace}/${r.name}`;
}

/** One cluster: scales by "ns/kind/name", pods by namespace. */
export class MemoryCluster implements ClusterAccess {
  readonly scales = new Map<string, ScaleInfo>();
  readonly pods = new Map<string, PodInfo[]>();
  readonly failScale = new Map<string, Error>();
  readonly failUpdate = new Map<string, Error>();
  readonly failPods = new Map<string, Error>();
  /** Scale reads that never answer (a hung call). */
  readonly hangScale = new Set<string>();

  constructor(readonly log: CallLog = newCallLog()) {}

  getScale(namespace: string, ref: CrossVersionObjectReference): Promise<ScaleInfo> {
    const k = `${namespace}/${ref.kind}/${ref.name}`;
    if (this.hangScale.has(k)) {
      this.log.calls.push({ op: 'getScale', arg: k, start: performance.now(), end: Number.POSITIVE_INFINITY });
      return new Promise(() => {});
    }
    return call(this.log, 'getScale', k, () => {
      const failure = this.failScale.get(k);
      if (failure) throw failure;
      const s = this.scales.get(k);
      if (!s) throw new Error(`deployments.apps "${ref.name}" not found`);
      return { ...s };
    });
  }

  updateScale(namespace: string, ref: CrossVersionObjectReference, replicas: number): Promise<void> {
    const k = `${namespace}/${ref.kind}/${ref.name}`;
    return call(this.log, 'updateScale', `${k}=${replicas}`, () => {
      const failure = this.failUpdate.get(k);
      if (failure) throw failure;
      const s = this.scales.get(k);
      if (!s) throw new Error(`${k} not found`);
      s.specReplicas = replicas;
    });
  }

  listPods(namespace: string): Promise<PodInfo[]> {
    return call(this.log, 'listPods', namespace, () => {
      const failure = this.failPods.get(namespace);
      if (failure) throw failure;
      return structuredClone(this.pods.get(namespace) ?? []);
    });
  }
}

/** Answers every query from a function; one call per fetchAll. */
export class MemoryMetrics implements MetricsAccess {
  failure?: Error;
  readonly received: MetricQuery[][] = [];

  constructor(
    readonly answer: (q: MetricQuery) => MetricAnswer,
    readonly log: CallLog = newCallLog(),
  ) {}

  fetchAll(queries: MetricQuery[]): Promise<MetricAnswer[]> {
    this.received.push(queries);
    return call(this.log, 'fetchAll', String(queries.length), () => {
      if (this.failure) throw this.failure;
      return queries.map((q) => this.answer(q));
    });
  }
}
