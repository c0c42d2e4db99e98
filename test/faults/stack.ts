// The product on local parts for one run of a fault scenario (lib/local/stack/functions.ts:
// dispatcher → SQS → worker; the real store on dynalite over HTTP, behind a fault proxy; the
// real Kubernetes client over HTTPS against the local API server; the real CloudWatch client
// against the local endpoint), on a virtual clock, with the fleet deployed. It records what
// the judge compares: every log line and EMF document, every write the workloads received,
// and after every tick the scale events stored in the table.
import { randomUUID } from 'node:crypto';
import { ScanCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { createAdapters, type Adapters } from '../../functions/adapters.js';
import { createWorkerHandler } from '../../functions/worker.js';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch/server.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startLocalFunctions, type LocalFunctions } from '../../lib/local/stack/functions.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { lambdaContexts } from '../../lib/local/lambda/runtime.js';
import { CapturingLogger, CapturingMetrics, type LogLine } from '../../lib/local/lambda/telemetry-capture.js';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import { createDynamoClient } from '../../lib/store/dynamo-client.js';
import type { Clock } from '../../lib/sync/ports/clock.js';
import type { DynamoServer } from '../support/dynamo.js';
import { startFaultProxy, type FaultProxy } from '../support/dynamo-faults.js';
import { autoscaler, CLUSTER, cloudWatchMetric, cloudWatchObject, demand, FLEET, key, PERIOD_SECONDS, SHARDS, START, type FleetMember } from './fleet.js';

export const PERIOD_MS = PERIOD_SECONDS * 1000;
/** Kubernetes calls: a second of retries, half a second an attempt (a hung call costs little real time). */
const RETRY = { budgetMs: 1_000, attemptTimeoutMs: 500 };

export interface TaggedLine {
  /** The tick during which it was written (-1: setup). */
  tick: number;
  line: LogLine;
}

/** A write of a workload's /scale, as the API server applied it (to the size it had: a no-op). */
export interface ScaleWrite {
  tick: number;
  atMs: number;
  /** namespace/name of the workload (and of its autoscaler). */
  key: string;
  from: number;
  to: number;
}

/** A scale event as stored in an autoscaler's state. */
export interface StoredEvent {
  key: string;
  atMs: number;
  change: number;
  up: boolean;
  /** Recorded with the scale still pending (written before /scale, not yet confirmed). */
  pending: boolean;
}

export interface Snapshot {
  tick: number;
  atMs: number;
  events: StoredEvent[];
}

export interface Recording {
  lines: TaggedLine[];
  emf: Record<string, unknown>[];
  writes: ScaleWrite[];
  snapshots: Snapshot[];
}

export interface FaultStack {
  clock: { t: number; now(): Date };
  /** The current tick (-1 during setup). */
  tick: number;
  k8s: K8sApiServer;
  cloudWatch: LocalCloudWatch;
  dynamo: FaultProxy;
  fns: LocalFunctions;
  model: WorkloadModel;
  /** A document client straight to DynamoDB (not through the fault proxy), for hand-made items. */
  db: DynamoDBDocumentClient;
  table: string;
  rec: Recording;
  /** CloudWatch values a scenario replaces, by autoscaler key (undefined: no datapoint). */
  metricOverride: Map<string, number | undefined>;
  /** The dispatcher on the minute, then every message due now. */
  runTick(): Promise<void>;
  /** Records the scale events stored now. */
  snapshot(): Promise<void>;
  /** Another worker container (its own clients and process state), on its own clock. */
  container(opts: { clock: Clock; killOnScaleWrite?: boolean }): Container;
  /** Invocations of other containers (not dead ones) that failed. */
  containerFailures: number;
  stop(): Promise<void>;
}

export interface Container {
  /** Invokes its worker with one message body, as its SQS event source would; false when the invocation failed. */
  invoke(body: string): Promise<boolean>;
  /** Resolves when the container died (killOnScaleWrite: at its first /scale write, before sending it). */
  killed: Promise<void>;
}

let tables = 0;

