// The functions' configuration, from their environment (set by serverless.yml; see
// docs/architecture.md). A bad value fails every invocation with the variable and field named.
import { type MetricAccess, parseMetricAccess } from '#api';
import { DEFAULT_CONTROLLER_SETTINGS, isDNS1123Label } from '#hpa/api';
import type { ControllerSettings } from '#hpa';
import type { ClusterConfig } from './ports/cluster-access.js';
import { isShardCount } from './shards.js';
import { errorText } from '../shared/error-text.js';
import { isAwsRegion, isClusterName, isRoleArn } from '../shared/aws-patterns.cjs';

/** What the worker does with each autoscaler: the cycle's options. */
export interface SyncOptions {
  settings: ControllerSettings;
  /** Global dry-run: compute, log and store decisions, never patch. */
  dryRun: boolean;
  /**
   * Autoscalers evaluated at once in a shard cycle, taken in priority order (SHPA_CONCURRENCY, 32):
   * what the deadline leaves is the end of the line. Requests in flight are bounded per dependency by the adapters.
   */
  concurrency: number;
  /** Time that must be left to start one autoscaler's writes (check, save, patch, save again on failure). */
  writeBudgetMs: number;
  /** One Kubernetes call's time budget, retries included (the cluster adapter's): how long a scale write may still land. */
  clusterBudgetMs: number;
  /** Where autoscalers come from. */
  sources: { table: boolean; cluster: boolean };
  /** A quiet autoscaler's decision line at most this often (seconds). */
  decisionLogSeconds: number;
  /** Which roles and CloudWatch namespaces each namespace's CloudWatchMetric objects may use (SHPA_METRIC_ACCESS); absent: no role. */
  metricAccess?: MetricAccess;
}

