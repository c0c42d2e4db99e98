// The sync function's configuration, from its environment (set by serverless.yml).
import { DEFAULT_CONTROLLER_SETTINGS } from '../hpa/defaults.js';
import type { ControllerSettings } from '../hpa/types.js';
import type { SyncOptions } from './cycle.js';
import type { InvocationConfig } from './invocation.js';
import type { ClusterRecord } from './ports.js';

export interface SyncConfig extends InvocationConfig {
  tableName: string;
  /** Region of clusters and CloudWatch queries that name none. */
  region: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]*$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/**
 * SHPA_CLUSTERS: JSON list of {name, region?, roleArn?} (serverless.yml derives it from the `clusters` param);
 * SHPA_TABLE; SHPA_SYNC_PERIOD_SECONDS (15); SHPA_SCHEDULE_INTERVAL_SECONDS (60); SHPA_DRY_RUN (false);
 * SHPA_CONCURRENCY (32); SHPA_CONTROLLER_SETTINGS: JSON overriding fields of the controller defaults.
 */
export function loadSyncConfig(env: Record<string, string | undefined>): SyncConfig {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new ConfigError('AWS_REGION is not set');
  const tableName = env.SHPA_TABLE;
  if (!tableName) throw new ConfigError('SHPA_TABLE is not set: the DynamoDB table of autoscalers');
  const syncPeriodSeconds = integer(env, 'SHPA_SYNC_PERIOD_SECONDS', 15, 1, 900);
  const scheduleIntervalSeconds = integer(env, 'SHPA_SCHEDULE_INTERVAL_SECONDS', 60, 60, 900);
  if (syncPeriodSeconds > scheduleIntervalSeconds) {
    throw new ConfigError(`SHPA_SYNC_PERIOD_SECONDS (${syncPeriodSeconds}) is longer than the schedule interval (${scheduleIntervalSeconds})`);
  }
  const options: SyncOptions = {
    settings: controllerSettings(env.SHPA_CONTROLLER_SETTINGS),
    dryRun: boolean(env, 'SHPA_DRY_RUN'),
    concurrency: integer(env, 'SHPA_CONCURRENCY', 32, 1, 512),
    writeBudgetMs: 3_000,
  };
  return {
    clusters: parseClusters(env.SHPA_CLUSTERS, region),
    region,
    tableName,
    syncPeriodSeconds,
    scheduleIntervalSeconds,
    options,
    safetyMarginMs: 5_000,
  };
}

export function parseClusters(text: string | undefined, defaultRegion: string): ClusterRecord[] {
  if (!text || text.trim() === '') throw new ConfigError('SHPA_CLUSTERS is not set: the clusters to sync');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`SHPA_CLUSTERS: not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new ConfigError('SHPA_CLUSTERS: must be a JSON list of {name, region?, roleArn?}');
  const seen = new Set<string>();
  return raw.map((item: unknown, i) => {
    const at = `SHPA_CLUSTERS[${i}]`;
    if (typeof item !== 'object' || item === null) throw new ConfigError(`${at}: must be an object`);
    const { name, region, roleArn, ...rest } = item as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw new ConfigError(`${at}: unknown field ${unknown[0]}`);
    if (typeof name !== 'string' || !CLUSTER_NAME.test(name)) throw new ConfigError(`${at}.name: invalid cluster name ${JSON.stringify(name)}`);
    if (seen.has(name)) throw new ConfigError(`${at}.name: duplicate cluster ${name}`);
    seen.add(name);
    if (region !== undefined && (typeof region !== 'string' || !REGION.test(region))) {
      throw new ConfigError(`${at}.region: invalid region ${JSON.stringify(region)}`);
    }
    if (roleArn !== undefined && (typeof roleArn !== 'string' || !ROLE_ARN.test(roleArn))) {
      throw new ConfigError(`${at}.roleArn: not an IAM role ARN: ${JSON.stringify(roleArn)}`);
    }
    return { name, region: (region as string | undefined) ?? defaultRegion, ...(roleArn ? { roleArn: roleArn as string } : {}) };
  });
}

function controllerSettings(text: string | undefined): ControllerSettings {
  if (!text) return DEFAULT_CONTROLLER_SETTINGS;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`SHPA_CONTROLLER_SETTINGS: not JSON: ${(e as Error).message}`);
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