export async function startFaultStack(dynamo: DynamoServer): Promise<FaultStack> {
  const clock = { t: START, now: () => new Date(clock.t) };
  const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 5, terminationGraceSeconds: 5 });
  const k8s = await startK8sApiServer({ model });
  const cloudWatch = await startLocalCloudWatch({ clock: () => clock.t, ingestDelaySeconds: 0 });
  const proxy = await startFaultProxy(dynamo.endpoint);
  const servers = () => Promise.all([k8s.stop(), cloudWatch.close(), proxy.stop()]);
  const rec: Recording = { lines: [], emf: [], writes: [], snapshots: [] };
  const table = `faults-${process.pid}-${++tables}`;
  let tick = -1;
  // Every /scale write the API server applies, with the replicas the workload had.
  const setReplicas = model.setReplicas.bind(model);
  model.setReplicas = (namespace, type, name, replicas) => {
    const from = model.replicasOf(namespace, type.kind, name);
    const done = setReplicas(namespace, type, name, replicas);
    if (done) rec.writes.push({ tick, atMs: clock.t, key: `${namespace}/${name}`, from, to: replicas });
    return done;
  };
  let fns: LocalFunctions;
  try {
    fns = await startLocalFunctions({
      clock,
      dynamoEndpoint: proxy.endpoint,
      stream: 'write-feed',
      cloudWatchEndpoint: cloudWatch.url,
      clusterToken: k8s.token,
      clusters: [{ name: CLUSTER, region: LOCAL_REGION, shards: SHARDS, endpoint: k8s.url, caData: k8s.caData }],
      tableName: table,
      periodSeconds: PERIOD_SECONDS,
      // Every decision logged: the judge reads each cycle's.
      options: { decisionLogSeconds: 0 },
      retry: RETRY,
      // One message at a time: cycles run in the queue's order, so runs replay exactly.
      workerConcurrency: 1,
      onLine: (line) => rec.lines.push({ tick, line }),
    });
  } catch (e) {
    await servers();
    throw e;
  }
  rec.emf = fns.emf;
  const db = DynamoDBDocumentClient.from(createDynamoClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
  const containers: Adapters[] = [];
  const stack: FaultStack = {
    clock,
    get tick() {
      return tick;
    },
    set tick(v: number) {
      tick = v;
    },
    k8s,
    cloudWatch,
    dynamo: proxy,
    fns,
    model,
    db,
    table,
    rec,
    metricOverride: new Map(),
    containerFailures: 0,
    async runTick() {
      if ((clock.t - START) % 60_000 === 0) await fns.dispatch(new Date(clock.t));
      await fns.drain();
    },
    async snapshot() {
      rec.snapshots.push({ tick, atMs: clock.t, events: await storedEvents(db, table) });
    },
    container(opts) {
      const adapters = createAdapters(fns.config, {
        clock: opts.clock,
        local: { dynamoDb: proxy.endpoint, cloudWatch: cloudWatch.url, sqs: fns.sqs.endpoint, credentials: LOCAL_CREDENTIALS, clusterToken: k8s.token },
        retry: RETRY,
      });
      containers.push(adapters);
      return container(stack, adapters, opts);
    },
    async stop() {
      await fns.close();
      for (const a of containers) {
        a.sqs.destroy();
        a.store.client.destroy();
      }
      db.destroy();
      await servers();
    },
  };
  try {
    await deployFleet(stack);
  } catch (e) {
    await stack.stop();
    throw e;
  }
  return stack;
}

/** The fleet's workloads, metrics and autoscalers, and the evaluations their applies cause. */
async function deployFleet(s: FaultStack): Promise<void> {
  const { clock, model, cloudWatch, fns } = s;
  const valueOf = (m: FleetMember) => (s.metricOverride.has(key(m)) ? s.metricOverride.get(key(m)) : demand(m, clock.t));
  // The workloads' pods are older than the CPU initialization period, as in a running cluster.
  clock.t = START - 600_000;
  for (const m of FLEET) {
    model.addWorkload({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      namespace: m.namespace,
      name: m.name,
      replicas: 2,
      selector: { app: m.name },
      containers: [{ name: 'app', requests: { cpu: '500m' } }],
      ...(m.source === 'cpu' ? { load: (now: Date) => ({ cpu: demand(m, now.getTime()) }) } : {}),
    });
    if (m.source === 'external') model.setExternalMetric(m.namespace, m.metric, (now) => demand(m, now.getTime()));
    // The value of "now" on the virtual clock, whatever the datapoint's time: a fault window is a span of ticks.
    if (m.source === 'cloudwatch') cloudWatch.setSeriesFunction(cloudWatchMetric(m), () => valueOf(m), 5);
  }
  clock.t = START;
  for (const m of FLEET) if (m.source === 'cloudwatch') await fns.admin.applySpec(CLUSTER, cloudWatchObject(m), clock.now());
  for (const m of FLEET) await fns.admin.applySpec(CLUSTER, autoscaler(m), clock.now());
  await fns.drain();
}

