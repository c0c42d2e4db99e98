// Global options (--cluster, --endpoint, --table, --region) resolved from flags,
// environment and the config file, and the store they point at.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createDynamoStore, DEFAULT_TABLE_NAME, explainStoreError, type DynamoStore } from '../store/index.js';

export interface GlobalOptions {
  cluster?: string;
  endpoint?: string;
  table?: string;
  region?: string;
}

/** A failure the user can fix: printed as one line, exit code 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export function addGlobalOptions(program: Command): Command {
  return program
    .option('--cluster <name>', 'cluster the autoscalers belong to (env SHPA_CLUSTER)')
    .option('--endpoint <url>', 'DynamoDB endpoint, e.g. the local one (env SHPA_DYNAMODB_ENDPOINT)')
    .option('--table <name>', `DynamoDB table (env SHPA_TABLE, default ${DEFAULT_TABLE_NAME})`)
    .option('--region <region>', 'AWS region of the table (env AWS_REGION)');
}

/** ~/.config/shpa/config.json or $SHPA_CONFIG: { cluster, endpoint, table, region }. */
export function configPath(): string {
  return process.env.SHPA_CONFIG ?? join(homedir(), '.config', 'shpa', 'config.json');
}

function readConfig(): GlobalOptions {
  const path = configPath();
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as GlobalOptions;
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as Error).message}; fix or delete it`);
  }
}

export interface Context {
  store: DynamoStore;
  table: string;
  endpoint?: string;
  region: string;
  /** The selected cluster; throws with a fix when none is. */
  cluster(): string;
  explain(e: unknown): string | undefined;
}

export function resolveContext(cmd: Command): Context {
  const flags = cmd.optsWithGlobals<GlobalOptions>();
  const config = readConfig();
  const env = process.env;
  // An empty variable counts as unset.
  const endpoint = flags.endpoint || env.SHPA_DYNAMODB_ENDPOINT || config.endpoint || undefined;
  const region = flags.region || env.AWS_REGION || env.AWS_DEFAULT_REGION || config.region || 'us-east-1';
  const table = flags.table || env.SHPA_TABLE || config.table || DEFAULT_TABLE_NAME;
  const cluster = flags.cluster || env.SHPA_CLUSTER || config.cluster || undefined;
  // A local endpoint needs no real credentials; AWS's uses the default provider chain.
  const local = endpoint !== undefined && /^https?:\/\/(localhost|127\.|\[::1\])/.test(endpoint);
  const credentials = local && !env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined;
  const store = createDynamoStore({ endpoint, region, tableName: table, credentials, maxAttempts: 3 });
  return {
    store,
    table,
    endpoint,
    region,
    cluster() {
      if (!cluster) throw new CliError('no cluster selected: pass --cluster NAME or set SHPA_CLUSTER (see "shpa cluster list")');
      return cluster;
    },
    explain: (e) => explainStoreError(e, { tableName: table, endpoint, region }),
  };
}
