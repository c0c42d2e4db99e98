// Bench-only: the local servers a benchmark measures against, in processes of their own so
// that the benchmark's process CPU time is the functions' alone: DynamoDB (dynalite behind
// dynamo-meter) in one; the local CloudWatch endpoint and one local Kubernetes API server per
// cluster with its workload model in another, on one virtual clock the benchmark sets. Calls
// are counted at the servers. Run as children of startServers(); they talk over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch/server.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { requestAttributes } from '../../lib/local/kubernetes/rbac.js';
import { WorkloadModel, type ResourceType } from '../../lib/local/kubernetes/workload-model.js';
import { startDynalite } from '../../lib/store/dynalite.js';
import { startDynamoMeter, type DynamoCounts, type PartitionWrites } from './dynamo-meter.js';
import { EksWorkloadModel } from './eks-objects.js';
import { hash32 } from './stats.js';

export interface Scenario {
  /** The virtual clock at the start (epoch ms). */
  start: number;
  clusters: number;
  namespacesPerCluster: number;
  workloadsPerNamespace: number;
  podsPerWorkload: number;
  /** Pods and Deployments as EKS serves them (about 7 KB a pod), or the model's own (1 KB). */
  eks: boolean;
  /** One CloudWatch series per workload (AWS/SQS ApproximateNumberOfMessagesVisible, 60 s), valued `cloudWatchValue` × the load factor. */
  cloudWatchValue?: number;
  /** Seconds between the series' samples (60: one a period). */
  cloudWatchSampleSeconds?: number;
  /** Each sample becomes visible this long after it was taken (CloudWatch's ingestion): a period is partial until its last sample is. */
  cloudWatchIngestDelaySeconds?: number;
  /**
   * metrics-server's resolution: a pod's CPU is what it was at its node's scrape in the last stored loop, and
   * PodMetrics carry that sample's time. One scrape loop over the nodes, as metrics-server runs it: each workload's
   * node up to 2 s after the loop's start, the loop stored (served) once every node has answered.
   */
  scrapeSeconds?: number;
  /** Where in the period the loop is stored (ms): by default 50 ms after a whole second, the worst phase for ticks on whole seconds. */
  scrapeStoredAtMs?: number;
  /** How old a pod's earliest container sample can be at its scrape (ms); the model's default (10 s, cAdvisor's housekeeping) when absent. */
  sampleSpreadMs?: number;
  /** Noise on every load and queue value: ± this fraction, a new draw each scrape (or minute, for CloudWatch). */
  jitter?: number;
  /** The servers' clock is the system's (setTime is ignored). */
  realTime?: boolean;
}