export interface FunctionConfig {
  region: string;
  tableName: string;
  queueUrl: string;
  /** Where evaluations go (SHPA_EVALUATOR_FUNCTION): the evaluator function, invoked asynchronously, so that events never delay ticks. */
  evaluatorFunction?: string;
  clusters: ClusterConfig[];
  syncPeriodSeconds: number;
  options: SyncOptions;
  /** Per-autoscaler EMF metrics (two custom metrics each). */
  autoscalerMetrics: boolean;
  /** The worker's memory (MB): its CPU share, which sizes shards (lib/sizing). */
  workerMemoryMb: number;
  /** Shards of all clusters at most (the worker queue's concurrency less room for events); undefined: no limit. */
  shardBudget?: number;
  /**
   * When CloudWatch datapoints are read (SHPA_CLOUDWATCH_PUBLISH_DELAY): 'learn' (each object's delay learned from its
   * sample counts, 60 s until then, lib/metrics/publish-delay.ts; absent means this) or a fixed number of seconds after each period.
   */
  cloudWatchPublishDelay?: 'learn' | number;
  /** Bytes of a metric endpoint's answer read before it is dropped (SHPA_MAX_ANSWER_BYTES); absent: sized to the worker's memory (lib/transport/bounded-fetch.ts). */
  maxAnswerBytes?: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A divisor of 60 that is at least 5, or a multiple of 60 up to 900: ticks then fall on the same seconds every minute. */
export function isSyncPeriod(p: number): boolean {
  return Number.isInteger(p) && ((p >= 5 && 60 % p === 0) || (p >= 60 && p <= 900 && p % 60 === 0));
}

/**
 * AWS_REGION; SHPA_TABLE; SHPA_QUEUE_URL; SHPA_EVALUATOR_FUNCTION (the stream and events functions); SHPA_CLUSTERS: JSON list of {name, region?, roleArn?, shards?, namespaces?};
 * SHPA_SYNC_PERIOD_SECONDS (15); SHPA_DRY_RUN (false); SHPA_CONCURRENCY (32); SHPA_CONTROLLER_SETTINGS (JSON);
 * SHPA_AUTOSCALER_SOURCES ("table,cluster"); SHPA_DECISION_LOG_SECONDS (300); SHPA_AUTOSCALER_METRICS (false);
 * SHPA_WORKER_MEMORY_MB (512); SHPA_SHARD_BUDGET (none); SHPA_METRIC_ACCESS (JSON, lib/api/metric-access.ts);
 * SHPA_CLOUDWATCH_PUBLISH_DELAY ("learn", or seconds from 0 to 600); SHPA_MAX_ANSWER_BYTES (1 KiB to 64 MiB; default by memory).
 */
export function loadFunctionConfig(env: Record<string, string | undefined>, needs: { table?: boolean; queue?: boolean; evaluator?: boolean } = {}): FunctionConfig {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new ConfigError('AWS_REGION is not set');
  const tableName = env.SHPA_TABLE ?? '';
  if (needs.table !== false && !tableName) throw new ConfigError('SHPA_TABLE is not set: the DynamoDB table of autoscalers');
  const queueUrl = env.SHPA_QUEUE_URL ?? '';
  if (needs.queue !== false && !queueUrl) throw new ConfigError('SHPA_QUEUE_URL is not set: the work queue');
  const evaluatorFunction = env.SHPA_EVALUATOR_FUNCTION ?? '';
  if (needs.evaluator && !evaluatorFunction) throw new ConfigError('SHPA_EVALUATOR_FUNCTION is not set: the function evaluations are sent to');
  const syncPeriodSeconds = integer(env, 'SHPA_SYNC_PERIOD_SECONDS', 15, 1, 900);
  if (!isSyncPeriod(syncPeriodSeconds)) {
    throw new ConfigError(`SHPA_SYNC_PERIOD_SECONDS: must divide 60 (and be at least 5) or be a multiple of 60 up to 900, got ${syncPeriodSeconds}`);
  }
  return {
    region,
    tableName,
    queueUrl,
    ...(evaluatorFunction ? { evaluatorFunction } : {}),
    clusters: parseClusters(env.SHPA_CLUSTERS, region),
    syncPeriodSeconds,
    options: {
      settings: controllerSettings(env.SHPA_CONTROLLER_SETTINGS),
      dryRun: boolean(env, 'SHPA_DRY_RUN'),
      concurrency: integer(env, 'SHPA_CONCURRENCY', 32, 1, 512),
      writeBudgetMs: 1_200,
      clusterBudgetMs: 8_000,
      sources: sources(env.SHPA_AUTOSCALER_SOURCES),
      decisionLogSeconds: integer(env, 'SHPA_DECISION_LOG_SECONDS', 300, 0, 86_400),
      metricAccess: metricAccess(env.SHPA_METRIC_ACCESS),
    },
    autoscalerMetrics: boolean(env, 'SHPA_AUTOSCALER_METRICS'),
    workerMemoryMb: integer(env, 'SHPA_WORKER_MEMORY_MB', 512, 128, 10_240),
    ...(env.SHPA_SHARD_BUDGET ? { shardBudget: integer(env, 'SHPA_SHARD_BUDGET', 0, 1, 1000) } : {}),
    cloudWatchPublishDelay: (env.SHPA_CLOUDWATCH_PUBLISH_DELAY ?? 'learn') === 'learn' ? 'learn' : integer(env, 'SHPA_CLOUDWATCH_PUBLISH_DELAY', 60, 0, 600),
    ...(env.SHPA_MAX_ANSWER_BYTES ? { maxAnswerBytes: integer(env, 'SHPA_MAX_ANSWER_BYTES', 0, 1024, 64 * 1024 * 1024) } : {}),
  };
}

export function parseClusters(text: string | undefined, defaultRegion: string): ClusterConfig[] {
  if (!text || text.trim() === '') throw new ConfigError('SHPA_CLUSTERS is not set: the clusters to sync');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`SHPA_CLUSTERS: not JSON: ${errorText(e)}`);
  }
  if (!Array.isArray(raw)) throw new ConfigError('SHPA_CLUSTERS: must be a JSON list of {name, region?, roleArn?, shards?, namespaces?}');
  const seen = new Set<string>();
  return raw.map((item: unknown, i) => {
    const at = `SHPA_CLUSTERS[${i}]`;
    if (typeof item !== 'object' || item === null) throw new ConfigError(`${at}: must be an object`);
    const { name, region, roleArn, shards, namespaces, ...rest } = item as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw new ConfigError(`${at}: unknown field ${unknown[0]}`);
    if (typeof name !== 'string' || !isClusterName(name)) throw new ConfigError(`${at}.name: invalid cluster name ${JSON.stringify(name)}`);
    if (seen.has(name)) throw new ConfigError(`${at}.name: duplicate cluster ${name}`);
    seen.add(name);
    if (region !== undefined && (typeof region !== 'string' || !isAwsRegion(region))) {
      throw new ConfigError(`${at}.region: invalid region ${JSON.stringify(region)}`);
    }
    if (roleArn !== undefined && (typeof roleArn !== 'string' || !isRoleArn(roleArn))) {
      throw new ConfigError(`${at}.roleArn: not an IAM role ARN: ${JSON.stringify(roleArn)}`);
    }
    if (shards !== undefined && (typeof shards !== 'number' || !isShardCount(shards))) {
      throw new ConfigError(`${at}.shards: must be 1, 2, 4, 8 or 16, got ${JSON.stringify(shards)}`);
    }
    const config: ClusterConfig = { name, region: (region as string | undefined) ?? defaultRegion, shards: (shards as number | undefined) ?? 1 };
    if (roleArn) config.roleArn = roleArn as string;
    if (namespaces !== undefined) config.namespaces = namespaceList(namespaces, `${at}.namespaces`);
    return config;
  });
}

