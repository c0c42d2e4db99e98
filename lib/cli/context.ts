// Global options (--cluster, --endpoint, --table, --region) resolved from flags,
// environment and the config file, and the store they point at.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createDynamoStore, DEFAULT_TABLE_NAME, explainStoreError, type DynamoStore, type RegisteredCluster } from '../store/index.js';
import { errorText } from '../shared/error-text.js';

export interface GlobalOptions {
  cluster?: string;
  endpoint?: string;
  table?: string;
  region?: string;
}

/** A failure the user can fix: printed as one line, exit code 1 (or the command's own, e.g. diff's 2). */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function addGlobalOptions(program: Command): Command {
  return program
    .option('--cluster <name>', 'cluster the autoscalers belong to (env SHPA_CLUSTER)')
    .option('--endpoint <url>', 'DynamoDB endpoint, e.g. http://127.0.0.1:8000 for a local table (env SHPA_DYNAMODB_ENDPOINT; docs/cli.md, "A local table")')
    .option('--table <name>', `DynamoDB table (env SHPA_TABLE, default ${DEFAULT_TABLE_NAME})`)
    .option('--region <region>', 'AWS region of the table (env AWS_REGION)');
}

/** ~/.config/shpa/config.json or $SHPA_CONFIG: { cluster, endpoint, table, region }. */
export function configPath(): string {
  return process.env.SHPA_CONFIG ?? join(homedir(), '.config', 'shpa', 'config.json');
}

const CONFIG_KEYS: (keyof GlobalOptions)[] = ['cluster', 'endpoint', 'table', 'region'];

function readConfig(): GlobalOptions {
  const path = configPath();
  if (!existsSync(path)) return {};
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${errorText(e)}; fix or delete it`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new CliError(`${path} is not a JSON object: write it as {"cluster": "NAME", "region": "REGION"}, or delete it`);
  }
  for (const [key, value] of Object.entries(config)) {
    // A misspelt key ("tabel") would otherwise be ignored, and the command would use another table.
    if (!(CONFIG_KEYS as string[]).includes(key)) {
      const like = CONFIG_KEYS.find((k) => k.length === key.length && [...k].sort().join() === [...key].sort().join());
      throw new CliError(`${path}: unknown key "${key}"${like ? ` (did you mean "${like}"?)` : ''}: the keys are ${CONFIG_KEYS.map((k) => `"${k}"`).join(', ')}`);
    }
    if (typeof value !== 'string') throw new CliError(`${path}: "${key}" must be a string, not ${JSON.stringify(value)}`);
  }
  return config as GlobalOptions;
}

/** Where the command's store is, and the selected cluster: flags, then environment, then the config file. */
export interface Settings {
  table: string;
  endpoint?: string;
  region: string;
  cluster?: string;
}

function resolveSettings(cmd: Command): Settings {
  const flags = cmd.optsWithGlobals<GlobalOptions>();
  const config = readConfig();
  const env = process.env;
  // An empty variable counts as unset.
  const endpoint = flags.endpoint || env.SHPA_DYNAMODB_ENDPOINT || config.endpoint || undefined;
  if (endpoint !== undefined && (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol))) {
    const from = flags.endpoint ? '--endpoint' : env.SHPA_DYNAMODB_ENDPOINT ? 'SHPA_DYNAMODB_ENDPOINT' : `"endpoint" in ${configPath()}`;
    throw new CliError(`${from} "${endpoint}" is not a URL: give the DynamoDB endpoint as http(s)://HOST[:PORT] (e.g. http://127.0.0.1:8000), or leave it unset for AWS's regional endpoint`);
  }
  return {
    endpoint,
    region: flags.region || env.AWS_REGION || env.AWS_DEFAULT_REGION || config.region || 'us-east-1',
    table: flags.table || env.SHPA_TABLE || config.table || DEFAULT_TABLE_NAME,
    cluster: flags.cluster || env.SHPA_CLUSTER || config.cluster || undefined,
  };
}

export interface Context extends Settings {
  store: DynamoStore;
  /** The selected cluster; throws with a fix when none is. */
  requireCluster(): string;
  /** The selected cluster, registered in the table; throws naming the clusters that are when it is not. */
  registeredCluster(): Promise<RegisteredCluster>;
}

export function resolveContext(cmd: Command): Context {
  const settings = resolveSettings(cmd);
  const { endpoint, region, table, cluster } = settings;
  // A local endpoint needs no real credentials; AWS's uses the default provider chain.
  const local = endpoint !== undefined && /^https?:\/\/(localhost|127\.|\[::1\])/.test(endpoint);
  const credentials = local && !process.env.AWS_ACCESS_KEY_ID && !process.env.AWS_PROFILE ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined;
  const store = createDynamoStore({ endpoint, region, tableName: table, credentials, maxAttempts: 3 });
  const ctx: Context = {
    ...settings,
    store,
    requireCluster() {
      if (!cluster) throw new CliError('no cluster selected: pass --cluster NAME or set SHPA_CLUSTER (see "shpa cluster list")');
      return cluster;
    },
    async registeredCluster() {
      const name = ctx.requireCluster();
      const found = await store.getCluster(name);
      if (found) return found;
      const known = (await store.listClusters()).map((c) => c.name);
      throw new CliError(
        known.length > 0
          ? `cluster "${name}" is not registered in table ${table}: the clusters are ${known.join(', ')}`
          : `cluster "${name}" is not registered in table ${table}, which has none: a deployed stack registers the clusters of its "clusters" parameter (check --table and --region); on a local table, "shpa cluster add ${name} --cluster-region REGION"`,
      );
    },
  };
  return ctx;
}

/** The one line explaining a failure of `cmd`, with its fix where there is one. */
export function explainFailure(cmd: Command, e: unknown): string {
  if (e instanceof CliError) return e.message;
  let settings: Settings | undefined;
  try {
    settings = resolveSettings(cmd);
  } catch {
    // The failure was reading the settings themselves: its own message says it.
  }
  const explained = settings && explainStoreError(e, { tableName: settings.table, endpoint: settings.endpoint, region: settings.region });
  return explained ?? (e instanceof Error ? e.message : String(e));
}

/** kubectl's "not found", with where we looked and how to list what there is. */
export function notFound(resource: string, name: string, namespace: string, cluster: string): CliError {
  return new CliError(`${resource} "${name}" not found in namespace "${namespace}" of cluster "${cluster}": list them with "shpa get -A"`);
}
