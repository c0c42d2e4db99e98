// Who may read which CloudWatch metric through the function. GetMetricData has no resource-level
// permissions, so whoever may create a CloudWatchMetric in a namespace we act on could read any
// metric of the account, through any role the function may assume, and see its value in status
// and events. The deploy's allowlist (param metricAccess, SHPA_METRIC_ACCESS) says, per
// namespace ("*": every other one), which roles its objects may name and, optionally, which
// metric namespaces they may read. A namespace it does not name may assume no role; and with
// metric namespaces listed, a query the function cannot check (SEARCH, a Metrics Insights
// SELECT) is refused.
import type { CloudWatchMetric } from './cloudwatch-types.js';

export interface NamespaceMetricAccess {
  /** Roles its CloudWatchMetric objects may name in spec.roleArn. */
  roles?: string[];
  /** CloudWatch namespaces (AWS/SQS...) its queries may read; absent: any. */
  metricNamespaces?: string[];
}

/** By Kubernetes namespace, "*" for the others. */
export type MetricAccess = Record<string, NamespaceMetricAccess>;

const UNCHECKABLE = /\bSEARCH\s*\(|^\s*SELECT\s/i;

/** Why the object may not be read as it is, or undefined when it may. */
export function metricAccessProblem(o: CloudWatchMetric, access: MetricAccess): string | undefined {
  const ns = o.metadata.namespace ?? 'default';
  const rules = access[ns] ?? access['*'] ?? {};
  const role = o.spec.roleArn;
  if (role !== undefined && !(rules.roles ?? []).includes(role)) {
    return `spec.roleArn ${role} is not one the deploy allows CloudWatchMetric objects of namespace ${ns} to assume (param metricAccess)`;
  }
  const allowed = rules.metricNamespaces;
  if (!allowed) return undefined;
  for (const q of o.spec.queries) {
    const metricNs = q.metricStat?.metric.namespace;
    if (metricNs !== undefined && !allowed.includes(metricNs)) {
      return `query ${q.id} reads CloudWatch namespace ${metricNs}, which namespace ${ns} may not read (param metricAccess allows ${allowed.join(', ')})`;
    }
    if (q.expression !== undefined && UNCHECKABLE.test(q.expression)) {
      return `query ${q.id} is a SEARCH or Metrics Insights query, whose metrics cannot be checked against the CloudWatch namespaces namespace ${ns} may read (param metricAccess)`;
    }
  }
  return undefined;
}

/** SHPA_METRIC_ACCESS as the deploy writes it; throws naming what is wrong. */
export function parseMetricAccess(text: string | undefined): MetricAccess {
  if (text === undefined || text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('must be a JSON object of namespaces');
  const out: MetricAccess = {};
  for (const [ns, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${ns}: must be an object {roles?, metricNamespaces?}`);
    const rules: NamespaceMetricAccess = {};
    for (const [k, list] of Object.entries(v as Record<string, unknown>)) {
      if (k !== 'roles' && k !== 'metricNamespaces') throw new Error(`${ns}: unknown field "${k}" (roles, metricNamespaces)`);
      if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && x !== '')) throw new Error(`${ns}.${k}: must be a list of names`);
      rules[k] = list as string[];
    }
    out[ns] = rules;
  }
  return out;
}