function namespaceList(v: unknown, at: string): string[] {
  if (!Array.isArray(v) || v.length === 0) throw new ConfigError(`${at}: must be a non-empty list of namespaces (leave it out for all)`);
  return v.map((ns, j) => {
    if (typeof ns !== 'string' || isDNS1123Label(ns).length > 0) throw new ConfigError(`${at}[${j}]: not a namespace name: ${JSON.stringify(ns)}`);
    return ns;
  });
}

function metricAccess(text: string | undefined): MetricAccess {
  try {
    return parseMetricAccess(text);
  } catch (e) {
    throw new ConfigError(`SHPA_METRIC_ACCESS: ${errorText(e)}`);
  }
}

function sources(text: string | undefined): SyncOptions['sources'] {
  const list = (text ?? 'table,cluster').split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of list) if (s !== 'table' && s !== 'cluster') throw new ConfigError(`SHPA_AUTOSCALER_SOURCES: unknown source ${JSON.stringify(s)} (table, cluster)`);
  if (list.length === 0) throw new ConfigError('SHPA_AUTOSCALER_SOURCES: name at least one of table, cluster');
  return { table: list.includes('table'), cluster: list.includes('cluster') };
}

export function controllerSettings(text: string | undefined): ControllerSettings {
  if (!text) return DEFAULT_CONTROLLER_SETTINGS;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`SHPA_CONTROLLER_SETTINGS: not JSON: ${errorText(e)}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError('SHPA_CONTROLLER_SETTINGS: must be a JSON object');
  const settings = structuredClone(DEFAULT_CONTROLLER_SETTINGS);
  for (const [k, v] of Object.entries(raw)) {
    const path = `SHPA_CONTROLLER_SETTINGS.${k}`;
    switch (k) {
      case 'tolerance':
      case 'featureGates': {
        if (typeof v !== 'object' || v === null) throw new ConfigError(`${path}: must be an object`);
        const target = settings[k] as unknown as Record<string, unknown>;
        for (const [field, value] of Object.entries(v)) {
          if (!(field in target)) throw new ConfigError(`${path}.${field}: unknown field`);
          if (typeof value !== typeof target[field]) throw new ConfigError(`${path}.${field}: must be a ${typeof target[field]}`);
          if (typeof value === 'number' && !(value >= 0)) throw new ConfigError(`${path}.${field}: must be ≥ 0`);
          target[field] = value;
        }
        break;
      }
      case 'cpuInitializationPeriodSeconds':
      case 'initialReadinessDelaySeconds':
      case 'downscaleStabilizationWindowSeconds':
      case 'scaleUpLimitFactor':
      case 'scaleUpLimitMinimum':
        if (typeof v !== 'number' || !(v >= 0)) throw new ConfigError(`${path}: must be a number ≥ 0`);
        settings[k] = v;
        break;
      default:
        throw new ConfigError(`${path}: unknown setting`);
    }
  }
  return settings;
}

function integer(env: Record<string, string | undefined>, name: string, dflt: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return dflt;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name}: must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return n;
}

function boolean(env: Record<string, string | undefined>, name: string): boolean {
  const text = (env[name] ?? '').trim().toLowerCase();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw new ConfigError(`${name}: must be true or false, got ${JSON.stringify(env[name])}`);
}
