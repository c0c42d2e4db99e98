// `shpa init` and `shpa cluster add|list|remove`.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isAwsRegion } from '../metrics/cloudwatch-validation.js';
import { ensureTable } from '../store/index.js';
import type { ClusterRecord } from '../sync/ports.js';
import { CliError, resolveContext } from './context.js';
import { table } from './format.js';

// EKS's CreateCluster rule for names.
const EKS_CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/;

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
    .action(async (name: string, opts: { clusterRegion: string; roleArn?: string; apiEndpoint?: string; caFile?: string }, cmd: Command) => {
      if (!EKS_CLUSTER_NAME.test(name)) {
        throw new CliError(`cluster name "${name}" is not an EKS cluster name: 1 to 100 letters, digits, - and _, starting with a letter or digit`);
      }
      if (!isAwsRegion(opts.clusterRegion)) throw new CliError(`--cluster-region "${opts.clusterRegion}" is not an AWS region (such as us-east-1)`);
      const ctx = resolveContext(cmd);
      const rec: ClusterRecord = { name, region: opts.clusterRegion };
      if (opts.roleArn) {
        if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/.test(opts.roleArn)) throw new CliError(`--role-arn "${opts.roleArn}" is not an IAM role ARN (arn:aws:iam::123456789012:role/NAME)`);
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
      process.stdout.write(`cluster/${name} ${await ctx.store.putCluster(rec, new Date())}\n`);
      // The registry serves the CLI only; the deployed function syncs the clusters of its own parameter.
      process.stderr.write(`note: the deployed function syncs only the clusters in its "clusters" deploy parameter: make sure it includes ${name}\n`);
    });
  cluster
    .command('list')
    .description('list registered clusters')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = resolveContext(cmd);
      const list = await ctx.store.listClusters();
      if (list.length === 0) return void process.stdout.write('No clusters: add one with "shpa cluster add NAME --cluster-region REGION"\n');
      process.stdout.write(table(['NAME', 'REGION', 'ROLE', 'ENDPOINT'], list.map((c) => [c.name, c.region, c.roleArn ?? '<none>', c.endpoint ?? '<eks>'])));
    });
  cluster
    .command('remove')
    .description('unregister a cluster that has no autoscalers left (--force: keep them stored, orphaned)')
    .argument('<name>')
    .option('--force', 'remove it even though autoscalers or CloudWatchMetric objects remain')
    .action(async (name: string, opts: { force?: boolean }, cmd: Command) => {
      const ctx = resolveContext(cmd);
      if (!opts.force && (await ctx.store.getCluster(name))) {
        const snap = await ctx.store.loadCluster(name);
        // Undecodable items are autoscalers or CloudWatchMetrics too: count them with the autoscalers.
        const autoscalers = snap.autoscalers.length + snap.broken.length;
        const metrics = snap.cloudWatchMetrics.length;
        if (autoscalers + metrics > 0) {
          throw new CliError(`cluster ${name} still has ${autoscalers} autoscalers and ${metrics} CloudWatchMetric objects: delete them first, or pass --force`);
        }
      }
      if (!(await ctx.store.removeCluster(name))) throw new CliError(`cluster "${name}" not found: see "shpa cluster list"`);
      process.stdout.write(`cluster/${name} removed\n`);
    });
}

function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(`--ca-file ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): pass the API server's CA bundle (PEM)`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new CliError(`--ca-file ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return Buffer.from(pem).toString('base64');
}
