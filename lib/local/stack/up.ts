// `shpa local up`: the whole product on this machine, in real time, for kubectl: dynalite,
// a local Kubernetes API server with our CRDs, workloads whose load you set, the metrics APIs
// and CloudWatch, the local SQS queue, and the four functions running as Lambda would (the
// dispatcher every minute, the worker on the queue, the stream on the table's writes).
import { join } from 'node:path';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startDynalite } from '../../store/dynalite.js';
import type { ClusterConfig } from '#sync/ports';
import { startLocalCloudWatch, type LocalCloudWatch } from '../cloudwatch/server.js';
import { metricCrds, serverlessHpaCrd } from '../kubernetes/crd/manifests.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startLocalFunctions, type LocalFunctions } from './functions.js';
import { startPodExposition } from '../prometheus/exposition.js';
import { findPrometheus, startPrometheus } from '../prometheus/prometheus-server.js';
import { startQueryProxy } from '../prometheus/sigv4-proxy.js';
import { startK8sApiServer, type K8sApiServer } from '../kubernetes/api-server.js';
import { startStandInHpaController, type StandInHpaController } from '../kubernetes/hpa-controller.js';
import { writeKubeconfig } from '../kubernetes/kubeconfig.js';
import type { LogLine } from '../lambda/telemetry-capture.js';
import { WorkloadModel } from '../kubernetes/workload-model.js';

export const LOCAL_CLUSTER = 'local';
export const LOCAL_TABLE = 'shpa';
/** The AMP workspace the local stand-in serves (examples/kubernetes/web-requests.yaml). */
export const LOCAL_AMP_WORKSPACE = 'ws-00000000-0000-4000-8000-000000000000';
/** Requests a second each local workload serves at load 1, as http_requests_total. */
const REQUESTS_AT_LOAD1 = 10;

/** A workload of the local cluster: what its pods request and use at relative load 1. */
export interface LocalWorkload {
  namespace: string;
  name: string;
  replicas: number;
  /** CPU cores used in total at load 1, shared by its ready pods. */
  cpuAtLoad1: number;
}

export const LOCAL_WORKLOADS: LocalWorkload[] = [
  { namespace: 'demo', name: 'web', replicas: 2, cpuAtLoad1: 0.5 },
  { namespace: 'demo', name: 'api', replicas: 2, cpuAtLoad1: 0.5 },
  // examples/kubernetes/scale-to-zero.yaml takes it to zero and back.
  { namespace: 'demo', name: 'reports', replicas: 1, cpuAtLoad1: 0.5 },
  // examples/kubernetes/web-requests.yaml (PromQL) and scheduled-minimums.yaml: each example its own workload,
  // so that the whole folder applies with one autoscaler per target.
  { namespace: 'demo', name: 'catalog', replicas: 2, cpuAtLoad1: 0.5 },
  { namespace: 'demo', name: 'batch', replicas: 1, cpuAtLoad1: 0.5 },
  // examples/kubernetes/sqs-queue.yaml: scaled on the local SQS queue `orders` (LOCAL_QUEUES).
  { namespace: 'demo', name: 'orders', replicas: 1, cpuAtLoad1: 0.5 },
];

/** Queues of the local SQS for the examples (`sqs send orders --count 50`, typed into `shpa local up`). */
export const LOCAL_QUEUES = ['orders'];

export interface LocalUpOptions {
  /** Where the kubeconfig goes. */
  kubeconfig: string;
  periodSeconds?: number;
  workloads?: LocalWorkload[];
  onLine?: (line: LogLine) => void;
}

export interface LocalUp {
  k8s: K8sApiServer;
  model: WorkloadModel;
  cloudWatch: LocalCloudWatch;
  /** A real Prometheus scraping the workloads' pods, and the AMP stand-in in front of it; absent without the binary. */
  prometheus?: { url: string; amp: string; workspaceId: string };
  fns: LocalFunctions;
  /** kube-controller-manager's HPA controller, stood in: it scales what autoscaling/v2 HPAs ask (docs/migrate.md). */
  hpaController: StandInHpaController;
  kubeconfig: string;
  /** Where `shpa` reads the functions' table: SHPA_DYNAMODB_ENDPOINT, SHPA_TABLE, SHPA_CLUSTER, AWS_REGION. */
  dynamoEndpoint: string;
  tableName: string;
  cluster: string;
  region: string;
  /** Sets a workload's relative load (1 = its normal level). */
  setLoad(namespace: string, name: string, load: number): void;
  stop(): Promise<void>;
}

