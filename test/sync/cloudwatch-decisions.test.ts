// Shard cycles reading CloudWatch through the real metrics access (real SDK client, local
// endpoint) with the real store on dynalite and an in-memory cluster: what a decision says
// when CloudWatch keeps failing or answers in part, when its line is worth writing, and what
// an alarm's evaluation reads. The cycle's clock is frozen; its deadline runs in real time.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { logCycle } from '../../functions/log.js';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler, MetricSpec } from '../../lib/hpa/types.js';
import { startLocalCloudWatch, type LocalCloudWatch, type LocalMetric } from '../../lib/local/cloudwatch/server.js';
import { CapturingLogger, CapturingMetrics } from '../../lib/local/lambda/telemetry-capture.js';
import { cloudWatchClients } from '../../lib/metrics/cloudwatch-clients.js';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';
import { createMetricsAccess } from '../../lib/metrics/metrics-access.js';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../lib/store/index.js';
import type { SyncOptions } from '../../lib/sync/config.js';
import { runShardCycle, type CycleTrigger } from '../../lib/sync/cycle.js';
import { fromBusEvent } from '../../lib/sync/event-sources.js';
import { parseWorkMessage } from '../../lib/sync/messages.js';
import type { ClusterConfig } from '../../lib/sync/ports/cluster-access.js';
import type { AutoscalerReport, CycleReport } from '../../lib/sync/report.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { FakeCluster, fixedClock } from './fakes.js';

const NOW = '2026-03-01T12:00:30.000Z';
const CLUSTER: ClusterConfig = { name: 'prod', region: 'eu-west-1', shards: 1 };
const options: SyncOptions = { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 300, clusterBudgetMs: 8_000, sources: { table: true, cluster: true }, decisionLogSeconds: 300 };
const QUEUE: LocalMetric = { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: 'jobs' }] };

const external = (name: string): MetricSpec => ({ type: 'External', external: { metric: { name }, target: { type: 'AverageValue', averageValue: '10' } } });

function hpa(name: string, metrics: MetricSpec[]): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'apps' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: 1, maxReplicas: 30, metrics },
  };
}

const backlog: CloudWatchMetric = {
  apiVersion: 'shpa.dev/v1',
  kind: 'CloudWatchMetric',
  metadata: { name: 'backlog', namespace: 'apps' },
  spec: { queries: [{ id: 'q', metricStat: { metric: QUEUE, period: 60, stat: 'Average' }, returnData: true }], alarmName: 'jobs-high' },
};

let db: DynamoServer;
let cloudWatch: LocalCloudWatch;
let store: DynamoStore;
let cluster: FakeCluster;
let clock: ReturnType<typeof fixedClock>;
let metrics: ReturnType<typeof createMetricsAccess>;
let table = 0;

beforeAll(async () => {
  db = await startDynalite();
  cloudWatch = await startLocalCloudWatch({ clock: () => clock.now().getTime() });
});
afterAll(async () => {
  await cloudWatch?.close();
  await db?.stop();
});
beforeEach(async () => {
  store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: `cw-decisions-${++table}` });
  await ensureTable(store.client, store.tableName);
  cluster = new FakeCluster();
  clock = fixedClock(NOW);
  cloudWatch.clearSeries();
  metrics = createMetricsAccess({
    clusterMetrics: () => cluster,
    cloudWatch: { ...cloudWatchClients({ endpoint: cloudWatch.url, credentials: TEST_CREDENTIALS }), defaultRegion: 'eu-west-1' },
    clock,
  });
});

async function cycle(trigger: CycleTrigger = { kind: 'tick', tick: clock.now() }, deadlineMs = 5_000): Promise<CycleReport> {
  const now = clock.now();
  return runShardCycle(
    { store, cluster, metrics, clock },
    { shard: { cluster: 'prod', index: 0, count: 1 }, cluster: CLUSTER, trigger, deadline: new Date(now.getTime() + deadlineMs), periodSeconds: 15, options },
  );
}

const web = (r: CycleReport): AutoscalerReport => r.autoscalers.find((a) => a.name === 'web')!;

async function apply(...objects: (HorizontalPodAutoscaler | CloudWatchMetric)[]) {
  for (const o of objects) await store.applySpec('prod', o, clock.now());
}

