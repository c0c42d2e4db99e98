// `shpa handover` and `shpa handback`: one command each way between the live autoscaler (an
// autoscaling/v2 HPA, or a KEDA ScaledObject and the HPA it owns) and ours, which shadowed it in
// dry-run. Each direction stops the controller in charge, confirms it stopped, and only then starts
// the other: a target never has two controllers writing /scale. The price is a gap with none, as
// long as the confirmation takes (a deletion: at once; KEDA's pause: its next reconcile; ours: its
// next evaluation), shorter than a sync period, the gap every controller has between its syncs.
// Two writers would undo each other's changes instead. docs/migrate.md, "Hand over and back".
import type { Command } from 'commander';
import type { ShadowSummary } from '#hpa';
import { DRY_RUN_ANNOTATION, parseShadowTarget, SHADOW_ANNOTATION, type ShadowTarget } from '#sync';
import { CliError } from './context.js';
import { connectKube, kubeError, type KubeClient } from './kube-client.js';

/** The HPA that `handover` removed, as it was applied (metadata trimmed, no status): `handback` re-creates it. */
export const HANDED_OVER_ANNOTATION = 'shpa.dev/handed-over-hpa';
/** KEDA's pause annotation: KEDA stops its scale loop, deletes its HPA and sets Paused True; the replicas stay. */
export const KEDA_PAUSED_ANNOTATION = 'autoscaling.keda.sh/paused';

export interface HandoverOptions {
  namespace: string;
  /** How long to wait for a confirmation. */
  timeoutMs: number;
  pollMs: number;
  /** Hand over with no shadow decision compared. */
  force?: boolean;
  say(line: string): void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const seg = encodeURIComponent;
const oursPath = (ns: string, name: string) => `/apis/shpa.dev/v1/namespaces/${seg(ns)}/serverlesshorizontalpodautoscalers/${seg(name)}`;
const hpaPath = (ns: string, name: string) => `/apis/autoscaling/v2/namespaces/${seg(ns)}/horizontalpodautoscalers/${seg(name)}`;
const scaledObjectPath = (ns: string, name: string) => `/apis/keda.sh/v1alpha1/namespaces/${seg(ns)}/scaledobjects/${seg(name)}`;
const annotations = (o: unknown): Record<string, string> => obj(obj(obj(o).metadata).annotations) as Record<string, string>;

interface Ours {
  object: Obj;
  target: ShadowTarget;
  dryRun: boolean;
  shadow?: ShadowSummary;
}

async function readOurs(kube: KubeClient, ns: string, name: string): Promise<Ours> {
  const a = await kube.request('GET', oursPath(ns, name));
  if (a.status === 404) throw new CliError(`serverlesshorizontalpodautoscalers.shpa.dev "${name}" not found in namespace ${ns}`);
  if (a.status !== 200) throw kubeError(`reading ServerlessHorizontalPodAutoscaler ${ns}/${name}`, a);
  const value = annotations(a.body)[SHADOW_ANNOTATION];
  if (value === undefined) {
    throw new CliError(`ServerlessHorizontalPodAutoscaler ${ns}/${name} has no ${SHADOW_ANNOTATION} annotation: name the live autoscaler first, e.g. kubectl annotate shpa ${name} ${SHADOW_ANNOTATION}=HorizontalPodAutoscaler/${name}`);
  }
  const target = parseShadowTarget(value);
  if ('error' in target) throw new CliError(target.error);
  const shadow = obj(obj(a.body).status).shadow as ShadowSummary | undefined;
  return { object: obj(a.body), target, dryRun: annotations(a.body)[DRY_RUN_ANNOTATION] === 'true', ...(shadow ? { shadow } : {}) };
}

async function patchAnnotations(kube: KubeClient, path: string, what: string, values: Record<string, string | null>): Promise<void> {
  const a = await kube.request('PATCH', path, { metadata: { annotations: values } });
  if (a.status !== 200) throw kubeError(`annotating ${what}`, a);
}

/** Polls until `done` or the timeout; false when it timed out. */
async function waitFor(o: HandoverOptions, done: () => Promise<boolean>): Promise<boolean> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const end = now() + o.timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (now() >= end) return false;
    await sleep(o.pollMs);
  }
}

