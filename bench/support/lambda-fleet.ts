// Bench-only: a fleet of autoscalers on the local servers (servers.ts, specs seeded as fleet.ts
// seeds them) whose shard cycles run in Lambda environments (lambda-env.ts) instead of the
// benchmark's own process: each tick message goes, as its one-record SQS event, to the
// environment the caller names, with that environment's clock set to the tick. The worker's
// own sends (re-evaluations) land in a local SQS queue and are counted, not delivered.
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/stack/functions.js';
import { startLocalSqs, type LocalSqs } from '../../lib/local/sqs/server.js';
import type { LogLine } from '../../lib/local/lambda/telemetry-capture.js';
import { createDynamoStore, ensureTable } from '../../lib/store/index.js';
import { bucketOf, shardId, shardsOf, type TickMessage } from '#sync/messaging';
import { diffCounts, PERIOD_MS, seedSpecs, type CountsDelta } from './fleet.js';
import { prioritize, removeCpuCgroup, tickEvent, type EnvironmentSpec, type Invocation, type LambdaEnvironment } from './lambda-env.js';
import { namespaceName, startServers, type Scenario, type Servers } from './servers.js';

export interface LambdaFleetOptions extends Omit<Scenario, 'start' | 'cloudWatchValue' | 'realTime'> {
  shardsPerCluster: number;
  /** The first tick: a minute boundary. */
  start?: number;
  /** The servers' CPU weight in ordinary processes (a cgroup without quota), so a busy machine does not slow them. */
  serverPriority?: number;
}

export interface ShardInfo {
  id: string;
  cluster: string;
  /** Autoscalers seeded in its buckets. */
  autoscalers: number;
}

/** Autoscalers of a shard not evaluated in a cycle, by why. */
export interface Lost {
  /** The deadline came first (outcome skipped). */
  skipped: number;
  /** An error stopped them (outcome failed). */
  failed: number;
  /** Outcome conflict: the spec check or the state write found, or could not rule out, a newer version: evaluated, not committed. */
  conflict: number;
  /** broken, invalid or notAllowed. */
  other: number;
  /** Seeded but absent from the cycle line. */
  missing: number;
  /** No cycle ran: the message was dropped, found the shard busy, or failed before the cycle. */
  noCycle: number;
}

export interface CycleResult {
  shard: string;
  envId: string;
  tick: number;
  autoscalers: number;
  /** The invocation, its log lines left out. */
  invocation: Omit<Invocation, 'lines' | 'emf'>;
  /** The handler threw, or reported the message failed (SQS would retry it). */
  invocationFailed: boolean;
  /** The cycle line's duration and counts by outcome. */
  cycle?: { durationMs: number; counts: Record<string, number> };
  /** The message line, when no cycle ran (dropped, busy, failed). */
  message?: string;
  lost: number;
  lostBy: Lost;
  /** The first few error texts: the cycle's, the decisions', the invocation's. */
  errors: string[];
  /** Every error text, names of autoscalers and namespaces left out, and how often it came. */
  errorKinds: Record<string, number>;
  decisionLines: number;
  logBytes: number;
  /** Log lines that say DynamoDB refused an item for its size (400 KB). */
  sizeRefused: number;
  /** The cycle line's counts of deferred autoscalers (the deadline came first) and of those deferred at the tick before too. */
  deferred: number;
  deferredAgain: number;
  /** Autoscalers the cycle evaluated. */
  evaluated: number;
  /** Calls at the servers during the invocation (with `measure`). */
  counts?: CountsDelta;
  /** Wall-clock window of the invocation (epoch ms), for the meter's per-second figures. */
  wall: { from: number; to: number };
}

export interface LambdaFleet {
  servers: Servers;
  sqs: LocalSqs;
  tableName: string;
  shards: ShardInfo[];
  autoscalers: number;
  /** Time of the first tick; tick i is at start + i periods. */
  start: number;
  /** An environment's spec: the worker's environment variables as a deploy sets them, and this fleet's endpoints. */
  environmentSpec(id: string): EnvironmentSpec;
  /** Sets the servers' clock to a tick's time. */
  setTime(ms: number): Promise<void>;
  /** One tick message of `shard` at `tickMs`, handled by `env`; `measure`: count the servers' calls around it. */
  runCycle(env: LambdaEnvironment, shard: ShardInfo, tickMs: number, o?: { measure?: boolean }): Promise<CycleResult>;
  /** SendMessage calls the workers made since the start. */
  workerSends(): number;
  stop(): Promise<void>;
}

