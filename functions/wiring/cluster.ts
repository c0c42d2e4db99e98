// The worker's access to the clusters and their metrics: EKS (@kubernetes/client-node, STS
// tokens), CloudWatch, and where a cluster's configuration comes from. Only the worker
// imports it: it is most of what sets the worker's bundle apart from the others.
import { createClusterAccess, type KubernetesCluster, type RetryPolicy } from '../../lib/cluster/index.js';
import { cloudWatchClients, createMetricsAccess, sqsClients } from '#metrics';
import { answerCapForMemory } from '#transport';
import type { RegisteredCluster } from '../../lib/store/index.js';
import type { FunctionConfig } from '#sync/messaging';
import type { Clock, ClusterConfig } from '#sync/ports';
import type { ClusterDirectory, WorkerDeps } from '#sync';
import type { SourceStats } from '../log.js';
import { createLogger } from './logger.js';
import type { LocalEndpoints } from './options.js';

/** The metric sources' own warnings (a publication delay reset), at WARN. */
const resetLogger = createLogger();

export interface ClusterAdapters extends Pick<WorkerDeps, 'metrics' | 'cluster' | 'clusters'> {
  sourceStats(): SourceStats;
}

export interface ClusterAdapterOptions {
  clock: Clock;
  local?: LocalEndpoints;
  retry?: Partial<RetryPolicy>;
}

/** Where a local stack registers its clusters (the table's registry). */
export interface LocalRegistry {
  getCluster(name: string): Promise<RegisteredCluster | undefined>;
}

/**
 * The clusters: the deploy's parameter in the Lambda (the only ones its role may reach, and
 * never an endpoint from the table: a forged one would receive the role's tokens); the
 * table's registry on local stacks, whose clusters are local API servers.
 */
function clusterDirectory(config: FunctionConfig, registry: LocalRegistry, local: boolean): ClusterDirectory {
  if (!local) {
    const byName = new Map(config.clusters.map((c) => [c.name, c]));
    return { get: async (name) => byName.get(name) };
  }
  return {
    async get(name) {
      const rec = await registry.getCluster(name);
      if (!rec) return undefined;
      const { managedBy: _m, ...cluster } = rec;
      return cluster;
    },
  };
}

/** Cluster access (one per cluster, kept), metrics access and the cluster directory, with the counters of the metric sources. */
export function createClusterAdapters(config: FunctionConfig, registry: LocalRegistry, options: ClusterAdapterOptions): ClusterAdapters {
  const { clock, local, retry } = options;
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
    prometheus: {
      access: config.options.metricAccess ?? {},
      // The function's own memory where Lambda says it (the worker's), else the configured worker's.
      maxAnswerBytes: config.maxAnswerBytes ?? answerCapForMemory(Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE) || config.workerMemoryMb),
      ...(local ? { credentials: local.credentials, endpoints: local.prometheus, ...(local.resolve ? { resolve: local.resolve } : {}) } : {}),
    },
    // Queues are read where metricAccess grants them (within the deploy's sqsQueueArns param).
    sqs: { ...sqsClients(local && { endpoint: local.sqs, credentials: local.credentials }), defaultRegion: config.region, access: config.options.metricAccess ?? {} },
    ...(typeof config.cloudWatchPublishDelay === 'number' ? { publishDelaySeconds: config.cloudWatchPublishDelay } : { learnPublishDelay: true }),
    onDelayReset: (reset) => resetLogger.warn('publication delay reset', { ...reset }),
    clock,
  });
  return {
    metrics,
    cluster: clusterFor,
    clusters: clusterDirectory(config, registry, local !== undefined),
    sourceStats: () => {
      const s = metrics.stats();
      return {
        cloudWatchCalls: s.cloudWatch.calls,
        cloudWatchMetricsRequested: s.cloudWatch.metricsRequested,
        clusterMetricsCalls: s.clusterCalls,
        promQLQueries: s.prometheus.queries,
        promQLSamplesProcessed: s.prometheus.samplesProcessed,
        sqsQueueReads: s.sqs.calls,
      };
    },
  };
}
