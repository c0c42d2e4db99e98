// `shpa local up`: the local stack in the foreground, for kubectl (lib/local/stack/up.ts).
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { LocalMetric } from '../local/cloudwatch/server.js';
import type { LogLine } from '../local/lambda/telemetry-capture.js';
import type { LocalUp } from '../local/stack/up.js';
import { isSyncPeriod } from '#sync/messaging';
import { CliError } from './context.js';
import { numberOption } from './options.js';
import { errorText } from '../shared/error-text.js';
import { closeSqsClients, forgetLocalQueues, readLocalQueues, rememberLocalQueues, runSqsCommand, SQS_USAGE, type LocalQueues } from './local-sqs.js';

interface LocalUpCliOptions {
  kubeconfig: string;
  syncPeriod: number;
}

/**
 * The lines of what the functions did, for the terminal: scales, evaluations that failed, errors. A failure
 * that repeats tick after tick is shown once, and again only when it changes or ends, with how often it came.
 */
export class LiveLines {
  private readonly failing = new Map<string, { text: string; repeats: number }>();

  next(l: LogLine): string | undefined {
    const time = new Date(String(l.timestamp ?? Date.now())).toISOString().slice(11, 19);
    if (l.level === 'ERROR' && l.message !== 'decision') return `${time} ${String(l.function)}: ${String(l.message)}`;
    if (l.message !== 'decision') return undefined;
    const who = `${String(l.namespace)}/${String(l.hpa)}`;
    const errors = (l.errors as { message: string }[] | undefined)?.map((e) => e.message).join('; ');
    const text = l.patched ? undefined : errors ? `${String(l.outcome)}: ${errors}` : undefined;
    const was = this.failing.get(who);
    if (text !== undefined && was?.text === text) {
      was.repeats++;
      return undefined;
    }
    if (text === undefined) this.failing.delete(who);
    else this.failing.set(who, { text, repeats: 0 });
    const since = was?.repeats ? ` (the line before came ${was.repeats + 1} times)` : '';
    if (l.patched) return `${time} ${who}: scaled ${String(l.currentReplicas)} → ${String(l.desiredReplicas)} (${l.trigger === 'evaluate' ? 'on a change event' : 'tick'})${since}`;
    if (text !== undefined) return `${time} ${who}: ${text}${since}`;
    return was ? `${time} ${who}: no longer failing${since}` : undefined;
  }
}

