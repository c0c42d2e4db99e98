// `shpa local up`: the local stack in the foreground, for kubectl (lib/local/up.ts).
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { LogLine } from '../local/telemetry-capture.js';
import { isSyncPeriod } from '../sync/config.js';
import { CliError } from './context.js';
import { numberOption } from './options.js';

interface LocalUpCliOptions {
  kubeconfig: string;
  syncPeriod: number;
}

/** One line of what the functions did, for the terminal: scales, evaluations, errors. */
export function liveLine(l: LogLine): string | undefined {
  const time = new Date(String(l.timestamp ?? Date.now())).toISOString().slice(11, 19);
  if (l.message === 'decision') {
    const who = `${String(l.namespace)}/${String(l.hpa)}`;
    const errors = (l.errors as { message: string }[] | undefined)?.map((e) => e.message).join('; ');
    if (l.patched) return `${time} ${who}: scaled ${String(l.currentReplicas)} → ${String(l.desiredReplicas)} (${l.trigger === 'evaluate' ? 'on a change event' : 'tick'})`;
    if (errors) return `${time} ${who}: ${String(l.outcome)}: ${errors}`;
    return undefined;
  }
  if (l.level === 'ERROR') return `${time} ${String(l.function)}: ${String(l.message)}`;
  return undefined;
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
      const { startLocalUp, LOCAL_WORKLOADS } = await import('../local/up.js');
      const out = process.stdout;
      const up = await startLocalUp({
        kubeconfig: opts.kubeconfig,
        periodSeconds: opts.syncPeriod,
        onLine: (l) => {
          const text = liveLine(l);
          if (text) out.write(`${text}\n`);
        },
      });
      const workloads = LOCAL_WORKLOADS.map((w) => `${w.namespace}/${w.name}`).join(', ');
      out.write(
        [
          `serverless-hpa, locally: a Kubernetes API server with the CRDs at ${up.k8s.url}, DynamoDB (dynalite), CloudWatch, SQS,`,
          `and the dispatcher, worker, stream and events functions, a tick every ${opts.syncPeriod} s.`,
          '',
          `  export KUBECONFIG=${up.kubeconfig}`,
          '  kubectl apply -f examples/kubernetes/web.yaml     # an autoscaler, as a Kubernetes object',
          '  kubectl get shpa -w                               # watch it scale',
          '  kubectl describe shpa web                         # conditions and events',
          '  kubectl get deploy,pods ; kubectl top pods ; kubectl get events',
          '',
          up.prometheus
            ? `  kubectl apply -f examples/kubernetes/web-requests.yaml   # scale on PromQL: Prometheus at ${up.prometheus.url}, behind an AMP stand-in (workspace ${up.prometheus.workspaceId})\n`
            : '  (no prometheus binary: PromQL examples need it, apt-get install prometheus)\n',
          `Workloads: ${workloads}. Change a load here: type "load web 4" (1 = normal), "quit" (or Ctrl-C) to stop.`,
          '',
        ].join('\n'),
      );
      await new Promise<void>((resolve) => {
        const rl = createInterface({ input: process.stdin });
        const stop = () => {
          rl.close();
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        rl.on('line', (line) => {
          const words = line.trim().split(/\s+/);
          if (words[0] === 'quit' || words[0] === 'exit') return stop();
          if (words[0] !== 'load' || words.length !== 3) return void out.write('type "load NAME FACTOR" (e.g. load web 4) or "quit"\n');
          const [ns, name] = words[1].includes('/') ? words[1].split('/') : ['demo', words[1]];
          try {
            up.setLoad(ns, name, Number(words[2]));
            out.write(`load of ${ns}/${name} is now ${words[2]}\n`);
          } catch (e) {
            out.write(`${(e as Error).message}\n`);
          }
        });
      });
      out.write('stopping…\n');
      await up.stop();
    });
}
