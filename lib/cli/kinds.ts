// The kinds `shpa apply` accepts, each with its validation and defaulting.
import { applyDefaults } from '../hpa/defaults.js';
import { validateHPA, type FieldError } from '../hpa/validation.js';
import { validateCloudWatchMetric } from '../metrics/cloudwatch-validation.js';
import { KIND_CLOUDWATCH, KIND_HPA, type SpecKind, type StoredSpec } from '../store/index.js';
import { CliError } from './context.js';

export type Checked = { ok: true; object: StoredSpec } | { ok: false; errors: FieldError[] };

export interface KindHandler {
  kind: SpecKind;
  apiVersion: string;
  /** kubectl-style resource name for messages: "horizontalpodautoscaler.autoscaling". */
  resource: string;
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
    aliases: ['hpa', 'hpas', 'horizontalpodautoscaler', 'horizontalpodautoscalers'],
    check(input) {
      const r = validateHPA(input);
      return r.valid ? { ok: true, object: applyDefaults(r.hpa) } : { ok: false, errors: r.errors };
    },
  },
  {
    kind: KIND_CLOUDWATCH,
    apiVersion: 'shpa.dev/v1',
    resource: 'cloudwatchmetric.shpa.dev',
    aliases: ['cwm', 'cloudwatchmetric', 'cloudwatchmetrics'],
    check(input) {
      const r = validateCloudWatchMetric(input);
      return r.valid ? { ok: true, object: r.object } : { ok: false, errors: r.errors };
    },
  },
];

export function kindFor(doc: unknown): KindHandler | FieldError {
  const o = (typeof doc === 'object' && doc !== null ? doc : {}) as { apiVersion?: unknown; kind?: unknown };
  const byKind = KINDS.find((k) => k.kind === o.kind);
  if (!byKind) {
    return { field: 'kind', type: 'NotSupported', value: o.kind, message: `supported values: ${KINDS.map((k) => `"${k.kind}"`).join(', ')}` };
  }
  if (o.apiVersion !== byKind.apiVersion) {
    return { field: 'apiVersion', type: 'NotSupported', value: o.apiVersion, message: `supported values: "${byKind.apiVersion}"` };
  }
  return byKind;
}

function findKind(alias: string): KindHandler | undefined {
  const a = alias.toLowerCase();
  return KINDS.find((k) => k.aliases.includes(a) || k.resource === a);
}

/** The kind a command-line name stands for (hpa, cwm, cloudwatchmetric.shpa.dev, ...). */
export function kindByAlias(alias: string): KindHandler {
  const handler = findKind(alias);
  if (!handler) throw new CliError(`unknown kind "${alias}": use hpa or cloudwatchmetric`);
  return handler;
}

export interface Target {
  handler: KindHandler;
  name: string;
}

/**
 * kubectl's reading of resource arguments: "TYPE NAME...", or each "NAME" (of the
 * default kind) or "TYPE/NAME". A lone "TYPE" gives its kind and no names.
 */
export function parseTargets(args: string[], defaultKind: string): { handler: KindHandler; targets: Target[] } {
  const first = args[0] !== undefined && !args[0].includes('/') ? findKind(args[0]) : undefined;
  const handler = first ?? kindByAlias(defaultKind);
  const targets = (first ? args.slice(1) : args).map((arg): Target => {
    const parts = arg.split('/');
    if (parts.length === 1) return { handler, name: arg };
    // kubectl's rule for TYPE/NAME arguments.
    if (parts.length > 2) throw new CliError(`"${arg}": arguments in resource/name form may not have more than one slash`);
    if (first) throw new CliError(`"${arg}": there is no need to give a resource type as a separate argument when passing arguments in resource/name form`);
    if (parts[1] === '') throw new CliError(`"${arg}": no name after the slash`);
    return { handler: kindByAlias(parts[0]), name: parts[1] };
  });
  return { handler, targets };
}