export function registerLocal(program: Command): void {
  const local = program.command('local').description('the whole product on this machine, for kubectl');
  local
    .command('up')
    .description('start a local Kubernetes API server (with the CRDs), DynamoDB, CloudWatch, SQS and the functions, in the foreground; writes a kubeconfig')
    .option('--kubeconfig <path>', 'where to write the kubeconfig', '.shpa/local/kubeconfig')
    .option('--sync-period <seconds>', 'seconds between ticks', numberOption('--sync-period', 5, true), 15)
    .action(async (opts: LocalUpCliOptions) => {
      if (!isSyncPeriod(opts.syncPeriod)) throw new CliError(`--sync-period ${opts.syncPeriod}: must divide 60 (and be at least 5) or be a multiple of 60 up to 900`);
      const { startLocalUp, LOCAL_WORKLOADS } = await import('../local/stack/up.js');
      const out = process.stdout;
      const lines = new LiveLines();
      const up = await startLocalUp({
        kubeconfig: opts.kubeconfig,
        periodSeconds: opts.syncPeriod,
        onLine: (l) => {
          const text = lines.next(l);
          if (text) out.write(`${text}\n`);
        },
      });
      const workloads = LOCAL_WORKLOADS.map((w) => `${w.namespace}/${w.name}`).join(', ');
      const queues: LocalQueues = { endpoint: up.fns.sqs.endpoint, region: up.region, internal: internalQueues(up) };
      // `shpa local sqs …` in another terminal finds this session's SQS there.
      const session = rememberLocalQueues(opts.kubeconfig, queues);
      out.write(`${introduction(up, opts.syncPeriod, workloads)}\n`);
      await new Promise<void>((resolve) => {
        const rl = createInterface({ input: process.stdin });
        let stopped = false;
        const stop = () => {
          if (stopped) return;
          stopped = true;
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          rl.close();
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        // The end of a piped stdin (or Ctrl-D) ends the session too, as a shell's does.
        rl.on('close', stop);
        rl.on('line', (line) => {
          const words = line.trim().split(/\s+/);
          if (words[0] === 'quit' || words[0] === 'exit') return stop();
          Promise.resolve()
            .then(() => command({ ...up, queues }, words))
            .then(
              (text) => out.write(`${text}\n`),
              (e: unknown) => out.write(`${errorText(e)}\n`),
            );
        });
      });
      out.write('stopping…\n');
      forgetLocalQueues(session);
      await up.stop();
      // A pipe whose writer is still open keeps stdin, and with it the process, alive after rl.close().
      process.stdin.destroy();
    });
  local
    .command('sqs')
    .description(`messages onto and off a queue of a running \`shpa local up\` (as typed into it): ${SQS_USAGE}`)
    .argument('<words...>', 'send QUEUE [--count N] [--group ID] [--body TEXT] | receive QUEUE [--count N] [--keep] | list')
    .option('--kubeconfig <path>', "the session's kubeconfig (its SQS endpoint is noted beside it)", '.shpa/local/kubeconfig')
    .allowUnknownOption()
    .action(async (words: string[], opts: { kubeconfig: string }) => {
      try {
        process.stdout.write(`${await runSqsCommand(readLocalQueues(opts.kubeconfig), words)}\n`);
      } catch (e) {
        throw new CliError(errorText(e));
      } finally {
        closeSqsClients();
      }
    });
}

/** The queue examples/kubernetes/queue.yaml reads, as `metric` feeds it. */
const QUEUE_METRIC = 'metric AWS/SQS ApproximateNumberOfMessagesVisible QueueName=jobs';
/** The queue examples/kubernetes/scale-to-zero.yaml reads. */
const ZERO_QUEUE_METRIC = 'metric AWS/SQS ApproximateNumberOfMessagesVisible QueueName=reports';

function introduction(up: LocalUp, periodSeconds: number, workloads: string): string {
  const env = `SHPA_DYNAMODB_ENDPOINT=${up.dynamoEndpoint} SHPA_TABLE=${up.tableName} SHPA_CLUSTER=${up.cluster} AWS_REGION=${up.region}`;
  return [
    `serverless-hpa, locally: a Kubernetes API server with the CRDs at ${up.k8s.url}, DynamoDB (dynalite) at ${up.dynamoEndpoint},`,
    `CloudWatch, SQS, and the dispatcher, worker, stream and events functions, a tick every ${periodSeconds} s.`,
    '',
    'With kubectl:',
    `  export KUBECONFIG=${up.kubeconfig}`,
    '  kubectl apply -f examples/kubernetes/web.yaml     # an autoscaler on cpu, as a Kubernetes object',
    '  kubectl wait --for=condition=Ready shpa/web       # evaluated, and able to scale',
    '  kubectl get shpa -w                               # watch it scale',
    '  kubectl describe shpa web                         # conditions and events',
    '  kubectl get deploy,pods ; kubectl top pods ; kubectl get events',
    '',
    'On CloudWatch: demo/api follows the depth of a queue, whose value you type here:',
    '  kubectl apply -f examples/kubernetes/queue.yaml   # a CloudWatchMetric, and an autoscaler reading it',
    `  ${QUEUE_METRIC} 120        (typed here: 120 messages from now on)`,
    '',
    'Scale to zero: demo/reports leaves zero only above 10 queued messages (its activation threshold):',
    '  kubectl apply -f examples/kubernetes/scale-to-zero.yaml   # minReplicas 0; its queue is empty: 1 → 0, ScaledToZero True',
    `  ${ZERO_QUEUE_METRIC} 25        (typed here: back up, ScaledToZero False)`,
    '',
    'On SQS, read at the source (GetQueueAttributes at every tick): demo/orders, from zero and back:',
    '  kubectl apply -f examples/kubernetes/sqs-queue.yaml   # an SQSQueueMetric on the queue orders, an autoscaler reading it',
    '  sqs send orders --count 50        (typed here: a backlog, 0 → N within a tick or two)',
    '  sqs receive orders --count 50     (typed here: drained; back to zero 15 s later; "sqs list": the queues\' counts)',
    '',
    ...(up.prometheus
      ? ['On PromQL: Prometheus scrapes the workloads, behind an AMP stand-in:', `  kubectl apply -f examples/kubernetes/web-requests.yaml   # demo/catalog; then: load catalog 4 (Prometheus at ${up.prometheus.url}, workspace ${up.prometheus.workspaceId})`, '']
      : ['(no prometheus binary: the PromQL example needs it, apt-get install prometheus)', '']),
    'Migrating from an HPA (docs/migrate.md): a stand-in of the HPA controller acts on autoscaling/v2 HPAs here:',
    '  kubectl apply -f examples/migrate/hpa.yaml -f examples/migrate/shadow.yaml   # the live HPA, and ours shadowing it',
    '  npm run shpa -- handover web-shadow -n demo   # then: npm run shpa -- handback web-shadow -n demo',
    '',
    'With shpa, on the table the functions keep (the HPA-style view, the decision log):',
    `  export ${env}`,
    '  npm run shpa -- get hpa -A',
    '  npm run shpa -- describe hpa web -n demo',
    '',
    `Workloads: ${workloads}. Type here: "load web 4" (its load; 1 = normal), "${QUEUE_METRIC} 120", "quit" (or Ctrl-C) to stop.`,
    '',
  ].join('\n');
}

/** The functions' own queues on the local SQS, which `sqs` commands leave alone. */
function internalQueues(up: LocalUp): string[] {
  return [up.fns.queueUrl, up.fns.deadLetterQueueUrl, up.fns.failedEventsQueueUrl].map((u) => u.slice(u.lastIndexOf('/') + 1));
}

/** One command typed into `shpa local up`: what it did (a promise for `sqs`), or an error saying what it takes. */
export function command(up: Pick<LocalUp, 'setLoad' | 'cloudWatch'> & { queues?: LocalQueues }, words: string[]): string | Promise<string> {
  if (words[0] === 'sqs') {
    if (!up.queues) throw new Error('this session has no local SQS');
    return runSqsCommand(up.queues, words.slice(1));
  }
  if (words[0] === 'load' && words.length === 3) {
    const [ns, name] = words[1].includes('/') ? words[1].split('/') : ['demo', words[1]];
    up.setLoad(ns, name, Number(words[2]));
    return `load of ${ns}/${name} is now ${words[2]}`;
  }
  if (words[0] === 'metric') {
    const { metric, value } = parseMetric(words.slice(1));
    up.cloudWatch.setSeriesFunction(metric, () => value);
    const dims = (metric.dimensions ?? []).map((d) => ` ${d.name}=${d.value}`).join('');
    return `CloudWatch ${metric.namespace} ${metric.metricName}${dims} is now ${value}, a datapoint a minute`;
  }
  throw new Error(`type "load NAME FACTOR" (e.g. load web 4), "metric NAMESPACE NAME [DIMENSION=VALUE ...] VALUE" (e.g. ${QUEUE_METRIC} 120), "${SQS_USAGE}", or "quit"`);
}

function parseMetric(args: string[]): { metric: LocalMetric; value: number } {
  const value = Number(args.at(-1));
  const [namespace, metricName, ...dims] = args.slice(0, -1);
  if (!namespace || !metricName || !Number.isFinite(value) || dims.some((d) => !/^[^=]+=.+$/.test(d))) {
    throw new Error(`metric takes NAMESPACE NAME [DIMENSION=VALUE ...] VALUE, a number last (e.g. ${QUEUE_METRIC} 120)`);
  }
  const dimensions = dims.map((d) => ({ name: d.slice(0, d.indexOf('=')), value: d.slice(d.indexOf('=') + 1) }));
  return { metric: { namespace, metricName, ...(dimensions.length ? { dimensions } : {}) }, value };
}
