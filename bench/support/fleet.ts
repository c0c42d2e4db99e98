// Bench-only: a fleet of autoscalers on the whole product (lib/local/stack/functions.ts: the
// real dispatcher and worker, the real clients) against the servers of servers.ts, on one
// virtual clock, with the shipped settings (loadFunctionConfig's defaults). Each autoscaler:
// CPU at 50 % of requests, and one CloudWatch metric (its own queue, 10 messages a pod). One
// tick: the dispatcher at each minute, then every message due is handled, one at a time, so
// each shard cycle's wall and CPU time are its own.
import { BatchWriteCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { applyDefaults } from '#hpa/api';
import type { HorizontalPodAutoscaler } from '#hpa';
import { startLocalFunctions, LOCAL_CREDENTIALS, LOCAL_REGION, type LocalFunctions } from '../../lib/local/stack/functions.js';
import type { LogLine } from '../../lib/local/lambda/telemetry-capture.js';
import type { CloudWatchMetric } from '#api';
import { createDynamoClient } from '../../lib/store/index.js';
import { bucketIndexKey, bucketPk, KIND_CLOUDWATCH, KIND_HPA, specSk } from '../../lib/store/items.js';
import { bucketOf, loadFunctionConfig, type SyncOptions } from '#sync/messaging';
import { clusterName, namespaceName, QUEUE_METRIC, queueName, startServers, workloadName, type Scenario, type ServerCounts, type Servers } from './servers.js';

export const PERIOD_MS = 15_000;

/** The worker's options exactly as a deploy with no overrides gets them. */
export function shippedOptions(): SyncOptions {
  const env = { AWS_REGION: LOCAL_REGION, SHPA_TABLE: 't', SHPA_QUEUE_URL: 'q', SHPA_CLUSTERS: '[{"name":"c"}]' };
  return loadFunctionConfig(env).options;
}

export interface ShardCycle {
  shard: string;
  trigger: string;
  /** Wall and process CPU time of the invocation (the message's receive and delete included). */
  wallMs: number;
  cpuMs: number;
  /** The cycle's own duration, as its summary line says. */
  durationMs: number;
  autoscalers: number;
  scaled: number;
  errors: number;
}

export interface TickResult {
  at: number;
  cycles: ShardCycle[];
  /** Calls counted at the servers during the tick. */
  counts: CountsDelta;
  sqs: Record<string, number>;
  /** Log lines written, and their bytes, by message. */
  logs: Record<string, { lines: number; bytes: number }>;
  emfBytes: number;
  /** The first few errors the tick's decision and cycle lines report. */
  errors: string[];
  /** When each of the tick's drains started: its virtual time, and the real time (Date.now()). */
  drains: { at: number; wallMs: number }[];
}

export type CountsDelta = Omit<ServerCounts, 'cpuMs'> & { cpuMsBy?: ServerCounts['cpuMsBy'] };

export interface FleetOptions extends Omit<Scenario, 'start' | 'cloudWatchValue'> {
  shardsPerCluster: number;
  /** Start of the virtual clock: a minute boundary. */
  start?: number;
  /** The worker's concurrent invocations; default 1 (each shard cycle measured alone). */
  workerConcurrency?: number;
  /** Each CloudWatchMetric names an alarm (alarmName), whose state changes evaluate its readers. */
  alarms?: boolean;
  /** A tick() runs what is due second by second through its period (ticks off the even seconds: a shard's phase). */
  everySecond?: boolean;
  /** Every autoscaler's spec.syncPeriodSeconds. */
  syncPeriodSeconds?: number;
  /** The param cloudWatchPublishDelay ('learn', the shipped default, or fixed seconds). */
  cloudWatchPublishDelay?: 'learn' | number;
}

export interface Fleet {
  servers: Servers;
  fns: LocalFunctions;
  clock: { t: number; now(): Date };
  autoscalers: number;
  shards: number;
  /** One sync period from the current time; the clock moves one period on (virtual time only). */
  tick(): Promise<TickResult>;
  stop(): Promise<void>;
}

export function autoscaler(namespace: string, name: string): HorizontalPodAutoscaler {
  return applyDefaults({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 1,
      maxReplicas: 50,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        { type: 'External', external: { metric: { name: `queue-${name}` }, target: { type: 'AverageValue', averageValue: '10' } } },
      ],
    },
  });
}

export const alarmName = (cluster: string, namespace: string, name: string) => `${queueName(cluster, namespace, name)}-backlog`;

export function queueObject(cluster: string, namespace: string, name: string, alarm = false): CloudWatchMetric {
  return {
    apiVersion: 'shpa.dev/v1',
    kind: 'CloudWatchMetric',
    metadata: { name: `queue-${name}`, namespace },
    spec: {
      queries: [{ id: 'visible', metricStat: { metric: { ...QUEUE_METRIC, dimensions: [{ name: 'QueueName', value: queueName(cluster, namespace, name) }] }, period: 60, stat: 'Average' }, returnData: true }],
      ...(alarm ? { alarmName: alarmName(cluster, namespace, name) } : {}),
    },
  };
}

