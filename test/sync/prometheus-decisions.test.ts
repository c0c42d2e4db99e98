// Shard cycles deciding on PromQL from a real Prometheus (Debian's package) scraping the local
// workload model, with the real store on dynalite, CloudWatch on its local endpoint and an
// in-memory cluster: the examples in examples/prometheus scale end to end, and one autoscaler
// mixes providers (CPU, CloudWatch, PromQL through the SigV4-checking AMP stand-in), the
// largest proposal winning, each metric's source named in the decision line.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decisionLine } from '../../functions/log.js';
import type { PrometheusMetric } from '../../lib/api/prometheus-types.js';
import { checkFile } from '../../lib/cli/apply.js';
import { describe as describeText } from '../../lib/cli/describe.js';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { parseQuantity, toFloat } from '../../lib/hpa/api/quantity.js';
import type { HorizontalPodAutoscaler, PodInfo, PodMetric } from '../../lib/hpa/types.js';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch/server.js';
import { startQueryProxy, type QueryProxy } from '../../lib/local/prometheus/sigv4-proxy.js';
import { cloudWatchClients } from '../../lib/metrics/cloudwatch-clients.js';
import { createMetricsAccess } from '../../lib/metrics/metrics-access.js';
import { createDynamoStore, ensureTable, type DynamoStore, type StoredSpec } from '../../lib/store/index.js';
import type { SyncOptions } from '../../lib/sync/config.js';
import { runShardCycle } from '../../lib/sync/cycle.js';
import type { ClusterConfig } from '../../lib/sync/ports/cluster-access.js';
import type { AutoscalerReport } from '../../lib/sync/report.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { PROMETHEUS_BIN, RATE_QUERY, sayIfSkipped, startPrometheusFixture, type PrometheusFixture } from '../support/prometheus.js';
import { FakeCluster } from './fakes.js';

sayIfSkipped('prometheus-decisions.test.ts');

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'prometheus');
const CLUSTER: ClusterConfig = { name: 'prod', region: 'us-east-1', shards: 1 };
const options: SyncOptions = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 300, clusterBudgetMs: 8_000, sources: { table: true, cluster: true }, decisionLogSeconds: 300 };
const WS = 'ws-12345678-abcd-4ef0-9abc-123456789012';
const RPS = 12;
const clock = { now: () => new Date() };

let fx: PrometheusFixture;
let db: DynamoServer;
let cloudWatch: LocalCloudWatch;
let amp: QueryProxy;
let store: DynamoStore;
let cluster: FakeCluster;
let table = 0;

beforeAll(async () => {
  if (!PROMETHEUS_BIN) return;
  [fx, db, cloudWatch] = await Promise.all([startPrometheusFixture(RPS), startDynalite(), startLocalCloudWatch()]);
  amp = await startQueryProxy({ upstream: fx.prometheus.url, workspaces: [WS], auth: { sigv4: { service: 'aps', region: 'us-east-1', credentials: TEST_CREDENTIALS } } });
}, 60_000);
afterAll(async () => {
  await Promise.all([amp?.close(), cloudWatch?.close(), db?.stop()]);
  await fx?.stop();
});
beforeEach(async () => {
  if (!PROMETHEUS_BIN) return;
  store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: `prom-decisions-${++table}` });
  await ensureTable(store.client, store.tableName);
  cluster = new FakeCluster();
});

/** The example's objects, as `shpa apply` checks them, with what points at AWS or a cluster service made local. */
function example(file: string, local: (o: PrometheusMetric) => PrometheusMetric['spec']): StoredSpec[] {
  const checked = checkFile(join(EXAMPLES, file), undefined);
  if ('errors' in checked) throw new Error(checked.errors.join('\n'));
  return checked.objects.map(({ object }) => (object.kind === 'PrometheusMetric' ? { ...object, spec: local(object) } : object));
}

/** `replicas` running, ready pods of a target, each using `cpuMilli` of its 1-CPU request. */
function runPods(namespace: string, name: string, replicas: number, cpuMilli: number): void {
  cluster.addTarget(namespace, name, replicas);
  const long = new Date(Date.now() - 3_600_000).toISOString();
  const pods: PodInfo[] = Array.from({ length: replicas }, (_, i) => ({
    name: `${name}-${i}`,
    labels: { app: name },
    phase: 'Running',
    ready: 'True',
    readyTransitionTime: long,
    startTime: long,
    containers: [{ name: 'app', requests: { cpu: '1' } }],
  }));
  const usage: PodMetric[] = pods.map((p) => ({ pod: p.name, timestamp: new Date().toISOString(), windowSeconds: 30, containers: [{ name: 'app', usage: { cpu: `${cpuMilli}m` } }] }));
  cluster.pods.set(namespace, [...(cluster.pods.get(namespace) ?? []), ...pods]);
  cluster.podMetrics.set(namespace, [...(cluster.podMetrics.get(namespace) ?? []), ...usage]);
}

async function cycle(): Promise<AutoscalerReport[]> {
  // The local Prometheus is loopback: its origin granted by name, as a deploy grants its servers.
  const metricAccess = { '*': { prometheusUrls: [fx.prometheus.url] } };
  const metrics = createMetricsAccess({
    clusterMetrics: () => cluster,
    cloudWatch: { ...cloudWatchClients({ endpoint: cloudWatch.url, credentials: TEST_CREDENTIALS }), defaultRegion: 'us-east-1' },
    prometheus: { credentials: TEST_CREDENTIALS, endpoints: { amp: amp.url }, access: metricAccess },
    clock,
  });
  const now = clock.now();
  const r = await runShardCycle(
    { store, cluster, metrics, clock },
    { shard: { cluster: 'prod', index: 0, count: 1 }, cluster: CLUSTER, trigger: { kind: 'tick', tick: now }, deadline: new Date(now.getTime() + 8_000), periodSeconds: 15, options: { ...options, metricAccess } },
  );
  return r.autoscalers;
}