export async function startLocalUp(o: LocalUpOptions): Promise<LocalUp> {
  const clock = { now: () => new Date() };
  const loads = new Map<string, number>();
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const dynamo = await startDynalite();
    stops.push(dynamo.stop);
    // Pods start and become ready quickly, so a scale shows within a period or two.
    const model = new WorkloadModel({ clock, startDelaySeconds: 1, readyDelaySeconds: 2, terminationGraceSeconds: 5 });
    for (const w of o.workloads ?? LOCAL_WORKLOADS) {
      const key = `${w.namespace}/${w.name}`;
      loads.set(key, 1);
      model.addWorkload({
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        namespace: w.namespace,
        name: w.name,
        replicas: w.replicas,
        selector: { app: w.name },
        containers: [{ name: 'app', requests: { cpu: '250m', memory: '128Mi' } }],
        load: () => ({ cpu: w.cpuAtLoad1 * (loads.get(key) ?? 1), memory: 64 * 1024 ** 2 }),
        // Running for a while already, so its CPU counts from the first tick (upstream ignores fresh pods' CPU).
        createdAt: new Date(Date.now() - 10 * 60_000),
      });
    }
    const k8s = await startK8sApiServer({ model, crds: [serverlessHpaCrd(), ...metricCrds()] });
    stops.push(() => k8s.stop());
    const hpaController = startStandInHpaController({ url: k8s.url, caPem: k8s.caPem, token: k8s.token, syncPeriodMs: (o.periodSeconds ?? 15) * 1000 });
    stops.push(() => hpaController.stop());
    const cloudWatch = await startLocalCloudWatch({ clock: () => Date.now(), ingestDelaySeconds: 0 });
    stops.push(() => cloudWatch.close());
    const prometheus = await startLocalPrometheus(model, o.workloads ?? LOCAL_WORKLOADS, (key) => loads.get(key) ?? 1, stops);
    const cluster: ClusterConfig & { endpoint: string; caData: string } = { name: LOCAL_CLUSTER, region: LOCAL_REGION, shards: 1, endpoint: k8s.url, caData: k8s.caData };
    const fns = await startLocalFunctions({
      clock,
      dynamoEndpoint: dynamo.endpoint,
      stream: 'write-feed',
      cloudWatchEndpoint: cloudWatch.url,
      clusterToken: k8s.token,
      clusters: [cluster],
      tableName: LOCAL_TABLE,
      periodSeconds: o.periodSeconds ?? 15,
      onLine: o.onLine,
      ...(prometheus ? { prometheus: { amp: prometheus.amp } } : {}),
    });
    stops.push(() => fns.close());
    const kubeconfig = await writeKubeconfig(k8s, o.kubeconfig, { name: 'shpa-local', namespace: 'demo' });
    const sqsClient = new SQSClient({ endpoint: fns.sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    for (const QueueName of LOCAL_QUEUES) await sqsClient.send(new CreateQueueCommand({ QueueName }));
    sqsClient.destroy();
    fns.start();
    return {
      k8s,
      model,
      cloudWatch,
      ...(prometheus ? { prometheus } : {}),
      fns,
      hpaController,
      kubeconfig,
      dynamoEndpoint: dynamo.endpoint,
      tableName: LOCAL_TABLE,
      cluster: LOCAL_CLUSTER,
      region: LOCAL_REGION,
      setLoad(namespace, name, load) {
        const key = `${namespace}/${name}`;
        if (!loads.has(key)) throw new Error(`no workload ${key} (there are ${[...loads.keys()].join(', ')})`);
        if (!(load >= 0)) throw new Error(`load must be a number ≥ 0, got ${load}`);
        loads.set(key, load);
      },
      async stop() {
        for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
      },
    };
  } catch (e) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw e;
  }
}

/**
 * Where the machine has Prometheus: the workloads' pods serve http_requests_total (their load
 * × REQUESTS_AT_LOAD1 a second), Prometheus scrapes them, and an AMP stand-in checking SigV4 serves it.
 */
async function startLocalPrometheus(
  model: WorkloadModel,
  workloads: LocalWorkload[],
  loadOf: (key: string) => number,
  stops: (() => Promise<unknown>)[],
): Promise<LocalUp['prometheus']> {
  const binary = findPrometheus();
  if (!binary) return undefined;
  const exposition = await startPodExposition(model);
  stops.push(() => exposition.close());
  for (const w of workloads) exposition.serve({ namespace: w.namespace, selector: { app: w.name }, rate: () => REQUESTS_AT_LOAD1 * loadOf(`${w.namespace}/${w.name}`) });
  const server = await startPrometheus({ binary, targets: [exposition.target] });
  stops.push(() => server.stop());
  const amp = await startQueryProxy({ upstream: server.url, workspaces: [LOCAL_AMP_WORKSPACE], auth: { sigv4: { service: 'aps', region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS } } });
  stops.push(() => amp.close());
  return { url: server.url, amp: amp.url, workspaceId: LOCAL_AMP_WORKSPACE };
}

export const DEFAULT_KUBECONFIG = join('.shpa', 'local', 'kubeconfig');