export function diffCounts(a: CountsDelta, b: CountsDelta): CountsDelta {
  const sub = (x: Record<string, number>, y: Record<string, number>) =>
    Object.fromEntries(Object.keys(y).map((k) => [k, y[k] - (x[k] ?? 0)]).filter(([, v]) => v !== 0)) as Record<string, number>;
  return {
    k8s: sub(a.k8s, b.k8s),
    cloudWatch: { calls: b.cloudWatch.calls - a.cloudWatch.calls, metricStats: b.cloudWatch.metricStats - a.cloudWatch.metricStats },
    dynamo: {
      calls: sub(a.dynamo.calls, b.dynamo.calls),
      readUnits: b.dynamo.readUnits - a.dynamo.readUnits,
      writeUnits: b.dynamo.writeUnits - a.dynamo.writeUnits,
      registryCalls: b.dynamo.registryCalls - a.dynamo.registryCalls,
    },
    ...(a.cpuMsBy && b.cpuMsBy ? { cpuMsBy: { dynamo: b.cpuMsBy.dynamo - a.cpuMsBy.dynamo, clusters: b.cpuMsBy.clusters - a.cpuMsBy.clusters } } : {}),
  };
}

export const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** Lines as Powertools prints them in Lambda: one JSON document and a newline (without the local stack's own `function` key). */
function lineBytes(l: LogLine): number {
  const { function: _local, ...line } = l;
  return Buffer.byteLength(JSON.stringify(line)) + 1;
}

/**
 * The specs as `shpa apply` stores them (lib/store applySpec: a new spec's item and its bucket
 * in the cluster's index), written 25 at a time: applySpec's four calls per spec take over a
 * minute for 20,000. Not through the functions' stream: the first tick is the first evaluation.
 */
export async function seedSpecs(endpoint: string, tableName: string, o: Pick<FleetOptions, 'clusters' | 'namespacesPerCluster' | 'workloadsPerNamespace' | 'alarms' | 'syncPeriodSeconds'>, now: Date): Promise<void> {
  const doc = DynamoDBDocumentClient.from(createDynamoClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
  const at = now.toISOString();
  const items: Record<string, unknown>[] = [];
  const buckets = new Set<string>();
  for (let c = 0; c < o.clusters; c++) {
    for (let n = 0; n < o.namespacesPerCluster; n++) {
      const [cluster, namespace] = [clusterName(c), namespaceName(n)];
      buckets.add(`${cluster}#${bucketOf(namespace)}`);
      for (let w = 0; w < o.workloadsPerNamespace; w++) {
        const name = workloadName(w);
        const hpa = autoscaler(namespace, name);
        if (o.syncPeriodSeconds) hpa.spec.syncPeriodSeconds = o.syncPeriodSeconds;
        for (const obj of [hpa, queueObject(cluster, namespace, name, o.alarms)]) {
          const { status: _s, ...spec } = obj as HorizontalPodAutoscaler;
          const metadata = { ...spec.metadata, uid: randomUUID(), creationTimestamp: at, generation: 1 };
          const kind = obj.kind === KIND_HPA ? KIND_HPA : KIND_CLOUDWATCH;
          items.push({ pk: bucketPk(cluster, bucketOf(namespace)), sk: specSk(kind, namespace, obj.metadata.name), kind, doc: JSON.stringify({ ...spec, metadata }), v: 1, ct: at, ut: at });
        }
      }
    }
  }
  for (const b of buckets) {
    const [cluster, bucket] = b.split('#');
    await doc.send(new UpdateCommand({ TableName: tableName, Key: bucketIndexKey(cluster), UpdateExpression: 'ADD #b :b', ExpressionAttributeNames: { '#b': 'b' }, ExpressionAttributeValues: { ':b': new Set([Number(bucket)]) } }));
  }
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, i * 25 + 25));
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      for (let i = lane; i < batches.length; i += 8) {
        let requests = batches[i].map((Item) => ({ PutRequest: { Item } }));
        while (requests.length > 0) {
          const r = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
          requests = (r.UnprocessedItems?.[tableName] ?? []) as typeof requests;
        }
      }
    }),
  );
  doc.destroy();
}

