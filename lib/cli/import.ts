// `shpa import`: HorizontalPodAutoscalers (autoscaling/v2, v2beta2, v2beta1, v1) and KEDA
// ScaledObjects into ours (lib/import), from files (-f) or from the cluster of the user's
// kubeconfig (no -f: lib/cli/kube-access.ts), with a report on stderr of what mapped, what did
// not, what has no effect and which documents were skipped. --to table (the default for files)
// gives the table's HPA form, stored as `shpa apply` stores it; --to kubernetes (the default
// from a cluster) gives ServerlessHorizontalPodAutoscaler objects, applied to the cluster.
// --dry-run prints them instead. All or nothing: one object that fails its checks stores none.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { DRY_RUN_ANNOTATION } from '#sync';
import { expandLists, importDocument, type ImportedObject, type ImportResult, KUBERNETES_KIND, toKubernetesKind, triggerAuthentications } from '#import';
import { formatFieldError } from '#hpa/api';
import type { StoredSpec } from '../store/index.js';
import { CliError, resolveContext } from './context.js';
import { kindFor } from './kinds.js';
import type { KubeOptions, Manifest } from './kube-access.js';
import { expandPaths, readSource } from './manifests.js';

export type ImportTarget = 'table' | 'kubernetes';

export interface ImportReport {
  results: ImportResult[];
  /** Valid objects, as the table stores them (defaulted). */
  objects: StoredSpec[];
  /** The same objects as converted, before defaulting: what the Kubernetes form is made of. */
  converted: ImportedObject[];
  /** Those of `converted` that were ours already: kept as written. */
  asWritten: Set<ImportedObject>;
  /** "file:line: Secret keda-test/x: why". */
  skipped: string[];
  /** Unreadable files, and objects that did not pass their checks. */
  problems: string[];
}

/** A decoded document and where it came from ("file:line", or the cluster's context and resource). */
export interface ImportInput {
  value: unknown;
  where: string;
}

/**
 * Converts and checks every document; `authentications` are more (Cluster)TriggerAuthentications triggers may name;
 * `sqsAccountId` is the account of SQS queues KEDA names by a bare name (--sqs-account). Pure.
 */
export function importDocuments(inputs: ImportInput[], namespace?: string, authentications: unknown[] = [], sqsAccountId?: string): ImportReport {
  const out: ImportReport = { results: [], objects: [], converted: [], asWritten: new Set(), skipped: [], problems: [] };
  const findAuthentication = triggerAuthentications([...inputs.flatMap((i) => expandLists(i.value)), ...authentications], namespace);
  for (const input of inputs) {
    for (const value of expandLists(input.value)) {
      const r = importDocument(value, namespace, { findAuthentication, ...(sqsAccountId ? { sqsAccountId } : {}) });
      if ('skipped' in r) {
        out.skipped.push(`${input.where}: ${r.skipped}: ${r.why}`);
        continue;
      }
      out.results.push(r);
      for (const o of r.objects) {
        const handler = kindFor(o);
        const checked = 'check' in handler ? handler.check(o) : undefined;
        if (checked?.ok) {
          out.objects.push(checked.object);
          out.converted.push(o);
          if (r.asWritten) out.asWritten.add(o);
        } else out.problems.push(`${input.where}: ${r.source} → ${o.kind} ${o.metadata.namespace}/${o.metadata.name} is invalid: ${checked ? checked.errors.map(formatFieldError).join('; ') : 'unknown kind'}`);
      }
    }
  }
  return out;
}

/** Reads and converts every document of the files: pure but for reading them. */
export function importFiles(paths: string[], namespace?: string, sqsAccountId?: string): ImportReport {
  const inputs: ImportInput[] = [];
  const unreadable: string[] = [];
  for (const file of expandPaths(paths)) {
    const src = readSource(file, () => readFileSync(0, 'utf8'));
    unreadable.push(...src.errors);
    for (const doc of src.documents) inputs.push({ value: doc.value, where: `${doc.file}:${doc.line}` });
  }
  const report = importDocuments(inputs, namespace, [], sqsAccountId);
  report.problems.unshift(...unreadable);
  return report;
}

/** The objects in the form asked for; `dryRunAnnotation` marks Kubernetes autoscalers shpa.dev/dry-run. */
export function outputObjects(r: ImportReport, to: ImportTarget, dryRunAnnotation: boolean): Manifest[] {
  if (to === 'table') return r.objects;
  const live = new Map(r.results.flatMap((x) => x.objects.map((o) => [o, x.live] as const)));
  return r.converted.map((o) => toKubernetesKind(o, dryRunAnnotation && !r.asWritten.has(o), live.get(o)));
}

