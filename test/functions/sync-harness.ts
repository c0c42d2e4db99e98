// The sync handler wired to real local parts: dynalite (DynamoDB over HTTP), the
// local Kubernetes API server (HTTPS, real @kubernetes/client-node) with its
// workload model, and the local CloudWatch endpoint (real SDK client), all on one
// virtual clock. Each "instance" is a new handler with new adapters (a cold start),
// made by the function module's own factories: the source, or its esbuild bundle.
import type { Context, ScheduledEvent } from 'aws-lambda';
import * as source from '../../functions/sync.js';
import type { SyncResult } from '../../functions/sync.js';
import { applyDefaults } from '../../lib/hpa/defaults.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch-server.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/k8s-api-server.js';
import { WorkloadModel } from '../../lib/local/workload-model.js';
import type { CloudWatchMetric } from '../../lib/metrics/cloudwatch-types.js';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../lib/store/index.js';
import type { InvocationConfig, SleepingClock } from '../../lib/sync/invocation.js';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/defaults.js';
import type { ClusterRecord } from '../../lib/sync/ports.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';

export const CLUSTER = 'local';
export const START = Date.parse('2026-03-02T10:00:00.000Z');

export interface Harness {
  clock: SleepingClock & { t: number };
  dynamo: DynamoServer;
  k8s: K8sApiServer;
  cloudWatch: LocalCloudWatch;
  model: WorkloadModel;
  table: string;
  cluster: ClusterRecord;
  /** A store on the same table, for arranging and inspecting (separate from any handler's). */
  admin: DynamoStore;
  newInstance(): Instance;
  stop(): Promise<void>;
}

export interface Instance {
  invoke(id?: string): Promise<SyncResult>;
  /** Log lines the handler wrote (parsed JSON). */
  lines: Record<string, unknown>[];
}

/** What the harness uses of functions/sync.ts. */
export type SyncModule = Pick<typeof source, 'createSyncHandler' | 'awsAdapters' | 'createTelemetry'>;

let counter = 0;

export async function startHarness(fn: SyncModule = source): Promise<Harness> {
  const clock = {
    t: START,
    now: () => new Date(clock.t),
    sleep: async (ms: number) => {
      clock.t += ms;
    },
  };
  const dynamo = await startDynalite();
  const table = `shpa-e2e-${++counter}`;
  const dynamoOptions = { endpoint: dynamo.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: table };
  const admin = createDynamoStore(dynamoOptions);
  await ensureTable(admin.client, table);
  const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 5, terminationGraceSeconds: 5 });
  const k8s = await startK8sApiServer({ model });
  const cloudWatch = await startLocalCloudWatch({ clock: () => clock.t, ingestDelaySeconds: 0 });
  const cluster: ClusterRecord = { name: CLUSTER, region: TEST_REGION, endpoint: k8s.url, caData: k8s.caData };
  const config: InvocationConfig = {
    clusters: [cluster],
    syncPeriodSeconds: 15,
    scheduleIntervalSeconds: 60,
    options: { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 1_000 },
    safetyMarginMs: 5_000,
  };

  const local = { dynamoDb: dynamo.endpoint, cloudWatch: cloudWatch.url, credentials: TEST_CREDENTIALS, clusterToken: k8s.token };
  const newInstance = (): Instance => {
    const lines: Record<string, unknown>[] = [];
    const { logger, emf } = fn.createTelemetry();
    const adapters = () => fn.awsAdapters({ ...config, tableName: table, region: TEST_REGION }, { clock, local, maxAttempts: 1 });
    const handler = fn.createSyncHandler({ config, adapters, logger, emf, autoscalerMetrics: false });
    return {
      lines,
      async invoke(id = `req-${++counter}`) {
        const started = clock.t;
        const context = {
          awsRequestId: id,
          functionName: 'serverless-hpa-test-sync',
          getRemainingTimeInMillis: () => 90_000 - (clock.t - started),
        } as unknown as Context;
        // Powertools writes INFO to stdout and WARN/ERROR to stderr.
        const streams = [process.stdout, process.stderr];
        const writes = streams.map((s) => s.write);
        for (const s of streams) {
          s.write = ((chunk: string | Uint8Array) => {
            for (const l of String(chunk).split('\n')) if (l.startsWith('{')) lines.push(JSON.parse(l) as Record<string, unknown>);
            return true;
          }) as typeof s.write;
        }
        try {
          return await handler({} as ScheduledEvent, context);
        } finally {
          streams.forEach((s, i) => (s.write = writes[i]));
        }
      },
    };
  };

  return {
    clock,
    dynamo,
    k8s,
    cloudWatch,
    model,
    table,
    cluster,
    admin,
    newInstance,
    async stop() {
      await Promise.all([k8s.stop(), cloudWatch.close(), dynamo.stop()]);
    },
  };
}

export function hpa(name: string, spec: Partial<HorizontalPodAutoscaler['spec']>, annotations?: Record<string, string>): HorizontalPodAutoscaler {
  return applyDefaults({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'apps', ...(annotations ? { annotations } : {}) },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: 1, maxReplicas: 30, ...spec },
  });
}

export const BACKLOG_METRIC = { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: [{ name: 'QueueName', value: 'jobs' }] };

export const backlogObject: CloudWatchMetric = {
  apiVersion: 'shpa.dev/v1',
  kind: 'CloudWatchMetric',
  metadata: { name: 'jobs-backlog', namespace: 'apps' },
  spec: { queries: [{ id: 'visible', metricStat: { metric: BACKLOG_METRIC, period: 60, stat: 'Average' }, returnData: true }] },
};

/** External metric jobs-backlog (read from CloudWatch), 10 messages per pod. */
export const backlogMetric = {
  type: 'External' as const,
  external: { metric: { name: 'jobs-backlog' }, target: { type: 'AverageValue' as const, averageValue: '10' } },
};