describe.skipIf(!PROMETHEUS_BIN)('examples/prometheus, end to end against a real Prometheus', () => {
  it('http-requests.yaml: 12 requests a second at 5 a pod scale web from 2 to 3; CPU, lower, loses', async () => {
    // The server is the local Prometheus; the window and period short enough for a series seconds old (test/support/prometheus.ts).
    const objects = example('http-requests.yaml', (o) => ({ ...o.spec, server: { url: fx.prometheus.url }, query: o.spec.query.replace('[1m]', '[10s]'), periodSeconds: 5 }));
    expect((objects[0] as PrometheusMetric).spec.query).toBe(RATE_QUERY);
    for (const o of objects) await store.applySpec('prod', o, clock.now());
    runPods('demo', 'web', 2, 300);

    const [web] = await cycle();
    expect(web.errors).toEqual([]);
    expect([web.outcome, web.currentReplicas, web.desiredReplicas]).toEqual(['scaled', 2, 3]);
    expect(cluster.replicas('demo', 'web')).toBe(3);
    const metrics = web.decision!.metrics;
    expect(metrics.map((m) => [m.name, m.source, m.proposal])).toEqual([
      ['cpu', 'metrics.k8s.io', 1],
      ['http-requests', `PrometheusMetric demo/http-requests (Prometheus ${fx.prometheus.url})`, 3],
    ]);
    // The decision line carries each metric's source.
    const line = JSON.stringify(decisionLine(web, { shard: 'prod', startedAt: new Date().toISOString(), trigger: 'tick' }));
    expect(line).toContain(`"source":"PrometheusMetric demo/http-requests (Prometheus ${fx.prometheus.url})"`);
    expect(line).toContain('"source":"metrics.k8s.io"');
  });
});

describe.skipIf(!PROMETHEUS_BIN)('several providers in one autoscaler', () => {
  it('three-sources.yaml: CPU, CloudWatch and AMP PromQL; the largest proposal wins, each source named in the line and in describe', async () => {
    // pending jobs: the fixture's request rate × 9 ≈ 108, at 20 a pod → 6 (5.4, clear of a boundary); the backlog 400 at 100 a pod → 4; CPU 35% of 70% → 2.
    // From 3 replicas, so that upstream's scale-up limit (twice, at least 4) lets 6 through.
    const objects = example('three-sources.yaml', (o) => ({ ...o.spec, query: `${RATE_QUERY} * 9`, periodSeconds: 5 }));
    for (const o of objects) await store.applySpec('prod', o, clock.now());
    cloudWatch.setSeriesFunction({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: 'jobs' }] }, () => 400, 60);
    runPods('jobs', 'worker', 3, 350);
    const before = amp.counts.received;

    const [worker] = await cycle();
    expect(worker.errors).toEqual([]);
    expect([worker.outcome, worker.desiredReplicas]).toEqual(['scaled', 6]);
    expect(worker.decision!.metrics.map((m) => [m.source, m.proposal])).toEqual([
      ['metrics.k8s.io', 2],
      ['CloudWatchMetric jobs/queue-backlog', 4],
      [`PrometheusMetric jobs/pending-jobs (AMP workspace ${WS} (us-east-1))`, 6],
    ]);
    expect(worker.decision!.winner).toMatch(/pending-jobs/);
    // Signed for aps and let through by the stand-in.
    expect(amp.counts.received - before).toBe(1);
    expect(amp.counts.refused).toBe(0);
    // Both answers kept for the deployment in the shard's item, the PromQL one for its 5 s period.
    const kept = (await store.loadShard({ cluster: 'prod', index: 0, count: 1 }, { now: new Date() })).sharedAnswers;
    const values = [...kept.values()].map((a) => a.samples?.reduce((sum, x) => sum + toFloat(parseQuantity(x.value)), 0) ?? NaN).sort((a, b) => a - b);
    expect(values).toHaveLength(2);
    expect(values[0]).toBeGreaterThan(RPS * 9 * 0.9);
    expect(values[0]).toBeLessThan(RPS * 9 * 1.1);
    expect(values[1]).toBe(400);

    const snap = await store.loadCluster('prod');
    const rec = snap.autoscalers.find((a) => a.name === 'worker')!;
    const text = describeText(rec, 'prod', new Date(), snap);
    expect(text).toMatch(/"queue-backlog" \(target average value\):\s+\S+ \/ 100\n\s+from:\s+CloudWatchMetric jobs\/queue-backlog\n/);
    expect(text).toMatch(new RegExp(`"pending-jobs" \\(target average value\\):\\s+\\S+ / 20\\n\\s+from:\\s+PrometheusMetric jobs/pending-jobs \\(AMP workspace ${WS} \\(us-east-1\\)\\)\\n`));
    expect(text).toMatch(/resource cpu on pods\s+\(as a percentage of request\):\s+35% \(350m\) \/ 70%\n\s+from:\s+metrics\.k8s\.io\n/);
  });
});