export async function startFleet(o: FleetOptions): Promise<Fleet> {
  const start = o.start ?? Date.parse('2026-03-02T10:00:00Z');
  const podsPerWorkload = o.podsPerWorkload;
  const servers = await startServers({ ...o, start, cloudWatchValue: podsPerWorkload * 10 });
  // A cycle that waits (lib/sync/fresh-gate.ts) moves the virtual clock on, the servers' with it.
  const clock = {
    t: start,
    now: () => (o.realTime ? new Date() : new Date(clock.t)),
    ...(o.realTime
      ? {}
      : {
          async sleep(ms: number) {
            clock.t += ms;
            await servers.setTime(clock.t);
          },
        }),
  };
  const marks = { cpu: process.cpuUsage(), wall: performance.now() };
  let cycles: ShardCycle[] = [];
  const onLine = (l: LogLine) => {
    if (l.function !== 'worker' || (l.message !== 'cycle' && l.message !== 'message')) return;
    const cpu = process.cpuUsage(marks.cpu);
    const wall = performance.now() - marks.wall;
    if (l.message === 'cycle') {
      const c = l.cycle as { shard: string; trigger: string; durationMs: number; counts: { autoscalers: number; scaled: number; errors: number } };
      cycles.push({ shard: c.shard, trigger: c.trigger, wallMs: wall, cpuMs: (cpu.user + cpu.system) / 1000, durationMs: c.durationMs, autoscalers: c.counts.autoscalers, scaled: c.counts.scaled, errors: c.counts.errors });
    }
    marks.cpu = process.cpuUsage();
    marks.wall = performance.now();
  };
  let fns: LocalFunctions | undefined;
  try {
    fns = await startLocalFunctions({
      clock,
      dynamoEndpoint: servers.dynamo,
      stream: 'write-feed',
      cloudWatchEndpoint: servers.cloudWatch,
      clusterToken: servers.token,
      clusters: servers.clusters.map((c) => ({ name: c.name, region: LOCAL_REGION, shards: o.shardsPerCluster, endpoint: c.url, caData: c.caData })),
      tableName: 'shpa-bench',
      periodSeconds: PERIOD_MS / 1000,
      options: shippedOptions(),
      workerConcurrency: o.workerConcurrency ?? 1,
      ...(o.cloudWatchPublishDelay !== undefined ? { cloudWatchPublishDelay: o.cloudWatchPublishDelay } : {}),
      onLine,
    });
    await seedSpecs(servers.dynamo, 'shpa-bench', o, clock.now());
    let before = await servers.counts();
    const started = fns;
    return {
      servers,
      fns: started,
      clock,
      autoscalers: o.clusters * o.namespacesPerCluster * o.workloadsPerNamespace,
      shards: o.clusters * o.shardsPerCluster,
      async tick() {
        const fns = started;
        const at = clock.t;
        await servers.setTime(at);
        // What the tick logs and asks SQS is read, then cleared: memory stays flat over long runs.
        fns.lines.length = 0;
        fns.emf.length = 0;
        fns.sqs.requestLog.length = 0;
        cycles = [];
        const drains: TickResult['drains'] = [];
        if (o.everySecond) {
          for (let s = 0; s < PERIOD_MS / 1000; s++) {
            clock.t = at + s * 1000;
            await servers.setTime(clock.t);
            if (clock.t % 60_000 === 0) await fns.dispatch(new Date(clock.t));
            marks.cpu = process.cpuUsage();
            marks.wall = performance.now();
            drains.push({ at: clock.t, wallMs: Date.now() });
            await fns.drain();
          }
          clock.t = at;
        } else {
          if (at % 60_000 === 0) await fns.dispatch(new Date(at));
          marks.cpu = process.cpuUsage();
          marks.wall = performance.now();
          drains.push({ at, wallMs: Date.now() });
          await fns.drain();
        }
        const after = await servers.counts();
        const counts = diffCounts(before, after);
        before = after;
        const logs: TickResult['logs'] = {};
        const errors: string[] = [];
        for (const l of fns.lines) {
          const e = (l.errors ?? (l.cycle as { errors?: unknown } | undefined)?.errors) as { stage?: string; message?: string }[] | undefined;
          if (e && errors.length < 5) errors.push(...e.map((x) => `${String(l.hpa ?? l.message)}: ${x.stage}: ${x.message}`));
          const k = `${String(l.function)}:${String(l.message)}`;
          logs[k] ??= { lines: 0, bytes: 0 };
          logs[k].lines++;
          logs[k].bytes += lineBytes(l);
        }
        const sqs: Record<string, number> = {};
        for (const r of fns.sqs.requestLog) sqs[r.operation] = (sqs[r.operation] ?? 0) + 1;
        const emfBytes = fns.emf.reduce((n, d) => n + Buffer.byteLength(JSON.stringify(d)) + 1, 0);
        clock.t += PERIOD_MS;
        return { at, cycles, counts, sqs, logs, emfBytes, errors, drains };
      },
      async stop() {
        await started.close();
        await servers.stop();
      },
    };
  } catch (e) {
    await fns?.close();
    await servers.stop();
    throw e;
  }
}
