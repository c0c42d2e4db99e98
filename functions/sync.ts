// The scheduled sync Lambda: wiring only. createSyncHandler takes the adapters, so
// tests and the demo run this same handler on local parts and a virtual clock.
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { createClusterAccess, type AwsCredentials, type KubernetesCluster } from '../lib/cluster/index.js';
import { cloudWatchClients } from '../lib/metrics/cloudwatch-clients.js';
import { createMetricsAccess } from '../lib/metrics/metrics-access.js';
import { createDynamoStore } from '../lib/store/index.js';
import { loadSyncConfig, type SyncConfig } from '../lib/sync/config.js';
import { runInvocation, type InvocationConfig, type InvocationDeps, type InvocationReport, type SleepingClock } from '../lib/sync/invocation.js';
import type { ClusterRecord } from '../lib/sync/ports.js';
import { logCycle, redactAll, type SourceStats } from './sync-log.js';

export interface SyncAdapters extends InvocationDeps {
  /** Cumulative counters of the metric sources, for the cycle line and EMF. */
  sourceStats?(): SourceStats;
}

export interface SyncHandlerDeps {
  config: InvocationConfig;
  /** Made on the first invocation and kept by the warm instance (clients, tokens, caches). */
  adapters: () => SyncAdapters;
  logger: Logger;
  emf: Metrics;
  /** Two EMF metrics per autoscaler (default true). */
  autoscalerMetrics?: boolean;
}

export type SyncResult = Pick<InvocationReport, 'owner' | 'held' | 'lost' | 'cycles' | 'stoppedBecause' | 'errors'>;

export function createSyncHandler(deps: SyncHandlerDeps) {
  let adapters: SyncAdapters | undefined;
  const { logger, emf, config } = deps;
  return middy<ScheduledEvent, SyncResult, Error, Context>()
    .use(injectLambdaContext(logger))
    .handler(async (_event, context) => {
      if (!adapters) {
        adapters = deps.adapters();
        emf.captureColdStartMetric();
      }
      const a = adapters;
      let last = a.sourceStats?.();
      const report = await runInvocation(a, config, {
        owner: context.awsRequestId,
        remainingMs: context.getRemainingTimeInMillis(),
        onCycle: (cycle) => {
          const now = a.sourceStats?.();
          const delta = now && last ? diff(now, last) : undefined;
          last = now;
          logCycle(logger, emf, cycle, delta, { autoscalerMetrics: deps.autoscalerMetrics ?? true });
        },
      });
      if (report.lost.length > 0) {
        logger.info('lease held by another invocation: not syncing these clusters', { lease: { lost: report.lost, owner: report.owner } });
      }
      const errors = redactAll(report.errors);
      for (const e of errors) logger.error('invocation error', { invocationError: e });
      const result: SyncResult = {
        owner: report.owner,
        held: report.held,
        lost: report.lost,
        cycles: report.cycles,
        stoppedBecause: report.stoppedBecause,
        errors,
      };
      logger.info('invocation', { invocation: result });
      return result;
    });
}

function diff(now: SourceStats, before: SourceStats): SourceStats {
  return {
    cloudWatchCalls: now.cloudWatchCalls - before.cloudWatchCalls,
    cloudWatchMetricsRequested: now.cloudWatchMetricsRequested - before.cloudWatchMetricsRequested,
    clusterMetricsCalls: now.clusterMetricsCalls - before.clusterMetricsCalls,
  };
}

export const systemClock: SleepingClock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Local servers in place of AWS (tests, demo): never set in the Lambda. */
export interface LocalEndpoints {
  dynamoDb: string;
  cloudWatch: string;
  credentials: AwsCredentials;
  /** Bearer token of clusters given with endpoint and caData. */
  clusterToken: string;
}

export interface AdapterOptions {
  clock?: SleepingClock;
  local?: LocalEndpoints;
  /** Attempts per Kubernetes and metrics call; default: their retry policies. */
  maxAttempts?: number;
}

/** The real adapters: DynamoDB, EKS, CloudWatch, with the Lambda role's credentials. */
export function awsAdapters(config: SyncConfig, options: AdapterOptions = {}): SyncAdapters {
  const { clock = systemClock, local, maxAttempts } = options;
  const retry = maxAttempts === undefined ? undefined : { maxAttempts };
  const clusters = new Map<string, KubernetesCluster>();
  const byName = new Map(config.clusters.map((c) => [c.name, c]));
  const clusterFor = (record: ClusterRecord): KubernetesCluster => {
    let c = clusters.get(record.name);
    if (!c) {
      const access = local ? { token: local.clusterToken, credentials: local.credentials } : {};
      clusters.set(record.name, (c = createClusterAccess(record, { clock, retry, ...access })));
    }
    return c;
  };
  const metrics = createMetricsAccess({
    clusterMetrics: (name) => {
      const record = byName.get(name);
      if (!record) throw new Error(`cluster ${name} is not configured`);
      return clusterFor(record);
    },
    cloudWatch: { ...cloudWatchClients(local && { endpoint: local.cloudWatch, credentials: local.credentials }), defaultRegion: config.region },
    clock,
    retry,
    sleep: (ms) => clock.sleep(ms),
  });
  const dynamo = local ? { endpoint: local.dynamoDb, credentials: local.credentials } : {};
  return {
    store: createDynamoStore({ region: config.region, tableName: config.tableName, ...dynamo }),
    cluster: clusterFor,
    metrics,
    clock,
    sourceStats: () => {
      const s = metrics.stats();
      return { cloudWatchCalls: s.cloudWatch.calls, cloudWatchMetricsRequested: s.cloudWatch.metricsRequested, clusterMetricsCalls: s.clusterCalls };
    },
  };
}

/** The function's Powertools logger (level from POWERTOOLS_LOG_LEVEL) and EMF metrics. */
export function createTelemetry(metricsNamespace = 'ServerlessHPA'): { logger: Logger; emf: Metrics } {
  return {
    logger: new Logger({ serviceName: 'serverless-hpa' }),
    emf: new Metrics({ namespace: metricsNamespace, serviceName: 'serverless-hpa' }),
  };
}

const env = process.env;
const { logger, emf } = createTelemetry(env.SHPA_METRICS_NAMESPACE);

/** The Lambda entry point; a bad configuration fails every invocation with its message. */
export const handler = (() => {
  try {
    const config = loadSyncConfig(env);
    return createSyncHandler({
      config,
      adapters: () => awsAdapters(config),
      logger,
      emf,
      autoscalerMetrics: env.SHPA_AUTOSCALER_METRICS !== 'false',
    });
  } catch (e) {
    const message = (e as Error).message;
    return async () => {
      logger.error('configuration error', { configError: message });
      throw new Error(`serverless-hpa configuration: ${message}`);
    };
  }
})();