/** The report, one block per source (and what it became): what mapped, what did not, what has no effect; then what was skipped and what failed. */
export function reportText(r: ImportReport, to: ImportTarget = 'table', dryRunAnnotation = true): string {
  const lines: string[] = [];
  for (const x of r.results) {
    const made = x.objects.map((o) => `${to === 'kubernetes' && o.kind === 'HorizontalPodAutoscaler' ? KUBERNETES_KIND : o.kind} ${o.metadata.namespace}/${o.metadata.name}`);
    lines.push(`${x.source} → ${made.length > 0 ? made.join(', ') : 'nothing'}:`);
    for (const m of x.mapped) lines.push(`  mapped: ${m}`);
    for (const u of x.unmapped) lines.push(`  NOT mapped: ${u}`);
    for (const n of x.noEffect) lines.push(`  no effect: ${n}`);
  }
  for (const s of r.skipped) lines.push(`skipped: ${s}`);
  for (const p of r.problems) lines.push(`error: ${p}`);
  if (to === 'kubernetes' && dryRunAnnotation && r.converted.some((o) => o.kind === 'HorizontalPodAutoscaler' && !r.asWritten.has(o))) {
    lines.push(`note: each ${KUBERNETES_KIND} carries ${DRY_RUN_ANNOTATION}: "true" and shpa.dev/shadow-of: it evaluates beside the live autoscaler, writes no /scale and reports each decision against the live one's; \`shpa handover NAME\` takes over when you are satisfied (docs/migrate.md)`);
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

interface ImportOptions extends KubeOptions {
  filename?: string[];
  sqsAccount?: string;
  to?: string;
  dryRun: boolean;
  active: boolean;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('convert HPAs and KEDA ScaledObjects, from files or from the cluster, into ours, with a report of what did not map; --dry-run prints them')
    .option('-f, --filename <path...>', 'file, directory of .yaml/.yml/.json files, or - for stdin; without it, read the cluster of the kubeconfig')
    .option('--to <form>', 'table (the HPA form `shpa apply` stores; default for files) or kubernetes (ServerlessHorizontalPodAutoscaler and metric objects; default from a cluster)')
    .option('--dry-run', 'print the objects as YAML; store and apply nothing', false)
    .option('--sqs-account <id>', "KEDA aws-sqs-queue triggers: the 12-digit AWS account of queues named by a bare name (queueURL: myQueue) and read with KEDA's own identity (SQS resolves a name in the reader's account; with a role, the role's)")
    .option('--active', 'Kubernetes form: leave out shpa.dev/dry-run, so ours writes /scale from its first tick (only once the HPA or ScaledObject is gone)', false)
    .option('-n, --namespace <ns>', 'files: namespace for documents that name none; cluster: the namespace to read (default: the context\'s)')
    .option('-A, --all-namespaces', 'cluster: read every namespace', false)
    .option('-l, --selector <selector>', 'cluster: label selector, as kubectl\'s -l')
    .option('--context <name>', 'kubeconfig context to read from and apply to (default: the current one)')
    .option('--kubeconfig <path>', 'kubeconfig file (default: KUBECONFIG, else ~/.kube/config)')
    .action(async (opts: ImportOptions, cmd: Command) => {
      const fromCluster = opts.filename === undefined;
      const to = importTarget(opts.to, fromCluster);
      if (opts.sqsAccount !== undefined && !/^\d{12}$/.test(opts.sqsAccount)) throw new CliError(`--sqs-account "${opts.sqsAccount}": must be a 12-digit AWS account id`);
      // Loaded only when a cluster is used: @kubernetes/client-node's index takes half a second to load.
      const kube = fromCluster || (to === 'kubernetes' && !opts.dryRun) ? await import('./kube-access.js') : undefined;
      const access = kube?.openKubeconfig(opts);
      let report: ImportReport;
      if (fromCluster) {
        const read = await kube!.readAutoscalers(access!, opts.selector);
        report = importDocuments(read.documents.map((d) => ({ value: d.value, where: d.origin })), undefined, read.authentications, opts.sqsAccount);
        report.skipped.push(...read.notes);
      } else report = importFiles(opts.filename!, opts.namespace, opts.sqsAccount);
      process.stderr.write(reportText(report, to, !opts.active));
      const objects = outputObjects(report, to, !opts.active);
      if (opts.dryRun) process.stdout.write(objects.map((o) => stringify(o)).join('---\n'));
      if (report.problems.length > 0) throw new CliError(`${report.problems.length} object(s) failed their checks: nothing ${opts.dryRun ? 'would be' : 'was'} stored or applied`);
      if (objects.length === 0) throw new CliError(fromCluster ? `no HorizontalPodAutoscaler or ScaledObject to import in ${access!.namespace ? `namespace "${access!.namespace}"` : 'any namespace'} of context ${access!.context}` : 'nothing to import');
      if (opts.dryRun) return;
      if (to === 'kubernetes') {
        for (const line of await kube!.applyObjects(access!, objects)) process.stdout.write(`${line}\n`);
        return;
      }
      await storeInTable(cmd, report.objects);
    });
}

function importTarget(to: string | undefined, fromCluster: boolean): ImportTarget {
  if (to === undefined) return fromCluster ? 'kubernetes' : 'table';
  if (to === 'table' || to === 'kubernetes') return to;
  throw new CliError(`--to "${to}": supported values: "table", "kubernetes"`);
}

async function storeInTable(cmd: Command, objects: StoredSpec[]): Promise<void> {
  const ctx = resolveContext(cmd);
  const cluster = (await ctx.registeredCluster()).name;
  const stored: string[] = [];
  for (const o of objects) {
    const handler = kindFor(o);
    const name = `${'resource' in handler ? handler.resource : o.kind}/${o.metadata.name}`;
    try {
      const outcome = await ctx.store.applySpec(cluster, o, new Date());
      process.stdout.write(`${name} ${outcome}\n`);
    } catch (e) {
      // The table has no transaction across items: say what is in, and that running it again finishes it (each write is idempotent).
      process.stderr.write(`note: storing ${name} failed; ${stored.length > 0 ? `stored before it: ${stored.join(', ')}` : 'nothing was stored'}; the same import again stores the rest\n`);
      throw e;
    }
    stored.push(name);
  }
}
