// Bench-only: the local servers a benchmark measures against, in a process of their own so
// that the benchmark's process CPU time is the functions' alone: DynamoDB (dynalite behind
// dynamo-meter), the local CloudWatch endpoint, and one local Kubernetes API server per
// cluster with its workload model, all on one virtual clock the benchmark sets. Calls are
// counted at the servers. Run as a child of startServers(); talks over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch-server.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/k8s-api-server.js';
import { requestAttributes } from '../../lib/local/k8s-rbac.js';
import { WorkloadModel, type ResourceType } from '../../lib/local/workload-model.js';
import { startDynalite } from '../../lib/store/dynalite.js';
import { startDynamoMeter, type DynamoCounts } from './dynamo-meter.js';
import { EksWorkloadModel } from './eks-objects.js';

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
  /** metrics-server's resolution: a pod's CPU is what it was at its last scrape (each workload its own phase). */
  scrapeSeconds?: number;
  /** Noise on every load and queue value: ± this fraction, a new draw each scrape (or minute, for CloudWatch). */
  jitter?: number;
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
  /** CPU time of the servers' process (ms). */
  cpuMs: number;
}

export interface Patch {
  cluster: string;
  namespace: string;
  name: string;
  replicas: number;
  /** Virtual time of the patch, and the wall clock (epoch ms). */
  at: number;
  wallMs: number;
}

/** CPU load steps of one workload: from `at` (virtual ms), its pods use `factor` × their CPU request / 2 in total. */
export interface LoadSteps {
  cluster: string;
  namespace: string;
  name: string;
  steps: { at: number; factor: number }[];
}

type Request =
  | { cmd: 'init'; scenario: Scenario }
  | { cmd: 'time'; ms: number }
  | { cmd: 'factor'; factor: number }
  | { cmd: 'steps'; loads: LoadSteps[] }
  | { cmd: 'counts' }
  | { cmd: 'patches' };

export interface Servers extends ServerEndpoints {
  setTime(ms: number): Promise<void>;
  /** Every workload's CPU load, × its starting load. */
  setLoadFactor(factor: number): Promise<void>;
  setLoadSteps(loads: LoadSteps[]): Promise<void>;
  /** Cumulative counts since the start. */
  counts(): Promise<ServerCounts>;
  /** /scale writes since the last call. */
  patches(): Promise<Patch[]>;
  stop(): Promise<void>;
}

export async function startServers(scenario: Scenario): Promise<Servers> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--servers'], { execArgv: ['--import', 'tsx', '--max-old-space-size=4096'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: { id: number; value?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(`servers: ${m.error}`));
    else w?.resolve(m.value);
  });
  child.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`the servers' process exited (${code})`));
    waiting.clear();
  });
  const call = <T>(req: Request) =>
    new Promise<T>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, ...req });
    });
  const endpoints = await call<ServerEndpoints>({ cmd: 'init', scenario });
  return {
    ...endpoints,
    setTime: (ms) => call({ cmd: 'time', ms }),
    setLoadFactor: (factor) => call({ cmd: 'factor', factor }),
    setLoadSteps: (loads) => call({ cmd: 'steps', loads }),
    counts: () => call({ cmd: 'counts' }),
    patches: () => call({ cmd: 'patches' }),
    stop: async () => {
      child.kill();
      await new Promise((r) => child.once('exit', r));
    },
  };
}

// ---- the child ----

function k8sCategory(method: string, path: string): string {
  const a = requestAttributes(method, path);
  if (!a.resourceRequest) return 'discovery';
  const verb = a.verb === 'get' && !a.name ? 'list' : a.verb;
  return `${verb} ${a.apiGroup || 'core'}/${a.resource}${a.subresource ? `/${a.subresource}` : ''}`;
}

