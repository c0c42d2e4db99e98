// `shpa init`, `shpa cluster add|list|remove` and `shpa lease get|clear`.
//
// One cluster registry, in the table: a deployed stack's dispatcher mirrors its "clusters"
// parameter there (managedBy: stack), and those records are changed only by redeploying; a
// local table (shpa local up, a test table) is registered by hand with `cluster add`.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { allMetricObjects, METRIC_KINDS } from '#api';
import { isAwsRegion, isClusterName, isRoleArn } from '../shared/aws-patterns.cjs';
import { ensureTable } from '../store/index.js';
import type { RegisteredCluster } from '../store/index.js';
import { isShardCount, parseShardId } from '#sync/messaging';
import { CliError, resolveContext, type Context } from './context.js';
import { table } from './format.js';
import { errorText } from '../shared/error-text.js';


export function registerManage(program: Command): void {
  program
    .command('init')
    .description('create the DynamoDB table when it does not exist')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = resolveContext(cmd);
      const r = await ensureTable(ctx.store.client, ctx.table);
      process.stdout.write(`table ${ctx.table} ${r === 'created' ? 'created' : 'already exists'}\n`);
    });

  const cluster = program.command('cluster').description('the clusters autoscalers run on');
  cluster
    .command('add')
    .description('register (or update) a cluster; creates the table on first use')
    .argument('<name>', 'EKS cluster name')
    .requiredOption('--cluster-region <region>', 'AWS region of the EKS cluster')
    .option('--role-arn <arn>', 'IAM role to assume for a cluster in another account')
    .option('--api-endpoint <url>', 'API server URL (skips eks:DescribeCluster)')
    .option('--ca-file <path>', 'CA bundle (PEM) of --api-endpoint')
    .option('--shards <K>', 'shards the cluster is cut into: 1, 2, 4, 8, 16, 32, 64, 128 or 256', '1')
    .option('--namespaces <list>', 'comma-separated namespaces the sync may act in (default: all)')
    .action(async (name: string, opts: { clusterRegion: string; roleArn?: string; apiEndpoint?: string; caFile?: string; shards: string; namespaces?: string }, cmd: Command) => {
      if (!isClusterName(name)) {
        throw new CliError(`cluster name "${name}" is not an EKS cluster name: 1 to 100 letters, digits, - and _, starting with a letter or digit`);
      }
      if (!isAwsRegion(opts.clusterRegion)) throw new CliError(`--cluster-region "${opts.clusterRegion}" is not an AWS region (such as us-east-1)`);
      const shards = Number(opts.shards);
      if (!isShardCount(shards)) throw new CliError(`--shards "${opts.shards}": must be 1, 2, 4, 8, 16, 32, 64, 128 or 256`);
      const ctx = resolveContext(cmd);
      await refuseStackTable(ctx, name);
      const rec: RegisteredCluster = { name, region: opts.clusterRegion, shards, managedBy: 'cli' };
      if (opts.namespaces) rec.namespaces = opts.namespaces.split(',').map((n) => n.trim()).filter(Boolean);
      if (opts.roleArn) {
        if (!isRoleArn(opts.roleArn)) throw new CliError(`--role-arn "${opts.roleArn}" is not an IAM role ARN (arn:aws:iam::123456789012:role/NAME)`);
        rec.roleArn = opts.roleArn;
      }
      // The sync connects to an --api-endpoint over TLS with exactly this CA, and uses neither alone.
      if (Boolean(opts.apiEndpoint) !== Boolean(opts.caFile)) throw new CliError('--api-endpoint and --ca-file go together: pass both, or neither to use eks:DescribeCluster');
      if (opts.apiEndpoint && opts.caFile) {
        if (!URL.canParse(opts.apiEndpoint) || new URL(opts.apiEndpoint).protocol !== 'https:') {
          throw new CliError(`--api-endpoint "${opts.apiEndpoint}" is not an https URL (https://HOST[:PORT])`);
        }
        rec.endpoint = opts.apiEndpoint;
        rec.caData = readCaFile(opts.caFile);
      }
      // Say so when this created a table: a missing --table (the stack's) is the likely cause.
      if ((await ensureTable(ctx.store.client, ctx.table)) === 'created') {
        process.stderr.write(`note: created table ${ctx.table} at ${ctx.endpoint ?? `AWS region ${ctx.region}`}; a deployed stack's table is serverless-hpa-STAGE (--table, --region)\n`);
      }
      const outcome = await ctx.store.putCluster(rec, new Date());
      process.stdout.write(`cluster/${name} ${outcome}\n`);
      // The functions read their "clusters" parameter, never this registry (docs/cli.md, "Clusters").
      if (outcome !== 'unchanged') {
        process.stderr.write(`note: the deployed functions sync only the clusters of their "clusters" parameter: add ${name}:${opts.clusterRegion}${opts.roleArn ? `:${opts.roleArn}` : ''} there too, or they never act on ${name}\n`);
      }
    });
  cluster
    .command('list')
    .description('list registered clusters')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = resolveContext(cmd);
      const list = await ctx.store.listClusters();
      if (list.length === 0) {
        process.stderr.write(`No clusters in table ${ctx.table}: a deployed stack registers those of its "clusters" parameter within a minute (check --table and --region); a local table takes "shpa cluster add NAME --cluster-region REGION"\n`);
        return;
      }
      process.stdout.write(
        table(
          ['NAME', 'REGION', 'SHARDS', 'NAMESPACES', 'ROLE', 'ENDPOINT', 'SOURCE'],
          list.map((c) => [c.name, c.region, String(c.shards), c.namespaces?.join(',') ?? '<all>', c.roleArn ?? '<none>', c.endpoint ?? '<eks>', c.managedBy === 'stack' ? 'stack parameter' : 'shpa cluster add']),
        ),
      );
    });
  cluster
    .command('remove')
    .description('unregister a cluster that has no autoscalers left (--force: keep them stored, orphaned)')
    .argument('<name>')
    .option('--force', 'remove it even though autoscalers or CloudWatchMetric objects remain')
    .action(async (name: string, opts: { force?: boolean }, cmd: Command) => {
      const ctx = resolveContext(cmd);
      if ((await ctx.store.getCluster(name))?.managedBy === 'stack') {
        throw new CliError(`cluster ${name} comes from the deployed stack's "clusters" parameter: remove it there and redeploy`);
      }
      if (!opts.force && (await ctx.store.getCluster(name))) {
        const snap = await ctx.store.loadCluster(name);
        // Undecodable items are autoscalers or CloudWatchMetrics too: count them with the autoscalers.
        const autoscalers = snap.autoscalers.length + snap.broken.length;
        const metrics = allMetricObjects(snap).length;
        if (autoscalers + metrics > 0) {
          throw new CliError(`cluster ${name} still has ${autoscalers} autoscalers and ${metrics} metric objects (${METRIC_KINDS.map((k) => k.kind).join(', ')}): delete them first, or pass --force`);
        }
      }
      if (!(await ctx.store.removeCluster(name))) throw new CliError(`cluster "${name}" not found: see "shpa cluster list"`);
      process.stdout.write(`cluster/${name} removed\n`);
    });

  const lease = program.command('lease').description("a shard's cycle item: its lease, last tick and marker");
  lease
    .command('get')
    .description('show the cycle item of shards (all shards of the selected cluster, or those named)')
    .argument('[shards...]', 'shard ids: CLUSTER or CLUSTER/IofK')
    .action(async (ids: string[], _opts: unknown, cmd: Command) => {
      const ctx = resolveContext(cmd);
      const shards = ids.length > 0 ? ids.map(shardArg) : await shardsOfCluster(ctx);
      const now = Date.now();
      const rows = await Promise.all(
        shards.map(async (id) => {
          const item = await ctx.store.readShardCycle(id);
          const time = (v: unknown) =>
            typeof v === 'number' && Math.abs(v) <= 8.64e15 ? new Date(v).toISOString() : v === undefined ? '<none>' : `invalid: ${JSON.stringify(v)}`;
          const held = typeof item?.exp === 'number' && item.exp > now;
          return [id, held ? String(item?.owner) : '<free>', held ? time(item?.exp) : '<none>', time(item?.tick), time(item?.at)];
        }),
      );
      process.stdout.write(table(['SHARD', 'HOLDER', 'EXPIRES', 'LAST TICK', 'MARKER'], rows));
    });
  lease
    .command('clear')
    .description("clear a shard's lease whoever holds it (a worker that cannot finish, or a hand-made item)")
    .argument('<shard>', 'shard id: CLUSTER or CLUSTER/IofK')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const ctx = resolveContext(cmd);
      if (await ctx.store.clearShardLease(shardArg(id))) process.stdout.write(`lease of shard ${id} cleared\n`);
      else process.stdout.write(`shard ${id} held no lease\n`);
    });
}

function shardArg(id: string): string {
  try {
    parseShardId(id);
    return id;
  } catch (e) {
    throw new CliError(errorText(e));
  }
}

async function shardsOfCluster(ctx: Context): Promise<string[]> {
  const c = await ctx.registeredCluster();
  return c.shards === 1 ? [c.name] : Array.from({ length: c.shards }, (_, i) => `${c.name}/${i}of${c.shards}`);
}

/** A deployed stack's table holds the clusters of its parameter: adding one by hand would not make the function sync it. */
async function refuseStackTable(ctx: Context, name: string): Promise<void> {
  const stack = (await ctx.store.listClusters().catch(() => [])).filter((c) => c.managedBy === 'stack');
  if (stack.length === 0) return;
  throw new CliError(
    `table ${ctx.table} belongs to a deployed stack, whose clusters (${stack.map((c) => c.name).join(', ')}) come from its "clusters" parameter: add ${name} there and redeploy; "shpa cluster add" is for local tables`,
  );
}

function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(`--ca-file ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? errorText(e)}): pass the API server's CA bundle (PEM)`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new CliError(`--ca-file ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return Buffer.from(pem).toString('base64');
}