const exists = async (kube: KubeClient, path: string, what: string): Promise<boolean> => {
  const a = await kube.request('GET', path);
  if (a.status === 404) return false;
  if (a.status !== 200) throw kubeError(`reading ${what}`, a);
  return true;
};

function summaryText(s: ShadowSummary | undefined): string {
  if (!s) return 'no decision compared yet';
  return `${s.decisions} decisions compared since ${s.since}, ${s.agreed} agreed, largest difference ${s.maxDifference}`;
}

/** The HPA as applied: what `kubectl apply` would re-create, without server-set fields or status. */
function appliedHpa(hpa: Obj): Obj {
  const m = obj(hpa.metadata);
  const kept = Object.fromEntries(Object.entries(annotations(hpa)).filter(([k]) => k !== 'kubectl.kubernetes.io/last-applied-configuration'));
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: m.name, namespace: m.namespace, ...(m.labels ? { labels: m.labels } : {}), ...(Object.keys(kept).length ? { annotations: kept } : {}) },
    spec: hpa.spec,
  };
}

/** KEDA's HPA of a ScaledObject: advanced.horizontalPodAutoscalerConfig.name, or keda-hpa-<name>. */
function kedaHpaName(so: Obj, fallback: string): string {
  const name = obj(obj(obj(so.spec).advanced).horizontalPodAutoscalerConfig).name;
  return typeof name === 'string' && name ? name : fallback;
}

const pausedTrue = (so: unknown) => ((obj(obj(so).status).conditions ?? []) as Obj[]).some((c) => c.type === 'Paused' && c.status === 'True');

/** Stops the live autoscaler and confirms it stopped; ours then leaves dry-run. */
export async function handOver(kube: KubeClient, name: string, o: HandoverOptions): Promise<void> {
  const ns = o.namespace;
  const ours = await readOurs(kube, ns, name);
  const { target } = ours;
  if (!ours.dryRun) {
    const hpa = ours.target.kind === 'HorizontalPodAutoscaler' ? target.hpaName : kedaHpaName(obj((await kube.request('GET', scaledObjectPath(ns, target.name))).body), target.hpaName);
    if (await exists(kube, hpaPath(ns, hpa), `HorizontalPodAutoscaler ${ns}/${hpa}`)) {
      throw new CliError(`ServerlessHorizontalPodAutoscaler ${ns}/${name} is not in dry-run and HorizontalPodAutoscaler ${hpa} exists: both act on the target now; run "shpa handback ${name}" to return to ${target.of}`);
    }
    o.say(`ServerlessHorizontalPodAutoscaler ${ns}/${name} is already in charge (${target.of} is stopped): nothing to do`);
    return;
  }
  if (!o.force && !(ours.shadow && ours.shadow.of === target.of && ours.shadow.decisions > 0)) {
    throw new CliError(`ServerlessHorizontalPodAutoscaler ${ns}/${name} has not compared a decision with ${target.of} yet (status.shadow): let it shadow a while (shpa describe hpa ${name}), or pass --force`);
  }
  o.say(`shadow of ${target.of}: ${summaryText(ours.shadow)}`);
  if (target.kind === 'HorizontalPodAutoscaler') await removeHpa(kube, name, target, o);
  else await pauseScaledObject(kube, target, o);
  await patchAnnotations(kube, oursPath(ns, name), `ServerlessHorizontalPodAutoscaler ${ns}/${name}`, { [DRY_RUN_ANNOTATION]: null });
  o.say(`serverlesshorizontalpodautoscaler.shpa.dev/${name} out of dry-run: it writes /scale from its next evaluation`);
}