const NEVER = new Promise<never>(() => undefined);

/**
 * A worker container whose process can die: once dead, every call it makes never returns and
 * every answer it waits for is never seen (as with a killed process, whose requests already
 * sent may still be served). It prints no more lines and releases no lease.
 */
function container(stack: FaultStack, adapters: Adapters, opts: { clock: Clock; killOnScaleWrite?: boolean }): Container {
  let dead = false;
  let die!: () => void;
  const killed = new Promise<void>((resolve) => (die = resolve));
  const freeze = <T extends object>(target: T, before?: (method: string) => void): T =>
    new Proxy(target, {
      get(t, p) {
        const v: unknown = Reflect.get(t, p, t);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          before?.(String(p));
          if (dead) return NEVER;
          const out: unknown = v.apply(t, args);
          if (!(out instanceof Promise)) return out;
          return out.then(
            (x: unknown) => (dead ? NEVER : x),
            (e: unknown) => (dead ? NEVER : Promise.reject(e)),
          );
        };
      },
    });
  const onClusterCall = (method: string) => {
    if (opts.killOnScaleWrite && method === 'updateScale' && !dead) {
      dead = true;
      die();
    }
  };
  const frozen: Adapters = {
    ...adapters,
    store: freeze(adapters.store),
    metrics: freeze(adapters.metrics),
    queue: freeze(adapters.queue),
    clusters: freeze(adapters.clusters),
    cluster: (c) => freeze(adapters.cluster(c), onClusterCall),
  };
  const logger = new CapturingLogger({ serviceName: 'serverless-hpa', persistentKeys: { function: 'worker', container: 'second' } });
  logger.onLine = (line) => {
    if (!dead) stack.rec.lines.push({ tick: stack.tick, line });
  };
  const emf = new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
  emf.documents = stack.rec.emf;
  const handler = createWorkerHandler({
    config: stack.fns.config,
    adapters: () => frozen,
    logger,
    emf,
    log: { periodSeconds: PERIOD_SECONDS, decisionLogSeconds: 0, autoscalerMetrics: false, detailedMetrics: false },
  });
  const context = lambdaContexts({ functionName: 'serverless-hpa-local-worker', timeoutSeconds: PERIOD_SECONDS, clock: () => opts.clock.now().getTime() });
  return {
    killed,
    invoke(body) {
      const record = {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body,
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(opts.clock.now().getTime()) },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:${LOCAL_REGION}:000000000000:work`,
        awsRegion: LOCAL_REGION,
      } as unknown as SQSRecord;
      return handler({ Records: [record] } satisfies SQSEvent, context() as Context).then(
        () => true,
        () => {
          // A dead container's invocation fails too, but that is the fault itself (Lambda's Errors), not the product's doing.
          if (!dead) stack.containerFailures++;
          return false;
        },
      );
    },
  };
}

/** Scale events of every stored state, each marked pending when the state's pending scale is that event. */
async function storedEvents(db: DynamoDBDocumentClient, table: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) {
      const sk = String(item.sk);
      if (!sk.startsWith('st#')) continue;
      const [, namespace, name] = sk.split('#');
      const pend = parse(item.pend) as { from?: number; to?: number; at?: string } | undefined;
      for (const [attr, up] of [['up', true], ['dn', false]] as const) {
        const pairs = parse(item[attr]);
        if (!Array.isArray(pairs)) continue;
        for (const p of pairs) {
          if (!Array.isArray(p) || typeof p[0] !== 'number' || typeof p[1] !== 'number') continue;
          const [atMs, change] = p as [number, number];
          const pending =
            pend !== undefined && Date.parse(String(pend.at)) === atMs && Math.abs(Number(pend.to) - Number(pend.from)) === change && Number(pend.to) > Number(pend.from) === up;
          out.push({ key: `${namespace}/${name}`, atMs, change, up, pending });
        }
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

function parse(v: unknown): unknown {
  if (typeof v !== 'string') return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}
