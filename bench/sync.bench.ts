// One sync cycle at 10, 100 and 1,000 autoscalers (10 pods each, 2 clusters, 20
// namespaces), 10 ms injected on every API call. DynamoDB is the real store on
// dynalite over HTTP (latency added by SDK middleware); the cluster and metrics
// APIs are in-memory fakes with the same latency (the HTTPS API server would
// measure this 2-core machine, not the cycle). The metrics fake makes the calls
// the real MetricsAccess makes: one per distinct cluster query, CloudWatch in
// batches of 500. Steady state: figures are per cycle, averaged over one minute
// (4 cycles, 15 s apart) after 6 minutes of warm-up.
import { DEFAULT_CONTROLLER_SETTINGS, applyDefaults } from '../lib/hpa/defaults.js';
import type { HorizontalPodAutoscaler, MetricSpec, PodInfo, PodMetric } from '../lib/hpa/types.js';
import { createDynamoStore, ensureTable } from '../lib/store/index.js';
import { runCycle } from '../lib/sync/cycle.js';
import type { ClusterRecord, MetricAnswer, MetricQuery, MetricsAccess } from '../lib/sync/ports.js';
import { hpa } from '../test/store/fixtures.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION } from '../test/support/dynamo.js';
import { MemoryCluster, newCallLog, sequentialRoundTrips, type CallLog } from '../test/sync/fakes.js';

const LATENCY_MS = 10;
const PODS = 10;
const NAMESPACES_PER_CLUSTER = 10;
const CLUSTERS = ['east', 'west'];
const START = Date.parse('2026-03-02T10:00:00.000Z');

async function timed<T>(log: CallLog, op: string, fn: () => Promise<T>): Promise<T> {
  const entry = { op, arg: '', start: performance.now(), end: Number.NaN };
  log.calls.push(entry);
  try {
    await new Promise((r) => setTimeout(r, LATENCY_MS));
    return await fn();
  } finally {
    entry.end = performance.now();
  }
}

function pods(deployment: string, now: number): { pods: PodInfo[]; metrics: PodMetric[] } {
  const started = new Date(now - 3600_000).toISOString();
  const list = Array.from({ length: PODS }, (_, i) => `${deployment}-${i}`);
  return {
    pods: list.map((name) => ({
      name,
      labels: { app: deployment },
      phase: 'Running',
      ready: 'True',
      readyTransitionTime: started,
      startTime: started,
      containers: [{ name: 'app', requests: { cpu: '500m' } }],
    })),
    metrics: list.map((pod) => ({ pod, timestamp: new Date(now - 10_000).toISOString(), windowSeconds: 30, containers: [{ name: 'app', usage: { cpu: '300m' } }] })),
  };
}

/** The calls the real MetricsAccess makes for these queries, answered from memory. */
class BenchMetrics implements MetricsAccess {
  cloudWatchMetrics = 0;
  constructor(
    private readonly log: CallLog,
    private readonly podMetrics: Map<string, PodMetric[]>,
  ) {}
  async fetchAll(queries: MetricQuery[]): Promise<MetricAnswer[]> {
    const cw = queries.filter((q) => q.type === 'CloudWatch');
    this.cloudWatchMetrics += cw.length;
    const batches = Array.from({ length: Math.ceil(cw.length / 500) }, () => timed(this.log, 'GetMetricData', async () => undefined));
    const answers = queries.map(async (q): Promise<MetricAnswer> => {
      if (q.type === 'PodResource') {
        return timed(this.log, 'listPodMetrics', async () => ({ type: q.type, result: { value: this.podMetrics.get(`${q.cluster}/${q.namespace}`) ?? [] } }));
      }
      if (q.type === 'CloudWatch') return { type: q.type, result: { value: [{ value: String(PODS * 10), timestamp: new Date(START).toISOString() }] } };
      return { type: q.type, result: { error: 'not in this benchmark' } } as MetricAnswer;
    });
    await Promise.all(batches);
    return Promise.all(answers);
  }
}

/** The store tests' autoscaler (CPU at 60 %, here exactly on target) plus a CloudWatch backlog at 10 per pod. */
function autoscaler(namespace: string, name: string): HorizontalPodAutoscaler {
  const base = hpa(name, namespace, 50);
  const backlog: MetricSpec = { type: 'External', external: { metric: { name: `backlog-${name}` }, target: { type: 'AverageValue', averageValue: '10' } } };
  return applyDefaults({ ...base, spec: { ...base.spec, metrics: [...(base.spec.metrics ?? []), backlog] } });
}

