// `shpa delete`, `shpa init` and `shpa cluster add|list|remove`.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ensureTable } from '../store/index.js';
import type { ClusterRecord } from '../sync/ports.js';
import { CliError, resolveContext } from './context.js';
import { table } from './format.js';
import { kindByAlias } from './kinds.js';

export function registerManage(program: Command): void {
  program
    .command('delete')
    .description('delete an autoscaler (or KIND/NAME, e.g. cloudwatchmetric/queue-depth)')
    .argument('<name>')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .action(async (arg: string, opts: { namespace: string }, cmd: Command) => {
      const [alias, name] = arg.includes('/') ? arg.split('/', 2) : ['hpa', arg];
      const handler = kindByAlias(alias);
      if (!handler) throw new CliError(`unknown kind "${alias}": use hpa or cloudwatchmetric`);
      const ctx = resolveContext(cmd);
      const cluster = ctx.cluster();
      if (!(await ctx.store.deleteSpec(cluster, handler.kind, opts.namespace, name))) {
        throw new CliError(`${handler.resource} "${name}" not found in namespace "${opts.namespace}" of cluster "${cluster}": list them with "shpa get -A"`);
      }
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
      if (opts.apiEndpoint) rec.endpoint = opts.apiEndpoint;
      if (opts.caFile) rec.caData = Buffer.from(readFileSync(opts.caFile)).toString('base64');
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
