// `shpa delete`, `shpa init` and `shpa cluster add|list|remove`.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ensureTable } from '../store/index.js';
import type { ClusterRecord } from '../sync/ports.js';
import { CliError, notFound, resolveContext } from './context.js';
import { table } from './format.js';
import { kindByAlias } from './kinds.js';

export function registerManage(program: Command): void {
  program
    .command('delete')
    .description('delete an autoscaler (or KIND/NAME, e.g. cloudwatchmetric/queue-depth)')
    .argument('<name>')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .action(async (arg: string, opts: { namespace: string }, cmd: Command) => {
      const parts = arg.split('/');
      // kubectl's rule for TYPE/NAME arguments.
      if (parts.length > 2) throw new CliError(`"${arg}": arguments in resource/name form may not have more than one slash`);
      const [alias, name] = parts.length === 2 ? parts : ['hpa', arg];
      const handler = kindByAlias(alias);
      const ctx = resolveContext(cmd);
      const cluster = ctx.requireCluster();
      if (!(await ctx.store.deleteSpec(cluster, handler.kind, opts.namespace, name))) throw notFound(handler.resource, name, opts.namespace, cluster);
      process.stdout.write(`${handler.resource} "${name}" deleted\n`);
    });

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
      await ensureTable(ctx.store.client, ctx.table);
      process.stdout.write(`cluster/${name} ${await ctx.store.putCluster(rec, new Date())}\n`);
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
    .description('unregister a cluster (its autoscalers stay stored)')
    .argument('<name>')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const ctx = resolveContext(cmd);
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
