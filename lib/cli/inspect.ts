// `shpa get` and `shpa describe`: reading autoscalers back, kubectl-style.
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { HorizontalPodAutoscaler, HPAScalingRules } from '../hpa/types.js';
import { KIND_HPA, type StoredSpec } from '../store/index.js';
import type { AutoscalerRecord } from '../sync/ports.js';
import { CliError, notFound, resolveContext } from './context.js';
import { age, describeMetric, formatTargets, table } from './format.js';
import { parseTargets } from './kinds.js';

interface GetOptions {
  namespace: string;
  allNamespaces?: boolean;
  output?: string;
  kind: string;
}

export function registerInspect(program: Command): void {
  program
    .command('get')
    .description('list autoscalers (like kubectl get hpa); also "get hpa NAME", "get cloudwatchmetric", "get cwm/NAME"')
    .argument('[names...]', 'autoscalers (or TYPE NAME..., TYPE/NAME)')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .option('-A, --all-namespaces', 'every namespace')
    .option('-o, --output <format>', 'wide, yaml or json')
    .option('-k, --kind <kind>', 'hpa or cloudwatchmetric', 'hpa')
    .action(async (args: string[], opts: GetOptions, cmd: Command) => {
      if (opts.output && !['wide', 'yaml', 'json'].includes(opts.output)) throw new CliError(`unknown output format "${opts.output}": use wide, yaml or json`);
      const parsed = parseTargets(args, opts.kind);
      if (parsed.targets.some((t) => t.handler !== parsed.targets[0].handler)) throw new CliError('get lists one kind at a time: run it once per kind');
      const handler = parsed.targets[0]?.handler ?? parsed.handler;
      const names = parsed.targets.map((t) => t.name);
      const ctx = resolveContext(cmd);
      const cluster = ctx.requireCluster();
      const snap = await ctx.store.loadCluster(cluster);
      for (const b of snap.broken) process.stderr.write(`warning: ${b.error}\n`);
      const inScope = (ns: string, n: string) => (opts.allNamespaces || ns === opts.namespace) && (names.length === 0 || names.includes(n));
      // kubectl's "not found" for the first name asked for that matched nothing.
      const missing = (found: string[]) => names.find((n) => !found.includes(n));
      const single = names.length === 1;
      // -A: kubectl's leading NAMESPACE column.
      const nsColumn = (ns: string): string[] => (opts.allNamespaces ? [ns] : []);
      const now = Date.now();
      if (handler.kind !== KIND_HPA) {
        const objs = snap.cloudWatchMetrics.filter((m) => inScope(m.metadata.namespace ?? 'default', m.metadata.name));
        const absent = missing(objs.map((m) => m.metadata.name));
        if (absent !== undefined) throw notFound(handler.resource, absent, opts.namespace, cluster);
        if (opts.output === 'yaml' || opts.output === 'json') return print(objs, opts.output, single);
        const rows = objs.map((m) => [...nsColumn(m.metadata.namespace ?? 'default'), m.metadata.name, String(m.spec.queries.length), age(now - Date.parse(m.metadata.creationTimestamp ?? ''))]);
        return out(objs.length === 0 ? noResources(opts) : table([...nsColumn('NAMESPACE'), 'NAME', 'QUERIES', 'AGE'], rows));
      }
      const recs = snap.autoscalers.filter((a) => inScope(a.namespace, a.name)).sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
      const absent = missing(recs.map((r) => r.name));
      if (absent !== undefined) throw notFound(handler.resource, absent, opts.namespace, cluster);
      if (opts.output === 'yaml' || opts.output === 'json') return print(recs.map((r) => r.hpa), opts.output, single);
      if (recs.length === 0) return out(noResources(opts));
      const wide = opts.output === 'wide';
      const header = [...nsColumn('NAMESPACE'), 'NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE', ...(wide ? ['DESIRED', 'LAST SCALE', 'CONDITIONS'] : [])];
      const rows = recs.map((r) => {
        const h = r.hpa;
        const st = h.status;
        const row = [
          ...nsColumn(r.namespace),
          r.name,
          `${h.spec.scaleTargetRef.kind}/${h.spec.scaleTargetRef.name}`,
          formatTargets(h, wide),
          h.spec.minReplicas === undefined ? '<unset>' : String(h.spec.minReplicas),
          String(h.spec.maxReplicas),
          st ? String(st.currentReplicas) : '<unknown>',
          age(now - Date.parse(h.metadata.creationTimestamp ?? r.createdAt)),
        ];
        if (wide) {
          row.push(st ? String(st.desiredReplicas) : '<unknown>', st?.lastScaleTime ? age(now - Date.parse(st.lastScaleTime)) : '<none>', (st?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type).join(',') || '<none>');
        }
        return row;
      });
      out(table(header, rows));
    });

  program
    .command('describe')
    .description('show autoscalers in detail (like kubectl describe hpa); also "describe cloudwatchmetric/NAME"')
    .argument('<names...>', 'autoscalers (or TYPE NAME..., TYPE/NAME)')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .action(async (args: string[], opts: { namespace: string }, cmd: Command) => {
      const { handler, targets } = parseTargets(args, 'hpa');
      if (targets.length === 0) throw new CliError(`no name given: shpa describe ${handler.aliases[0]} NAME`);
      const ctx = resolveContext(cmd);
      const cluster = ctx.requireCluster();
      const texts: string[] = [];
      for (const t of targets) {
        if (t.handler.kind === KIND_HPA) {
          const rec = await ctx.store.getAutoscaler(cluster, opts.namespace, t.name);
          if (!rec) throw notFound(t.handler.resource, t.name, opts.namespace, cluster);
          texts.push(describe(rec, cluster, new Date()));
        } else {
          const obj = await ctx.store.getSpec(cluster, t.handler.kind, opts.namespace, t.name);
          if (!obj) throw notFound(t.handler.resource, t.name, opts.namespace, cluster);
          texts.push(describeObject(obj, cluster));
        }
      }
      // kubectl separates several descriptions with a blank line.
      out(texts.join('\n'));
    });
}