export const CPU_REQUEST_CORES = 0.5;
export const clusterName = (c: number) => `c${c}`;
export const namespaceName = (n: number) => `ns-${n}`;
export const workloadName = (w: number) => `app-${w}`;
export const queueName = (cluster: string, namespace: string, name: string) => `${cluster}-${namespace}-${name}`;
export const QUEUE_METRIC = { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' };

export interface ServerEndpoints {
  dynamo: string;
  cloudWatch: string;
  token: string;
  clusters: { name: string; url: string; caData: string }[];
}

export interface ServerCounts {
  /** Kubernetes API calls by "verb group/resource[/subresource]". */
  k8s: Record<string, number>;
  cloudWatch: { calls: number; metricStats: number };
  dynamo: DynamoCounts;
  /** CPU time of the servers' processes (ms). */
  cpuMs: number;
  /** The same, by process: DynamoDB's, and the clusters' with CloudWatch's. */
  cpuMsBy?: { dynamo: number; clusters: number };
}

export interface Patch {
  cluster: string;
  namespace: string;
  name: string;
  replicas: number;
  /** The servers' time of the patch, and the wall clock (epoch ms). */
  at: number;
  wallMs: number;
}

/** Load steps of one workload: from `at` (ms), its CPU (its pods use factor × half their requests in total) or its queue (factor × 10 messages a starting pod). */
export interface LoadSteps {
  cluster: string;
  namespace: string;
  name: string;
  metric: 'cpu' | 'queue';
  steps: { at: number; factor: number }[];
}

/** A workload whose CPU steps up at `at` from `before` cores (its pods' total) by `factor`. */
export interface VisibleQuery {
  cluster: string;
  namespace: string;
  name: string;
  at: number;
}

/**
 * When the scrape loop is stored within each resolution (ms after a multiple of it): unrelated to the ticks' even
 * seconds, and by default just after a whole second (ticks on whole seconds then wait almost a second for it).
 */
export const SCRAPE_STORED_AT_MS = 6_050;
/** How much later than the loop's start a node is scraped, at most (metrics-server staggers its nodes, 8 ms a node up to 4 s). */
export const NODE_OFFSET_MAX_MS = 2_000;
/** The slowest kubelet's answer after its scrape started: the loop is stored then. */
const LOOP_MS = NODE_OFFSET_MAX_MS + 200;

/** A loop shorter than its resolution (a 1 s resolution: its nodes within half a second). */
const loopMs = (s: Scenario) => Math.min(LOOP_MS, ((s.scrapeSeconds ?? 15) * 1000) / 2);
const storedAtMs = (s: Scenario) => (s.scrapeStoredAtMs ?? SCRAPE_STORED_AT_MS) % ((s.scrapeSeconds ?? 15) * 1000);

/** When, after its loop's start, a workload's pods (their node) are scraped (ms). */
export function nodeOffsetMs(cluster: string, namespace: string, name: string): number {
  return Math.floor((hash32(`${cluster}/${namespace}/${name}`) / 2 ** 32) * NODE_OFFSET_MAX_MS);
}

type Request =
  | { cmd: 'init'; scenario: Scenario }
  | { cmd: 'time'; ms: number }
  | { cmd: 'factor'; factor: number }
  | { cmd: 'steps'; loads: LoadSteps[] }
  | { cmd: 'counts' }
  | { cmd: 'patches' }
  | { cmd: 'firstVisible'; changes: VisibleQuery[] }
  | { cmd: 'partitionWrites'; fromMs: number; toMs: number; top?: number; prefixes?: string[] }
  | { cmd: 'cloudWatchQueries' };

export interface Servers extends ServerEndpoints {
  /** The servers' processes (to give them CPU priority on a shared machine). */
  pids: number[];
  setTime(ms: number): Promise<void>;
  /** Every workload's CPU load and queue, × their starting values (steps set for a workload take precedence). */
  setLoadFactor(factor: number): Promise<void>;
  setLoadSteps(loads: LoadSteps[]): Promise<void>;
  /** Cumulative counts since the start. */
  counts(): Promise<ServerCounts>;
  /** /scale writes since the last call. */
  patches(): Promise<Patch[]>;
  /** For each CPU step: when the metrics API first serves it (a pod's usage at or above the step), read through the same model at each scrape of the workload's node. */
  firstVisible(changes: VisibleQuery[]): Promise<number[]>;
  /** DynamoDB write units by partition key per wall-clock second, of the writes answered in [fromMs, toMs) (keys starting with one of `prefixes`, when given). */
  partitionWrites(fromMs: number, toMs: number, top?: number, prefixes?: string[]): Promise<PartitionWrites>;
  /** CloudWatch metric stats requested since the start, by distinct query (metric, dimensions, period, stat). */
  cloudWatchQueries(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

type Call = <T>(req: Request) => Promise<T>;

/** A child process serving `role`, and a way to ask it things. */
function spawnServer(role: 'dynamo' | 'clusters'): { pid: number; call: Call; stop(): Promise<void> } {
  // SHPA_SERVER_PROFILE_DIR: a CPU profile of each servers' process, written when it stops.
  const profile = process.env.SHPA_SERVER_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SHPA_SERVER_PROFILE_DIR}/${role}`] : [];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [`--servers=${role}`], { execArgv: ['--import', 'tsx', '--max-old-space-size=4096', ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: { id: number; value?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(`${role} servers: ${m.error}`));
    else w?.resolve(m.value);
  });
  child.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`the ${role} servers' process exited (${code})`));
    waiting.clear();
  });
  return {
    pid: child.pid!,
    call: <T>(req: Request) =>
      new Promise<T>((resolve, reject) => {
        const id = ++next;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, ...req });
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill();
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** DynamoDB in one process, the clusters and CloudWatch in another: neither's load delays the other's answers. */
export async function startServers(scenario: Scenario): Promise<Servers> {
  const dynamo = spawnServer('dynamo');
  const clusters = spawnServer('clusters');
  try {
    const [d, c] = await Promise.all([dynamo.call<{ dynamo: string }>({ cmd: 'init', scenario }), clusters.call<Omit<ServerEndpoints, 'dynamo'>>({ cmd: 'init', scenario })]);
    return {
      ...d,
      ...c,
      pids: [dynamo.pid, clusters.pid],
      setTime: (ms) => clusters.call({ cmd: 'time', ms }),
      setLoadFactor: (factor) => clusters.call({ cmd: 'factor', factor }),
      setLoadSteps: (loads) => clusters.call({ cmd: 'steps', loads }),
      async counts() {
        const [x, y] = await Promise.all([dynamo.call<ServerCounts>({ cmd: 'counts' }), clusters.call<ServerCounts>({ cmd: 'counts' })]);
        return { k8s: y.k8s, cloudWatch: y.cloudWatch, dynamo: x.dynamo, cpuMs: x.cpuMs + y.cpuMs, cpuMsBy: { dynamo: x.cpuMs, clusters: y.cpuMs } };
      },
      patches: () => clusters.call({ cmd: 'patches' }),
      firstVisible: (changes) => clusters.call({ cmd: 'firstVisible', changes }),
      partitionWrites: (fromMs, toMs, top, prefixes) => dynamo.call({ cmd: 'partitionWrites', fromMs, toMs, top, prefixes }),
      cloudWatchQueries: () => clusters.call({ cmd: 'cloudWatchQueries' }),
      stop: async () => {
        await Promise.all([dynamo.stop(), clusters.stop()]);
      },
    };
  } catch (e) {
    await Promise.all([dynamo.stop(), clusters.stop()]);
    throw e;
  }
}

// ---- the child ----

function k8sCategory(method: string, path: string): string {
  const a = requestAttributes(method, path);
  if (!a.resourceRequest) return 'discovery';
  const verb = a.verb === 'get' && !a.name ? 'list' : a.verb;
  return `${verb} ${a.apiGroup || 'core'}/${a.resource}${a.subresource ? `/${a.subresource}` : ''}`;
}

/** Answers the parent's requests with `handle`. */
function answer(handle: (m: Request) => Promise<unknown> | unknown): void {
  process.on('message', (m: Request & { id: number }) => {
    void (async () => handle(m))().then(
      (value) => process.send!({ id: m.id, value }),
      (e: unknown) => process.send!({ id: m.id, error: e instanceof Error ? e.message : String(e) }),
    );
  });
}

const cpuMs = () => {
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1000;
};

async function serveDynamo(): Promise<void> {
  let meter: Awaited<ReturnType<typeof startDynamoMeter>>;
  answer(async (m) => {
    if (m.cmd === 'init') {
      meter = await startDynamoMeter((await startDynalite()).endpoint);
      return { dynamo: meter.endpoint };
    }
    if (m.cmd === 'counts') return { dynamo: meter.counts(), cpuMs: cpuMs() };
    if (m.cmd === 'partitionWrites') return meter.partitionWrites(m.fromMs, m.toMs, m.top, m.prefixes);
    throw new Error(`${m.cmd}: not a DynamoDB request`);
  });
}

async function serveClusters(): Promise<void> {
  const clock = { t: 0, real: false, offset: 0, now: () => new Date(clock.real ? Date.now() + clock.offset : clock.t) };
  let factor = 1;
  const steps = new Map<string, { at: number; factor: number }[]>();
  const patches: Patch[] = [];
  const k8sCounts: Record<string, number> = {};
  const servers: K8sApiServer[] = [];
  let cloudWatch: LocalCloudWatch;
  let cw = { calls: 0, metricStats: 0 };
  const byQuery: Record<string, number> = {};
  const token = `bench-${Math.random().toString(36).slice(2)}`;

  const models = new Map<string, { model: WorkloadModel; scrapeSeconds?: number; storedAtMs: number }>();
  /** The first store of a loop, from the step on, at which a pod's served CPU shows it (more than half way up); the clock is put back after. */
  function firstVisible(c: VisibleQuery): number {
    const m = models.get(c.cluster);
    if (!m?.scrapeSeconds) throw new Error(`${c.cluster}: no scrape loop`);
    const res = m.scrapeSeconds * 1000;
    const stored = m.storedAtMs;
    const saved = clock.t;
    const cpuOf = (x: Record<string, unknown>) => Number(String((x.containers as { usage: { cpu: string } }[])[0]?.usage.cpu).replace(/n$/, ''));
    const served = (ms: number) => {
      clock.t = ms;
      return m.model.podMetrics(c.namespace, (l) => l.app === c.name).map(cpuOf);
    };
    try {
      const before = Math.max(...served(c.at - res));
      for (let s = Math.ceil((c.at - stored) / res) * res + stored; s < c.at + 10 * res; s += res) {
        if (served(s).some((cpu) => cpu > before * 1.5)) return s;
      }
      throw new Error(`${c.namespace}/${c.name}: the step at ${c.at} never shows`);
    } finally {
      clock.t = saved;
    }
  }

  let jitter = 0;
  const noise = (key: string, ms: number) => 1 + jitter * ((hash32(`${key}@${ms}`) / 2 ** 32) * 2 - 1);

  async function init(s: Scenario): Promise<Omit<ServerEndpoints, 'dynamo'>> {
    jitter = s.jitter ?? 0;
    clock.real = s.realTime ?? false;
    // The workloads run since an hour before the start: no pod is in its CPU initialization period.
    clock.t = s.start - 3_600_000;
    clock.offset = -3_600_000;
    cloudWatch = await startLocalCloudWatch({ clock: () => clock.now().getTime(), ingestDelaySeconds: s.cloudWatchIngestDelaySeconds ?? 0 });
    const clusters: ServerEndpoints['clusters'] = [];
    for (let c = 0; c < s.clusters; c++) {
      const name = clusterName(c);
      const Model = s.eks ? EksWorkloadModel : WorkloadModel;
      const scrape = s.scrapeSeconds
        ? { resolutionSeconds: s.scrapeSeconds, phaseMs: storedAtMs(s) - loopMs(s), loopMs: loopMs(s), offsetMs: (namespace: string, workload: string) => nodeOffsetMs(name, namespace, workload), ...(s.sampleSpreadMs === undefined ? {} : { sampleSpreadMs: s.sampleSpreadMs }) }
        : undefined;
      const model = new Model({ clock, startDelaySeconds: 0, readyDelaySeconds: 0, terminationGraceSeconds: 0, baseline: { cpu: 0, memory: 64 * 1024 * 1024 }, ...(scrape ? { scrape } : {}) });
      const setReplicas = model.setReplicas.bind(model);
      model.setReplicas = (namespace: string, type: ResourceType, workload: string, replicas: number) => {
        patches.push({ cluster: name, namespace, name: workload, replicas, at: clock.now().getTime(), wallMs: Date.now() });
        return setReplicas(namespace, type, workload, replicas);
      };
      for (let n = 0; n < s.namespacesPerCluster; n++) {
        const namespace = namespaceName(n);
        for (let w = 0; w < s.workloadsPerNamespace; w++) {
          const wname = workloadName(w);
          const key = `${name}/${namespace}/${wname}`;
          const factorAt = (metric: LoadSteps['metric'], ms: number) => steps.get(`${key}/${metric}`)?.filter((x) => x.at <= ms).at(-1)?.factor ?? factor;
          // Half the CPU requested by the starting replicas, times the factor in force (the model asks at the pods' last scrape).
          const base = s.podsPerWorkload * CPU_REQUEST_CORES * 0.5;
          const load = (at: Date) => ({ cpu: base * factorAt('cpu', at.getTime()) * noise(key, at.getTime()) });
          model.addWorkload({
            kind: 'Deployment',
            apiVersion: 'apps/v1',
            namespace,
            name: wname,
            replicas: s.podsPerWorkload,
            selector: { app: wname },
            containers: [{ name: 'app', requests: { cpu: `${CPU_REQUEST_CORES * 1000}m`, memory: '256Mi' } }],
            load,
          });
          if (s.cloudWatchValue !== undefined) {
            const value = s.cloudWatchValue;
            cloudWatch.setSeriesFunction({ ...QUEUE_METRIC, dimensions: [{ name: 'QueueName', value: queueName(name, namespace, wname) }] }, (t) => value * factorAt('queue', t * 1000) * noise(key, t * 1000), s.cloudWatchSampleSeconds ?? 60);
          }
        }
      }
      models.set(name, { model, scrapeSeconds: s.scrapeSeconds, storedAtMs: storedAtMs(s) });
      const server = await startK8sApiServer({ model, token });
      servers.push(server);
      clusters.push({ name, url: server.url, caData: server.caData });
    }
    clock.t = s.start;
    clock.offset = 0;
    return { cloudWatch: cloudWatch.url, token, clusters };
  }

  function counts(): Omit<ServerCounts, 'dynamo'> {
    for (const s of servers) {
      for (const r of s.requestLog) {
        const k = k8sCategory(r.method, r.path);
        k8sCounts[k] = (k8sCounts[k] ?? 0) + 1;
      }
      s.requestLog.length = 0;
    }
    const now = cloudWatch.counts();
    cw = { calls: cw.calls + now.calls, metricStats: cw.metricStats + now.metricStats };
    for (const r of cloudWatch.requests) {
      if (r.operation !== 'GetMetricData') continue;
      for (const q of (r.body as { MetricDataQueries?: { MetricStat?: unknown }[] }).MetricDataQueries ?? []) {
        if (!q.MetricStat) continue;
        const k = JSON.stringify(q.MetricStat);
        byQuery[k] = (byQuery[k] ?? 0) + 1;
      }
    }
    cloudWatch.requests.length = 0;
    return { k8s: { ...k8sCounts }, cloudWatch: { ...cw }, cpuMs: cpuMs() };
  }

  answer((m) => {
    switch (m.cmd) {
      case 'init':
        return init(m.scenario);
      case 'time':
        clock.t = m.ms;
        return;
      case 'factor':
        factor = m.factor;
        return;
      case 'steps':
        for (const l of m.loads) steps.set(`${l.cluster}/${l.namespace}/${l.name}/${l.metric}`, l.steps);
        return;
      case 'counts':
        return counts();
      case 'patches':
        return patches.splice(0);
      case 'firstVisible':
        return m.changes.map((c) => firstVisible(c));
      case 'cloudWatchQueries':
        counts();
        return { ...byQuery };
      default:
        throw new Error(`${m.cmd}: not a request for the clusters' servers`);
    }
  });
}

// A profiled process writes its profile on a normal exit only.
if (process.argv.some((a) => a.startsWith('--servers=')) && process.execArgv.includes('--cpu-prof')) process.on('SIGTERM', () => process.exit(0));
if (process.argv.includes('--servers=dynamo')) await serveDynamo();
if (process.argv.includes('--servers=clusters')) await serveClusters();
