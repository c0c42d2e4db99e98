// The four functions end to end on real local parts, on one virtual clock: DynamoDB
// (dynalite, or DynamoDB Local with its real table stream), the local Kubernetes API server
// with its workload model, the local CloudWatch endpoint and the local SQS work queue with the
// worker as its event source (lib/local/stack/functions.ts).
import { applyDefaults } from '../../lib/hpa/api/defaults.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';
import { startLocalCloudWatch, type LocalCloudWatch } from '../../lib/local/cloudwatch/server.js';
import { startLocalFunctions, type LocalFunctions, type LocalFunctionsOptions } from '../../lib/local/stack/functions.js';
import { startK8sApiServer, type K8sApiServer } from '../../lib/local/kubernetes/api-server.js';
import { WorkloadModel } from '../../lib/local/kubernetes/workload-model.js';
import type { CloudWatchMetric } from '../../lib/api/cloudwatch-types.js';
import type { LogLine } from '../../lib/local/lambda/telemetry-capture.js';
import { startDynalite, startDynamoDbLocal, type DynamoServer } from '../support/dynamo.js';

export const CLUSTER = 'local';
export const START = Date.parse('2026-03-02T10:00:00.000Z');
export const MIN = 60_000;

export interface Harness {
  clock: { t: number; now(): Date };
  k8s: K8sApiServer;
  cloudWatch: LocalCloudWatch;
  model: WorkloadModel;
  fns: LocalFunctions;
  /** Ticks from the current time: the dispatcher at each minute, then what is due is drained, period by period. */
  run(ticks: number): Promise<void>;
  decisions(name: string): LogLine[];
  stop(): Promise<void>;
}

let tables = 0;

/** A DynamoDB server shared by a test file: dynalite, or DynamoDB Local for its real stream. */
export function startDynamo(kind: 'dynalite' | 'dynamodb-local'): Promise<DynamoServer> {
  return kind === 'dynalite' ? startDynalite() : startDynamoDbLocal();
}

/** `cloudWatchIngestDelaySeconds`: each CloudWatch sample visible this long after it was taken (0). */
export async function startHarness(db: { server: DynamoServer; kind: 'dynalite' | 'dynamodb-local' }, extra: Partial<LocalFunctionsOptions> = {}, cloudWatchIngestDelaySeconds = 0): Promise<Harness> {
  const clock = {
    t: START,
    now: () => new Date(clock.t),
  };
  const model = new WorkloadModel({ clock, startDelaySeconds: 0, readyDelaySeconds: 5, terminationGraceSeconds: 5 });
  const k8s = await startK8sApiServer({ model });
  const cloudWatch = await startLocalCloudWatch({ clock: () => clock.t, ingestDelaySeconds: cloudWatchIngestDelaySeconds });
  const fns = await startLocalFunctions({
    clock,
    dynamoEndpoint: db.server.endpoint,
    stream: db.kind === 'dynamodb-local' ? 'dynamodb-local' : 'write-feed',
    cloudWatchEndpoint: cloudWatch.url,
    clusterToken: k8s.token,
    clusters: [{ name: CLUSTER, region: 'us-east-1', shards: 1, endpoint: k8s.url, caData: k8s.caData }],
    tableName: `e2e-${++tables}`,
    // Every decision logged, so the tests can read each cycle's.
    options: { decisionLogSeconds: 0 },
    retry: { budgetMs: 1_000, attemptTimeoutMs: 500 },
    // One message at a time: the order of cycles is the queue's, so runs replay exactly.
    workerConcurrency: 1,
    ...extra,
  });
  const period = fns.config.syncPeriodSeconds * 1000;
  return {
    clock,
    k8s,
    cloudWatch,
    model,
    fns,
    async run(ticks) {
      for (let i = 0; i < ticks; i++) {
        if (clock.t % MIN === 0) await fns.dispatch(new Date(clock.t));
        await fns.drain();
        clock.t += period;
      }
    },
    decisions: (name) => fns.lines.filter((l) => l.message === 'decision' && l.hpa === name),
    async stop() {
      await fns.close();
      await Promise.all([k8s.stop(), cloudWatch.close()]);
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