function out(s: string): void {
  process.stdout.write(s);
}

function noResources(opts: GetOptions): string {
  return opts.allNamespaces ? 'No resources found\n' : `No resources found in ${opts.namespace} namespace.\n`;
}

function print(objs: (HorizontalPodAutoscaler | StoredSpec)[], format: 'yaml' | 'json', single: boolean): void {
  const value = single ? objs[0] : { apiVersion: 'v1', kind: 'List', items: objs };
  out(format === 'json' ? JSON.stringify(value, null, 2) + '\n' : stringify(value));
}

/** The text of `shpa describe`. */
export function describe(rec: AutoscalerRecord, cluster: string, now: Date): string {
  const h = rec.hpa;
  const st = h.status;
  const kv: [string, string][] = [
    ['Name:', rec.name],
    ['Namespace:', rec.namespace],
    ['Cluster:', cluster],
    ['Labels:', pairs(h.metadata.labels)],
    ['Annotations:', pairs(h.metadata.annotations)],
    ['CreationTimestamp:', new Date(h.metadata.creationTimestamp ?? rec.createdAt).toUTCString()],
    ['Reference:', `${h.spec.scaleTargetRef.kind}/${h.spec.scaleTargetRef.name}`],
    ['Metrics:', '( current / target )'],
  ];
  for (const m of h.spec.metrics ?? []) {
    const [label, value] = describeMetric(m, st?.currentMetrics ?? []);
    kv.push([`  ${label}:`, value]);
  }
  kv.push(
    ['Min replicas:', String(h.spec.minReplicas ?? '<unset>')],
    ['Max replicas:', String(h.spec.maxReplicas)],
    ['Behavior:', h.spec.behavior ? behaviorText(h) : '<default>'],
    [`${h.spec.scaleTargetRef.kind} pods:`, st ? `${st.currentReplicas} current / ${st.desiredReplicas} desired` : '<unknown>'],
  );
  const w = Math.max(...kv.map(([k]) => k.length)) + 1;
  // A multi-line value (labels, annotations) continues in the value column.
  let s = kv.map(([k, v]) => `${k.padEnd(w)}${v.replaceAll('\n', `\n${' '.repeat(w)}`)}`).join('\n') + '\n';
  const conditions = st?.conditions ?? [];
  s += 'Conditions:\n';
  s += conditions.length === 0 ? '  <none>\n' : indent(table(['Type', 'Status', 'Reason', 'Message'], [['----', '------', '------', '-------'], ...conditions.map((c) => [c.type, c.status, c.reason ?? '', c.message ?? ''])]));
  const events: [number, string, string][] = [
    ...rec.history.scaleUpEvents.map((e): [number, string, string] => [Date.parse(e.timestamp), 'SuccessfulRescale', `Scaled up by ${e.change} replica(s)`]),
    ...rec.history.scaleDownEvents.map((e): [number, string, string] => [Date.parse(e.timestamp), 'SuccessfulRescale', `Scaled down by ${e.change} replica(s)`]),
  ];
  if (st?.lastScaleTime && !events.some(([t]) => t === Date.parse(st.lastScaleTime!))) {
    events.push([Date.parse(st.lastScaleTime), 'SuccessfulRescale', `New size: ${st.desiredReplicas}`]);
  }
  events.sort((a, b) => b[0] - a[0]);
  s += 'Events:\n';
  s += events.length === 0 ? '  <none>\n' : indent(table(['Type', 'Reason', 'Age', 'From', 'Message'], [['----', '------', '----', '----', '-------'], ...events.map(([t, r, m]) => ['Normal', r, age(now.getTime() - t), 'shpa', m])]));
  const recs = [...(rec.history.recommendations ?? [])].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));
  s += 'Recommendations (latest time each count was recommended):\n';
  s += recs.length === 0 ? '  <none>\n' : indent(table(['Replicas', 'Age'], recs.map((r) => [String(r.replicas), age(now.getTime() - Date.parse(r.timestamp))])));
  return s;
}

