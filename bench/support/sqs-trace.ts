// Bench-only: an SQS backlog trace on the whole product (lib/local/stack/functions.ts: the real
// dispatcher and worker, the worker's SQS client on the local SQS, shipped settings) on a virtual
// clock, second by second. Each workload's queue gets one backlog step at a random time; each
// reaction is timed from the step to the patch of its workload (the cycle's wall time added, as
// the CPU rows of reaction.bench.ts do). Also the models of the other readers on the same steps:
// KEDA (HPA's 15 s loop over a live read; from zero, its pollingInterval first) and the CloudWatch
// route (one-minute datapoints, visible a minute after their period).
import { SendMessageBatchCommand, CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { applyDefaults } from '#hpa/api';
import type { HorizontalPodAutoscaler } from '#hpa';
import type { SQSQueueMetric } from '#api';
import { startLocalStack, VirtualClock } from '../../lib/demo/local-stack.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startLocalFunctions } from '../../lib/local/stack/functions.js';
import { shippedOptions } from './fleet.js';

const CLUSTER = 'bench';
const NAMESPACE = 'queues';
const ACCOUNT = '000000000000';
/** The backlog each step brings, and the messages a replica should have (target averageValue). */
export const STEP_MESSAGES = 50;
const PER_REPLICA = 5;

export interface SqsTraceOptions {
  workloads: number;
  /** Minutes during which the steps fall (after a first quiet minute). */
  minutes: number;
  /** Start each workload at zero (minReplicas 0, activation 2) instead of at one. */
  fromZero?: boolean;
  /** Every autoscaler's spec.syncPeriodSeconds (default: none, the deploy's 15 s). */
  syncPeriodSeconds?: number;
  seed: number;
}

export interface SqsTraceRun {
  /** When each workload's backlog arrived (epoch ms, virtual). */
  steps: number[];
  /** Seconds from each step to its workload's first patch after it, the cycle's wall time included. */
  ours: number[];
  /** Replicas each first patch asked for. */
  patchedTo: number[];
  /** Wall seconds of the second the patch happened in (the tick's invocation). */
  walls: number[];
  /** GetQueueAttributes calls per tick and queue, over the run. */
  readsPerQueueTick: number;
}

/** A seeded PRNG (mulberry32): the same trace every run. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const queueName = (i: number) => `orders-${i}`;
const workloadName = (i: number) => `consumer-${i}`;

function queueMetric(i: number): SQSQueueMetric {
  return {
    apiVersion: 'shpa.dev/v1',
    kind: 'SQSQueueMetric',
    metadata: { name: `${queueName(i)}-backlog`, namespace: NAMESPACE },
    spec: { queueURL: `https://sqs.${LOCAL_REGION}.amazonaws.com/${ACCOUNT}/${queueName(i)}` },
  };
}

function autoscaler(i: number, o: SqsTraceOptions): HorizontalPodAutoscaler {
  return applyDefaults({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: workloadName(i), namespace: NAMESPACE },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: workloadName(i) },
      minReplicas: o.fromZero ? 0 : 1,
      maxReplicas: 20,
      ...(o.syncPeriodSeconds ? { syncPeriodSeconds: o.syncPeriodSeconds } : {}),
      metrics: [
        {
          type: 'External',
          external: {
            metric: { name: `${queueName(i)}-backlog` },
            target: { type: 'AverageValue', averageValue: String(PER_REPLICA) },
            ...(o.fromZero ? { activation: { value: '2' } } : {}),
          },
        },
      ],
    },
  } as HorizontalPodAutoscaler);
}

/** Runs the trace: the steps at random times (seeded), the product ticking second by second. */
export async function runSqsTrace(o: SqsTraceOptions): Promise<SqsTraceRun> {
  const start = Date.parse('2026-03-02T10:00:00Z');
  const clock = new VirtualClock(start);
  const stack = await startLocalStack(clock, { startDelaySeconds: 1, readyDelaySeconds: 2 });
  const fns = await startLocalFunctions({
    clock,
    dynamoEndpoint: stack.dynamoEndpoint,
    stream: 'write-feed',
    cloudWatchEndpoint: stack.cloudWatch.url,
    clusterToken: stack.k8s.token,
    clusters: [{ name: CLUSTER, region: LOCAL_REGION, shards: 1, endpoint: stack.k8s.url, caData: stack.k8s.caData }],
    tableName: 'shpa-bench-sqs',
    periodSeconds: 15,
    options: { ...shippedOptions(), decisionLogSeconds: 0, metricAccess: { [NAMESPACE]: { sqsQueues: [`arn:aws:sqs:${LOCAL_REGION}:${ACCOUNT}:orders-*`] } } },
    workerConcurrency: 1,
  }).catch(async (e: unknown) => {
    await stack.stop();
    throw e;
  });
  const client = new SQSClient({ endpoint: fns.sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    for (let i = 0; i < o.workloads; i++) {
      await client.send(new CreateQueueCommand({ QueueName: queueName(i) }));
      stack.model.addWorkload({
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        namespace: NAMESPACE,
        name: workloadName(i),
        replicas: o.fromZero ? 0 : 1,
        selector: { app: workloadName(i) },
        load: () => ({ cpu: 0.1, memory: 64 * 1024 ** 2 }),
        createdAt: new Date(start - 10 * 60_000),
      });
      await fns.admin.applySpec(CLUSTER, queueMetric(i), clock.now());
      await fns.admin.applySpec(CLUSTER, autoscaler(i, o), clock.now());
    }
    await fns.drain();
    return await tickThrough(o, { clock, fns, client, start });
  } finally {
    client.destroy();
    await fns.close();
    await stack.stop();
  }
}

interface TraceParts {
  clock: VirtualClock;
  fns: Awaited<ReturnType<typeof startLocalFunctions>>;
  client: SQSClient;
  start: number;
}

async function tickThrough(o: SqsTraceOptions, p: TraceParts): Promise<SqsTraceRun> {
  const { clock, fns, client, start } = p;
  const rnd = random(o.seed);
  const steps = stepTimes(start + 60_000, o.minutes, o.workloads, rnd);
  const run: SqsTraceRun = { steps, ours: new Array<number>(o.workloads).fill(Number.NaN), patchedTo: new Array<number>(o.workloads).fill(0), walls: [], readsPerQueueTick: 0 };
  const sent = new Set<number>();
  let firstError: string | undefined;
  let reads = 0;
  let ticks = 0;
  const end = start + (o.minutes + 2) * 60_000;
  for (let s = start; s <= end; s += 1000) {
    // The steps of this second, each at its own time (the queue's clock is the virtual one).
    for (const [i, t] of steps.entries()) {
      if (sent.has(i) || t > s) continue;
      clock.t = t;
      await sendBacklog(client, fns.sqs.queueUrl(queueName(i)), STEP_MESSAGES);
      sent.add(i);
    }
    clock.t = s;
    fns.lines.length = 0;
    fns.sqs.requestLog.length = 0;
    const wall = performance.now();
    if (s % 60_000 === 0) await fns.dispatch(new Date(s));
    await fns.drain();
    const wallS = (performance.now() - wall) / 1000;
    reads += fns.sqs.requestLog.filter((r) => r.operation === 'GetQueueAttributes').length;
    ticks += fns.lines.filter((l) => l.message === 'cycle').length;
    for (const l of fns.lines) {
      const errors = l.errors as { stage?: string; message?: string }[] | undefined;
      if (errors?.length) firstError ??= `${String(l.hpa ?? l.message)}: ${errors[0].stage}: ${errors[0].message}`;
      if (l.message !== 'decision' || l.patched !== true) continue;
      const i = Number(String(l.hpa).slice('consumer-'.length));
      if (!sent.has(i) || !Number.isNaN(run.ours[i])) continue;
      run.ours[i] = (s - steps[i]) / 1000 + wallS;
      run.patchedTo[i] = Number(l.desiredReplicas);
      run.walls.push(wallS);
    }
    if (sent.size === o.workloads && run.ours.every((x) => !Number.isNaN(x))) break;
  }
  const missing = run.ours.filter((x) => Number.isNaN(x)).length;
  if (missing > 0) throw new Error(`${missing} of ${o.workloads} backlog steps were never acted on${firstError ? `; first error: ${firstError}` : ''}`);
  run.readsPerQueueTick = reads / Math.max(1, ticks) / o.workloads;
  return run;
}

/**
 * n times at random over `minutes` from `from`, stratified over the 15 s phase: step i falls in a
 * random 15 s slot, at a random point of the i-th n-th of its slot. Each time is uniform, as plain
 * draws are; the mean wait for a tick grid is then measured with far less noise (15 / √(12 n) s
 * for plain draws: 0.4 s at n = 120, more than the goals' margins).
 */
export function stepTimes(from: number, minutes: number, n: number, rnd: () => number): number[] {
  return Array.from({ length: n }, (_, i) => from + Math.floor(rnd() * minutes * 4) * 15_000 + ((i + rnd()) / n) * 15_000);
}

async function sendBacklog(client: SQSClient, QueueUrl: string, n: number): Promise<void> {
  for (let k = 0; k < n; k += 10) {
    const Entries = Array.from({ length: Math.min(10, n - k) }, (_, j) => ({ Id: `m${j}`, MessageBody: `order ${k + j}` }));
    await client.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
  }
}

// ---- the other readers, modelled on the same steps ----

/** The first time ≥ t of a loop with this period (ms) and phase (ms). */
const nextRun = (t: number, periodMs: number, phaseMs: number) => phaseMs + Math.ceil((t - phaseMs) / periodMs) * periodMs;

export interface ModelRun {
  /** Seconds from each step to the first scale. */
  first: number[];
  /** Seconds from each step to the scale to N (from zero: KEDA's 0 → 1, then the HPA's 1 → N). */
  toN: number[];
}

/**
 * KEDA's aws-sqs-queue scaler: the HPA (kube-controller-manager, a 15 s loop fixed on EKS, each
 * HPA at its own phase) reads the queue live through KEDA's metrics server. From zero the HPA is
 * idle: KEDA's operator polls (pollingInterval, 30 s by default) and scales 0 → 1 itself, then
 * the HPA scales 1 → N at its next sync.
 */
export function kedaModel(steps: number[], fromZero: boolean, seed: number, pollingIntervalS = 30): ModelRun {
  const rnd = random(seed);
  const out: ModelRun = { first: [], toN: [] };
  for (const t of steps) {
    const hpaPhase = rnd() * 15_000;
    const pollPhase = rnd() * pollingIntervalS * 1000;
    if (!fromZero) {
      const at = nextRun(t, 15_000, hpaPhase);
      out.first.push((at - t) / 1000);
      out.toN.push((at - t) / 1000);
    } else {
      const activated = nextRun(t, pollingIntervalS * 1000, pollPhase);
      // The HPA acts at its first sync after the target has a replica.
      const scaled = nextRun(activated + 1, 15_000, hpaPhase);
      out.first.push((activated - t) / 1000);
      out.toN.push((scaled - t) / 1000);
    }
  }
  return out;
}

/**
 * The CloudWatch route: AWS/SQS ApproximateNumberOfMessagesVisible, one datapoint a minute,
 * visible `publishDelayS` (60 s or more) after its minute ends; read at the first tick (15 s) once
 * visible. The datapoint of the minute holding the step is taken to show it (a Maximum would).
 */
export function cloudWatchModel(steps: number[], publishDelayS = 60, periodS = 15): number[] {
  return steps.map((t) => {
    const minuteEnd = Math.floor(t / 60_000) * 60_000 + 60_000;
    const read = Math.ceil((minuteEnd + publishDelayS * 1000) / (periodS * 1000)) * periodS * 1000;
    return (read - t) / 1000;
  });
}