async function removeHpa(kube: KubeClient, name: string, target: ShadowTarget, o: HandoverOptions): Promise<void> {
  const ns = o.namespace;
  const path = hpaPath(ns, target.hpaName);
  const got = await kube.request('GET', path);
  if (got.status === 200) {
    // Kept on ours first: a failure past this point leaves what handback needs.
    await patchAnnotations(kube, oursPath(ns, name), `ServerlessHorizontalPodAutoscaler ${ns}/${name}`, { [HANDED_OVER_ANNOTATION]: JSON.stringify(appliedHpa(obj(got.body))) });
    const uid = obj(obj(got.body).metadata).uid;
    const del = await kube.request('DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid } }, 'application/json');
    if (del.status !== 200 && del.status !== 202 && del.status !== 404) throw kubeError(`deleting HorizontalPodAutoscaler ${ns}/${target.hpaName}`, del);
  } else if (got.status !== 404) {
    throw kubeError(`reading HorizontalPodAutoscaler ${ns}/${target.hpaName}`, got);
  }
  // Deleted means gone: a finalizer can keep it (and its controller acting) a while.
  if (!(await waitFor(o, async () => !(await exists(kube, path, `HorizontalPodAutoscaler ${ns}/${target.hpaName}`))))) {
    throw new CliError(`HorizontalPodAutoscaler ${ns}/${target.hpaName} is still there after ${o.timeoutMs / 1000} s (a finalizer?): ours stays in dry-run; run handover again once it is gone`);
  }
  o.say(`horizontalpodautoscaler.autoscaling/${target.hpaName} deleted (kept in the ${HANDED_OVER_ANNOTATION} annotation for handback)`);
}

async function pauseScaledObject(kube: KubeClient, target: ShadowTarget, o: HandoverOptions): Promise<void> {
  const ns = o.namespace;
  const path = scaledObjectPath(ns, target.name);
  const got = await kube.request('GET', path);
  if (got.status !== 200) throw kubeError(`reading ScaledObject ${ns}/${target.name}`, got);
  const hpa = kedaHpaName(obj(got.body), target.hpaName);
  await patchAnnotations(kube, path, `ScaledObject ${ns}/${target.name}`, { [KEDA_PAUSED_ANNOTATION]: 'true' });
  const stopped = await waitFor(o, async () => pausedTrue((await kube.request('GET', path)).body) && !(await exists(kube, hpaPath(ns, hpa), `HorizontalPodAutoscaler ${ns}/${hpa}`)));
  if (!stopped) {
    // Unconfirmed: back to how it was, so that the target is not left with no controller.
    await patchAnnotations(kube, path, `ScaledObject ${ns}/${target.name}`, { [KEDA_PAUSED_ANNOTATION]: null });
    throw new CliError(
      `KEDA did not confirm the pause of ScaledObject ${ns}/${target.name} within ${o.timeoutMs / 1000} s (condition Paused True and HorizontalPodAutoscaler ${hpa} deleted; KEDA 2.13 or newer): the pause was taken back, ours stays in dry-run`,
    );
  }
  o.say(`scaledobject.keda.sh/${target.name} paused (Paused True, ${hpa} deleted by KEDA; the replicas stay)`);
}

/** Puts ours back in dry-run and confirms it (a dry-run decision since); then the live autoscaler is restored. */
export async function handBack(kube: KubeClient, name: string, o: HandoverOptions): Promise<void> {
  const ns = o.namespace;
  const now = o.now ?? Date.now;
  const ours = await readOurs(kube, ns, name);
  const { target } = ours;
  const asked = Math.ceil(now() / 1000) * 1000;
  if (!ours.dryRun) await patchAnnotations(kube, oursPath(ns, name), `ServerlessHorizontalPodAutoscaler ${ns}/${name}`, { [DRY_RUN_ANNOTATION]: 'true' });
  // A dry-run decision of a cycle that started after the patch: no write of ours can follow it.
  const confirmed = await waitFor(o, async () => {
    const s = (await readOurs(kube, ns, name)).shadow?.last;
    return s !== undefined && Date.parse(s.time) >= asked;
  });
  if (!confirmed) {
    throw new CliError(
      `ServerlessHorizontalPodAutoscaler ${ns}/${name} is in dry-run but made no decision within ${o.timeoutMs / 1000} s, so it may still write /scale: ${target.of} is not restored, so that two controllers never act at once; check the sync (shpa describe hpa ${name}) and run handback again`,
    );
  }
  o.say(`serverlesshorizontalpodautoscaler.shpa.dev/${name} in dry-run (confirmed by its decision at ${new Date(asked).toISOString()} or later)`);
  if (target.kind === 'HorizontalPodAutoscaler') await recreateHpa(kube, name, ours, o);
  else {
    await patchAnnotations(kube, scaledObjectPath(ns, target.name), `ScaledObject ${ns}/${target.name}`, { [KEDA_PAUSED_ANNOTATION]: null });
    o.say(`scaledobject.keda.sh/${target.name} unpaused: KEDA re-creates its HPA and scales again`);
  }
}

async function recreateHpa(kube: KubeClient, name: string, ours: Ours, o: HandoverOptions): Promise<void> {
  const ns = o.namespace;
  const { target } = ours;
  if (await exists(kube, hpaPath(ns, target.hpaName), `HorizontalPodAutoscaler ${ns}/${target.hpaName}`)) {
    o.say(`horizontalpodautoscaler.autoscaling/${target.hpaName} exists: left as it is`);
    return;
  }
  const saved = annotations(ours.object)[HANDED_OVER_ANNOTATION];
  if (!saved) throw new CliError(`HorizontalPodAutoscaler ${ns}/${target.hpaName} is gone and ${name} keeps no copy (${HANDED_OVER_ANNOTATION}): apply its manifest again (kubectl apply -f)`);
  let manifest: unknown;
  try {
    manifest = JSON.parse(saved);
  } catch {
    throw new CliError(`annotation ${HANDED_OVER_ANNOTATION} of ${ns}/${name} is not JSON: apply the HPA's manifest again (kubectl apply -f)`);
  }
  const created = await kube.request('POST', `/apis/autoscaling/v2/namespaces/${seg(ns)}/horizontalpodautoscalers`, manifest);
  if (created.status !== 201 && created.status !== 200) throw kubeError(`re-creating HorizontalPodAutoscaler ${ns}/${target.hpaName}`, created);
  await patchAnnotations(kube, oursPath(ns, name), `ServerlessHorizontalPodAutoscaler ${ns}/${name}`, { [HANDED_OVER_ANNOTATION]: null });
  o.say(`horizontalpodautoscaler.autoscaling/${target.hpaName} re-created: kube-controller-manager scales the target again`);
}

function parseTimeout(v: string): number {
  const m = /^(\d+)(ms|s|m)?$/.exec(v.trim());
  if (!m) throw new CliError(`--timeout: "${v}" is not a duration such as 90s or 2m`);
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000);
}

