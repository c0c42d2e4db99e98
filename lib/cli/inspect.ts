// `shpa get` and `shpa describe`: reading autoscalers back, kubectl-style.
import type { Command } from 'commander';
import { KIND_CLOUDWATCH, KIND_HPA, KIND_PROMETHEUS, type StoredSpec } from '../store/index.js';
import { allMetricObjects, prometheusEndpointText, type PrometheusMetric, type SQSQueueMetric } from '#api';
import type { AutoscalerRecord, ClusterSnapshot } from '#sync/ports';
import { CliError, resolveContext, type Context } from './context.js';
import { describe, describeObject } from './describe.js';
import { age, formatTargets } from './format.js';
import { KINDS, missingError, parseTargets, type KindHandler, type Target } from './kinds.js';
import { columnWidths, formatRow, parseOutput, printObjects, type Output } from './output.js';
import { scopeOf, type ScopeOptions } from './scope.js';
import { watchRows, WATCH_INTERVAL_MS } from './watch.js';

/** One object as `get` lists it. */
interface Listed {
  handler: KindHandler;
  namespace: string;
  name: string;
  /** What -o yaml|json prints: the spec, and an autoscaler's status. */
  object: StoredSpec;
  labels?: Record<string, string>;
  /** When it was first stored (AGE). */
  created?: string;
}

