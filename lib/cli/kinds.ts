// The kinds `shpa apply` accepts, each with its validation and defaulting.
import { annotationWarnings, applyDefaults, type FieldError, type FieldWarning, validateAutoscaler } from '#hpa/api';
import { METRIC_KINDS, metricKindOf } from '#api';
import { metricProviders } from '#metrics';
import { KIND_HPA, type SpecKind, type StoredSpec } from '../store/index.js';
import { CliError, notFound } from './context.js';

export type Checked = { ok: true; object: StoredSpec; warnings: FieldWarning[] } | { ok: false; errors: FieldError[]; warnings: FieldWarning[] };

export interface KindHandler {
  kind: SpecKind;
  apiVersion: string;
  /** kubectl-style resource name for messages: "horizontalpodautoscaler.autoscaling". */
  resource: string;
  /** The plural, as in kubectl's errors: "horizontalpodautoscalers.autoscaling". */
  plural: string;
  /** Names accepted on the command line (get/delete --kind). */
  aliases: string[];
  /** Validated and, when valid, in the form it is stored (defaulted). */
  check(input: unknown): Checked;
}

export const KINDS: KindHandler[] = [
  {
    kind: KIND_HPA,
    apiVersion: 'autoscaling/v2',
    resource: 'horizontalpodautoscaler.autoscaling',
    plural: 'horizontalpodautoscalers.autoscaling',
    aliases: ['hpa', 'hpas', 'horizontalpodautoscaler', 'horizontalpodautoscalers'],
    check(input) {
      // Our annotations (pause, schedules) are refused here; the sync only reports them (lib/hpa/api/annotations.ts).
      const r = validateAutoscaler(input);
      if (!r.valid) return { ok: false, errors: r.errors, warnings: r.warnings };
      // A pause whose time has passed is stored (it does nothing), with a warning as kubectl prints one.
      return { ok: true, object: applyDefaults(r.hpa), warnings: [...r.warnings, ...annotationWarnings(r.hpa, new Date())] };
    },
  },
  ...metricProviders.map((p): KindHandler => {
    const k = metricKindOf(p.kind)!;
    const singular = k.plural.replace(/s$/, '');
    return {
      kind: k.kind,
      apiVersion: 'shpa.dev/v1',
      resource: `${singular}.shpa.dev`,
      plural: `${k.plural}.shpa.dev`,
      aliases: [...k.shortNames.flatMap((n: string) => [n, `${n}s`]), singular, k.plural],
      check(input) {
        const r = p.validate(input);
        return r.valid ? { ok: true, object: r.object as StoredSpec, warnings: [] } : { ok: false, errors: r.errors, warnings: [] };
      },
    };
  }),
];

export function kindFor(doc: unknown): KindHandler | FieldError {
  const o = (typeof doc === 'object' && doc !== null ? doc : {}) as { apiVersion?: unknown; kind?: unknown };
  const byKind = KINDS.find((k) => k.kind === o.kind);
  if (!byKind) {
    const supported = `supported values: ${KINDS.map((k) => `"${k.kind}"`).join(', ')}`;
    // The same spec as a Kubernetes object: only apiVersion and kind differ from what the table takes.
    const hint =
      o.kind === 'ServerlessHorizontalPodAutoscaler'
        ? '; this is the Kubernetes object form (kubectl apply it to a cluster with the CRDs); for the table write apiVersion: autoscaling/v2 and kind: HorizontalPodAutoscaler, the spec stays as it is'
        : '';
    return { field: 'kind', type: 'NotSupported', value: o.kind, message: `${supported}${hint}` };
  }
  if (o.apiVersion !== byKind.apiVersion) {
    return { field: 'apiVersion', type: 'NotSupported', value: o.apiVersion, message: `supported values: "${byKind.apiVersion}"` };
  }
  return byKind;
}

function findKind(alias: string): KindHandler | undefined {
  const a = alias.toLowerCase();
  return KINDS.find((k) => k.aliases.includes(a) || k.resource === a || k.plural === a);
}

