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

/** The kind a command-line name stands for (hpa, cwm, cloudwatchmetric.shpa.dev, ...). */
export function kindByAlias(alias: string): KindHandler {
  const a = alias.toLowerCase();
  const handler = KINDS.find((k) => k.aliases.includes(a) || k.resource === a);
  if (!handler) throw new CliError(`unknown kind "${alias}": use hpa or cloudwatchmetric`);
  return handler;
}