describe('CloudWatch failing for the whole read budget', () => {
  it.each([
    ['Throttling', /Throttling: Rate exceeded/],
    ['InternalError', /InternalServiceFault: Internal service error/],
  ] as const)('%s: the decision names the last error, not "still waiting"', async (fault, error) => {
    await apply(backlog, hpa('web', [external('backlog')]));
    cluster.addTarget('apps', 'web', 2);
    cloudWatch.setSeriesFunction(QUEUE, () => 40, 60);
    const stop = cloudWatch.failWhile(fault);
    try {
      // 1.2 s to read (1.5 s less the 300 ms write budget): several attempts, then the answer.
      const r = web(await cycle(undefined, 1_500));
      expect(r.outcome).toBe('unchanged');
      expect(r.errors).toHaveLength(1);
      expect(r.errors[0].stage).toBe('reconcile');
      expect(r.errors[0].message).toMatch(/^FailedGetExternalMetric: .*CloudWatchMetric apps\/backlog: GetMetricData failed after [2-9] attempts: /);
      expect(r.errors[0].message).toMatch(error);
      expect(cluster.patches).toEqual([]);
    } finally {
      stop();
    }
  });
});

describe('PartialData', () => {
  it('a decision on part of the data is notable, carries a warning, and its line is WARN', async () => {
    await apply(backlog, hpa('web', [external('backlog')]));
    cluster.addTarget('apps', 'web', 2);
    cloudWatch.setSeriesFunction(QUEUE, () => 20, 60);
    await cycle();
    clock.advance(60_000);
    const stop = cloudWatch.failWhile('PartialData');
    let partial: CycleReport;
    try {
      partial = await cycle();
    } finally {
      stop();
    }
    expect(web(partial)).toMatchObject({ outcome: 'unchanged', desiredReplicas: 2, notable: true });
    expect(web(partial).warnings).toEqual([expect.stringMatching(/^decided on partial data: .*PartialData: CloudWatch returned part of the data/)]);
    const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
    logCycle(logger, new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' }), partial, undefined, { periodSeconds: 15, decisionLogSeconds: 300, autoscalerMetrics: false, detailedMetrics: false });
    const line = logger.lines.find((l) => l.message === 'decision' && l.hpa === 'web');
    expect(line?.level).toBe('WARN');
    expect(JSON.stringify(line?.warnings)).toMatch(/PartialData/);
    // Complete data again: a quiet tick.
    clock.advance(60_000);
    expect(web(await cycle())).toMatchObject({ outcome: 'unchanged', warnings: [], notable: false });
  });
});

describe('decision lines', () => {
  it('two metrics that disagree are not news every tick; another metric taking over is', async () => {
    await apply(hpa('web', [external('cpu-ish'), external('queue-ish')]));
    cluster.addTarget('apps', 'web', 4);
    // cpu-ish wants 4 (the current count), queue-ish wants 2.
    cluster.external.set('apps/cpu-ish', 40);
    cluster.external.set('apps/queue-ish', 20);
    const first = web(await cycle());
    expect(first).toMatchObject({ desiredReplicas: 4, notable: true }); // its conditions are new
    clock.advance(15_000);
    const steady = web(await cycle());
    expect(steady.decision?.metrics.map((m) => m.proposal)).toEqual([4, 2]);
    expect(steady).toMatchObject({ outcome: 'unchanged', desiredReplicas: 4, notable: false });
    // The other metric now gives the count: same replicas, but the reason changed hands.
    cluster.external.set('apps/cpu-ish', 20);
    cluster.external.set('apps/queue-ish', 40);
    clock.advance(15_000);
    const handover = web(await cycle());
    expect(handover).toMatchObject({ outcome: 'unchanged', desiredReplicas: 4, notable: true });
    expect(handover.decision?.winner).toBe('external metric queue-ish(nil)');
    // The new winner is stored with this cycle's state (ScalingActive's message): the next tick is quiet.
    clock.advance(15_000);
    expect(web(await cycle())).toMatchObject({ desiredReplicas: 4, notable: false });
  });
});

describe("an alarm's evaluation", () => {
  it('reads the period the alarm evaluated, not the window the tick cached', async () => {
    await apply(backlog, hpa('web', [external('backlog')]));
    cluster.addTarget('apps', 'web', 2);
    // The queue grew in the minute that just ended (11:59), which set the alarm off.
    cloudWatch.setSeriesFunction(QUEUE, (t) => (t >= Date.parse('2026-03-01T11:59:00Z') / 1000 ? 300 : 20), 60);
    const tick = web(await cycle());
    expect(tick).toMatchObject({ outcome: 'unchanged', desiredReplicas: 2 });
    expect(tick.decision?.metrics[0].timestamp).toBe('2026-03-01T11:58:00Z');

    clock.advance(50);
    const reasonData = JSON.stringify({ version: '1.0', period: 60, statistic: 'Average', threshold: 100, evaluatedDatapoints: [{ timestamp: '2026-03-01T11:59:00.000+0000', sampleCount: 4, value: 300 }] });
    const event = { source: 'aws.cloudwatch', 'detail-type': 'CloudWatch Alarm State Change', time: '2026-03-01T12:00:30Z', detail: { alarmName: 'jobs-high', state: { value: 'ALARM', timestamp: '2026-03-01T12:00:30.010+0000', reasonData } } };
    const [message] = fromBusEvent(event, [CLUSTER], clock.now()).messages;
    const msg = parseWorkMessage(message.body);
    if (msg.kind !== 'evaluate') throw new Error('an alarm is an evaluation');
    const alarmed = web(await cycle({ kind: 'evaluate', targets: msg.targets, reason: msg.reason }));
    expect(alarmed.decision?.metrics[0].timestamp).toBe('2026-03-01T11:59:00Z');
    // 300 messages at 10 a pod: 30, limited by upstream's scale-up limit without a behavior (max(2 × current, 4)).
    expect(alarmed).toMatchObject({ outcome: 'scaled', currentReplicas: 2, desiredReplicas: 4 });
  });
});

describe('CloudWatch answers shared by every environment', () => {
  it('a shard ticked by environments with caches of their own reads each query from CloudWatch once a period', async () => {
    await apply(backlog, hpa('web', [external('backlog')]), hpa('api', [external('backlog')]));
    cluster.addTarget('apps', 'web', 2);
    cluster.addTarget('apps', 'api', 2);
    cloudWatch.setSeriesFunction(QUEUE, () => 20, 60);
    // Three Lambda environments, each with its own metrics access (its own in-memory cache), taking the ticks in turn.
    const environments = Array.from({ length: 3 }, () =>
      createMetricsAccess({ clusterMetrics: () => cluster, cloudWatch: { ...cloudWatchClients({ endpoint: cloudWatch.url, credentials: TEST_CREDENTIALS }), defaultRegion: 'eu-west-1' }, clock }),
    );
    const read = () => environments.reduce((n, m) => n + m.stats().cloudWatch.metricsRequested, 0);
    // Ticks of whole minutes: a minute is one window of the 60 s metric.
    clock.set('2026-03-01T12:01:00.000Z');
    const shared = () => environments.reduce((n, m) => n + m.stats().cloudWatch.sharedHits, 0);
    const perMinute: number[] = [];
    for (let minute = 0; minute < 3; minute++) {
      const before = read();
      for (let t = 0; t < 4; t++) {
        const r = await runShardCycle(
          { store, cluster, metrics: environments[(minute * 4 + t) % 3], clock },
          { shard: { cluster: 'prod', index: 0, count: 1 }, cluster: CLUSTER, trigger: { kind: 'tick', tick: clock.now() }, deadline: new Date(clock.now().getTime() + 5_000), periodSeconds: 15, options },
        );
        expect(web(r).errors).toEqual([]);
        expect(web(r).decision?.metrics[0]).toMatchObject({ current: { averageValue: "10" } });
        clock.advance(15_000);
      }
      perMinute.push(read() - before);
    }
    // The two autoscalers read one query; each minute's new datapoint is read once, whoever runs the tick.
    expect(perMinute).toEqual([1, 1, 1]);
    expect(shared()).toBeGreaterThanOrEqual(6);
  });

  it('kept answers that cannot be trusted are read again, never used', async () => {
    await apply(backlog, hpa('web', [external('backlog')]));
    cluster.addTarget('apps', 'web', 2);
    cloudWatch.setSeriesFunction(QUEUE, () => 20, 60);
    await cycle();
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { bucketPk } = await import('../../lib/store/items.js');
    const { bucketOf } = await import('../../lib/sync/shards.js');
    await store.doc.send(new UpdateCommand({ TableName: store.tableName, Key: { pk: bucketPk('prod', bucketOf('apps')), sk: 'shared#cloudwatch#all#0' }, UpdateExpression: 'SET cw = :x', ExpressionAttributeValues: { ':x': '{"k":[1,"oops",0,0]' } }));
    const before = metrics.stats().cloudWatch.metricsRequested;
    const fresh = createMetricsAccess({ clusterMetrics: () => cluster, cloudWatch: { ...cloudWatchClients({ endpoint: cloudWatch.url, credentials: TEST_CREDENTIALS }), defaultRegion: 'eu-west-1' }, clock });
    const r = await runShardCycle(
      { store, cluster, metrics: fresh, clock },
      { shard: { cluster: 'prod', index: 0, count: 1 }, cluster: CLUSTER, trigger: { kind: 'tick', tick: clock.now() }, deadline: new Date(clock.now().getTime() + 5_000), periodSeconds: 15, options },
    );
    expect(web(r).errors).toEqual([]);
    expect(fresh.stats().cloudWatch).toMatchObject({ metricsRequested: 1, sharedHits: 0 });
    expect(metrics.stats().cloudWatch.metricsRequested).toBe(before);
  });
});