type CycleLine = { durationMs: number; counts: Record<string, number>; errors?: { stage?: string; message?: string }[] };

/** What a cycle's log lines say: its summary, the message line, error texts. */
/** An error text with the names of autoscalers and namespaces left out, so that texts can be counted by kind. */
export const errorKind = (text: string) => text.replace(/\b(app|ns)-\d+\b/g, '$1-N');

function readLines(lines: LogLine[]): { cycle?: CycleLine; message?: string; errors: string[]; errorKinds: Record<string, number>; decisionLines: number; logBytes: number; sizeRefused: number } {
  let cycle: CycleLine | undefined;
  let message: string | undefined;
  const errors: string[] = [];
  const errorKinds: Record<string, number> = {};
  const count = (text: string) => {
    const k = errorKind(text);
    errorKinds[k] = (errorKinds[k] ?? 0) + 1;
  };
  let decisionLines = 0;
  let logBytes = 0;
  let sizeRefused = 0;
  for (const l of lines) {
    const text = JSON.stringify(l);
    logBytes += Buffer.byteLength(text) + 1;
    if (/maximum allowed size/i.test(text)) sizeRefused++;
    if (l.message === 'decision') decisionLines++;
    if (l.message === 'cycle') cycle = l.cycle as CycleLine;
    if (l.message === 'message') {
      const m = l.workMessage as { outcome?: string; why?: string; detail?: string; error?: string };
      message = `${m.outcome}${m.why ? ` (${m.why})` : ''}: ${m.error ?? m.detail ?? ''}`;
      errors.push(`message: ${message}`);
      count(`message: ${message}`);
    }
    const e = (l.errors ?? (l.cycle as CycleLine | undefined)?.errors) as { stage?: string; message?: string }[] | undefined;
    for (const x of e ?? []) {
      if (errors.length < 5) errors.push(`${String(l.hpa ?? l.message)}: ${x.stage ?? ''}: ${x.message}`);
      count(`${l.hpa ? '' : 'cycle: '}${x.stage ?? ''}: ${x.message}`);
    }
  }
  return { ...(cycle ? { cycle } : {}), ...(message ? { message } : {}), errors: errors.slice(0, 5), errorKinds, decisionLines, logBytes, sizeRefused };
}

let notedPriority = false;

