// The real adapters the functions wire to lib/sync: DynamoDB, EKS, CloudWatch, SQS with the
// function role's credentials; or, for tests, the demo and `shpa local up`, the same clients
// pointed at local servers. Made once per Lambda container and kept (clients, tokens).
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createClusterAccess, type AwsCredentials, type KubernetesCluster, type RetryPolicy } from '../lib/cluster/index.js';
import { cloudWatchClients } from '../lib/metrics/cloudwatch-clients.js';
import { createMetricsAccess } from '../lib/metrics/metrics-access.js';
import { sqsWorkQueue } from '../lib/queue/sqs-work-queue.js';
import { AwsHttpHandler } from '../lib/transport/aws-http-handler.js';
import { createDynamoStore, type DynamoStore } from '../lib/store/index.js';
import type { FunctionConfig } from '../lib/sync/config.js';
import type { Clock, ClusterConfig } from '../lib/sync/ports.js';
import type { ClusterDirectory, WorkerDeps } from '../lib/sync/worker.js';
import type { SourceStats } from './log.js';

export const systemClock: Clock = { now: () => new Date() };

/** Local servers in place of AWS (tests, demo, shpa local up): never set in the Lambda. */
export interface LocalEndpoints {
  dynamoDb: string;
  cloudWatch: string;
  sqs: string;
  credentials: AwsCredentials;
  /** Bearer token of clusters registered with an endpoint and caData. */
  clusterToken: string;
}

export interface AdapterOptions {
  clock?: Clock;
  local?: LocalEndpoints;
  retry?: Partial<RetryPolicy>;
}

export interface Adapters extends WorkerDeps {
  store: DynamoStore;
  sqs: SQSClient;
  sourceStats(): SourceStats;
}

/**
 * The clusters: the deploy's parameter in the Lambda (the only ones its role may reach, and
 * never an endpoint from the table: a forged one would receive the role's tokens); the
 * table's registry on local stacks, whose clusters are local API servers.
 */
function clusterDirectory(config: FunctionConfig, store: DynamoStore, local: boolean): ClusterDirectory {
  if (!local) {
    const byName = new Map(config.clusters.map((c) => [c.name, c]));
    return { get: async (name) => byName.get(name) };
  }
  return {
    async get(name) {
      const rec = await store.getCluster(name);
      if (!rec) return undefined;
      const { managedBy: _m, ...cluster } = rec;
      return cluster;
    },
  };
}

export function createAdapters(config: FunctionConfig, options: AdapterOptions = {}): Adapters {
  const { clock = systemClock, local, retry } = options;
  const clusters = new Map<string, KubernetesCluster>();
  const known = new Map<string, ClusterConfig>();
  const clusterFor = (c: ClusterConfig): KubernetesCluster => {
    known.set(c.name, c);
    let access = clusters.get(c.name);
    if (!access) {
      const localAccess = local ? { token: local.clusterToken, credentials: local.credentials } : {};
      clusters.set(c.name, (access = createClusterAccess(c, { clock, retry: { budgetMs: config.options.clusterBudgetMs, ...retry }, ...localAccess })));
    }
    return access;
  };
  const metrics = createMetricsAccess({
    clusterMetrics: (name) => {
      const c = known.get(name);
      if (!c) throw new Error(`cluster ${name} is not configured`);
      return clusterFor(c);
    },
    cloudWatch: { ...cloudWatchClients(local && { endpoint: local.cloudWatch, credentials: local.credentials }), defaultRegion: config.region },
    clock,
  });
  const store = createDynamoStore({
    region: config.region,
    tableName: config.tableName,
    ...(local ? { endpoint: local.dynamoDb, credentials: local.credentials } : {}),
  });
  const sqs = new SQSClient({
    region: config.region,
    ...(local ? { endpoint: local.sqs, credentials: local.credentials } : {}),
    requestHandler: new AwsHttpHandler({ maxInFlight: 4, attemptTimeoutMs: 5_000 }),
  });
  return {
    store,
    sqs,
    metrics,
    cluster: clusterFor,
    clusters: clusterDirectory(config, store, local !== undefined),
    queue: sqsWorkQueue(sqs, config.queueUrl),
    clock,
    sourceStats: () => {
      const s = metrics.stats();
      return { cloudWatchCalls: s.cloudWatch.calls, cloudWatchMetricsRequested: s.cloudWatch.metricsRequested, clusterMetricsCalls: s.clusterCalls };
    },
  };
}

/** The functions' Powertools logger (level from POWERTOOLS_LOG_LEVEL) and EMF metrics. */
export function createTelemetry(metricsNamespace = 'ServerlessHPA'): { logger: Logger; emf: Metrics } {
  return {
    logger: new Logger({ serviceName: 'serverless-hpa' }),
    emf: new Metrics({ namespace: metricsNamespace, serviceName: 'serverless-hpa' }),
  };
}

/** Wraps a handler factory: a bad configuration fails every invocation with its message (and a log line), never silently. */
export function withConfig<H extends (...args: never[]) => Promise<unknown>>(logger: Logger, make: () => H): H {
  try {
    return make();
  } catch (e) {
    const message = (e as Error).message;
    return (async () => {
      logger.error('configuration error', { configError: message });
      throw new Error(`serverless-hpa configuration: ${message}`);
    }) as unknown as H;
  }
}