/** Resource types kubectl users type that shpa does not serve (unless an autoscaler has that name). */
const KUBERNETES_TYPES = new Set(
  (
    'all deploy deployment deployments po pod pods rs replicaset replicasets sts statefulset statefulsets ds daemonset daemonsets ' +
    'rc replicationcontroller replicationcontrollers svc service services ing ingress ingresses job jobs cj cronjob cronjobs ' +
    'cm configmap configmaps secret secrets ns namespace namespaces no node nodes ev event events ep endpoints sa serviceaccount ' +
    'serviceaccounts pv pvc persistentvolumeclaim persistentvolumeclaims pdb poddisruptionbudget vpa scaledobject scaledobjects crd crds'
  ).split(' '),
);

const SERVED = ['horizontalpodautoscalers (hpa)', ...METRIC_KINDS.map((k) => `${k.plural} (${k.shortNames[0]})`)].join(', ').replace(/, ([^,]*)$/, ' and $1');

/** kubectl's error for a type the server does not serve, and what shpa serves. */
function unknownType(type: string, asName = false): CliError {
  const hint = asName ? ` (an autoscaler named "${type}" is hpa/${type})` : '';
  return new CliError(
    `the server doesn't have a resource type "${type}": shpa serves only ${SERVED}${hint}`,
  );
}

/** The kind a command-line name stands for (hpa, cwm, cloudwatchmetric.shpa.dev, ...). */
export function kindByAlias(alias: string): KindHandler {
  const handler = findKind(alias);
  if (!handler) throw unknownType(alias);
  return handler;
}

export interface Target {
  handler: KindHandler;
  name: string;
}

export interface ParsedTargets {
  /** The kinds asked for, in order: one for "hpa" or a default, several for "hpa,cwm" or mixed TYPE/NAME. */
  kinds: KindHandler[];
  /** Named objects; empty: every object of the kinds. */
  targets: Target[];
  /** A first argument that is a Kubernetes type ("deploy"): a name if such an object exists, else the type error. */
  typeWord?: string;
}

/** Why a named object was not found: kubectl's not found, or, for "get deploy", that shpa does not serve deployments. */
export function missingError(parsed: ParsedTargets, t: Target, namespace: string, cluster: string): CliError {
  return t.name === parsed.typeWord ? unknownType(t.name, true) : notFound(t.handler.resource, t.name, namespace, cluster);
}

/**
 * kubectl's reading of resource arguments: "TYPE[,TYPE...] [NAME...]", or each "NAME" (of the default
 * kind) or "TYPE/NAME". A lone TYPE gives its kinds and no names. A Kubernetes type we do not serve
 * ("deploy", "pods") first is read as a name, remembered as typeWord: missingError says what we serve.
 */
export function parseTargets(args: string[], defaultKind: string): ParsedTargets {
  const head = args[0] !== undefined && !args[0].includes('/') ? args[0] : undefined;
  let kinds: KindHandler[] | undefined;
  if (head?.includes(',')) kinds = head.split(',').map((t) => kindByAlias(t));
  else if (head !== undefined && findKind(head)) kinds = [findKind(head)!];
  const typeWord = kinds === undefined && head !== undefined && KUBERNETES_TYPES.has(head.toLowerCase()) ? head : undefined;
  const explicit = kinds !== undefined;
  const names = explicit ? args.slice(1) : args;
  const byDefault = kinds ?? [kindByAlias(defaultKind)];
  const targets: Target[] = [];
  for (const arg of names) {
    const parts = arg.split('/');
    if (parts.length === 1) {
      for (const handler of byDefault) targets.push({ handler, name: arg });
      continue;
    }
    // kubectl's rule for TYPE/NAME arguments.
    if (parts.length > 2) throw new CliError(`"${arg}": arguments in resource/name form may not have more than one slash`);
    if (explicit) throw new CliError(`"${arg}": there is no need to give a resource type as a separate argument when passing arguments in resource/name form`);
    if (parts[1] === '') throw new CliError(`"${arg}": no name after the slash`);
    targets.push({ handler: kindByAlias(parts[0]), name: parts[1] });
  }
  const named = [...new Set(targets.map((t) => t.handler))];
  return { kinds: explicit || named.length === 0 ? byDefault : named, targets, ...(typeWord ? { typeWord } : {}) };
}