/** The text of `shpa describe` for an object with no dedicated view (kubectl's generic describe): metadata, then the spec. */
export function describeObject(obj: StoredSpec, cluster: string): string {
  const m = obj.metadata;
  const kv: [string, string][] = [
    ['Name:', m.name],
    ['Namespace:', m.namespace ?? 'default'],
    ['Cluster:', cluster],
    ['Labels:', pairs(m.labels)],
    ['Annotations:', pairs(m.annotations)],
    ['API Version:', obj.apiVersion],
    ['Kind:', obj.kind],
    ['CreationTimestamp:', m.creationTimestamp ? new Date(m.creationTimestamp).toUTCString() : '<unknown>'],
  ];
  const w = Math.max(...kv.map(([k]) => k.length)) + 1;
  const head = kv.map(([k, v]) => `${k.padEnd(w)}${v.replaceAll('\n', `\n${' '.repeat(w)}`)}`).join('\n');
  return `${head}\nSpec:\n${indent(stringify(obj.spec))}`;
}

/** One key=value per line, sorted by key, as kubectl prints labels and annotations. */
function pairs(m: Record<string, string> | undefined): string {
  const e = Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return e.length === 0 ? '<none>' : e.map(([k, v]) => `${k}=${v}`).join('\n');
}

function behaviorText(h: HorizontalPodAutoscaler): string {
  const b = h.spec.behavior!;
  const rule = (dir: string, r: HPAScalingRules | undefined) =>
    r ? `${dir}: window ${r.stabilizationWindowSeconds ?? 'default'}s, select ${r.selectPolicy ?? 'Max'}, ${(r.policies ?? []).map((p) => `${p.value} ${p.type} per ${p.periodSeconds}s`).join('; ') || 'no policies'}` : `${dir}: default`;
  return `${rule('scale up', b.scaleUp)}; ${rule('scale down', b.scaleDown)}`;
}

function indent(s: string): string {
  return s.replace(/^(?=.)/gm, '  ');
}

