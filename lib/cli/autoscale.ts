// `shpa autoscale deployment/foo --min=2 --max=5 --cpu-percent=80`, as kubectl autoscale: an
// autoscaling/v2 HPA named after its target. shpa cannot look the workload up (it talks to DynamoDB
// only), so the reference is written as given; the sync reports a missing target (FailedGetScale).
import type { Command } from 'commander';
import type { HorizontalPodAutoscaler } from '#hpa';
import { formatFieldError } from '#hpa/api';
import { KIND_HPA } from '../store/index.js';
import { printWarnings } from './apply.js';
import { CliError, resolveContext } from './context.js';
import { addDryRun, dryRunSuffix, type DryRun } from './dry-run.js';
import { KINDS } from './kinds.js';
import { parseOutput, printObjects } from './output.js';
import { numberOption } from './options.js';
import { contextWarnings, knownObjects } from './warnings.js';

/** The kinds kubectl autoscale takes, by the names it accepts. */
const SCALABLE: { names: string[]; apiVersion: string; kind: string }[] = [
  { names: ['deployment', 'deployments', 'deploy'], apiVersion: 'apps/v1', kind: 'Deployment' },
  { names: ['replicaset', 'replicasets', 'rs'], apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  { names: ['statefulset', 'statefulsets', 'sts'], apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { names: ['replicationcontroller', 'replicationcontrollers', 'rc'], apiVersion: 'v1', kind: 'ReplicationController' },
];

/** Which flag sets each field, for errors about them. */
const FLAGS: [RegExp, string][] = [
  [/^spec\.minReplicas/, '--min'],
  [/^spec\.maxReplicas/, '--max'],
  [/^spec\.metrics/, '--cpu-percent'],
  [/^metadata\.name/, '--name'],
  [/^metadata\.namespace/, '--namespace'],
  [/^spec\.scaleTargetRef/, 'TYPE/NAME'],
];

interface AutoscaleOptions {
  min?: number;
  max?: number;
  cpuPercent?: number;
  name?: string;
  namespace: string;
  output?: string;
  dryRun?: DryRun;
}

/** "deployment/foo", or "deployment" "foo". */
function target(args: string[]): { apiVersion: string; kind: string; name: string } {
  const [type, name] = args.length === 1 && args[0].includes('/') ? args[0].split('/', 2) : args;
  if (args.length > 2 || !type || !name) throw new CliError('name one workload: shpa autoscale deployment/NAME (or TYPE NAME) --max=N');
  const t = SCALABLE.find((s) => s.names.includes(type.toLowerCase()));
  if (!t) {
    throw new CliError(`cannot autoscale "${type}": autoscale takes deployment, replicaset, statefulset or replicationcontroller, as kubectl; for another kind with a /scale subresource, write the HPA and apply it`);
  }
  return { apiVersion: t.apiVersion, kind: t.kind, name };
}

async function autoscale(args: string[], opts: AutoscaleOptions, cmd: Command): Promise<void> {
  const output = parseOutput(opts.output, ['name', 'yaml', 'json']);
  const ref = target(args);
  if (opts.max === undefined) throw new CliError('--max=MAXPODS is required: the most replicas the autoscaler may set');
  const hpa: HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: opts.name ?? ref.name, namespace: opts.namespace },
    spec: {
      scaleTargetRef: ref,
      ...(opts.min === undefined ? {} : { minReplicas: opts.min }),
      maxReplicas: opts.max,
      // Without --cpu-percent, kubectl sends no metric and the API server defaults 80% CPU.
      ...(opts.cpuPercent === undefined ? {} : { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: opts.cpuPercent } } }] }),
    },
  };
  const handler = KINDS.find((k) => k.kind === KIND_HPA)!;
  const checked = handler.check(hpa);
  if (!checked.ok) {
    const flag = (field: string) => FLAGS.find(([re]) => re.test(field))?.[1];
    throw new CliError(checked.errors.map((e) => `${flag(e.field) ?? 'autoscale'}: ${formatFieldError(e)}`).join('\n'));
  }
  const dryRun = opts.dryRun ?? 'none';
  const line = (obj: HorizontalPodAutoscaler) =>
    output.format === 'table' ? `${handler.resource}/${obj.metadata.name} autoscaled${dryRunSuffix(dryRun)}\n` : output.format === 'name' ? `${handler.resource}/${obj.metadata.name}\n` : printObjects([obj], output, true);
  // kubectl's client dry run sends nothing: it prints the object it would send.
  if (dryRun === 'client') {
    printWarnings(checked.warnings);
    process.stdout.write(line(hpa));
    return;
  }
  const ctx = resolveContext(cmd);
  const cluster = (await ctx.registeredCluster()).name;
  const name = hpa.metadata.name;
  if (await ctx.store.getSpec(cluster, KIND_HPA, opts.namespace, name)) {
    throw new CliError(`${handler.plural} "${name}" already exists in namespace "${opts.namespace}" of cluster "${cluster}": change it with "shpa apply -f", or delete it first`);
  }
  const object = checked.object as HorizontalPodAutoscaler;
  printWarnings([...checked.warnings, ...contextWarnings(object, knownObjects(await ctx.store.loadCluster(cluster), [object]))]);
  if (dryRun === 'none') await ctx.store.applySpec(cluster, object, new Date());
  process.stdout.write(line((dryRun === 'none' ? await ctx.store.getSpec(cluster, KIND_HPA, opts.namespace, name) : object) as HorizontalPodAutoscaler));
}

export function registerAutoscale(program: Command): void {
  addDryRun(
    program
      .command('autoscale')
      .description('create an autoscaler for a workload, as kubectl autoscale: shpa autoscale deployment/NAME --min=2 --max=10 --cpu-percent=80')
      .argument('<workload...>', 'TYPE/NAME or TYPE NAME (deployment, replicaset, statefulset, replicationcontroller)')
      .option('--max <n>', 'the most replicas the autoscaler may set (required)', numberOption('--max', 1, true))
      .option('--min <n>', 'the fewest replicas (default 1)', numberOption('--min', 0, true))
      .option('--cpu-percent <n>', 'target average CPU utilization, percent of request (default: 80, the API default)', numberOption('--cpu-percent', 1, true))
      .option('--name <name>', "the autoscaler's name (default: the workload's)")
      .option('-n, --namespace <ns>', 'namespace', 'default')
      .option('-o, --output <format>', 'name, yaml or json'),
  ).action(autoscale);
}