interface CommandOptions {
  namespace?: string;
  kubeconfig?: string;
  context?: string;
  timeout: string;
  force?: boolean;
}

export function registerHandover(program: Command): void {
  const run = (fn: typeof handOver) => async (name: string, opts: CommandOptions) => {
    const timeoutMs = parseTimeout(opts.timeout);
    const kube = connectKube({ kubeconfig: opts.kubeconfig, context: opts.context });
    await fn(kube, name, {
      namespace: opts.namespace ?? kube.namespace,
      timeoutMs,
      pollMs: 1000,
      force: opts.force,
      say: (line) => process.stdout.write(`${line}\n`),
    });
  };
  const common = (c: Command) =>
    c
      .option('-n, --namespace <ns>', "namespace (default: the kubeconfig context's)")
      .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)')
      .option('--context <name>', 'kubeconfig context')
      .option('--timeout <duration>', 'how long to wait for each confirmation', '2m');
  common(
    program
      .command('handover')
      .description(`hand a target from the live autoscaler (${SHADOW_ANNOTATION}) to the ServerlessHorizontalPodAutoscaler NAME: stop it, confirm, then take ours out of dry-run`)
      .argument('<name>', 'the ServerlessHorizontalPodAutoscaler'),
  )
    .option('--force', 'hand over though no shadow decision was compared')
    .action(run(handOver));
  common(
    program
      .command('handback')
      .description('the way back: ours into dry-run, confirmed by its next decision, then the HPA re-created or the ScaledObject unpaused')
      .argument('<name>', 'the ServerlessHorizontalPodAutoscaler'),
  ).action(run(handBack));
}