async function serve(): Promise<void> {
  const clock = { t: 0, now: () => new Date(clock.t) };
  let factor = 1;
  const steps = new Map<string, { at: number; factor: number }[]>();
  const patches: Patch[] = [];
  const k8sCounts: Record<string, number> = {};
  const servers: K8sApiServer[] = [];
  let cloudWatch: LocalCloudWatch;
  let cw = { calls: 0, metricStats: 0 };
  let meter: Awaited<ReturnType<typeof startDynamoMeter>>;
  const token = `bench-${Math.random().toString(36).slice(2)}`;

  let jitter = 0;
  const noise = (key: string, ms: number) => 1 + jitter * ((hash(`${key}@${ms}`) / 2 ** 32) * 2 - 1);

  async function init(s: Scenario): Promise<ServerEndpoints> {
    jitter = s.jitter ?? 0;
    // The workloads run since an hour before the start: no pod is in its CPU initialization period.
    clock.t = s.start - 3_600_000;
    const dynalite = await startDynalite();
    meter = await startDynamoMeter(dynalite.endpoint);
    cloudWatch = await startLocalCloudWatch({ clock: () => clock.t, ingestDelaySeconds: 0 });
    const clusters: ServerEndpoints['clusters'] = [];
    for (let c = 0; c < s.clusters; c++) {
      const name = clusterName(c);
      const Model = s.eks ? EksWorkloadModel : WorkloadModel;
      const model = new Model({ clock, startDelaySeconds: 0, readyDelaySeconds: 0, terminationGraceSeconds: 0, baseline: { cpu: 0, memory: 64 * 1024 * 1024 } });
      const setReplicas = model.setReplicas.bind(model);
      model.setReplicas = (namespace: string, type: ResourceType, workload: string, replicas: number) => {
        patches.push({ cluster: name, namespace, name: workload, replicas, at: clock.t, wallMs: Date.now() });
        return setReplicas(namespace, type, workload, replicas);
      };
      for (let n = 0; n < s.namespacesPerCluster; n++) {
        const namespace = namespaceName(n);
        for (let w = 0; w < s.workloadsPerNamespace; w++) {
          const wname = workloadName(w);
          const key = `${name}/${namespace}/${wname}`;
          const phaseMs = s.scrapeSeconds ? Math.floor((hash(key) / 2 ** 32) * s.scrapeSeconds * 1000) : 0;
          // Half the CPU requested by the starting replicas, times the factor in force at the pods' last scrape.
          const base = s.podsPerWorkload * CPU_REQUEST_CORES * 0.5;
          const load = (now: Date) => {
            const res = (s.scrapeSeconds ?? 0) * 1000;
            const scraped = res ? Math.floor((now.getTime() - phaseMs) / res) * res + phaseMs : now.getTime();
            const own = steps.get(key)?.filter((x) => x.at <= scraped).at(-1)?.factor;
            return { cpu: base * (own ?? factor) * noise(key, scraped) };
          };
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
            cloudWatch.setSeriesFunction({ ...QUEUE_METRIC, dimensions: [{ name: 'QueueName', value: queueName(name, namespace, wname) }] }, (t) => value * factor * noise(key, t * 1000), 60);
          }
        }
      }
      const server = await startK8sApiServer({ model, token });
      servers.push(server);
      clusters.push({ name, url: server.url, caData: server.caData });
    }
    clock.t = s.start;
    return { dynamo: meter.endpoint, cloudWatch: cloudWatch.url, token, clusters };
  }

  function counts(): ServerCounts {
    for (const s of servers) {
      for (const r of s.requestLog) {
        const k = k8sCategory(r.method, r.path);
        k8sCounts[k] = (k8sCounts[k] ?? 0) + 1;
      }
      s.requestLog.length = 0;
    }
    const now = cloudWatch.counts();
    cw = { calls: cw.calls + now.calls, metricStats: cw.metricStats + now.metricStats };
    cloudWatch.requests.length = 0;
    const cpu = process.cpuUsage();
    return { k8s: { ...k8sCounts }, cloudWatch: { ...cw }, dynamo: meter.counts(), cpuMs: (cpu.user + cpu.system) / 1000 };
  }

  process.on('message', (m: Request & { id: number }) => {
    void (async () => {
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
          for (const l of m.loads) steps.set(`${l.cluster}/${l.namespace}/${l.name}`, l.steps);
          return;
        case 'counts':
          return counts();
        case 'patches':
          return patches.splice(0);
      }
    })().then(
      (value) => process.send!({ id: m.id, value }),
      (e: unknown) => process.send!({ id: m.id, error: e instanceof Error ? e.message : String(e) }),
    );
  });
}

function hash(s: string): number {
  let h = 2166136261;
  for (const ch of s) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h;
}

if (process.argv.includes('--servers')) await serve();