export async function startLambdaFleet(o: LambdaFleetOptions): Promise<LambdaFleet> {
  const start = o.start ?? Date.parse('2026-03-02T10:00:00Z');
  const tableName = 'shpa-bench';
  const servers = await startServers({ ...o, start, cloudWatchValue: o.podsPerWorkload * 10 });
  const priority = o.serverPriority ? prioritize(servers.pids, o.serverPriority) : {};
  if (o.serverPriority && priority.note && !notedPriority) {
    notedPriority = true;
    console.log(`note: the local servers run without CPU priority (${priority.note})`);
  }
  // The SQS server's clock follows the environments' (the offset of the latest invocation).
  let offsetMs = start - Date.now();
  let sqs: LocalSqs | undefined;
  try {
    sqs = await startLocalSqs({ clock: () => Date.now() + offsetMs, region: LOCAL_REGION });
    const client = new SQSClient({ endpoint: sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    await client.send(new CreateQueueCommand({ QueueName: 'work' }));
    client.destroy();
    const queueUrl = sqs.queueUrl('work');
    const queueArn = sqs.queueArn('work');

    const admin = createDynamoStore({ endpoint: servers.dynamo, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, tableName });
    await ensureTable(admin.client, tableName, { stream: false });
    // Local stacks read clusters (endpoint, CA, K) from the table's registry.
    for (const c of servers.clusters) await admin.putCluster({ name: c.name, region: LOCAL_REGION, shards: o.shardsPerCluster, endpoint: c.url, caData: c.caData, managedBy: 'cli' }, new Date(start));
    admin.client.destroy();
    await seedSpecs(servers.dynamo, tableName, o, new Date(start));

    const shards: ShardInfo[] = servers.clusters.flatMap((c) =>
      shardsOf(c.name, o.shardsPerCluster).map((s) => {
        let autoscalers = 0;
        for (let n = 0; n < o.namespacesPerCluster; n++) if (bucketOf(namespaceName(n)) % s.count === s.index) autoscalers += o.workloadsPerNamespace;
        return { id: shardId(s), cluster: c.name, autoscalers };
      }),
    );
    const clustersVar = JSON.stringify(servers.clusters.map((c) => ({ name: c.name, region: LOCAL_REGION, shards: o.shardsPerCluster })));
    const local = sqs;
    return {
      servers,
      sqs: local,
      tableName,
      shards,
      autoscalers: shards.reduce((n, s) => n + s.autoscalers, 0),
      start,
      environmentSpec: (id) => ({
        id,
        env: { AWS_REGION: LOCAL_REGION, SHPA_TABLE: tableName, SHPA_QUEUE_URL: queueUrl, SHPA_CLUSTERS: clustersVar },
        local: { dynamoDb: servers.dynamo, cloudWatch: servers.cloudWatch, sqs: local.endpoint, credentials: LOCAL_CREDENTIALS, clusterToken: servers.token },
      }),
      setTime: (ms) => servers.setTime(ms),
      async runCycle(env, shard, tickMs, { measure = false } = {}) {
        const msg: TickMessage = { kind: 'tick', shard: shard.id, tick: new Date(tickMs).toISOString().replace(/\.\d{3}Z$/, 'Z'), periodSeconds: PERIOD_MS / 1000 };
        const before = measure ? await servers.counts() : undefined;
        const from = Date.now();
        // The message arrives at its tick: the environment's clock reads the tick's time as it starts.
        offsetMs = tickMs - Date.now();
        const inv = await env.invoke(tickEvent(msg, queueArn, tickMs), offsetMs);
        const to = Date.now();
        const counts = before ? diffCounts(before, await servers.counts()) : undefined;
        const { lines: logLines, emf: _emf, ...invocation } = inv;
        const read = readLines(logLines);
        const failedItems = inv.response?.batchItemFailures?.length ?? 0;
        const lostBy: Lost = { skipped: 0, failed: 0, conflict: 0, other: 0, missing: 0, noCycle: 0 };
        if (read.cycle) {
          const c = read.cycle.counts;
          lostBy.skipped = c.skipped ?? 0;
          lostBy.failed = c.failed ?? 0;
          lostBy.conflict = c.conflict ?? 0;
          lostBy.other = (c.broken ?? 0) + (c.invalid ?? 0) + (c.notAllowed ?? 0);
          lostBy.missing = Math.max(0, shard.autoscalers - (c.autoscalers ?? 0));
        } else lostBy.noCycle = shard.autoscalers;
        const errors = [...(inv.error ? [`invocation: ${inv.error}`] : []), ...read.errors, ...inv.processErrors.map((e) => `host: ${e}`)].slice(0, 5);
        for (const e of inv.processErrors) read.errorKinds[`host: ${errorKind(e)}`] = (read.errorKinds[`host: ${errorKind(e)}`] ?? 0) + 1;
        if (inv.error) read.errorKinds[`invocation: ${errorKind(inv.error)}`] = (read.errorKinds[`invocation: ${errorKind(inv.error)}`] ?? 0) + 1;
        return {
          shard: shard.id,
          envId: env.id,
          tick: tickMs,
          autoscalers: shard.autoscalers,
          invocation,
          invocationFailed: inv.error !== undefined || failedItems > 0,
          ...(read.cycle ? { cycle: { durationMs: read.cycle.durationMs, counts: read.cycle.counts } } : {}),
          ...(read.message ? { message: read.message } : {}),
          lost: Object.values(lostBy).reduce((a, b) => a + b, 0),
          lostBy,
          errors,
          errorKinds: read.errorKinds,
          decisionLines: read.decisionLines,
          logBytes: read.logBytes,
          sizeRefused: read.sizeRefused,
          deferred: read.cycle?.counts.deferred ?? 0,
          deferredAgain: read.cycle?.counts.deferredAgain ?? 0,
          evaluated: read.cycle?.counts.evaluated ?? 0,
          ...(counts ? { counts } : {}),
          wall: { from, to },
        };
      },
      workerSends: () => local.count('SendMessage') + local.count('SendMessageBatch'),
      async stop() {
        await local.close();
        await servers.stop();
        if (priority.cgroup) removeCpuCgroup(priority.cgroup);
      },
    };
  } catch (e) {
    await sqs?.close();
    await servers.stop();
    if (priority.cgroup) removeCpuCgroup(priority.cgroup);
    throw e;
  }
}