async function scenario(count: number) {
  const dynamo = await startDynalite();
  const log = newCallLog(LATENCY_MS);
  const tableName = `bench-${count}`;
  const store = createDynamoStore({ endpoint: dynamo.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName });
  await ensureTable(store.client, tableName);
  let readBytes = 0;
  let writeUnits = 0;
  let recording = false;
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!recording) return next(args);
      const out = await timed(log, `dynamodb:${context.commandName}`, () => next(args));
      const output = out.output as { Items?: unknown[]; ConsumedCapacity?: { CapacityUnits?: number } };
      if (output.Items) readBytes += JSON.stringify(output.Items).length;
      writeUnits += context.commandName === 'PutItemCommand' ? (output.ConsumedCapacity?.CapacityUnits ?? 1) : 0;
      return out;
    },
    { step: 'initialize', name: 'benchLatency' },
  );

  const clusters = new Map(CLUSTERS.map((c) => [c, new MemoryCluster(log)]));
  const podMetrics = new Map<string, PodMetric[]>();
  const now = { t: START };
  for (let i = 0; i < count; i++) {
    const cluster = CLUSTERS[i % CLUSTERS.length];
    const namespace = `ns-${Math.floor(i / CLUSTERS.length) % NAMESPACES_PER_CLUSTER}`;
    const name = `app-${i}`;
    const access = clusters.get(cluster)!;
    access.scales.set(`${namespace}/Deployment/${name}`, { specReplicas: PODS, statusReplicas: PODS, selector: `app=${name}` });
    const p = pods(name, START);
    access.pods.set(namespace, [...(access.pods.get(namespace) ?? []), ...p.pods]);
    podMetrics.set(`${cluster}/${namespace}`, [...(podMetrics.get(`${cluster}/${namespace}`) ?? []), ...p.metrics]);
    await store.applySpec(cluster, autoscaler(namespace, name), new Date(START));
    await store.applySpec(
      cluster,
      {
        apiVersion: 'shpa.dev/v1',
        kind: 'CloudWatchMetric',
        metadata: { name: `backlog-${name}`, namespace },
        spec: { queries: [{ id: 'm', metricStat: { metric: { namespace: 'App', metricName: 'Backlog', dimensions: [{ name: 'App', value: name }] }, period: 60, stat: 'Average' }, returnData: true }] },
      },
      new Date(START),
    );
  }
  const metrics = new BenchMetrics(log, podMetrics);
  const records: ClusterRecord[] = CLUSTERS.map((name) => ({ name, region: TEST_REGION }));
  const deps = { store, metrics, clock: { now: () => new Date(now.t) }, cluster: (c: ClusterRecord) => clusters.get(c.name)! };
  const options = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 64, writeBudgetMs: 1_000 };

  // Warm up past the first writes and the metric refresh age, then measure one minute (4 cycles).
  const WARM = 24;
  const MEASURED = 4;
  const walls: number[] = [];
  const trips: number[] = [];
  const loads: number[] = [];
  let scaled = 0;
  for (let cycle = 0; cycle < WARM + MEASURED; cycle++) {
    now.t = START + cycle * 15_000;
    const measuring = cycle >= WARM;
    recording = measuring;
    const before = log.calls.length;
    const t0 = performance.now();
    const report = await runCycle(deps, { clusters: records, deadline: new Date(now.t + 10_000), options });
    if (report.counts.errors > 0) throw new Error(`errors in the cycle: ${JSON.stringify(report.autoscalers.find((a) => a.errors.length))}`);
    if (!measuring) {
      log.calls.length = 0;
      metrics.cloudWatchMetrics = 0;
      continue;
    }
    walls.push(performance.now() - t0);
    const calls = log.calls.slice(before);
    trips.push(sequentialRoundTrips({ calls, latencyMs: LATENCY_MS }));
    const query = calls.filter((c) => c.op === 'dynamodb:QueryCommand');
    loads.push(Math.max(...query.map((c) => c.end)) - Math.min(...query.map((c) => c.start)));
    scaled += report.counts.scaled;
  }
  await dynamo.stop();
  const per = (op: string) => log.calls.filter((c) => c.op === op).length / MEASURED;
  const pages = per('dynamodb:QueryCommand');
  return {
    autoscalers: count,
    wallMs: Math.round(walls.reduce((a, b) => a + b) / MEASURED),
    maxWallMs: Math.round(Math.max(...walls)),
    loadMs: Math.round(loads.reduce((a, b) => a + b) / MEASURED),
    apiCallsPerAutoscaler: +(log.calls.length / MEASURED / count).toFixed(3),
    calls: Object.fromEntries([...new Set(log.calls.map((c) => c.op))].map((op) => [op, per(op)])),
    dynamoWrites: per('dynamodb:PutItemCommand'),
    dynamoWriteUnits: +(writeUnits / MEASURED).toFixed(1),
    // Strongly consistent Query: one unit per 4 KB read (approximate: item JSON size), at least one per page.
    dynamoReadUnits: Math.max(pages, Math.ceil(readBytes / MEASURED / 4096)),
    cloudWatchMetricsRequested: metrics.cloudWatchMetrics / MEASURED,
    sequentialRoundTrips: Math.max(...trips),
    scaled,
  };
}

const results = [];
for (const n of [10, 100, 1000]) results.push(await scenario(n));
console.table(results.map(({ calls, ...r }) => r));
for (const r of results) console.log(`${r.autoscalers}: calls ${JSON.stringify(r.calls)}`);
const big = results.at(-1)!;
const goals = [
  [`1,000 autoscalers in ≤ 1 s`, big.wallMs <= 1000, `${big.wallMs} ms`],
  [`≤ 1.2 API calls per autoscaler`, big.apiCallsPerAutoscaler <= 1.2, `${big.apiCallsPerAutoscaler}`],
] as const;
for (const [goal, ok, got] of goals) console.log(`${ok ? 'MET ' : 'MISS'} ${goal}: ${got}`);
