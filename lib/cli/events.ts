// `shpa events`: the autoscalers' recent events (their decision logs), as `kubectl events` lists a namespace's.
import type { Command } from 'commander';
import { KIND_HPA } from '../store/index.js';
import type { DecisionLogEntry } from '#sync/ports';
import { CliError, resolveContext } from './context.js';
import { eventAge, eventMessage } from './describe.js';
import { parseTargets } from './kinds.js';
import { columnWidths, formatRow, parseOutput, printObjects } from './output.js';
import { scopeOf, type ScopeOptions } from './scope.js';

interface EventsOptions extends ScopeOptions {
  for?: string;
  types?: string;
  output?: string;
  /** false with --no-headers. */
  headers: boolean;
}

interface Row {
  namespace: string;
  name: string;
  event: DecisionLogEntry;
}

const TYPES = ['Normal', 'Warning'];

async function events(opts: EventsOptions, cmd: Command): Promise<void> {
  const output = parseOutput(opts.output, ['yaml', 'json']);
  const scope = scopeOf(opts);
  let only: string | undefined;
  if (opts.for !== undefined) {
    const { targets } = parseTargets([opts.for], 'hpa');
    if (targets.length !== 1 || targets[0].handler.kind !== KIND_HPA) throw new CliError(`--for ${opts.for}: name one autoscaler, as hpa/NAME (only autoscalers have events)`);
    only = targets[0].name;
  }
  const types = opts.types?.split(',').map((t) => {
    const known = TYPES.find((k) => k.toLowerCase() === t.trim().toLowerCase());
    if (!known) throw new CliError(`--types ${opts.types}: "${t}" is not an event type: use Normal, Warning or both (Normal,Warning)`);
    return known;
  });
  const ctx = resolveContext(cmd);
  const cluster = (await ctx.registeredCluster()).name;
  const snap = await ctx.store.loadCluster(cluster);
  const rows: Row[] = snap.autoscalers
    .filter((r) => scope.includes(r.namespace, r.hpa.metadata?.labels) && (only === undefined || r.name === only))
    .flatMap((r) => (r.log ?? []).map((event) => ({ namespace: r.namespace, name: r.name, event })))
    .filter((r) => !types || types.includes(r.event.type))
    // kubectl sorts by the time last seen, oldest first.
    .sort((a, b) => Date.parse(a.event.lastTimestamp) - Date.parse(b.event.lastTimestamp));
  if (output.format !== 'table') {
    const items = rows.map((r) => ({ ...r.event, involvedObject: { kind: 'HorizontalPodAutoscaler', namespace: r.namespace, name: r.name } }));
    process.stdout.write(printObjects(items, output, false));
    return;
  }
  if (rows.length === 0) {
    process.stderr.write(opts.allNamespaces ? 'No events found.\n' : `No events found in ${opts.namespace} namespace.\n`);
    return;
  }
  const now = Date.now();
  const header = [...(opts.allNamespaces ? ['NAMESPACE'] : []), 'LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'];
  const cells = rows.map((r) => [
    ...(opts.allNamespaces ? [r.namespace] : []),
    eventAge(r.event, now),
    r.event.type,
    r.event.reason,
    `HorizontalPodAutoscaler/${r.name}`,
    eventMessage(r.event),
  ]);
  const all = opts.headers ? [header, ...cells] : cells;
  const widths = columnWidths(all);
  process.stdout.write(all.map((r) => formatRow(r, widths)).join('\n') + '\n');
}

export function registerEvents(program: Command): void {
  program
    .command('events')
    .description("the autoscalers' recent events (rescales, failures), oldest first, like kubectl events")
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .option('-A, --all-namespaces', 'every namespace')
    .option('-l, --selector <selector>', "only the events of autoscalers whose labels match")
    .option('--for <hpa/NAME>', "only this autoscaler's events")
    .option('--types <types>', 'Normal, Warning, or both (Normal,Warning)')
    .option('-o, --output <format>', 'yaml or json')
    .option('--no-headers', 'leave out the header line')
    .action(events);
}