function listed(snap: ClusterSnapshot, handler: KindHandler): Listed[] {
  const items: Listed[] =
    handler.kind === KIND_HPA
      ? snap.autoscalers.map((r) => ({ handler, namespace: r.namespace, name: r.name, object: r.hpa, labels: r.hpa.metadata?.labels, created: r.hpa.metadata?.creationTimestamp ?? r.createdAt }))
      : allMetricObjects(snap).filter((m) => m.kind === handler.kind).map((m) => ({ handler, namespace: m.metadata.namespace ?? 'default', name: m.metadata.name, object: m, labels: m.metadata.labels, created: m.metadata.creationTimestamp }));
  return items.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

/** The table of one kind: header, and per object its cells; `ages` are the columns that change by themselves (left out of -w's comparison). */
interface Columns {
  header: string[];
  cells(l: Listed, now: number): string[];
  ages: number[];
}

function columnsFor(handler: KindHandler, wide: boolean): Columns {
  if (handler.kind === KIND_PROMETHEUS) {
    const spec = (l: Listed) => (l.object as PrometheusMetric).spec;
    return { header: ['NAME', 'ENDPOINT', 'QUERY', 'AGE'], cells: (l, now) => [l.name, prometheusEndpointText(spec(l)), spec(l).query, age(now - Date.parse(l.created ?? ''))], ages: [3] };
  }
  if (handler.kind === 'SQSQueueMetric') {
    const spec = (l: Listed) => (l.object as SQSQueueMetric).spec;
    return { header: ['NAME', 'QUEUE', 'AGE'], cells: (l, now) => [l.name, spec(l).queueURL ?? spec(l).queueName ?? '', age(now - Date.parse(l.created ?? ''))], ages: [2] };
  }
  if (handler.kind === KIND_CLOUDWATCH) {
    const queries = (l: Listed) => String((l.object as { spec?: { queries?: unknown[] } }).spec?.queries?.length ?? 0);
    return { header: ['NAME', 'QUERIES', 'AGE'], cells: (l, now) => [l.name, queries(l), age(now - Date.parse(l.created ?? ''))], ages: [2] };
  }
  return {
    header: ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE', ...(wide ? ['DESIRED', 'LAST SCALE', 'CONDITIONS'] : [])],
    cells(l, now) {
      const h = l.object as AutoscalerRecord['hpa'];
      const st = h.status;
      const row = [
        l.name,
        `${h.spec?.scaleTargetRef?.kind}/${h.spec?.scaleTargetRef?.name}`,
        formatTargets(h, wide),
        h.spec?.minReplicas === undefined ? '<unset>' : String(h.spec.minReplicas),
        String(h.spec?.maxReplicas),
        st ? String(st.currentReplicas) : '<unknown>',
        age(now - Date.parse(l.created ?? '')),
      ];
      if (wide) {
        row.push(
          st ? String(st.desiredReplicas) : '<unknown>',
          st?.lastScaleTime ? age(now - Date.parse(st.lastScaleTime)) : '<none>',
          (st?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type).join(',') || '<none>',
        );
      }
      return row;
    },
    ages: wide ? [6, 8] : [6],
  };
}

interface GetOptions extends ScopeOptions {
  output?: string;
  kind: string;
  watch?: boolean;
  /** false with --no-headers. */
  headers: boolean;
}

/** What `get` prints for a set of objects: rows (and a key per object for -w), or one block for -o yaml|json|jsonpath. */
class GetPrinter {
  private readonly columns: Map<KindHandler, Columns>;
  private readonly withKind: boolean;
  widths: number[] = [];

  constructor(
    private readonly out: Output,
    private readonly opts: GetOptions,
    kinds: KindHandler[],
  ) {
    this.columns = new Map(kinds.map((k) => [k, columnsFor(k, out.format === 'wide')]));
    // kubectl names each object TYPE/NAME when it prints several kinds.
    this.withKind = kinds.length > 1;
  }

  private cells(l: Listed, now: number): string[] {
    const c = this.columns.get(l.handler)!.cells(l, now);
    if (this.withKind) c[0] = `${l.handler.resource}/${c[0]}`;
    return this.opts.allNamespaces ? [l.namespace, ...c] : c;
  }

  private header(handler: KindHandler): string[] {
    const h = this.columns.get(handler)!.header;
    return this.opts.allNamespaces ? ['NAMESPACE', ...h] : h;
  }

  /** One line per object for -o name and the tables, keyed by what -w compares. */
  lines(objs: Listed[], now: number): Map<string, { line: string; key: string }> {
    const m = new Map<string, { line: string; key: string }>();
    for (const l of objs) {
      const id = `${l.handler.resource}/${l.namespace}/${l.name}`;
      if (this.out.format === 'name') {
        m.set(id, { line: `${l.handler.resource}/${l.name}`, key: JSON.stringify(l.object) });
        continue;
      }
      const cells = this.cells(l, now);
      const shift = this.opts.allNamespaces ? 1 : 0;
      const ages = new Set(this.columns.get(l.handler)!.ages.map((i) => i + shift));
      m.set(id, { line: formatRow(cells, this.widths), key: cells.filter((_, i) => !ages.has(i)).join('\t') });
    }
    return m;
  }

  /** The whole first print: per kind a table (blank line between kinds), or the yaml/json/jsonpath block. */
  render(groups: { handler: KindHandler; objs: Listed[] }[], single: boolean, now: number): string {
    const all = groups.flatMap((g) => g.objs);
    if (this.out.format === 'yaml' || this.out.format === 'json' || this.out.format === 'jsonpath') return printObjects(all.map((l) => l.object), this.out, single);
    if (this.out.format === 'name') return all.map((l) => `${l.handler.resource}/${l.name}\n`).join('');
    const tables = groups
      .filter((g) => g.objs.length > 0)
      .map((g) => {
        const rows = g.objs.map((l) => this.cells(l, now));
        const withHeader = this.opts.headers ? [this.header(g.handler), ...rows] : rows;
        this.widths = columnWidths(withHeader);
        return withHeader.map((r) => formatRow(r, this.widths)).join('\n') + '\n';
      });
    return tables.join('\n');
  }
}

async function get(args: string[], opts: GetOptions, cmd: Command): Promise<void> {
  const out = parseOutput(opts.output);
  const parsed = parseTargets(args, opts.kind);
  const { kinds, targets } = parsed;
  const scope = scopeOf(opts);
  const rows = out.format === 'table' || out.format === 'wide' || out.format === 'name';
  if (opts.watch && !rows) throw new CliError('-w prints rows: use it with the table, -o wide or -o name');
  if (opts.watch && kinds.length > 1) throw new CliError('-w watches one kind at a time: run one "shpa get -w" per kind');
  const ctx = resolveContext(cmd);
  const cluster = (await ctx.registeredCluster()).name;
  const snap = await ctx.store.loadCluster(cluster);
  for (const b of snap.broken) process.stderr.write(`warning: ${b.error}\n`);
  const select = (s: ClusterSnapshot) =>
    kinds.map((handler) => {
      const names = targets.filter((t) => t.handler === handler).map((t) => t.name);
      const objs = listed(s, handler).filter((l) => scope.includes(l.namespace, l.labels) && (targets.length === 0 || names.includes(l.name)));
      return { handler, objs };
    });
  const groups = select(snap);
  // kubectl: what was found is printed; each name not found is an error line, and the exit code is 1.
  const missing = targets.filter((t) => !groups.some((g) => g.handler === t.handler && g.objs.some((l) => l.name === t.name)));
  const printer = new GetPrinter(out, opts, kinds);
  const found = groups.some((g) => g.objs.length > 0);
  // As kubectl: -o yaml|json of nothing is an empty List; rows of nothing are "No resources found" on stderr.
  if (found || (!rows && targets.length === 0)) process.stdout.write(printer.render(groups, targets.length === 1, Date.now()));
  for (const t of missing) process.stderr.write(`error: ${missingError(parsed, t, opts.namespace, cluster).message}\n`);
  if (missing.length > 0) process.exitCode = 1;
  else if (!found && rows && !opts.watch) process.stderr.write(scope.none);
  if (!opts.watch) return;
  await watchRows({
    initial: printer.lines(groups[0].objs, Date.now()),
    load: async () => printer.lines(select(await ctx.store.loadCluster(cluster))[0].objs, Date.now()),
    write: (s) => process.stdout.write(s),
    intervalMs: WATCH_INTERVAL_MS,
  });
}

/** `describe` without names: every object of the kinds in scope; with names: each one, or an error line. */
async function describeCommand(args: string[], opts: ScopeOptions, cmd: Command): Promise<void> {
  const parsed = parseTargets(args, 'hpa');
  const { kinds, targets } = parsed;
  const scope = scopeOf(opts);
  const ctx = resolveContext(cmd);
  const cluster = (await ctx.registeredCluster()).name;
  const now = new Date();
  const texts: string[] = [];
  if (targets.length > 0) {
    for (const t of targets) {
      const text = await describeOne(ctx, cluster, t, opts.namespace, now);
      if (text !== undefined) texts.push(text);
      else {
        process.stderr.write(`error: ${missingError(parsed, t, opts.namespace, cluster).message}\n`);
        process.exitCode = 1;
      }
    }
  } else {
    const snap = await ctx.store.loadCluster(cluster);
    for (const handler of kinds) {
      if (handler.kind === KIND_HPA) {
        const recs = snap.autoscalers.filter((r) => scope.includes(r.namespace, r.hpa.metadata?.labels)).sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
        texts.push(...recs.map((r) => describe(r, cluster, now, snap)));
      } else {
        texts.push(...listed(snap, handler).filter((l) => scope.includes(l.namespace, l.labels)).map((l) => describeObject(l.object, cluster)));
      }
    }
    if (texts.length === 0) process.stderr.write(scope.none);
  }
  // kubectl separates several descriptions with a blank line.
  process.stdout.write(texts.join('\n'));
}

async function describeOne(ctx: Context, cluster: string, t: Target, namespace: string, now: Date): Promise<string | undefined> {
  if (t.handler.kind === KIND_HPA) {
    // A ServerlessHorizontalPodAutoscaler object has no spec item: its state, with the spec last seen, is in the cluster's snapshot.
    // The metric objects of the snapshot say where each metric is read.
    const snap = await ctx.store.loadCluster(cluster);
    const rec = (await ctx.store.getAutoscaler(cluster, namespace, t.name)) ?? snap.autoscalers.find((r) => r.source === 'cluster' && r.namespace === namespace && r.name === t.name);
    return rec && describe(rec, cluster, now, snap);
  }
  const obj = await ctx.store.getSpec(cluster, t.handler.kind, namespace, t.name);
  return obj && describeObject(obj, cluster);
}

const KIND_NAMES = KINDS.map((k) => k.aliases[0]).join(', ');

export function registerInspect(program: Command): void {
  program
    .command('get')
    .description(`list autoscalers (like kubectl get hpa); also "get hpa NAME", "get hpa,cwm", "get cwm/NAME" (kinds: ${KIND_NAMES})`)
    .argument('[names...]', 'autoscalers (or TYPE[,TYPE] NAME..., TYPE/NAME...)')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .option('-A, --all-namespaces', 'every namespace')
    .option('-o, --output <format>', 'wide, name, yaml, json or jsonpath=TEMPLATE')
    .option('-l, --selector <selector>', 'only objects whose labels match, e.g. app=web,tier!=db')
    .option('-w, --watch', `after the list, print a row each time one changes (polls the table every ${WATCH_INTERVAL_MS / 1000} s; Ctrl-C ends it)`)
    .option('--no-headers', 'leave out the header line')
    .option('-k, --kind <kind>', 'hpa or cloudwatchmetric', 'hpa')
    .action(get);

  program
    .command('describe')
    .description('show autoscalers in detail, with their recent events (like kubectl describe hpa); no name: all in the namespace')
    .argument('[names...]', 'autoscalers (or TYPE NAME..., TYPE/NAME...)')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .option('-A, --all-namespaces', 'every namespace (without names)')
    .option('-l, --selector <selector>', 'only objects whose labels match (without names)')
    .action(describeCommand);
}
