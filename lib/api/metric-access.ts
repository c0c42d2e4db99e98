// Who may read which CloudWatch metric through the function. GetMetricData has no resource-level
// permissions, so whoever may create a CloudWatchMetric in a namespace we act on could read any
// metric of the account, through any role the function may assume, and see its value in status
// and events. The deploy's allowlist (param metricAccess, SHPA_METRIC_ACCESS) says, per
// namespace ("*": every other one), which roles its objects may name and, optionally, which
// metric namespaces they may read. A namespace it does not name may assume no role; and with
// metric namespaces listed, a query the function cannot check (SEARCH, a Metrics Insights
// SELECT) is refused. PrometheusMetric objects answer to the same list: the roles they assume,
// the AMP workspaces and Prometheus servers they query, the Secrets Manager secrets whose bearer
// token they send; a CloudWatch PromQL query reads any metric of the account, so a namespace
// whose metric namespaces are listed may not send one. A server is refused unless its origin is
// granted (fail closed); "*" opts out for public addresses, never for loopback or private ones,
// and a bearer token goes only to an origin granted by name.
import type { CloudWatchMetric } from './cloudwatch-types.js';
import { grantedOriginProblem, originOf } from './endpoint-address.js';
import type { PrometheusMetric } from './prometheus-types.js';
import { errorText } from '../shared/error-text.js';
import type { SQSQueueMetric } from './sqs-types.js';

export interface NamespaceMetricAccess {
  /** Roles its CloudWatchMetric objects may name in spec.roleArn. */
  roles?: string[];
  /** CloudWatch namespaces (AWS/SQS...) its queries may read; absent: any. */
  metricNamespaces?: string[];
  /** AMP workspace ids its PrometheusMetric objects may query; absent: any the deploy may (param prometheusWorkspaceArns). */
  prometheusWorkspaces?: string[];
  /**
   * Origins (scheme://host[:port]) of Prometheus servers its PrometheusMetric objects may query,
   * compared parsed; "*": any origin at a public address. Absent: none. Loopback and private
   * addresses are reached only through an origin named here.
   */
  prometheusUrls?: string[];
  /** Secrets Manager secrets its PrometheusMetric objects may send as a bearer token, to the origins of prometheusUrls named (not "*"); absent: none. */
  bearerTokenSecrets?: string[];
  /** SQS queue ARN patterns ("*" and "?" as IAM's) its SQSQueueMetric objects may read; absent: none. */
  sqsQueues?: string[];
}

const FIELDS = ['roles', 'metricNamespaces', 'prometheusWorkspaces', 'prometheusUrls', 'bearerTokenSecrets', 'sqsQueues'] as const;

/** By Kubernetes namespace, "*" for the others. */
export type MetricAccess = Record<string, NamespaceMetricAccess>;

const UNCHECKABLE = /\bSEARCH\s*\(|^\s*SELECT\s/i;

function rulesOf(o: CloudWatchMetric | PrometheusMetric | SQSQueueMetric, access: MetricAccess): { ns: string; rules: NamespaceMetricAccess } {
  const ns = o.metadata.namespace ?? 'default';
  return { ns, rules: access[ns] ?? access['*'] ?? {} };
}

function roleProblem(o: CloudWatchMetric | PrometheusMetric | SQSQueueMetric, ns: string, rules: NamespaceMetricAccess): string | undefined {
  const role = o.spec.roleArn;
  if (role !== undefined && !(rules.roles ?? []).includes(role)) {
    return `spec.roleArn ${role} is not one the deploy allows ${o.kind} objects of namespace ${ns} to assume (param metricAccess)`;
  }
  return undefined;
}

/** Why the object may not be read as it is, or undefined when it may. */
export function metricAccessProblem(o: CloudWatchMetric, access: MetricAccess): string | undefined {
  const { ns, rules } = rulesOf(o, access);
  const refused = roleProblem(o, ns, rules);
  if (refused) return refused;
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

/** Why the PrometheusMetric may not be queried as it is, or undefined when it may. */
export function prometheusAccessProblem(o: PrometheusMetric, access: MetricAccess): string | undefined {
  const { ns, rules } = rulesOf(o, access);
  const refused = roleProblem(o, ns, rules);
  if (refused) return refused;
  const { amp, cloudWatch, server } = o.spec;
  if (amp && rules.prometheusWorkspaces && !rules.prometheusWorkspaces.includes(amp.workspaceId)) {
    return `spec.amp.workspaceId ${amp.workspaceId} is not a workspace namespace ${ns} may query (param metricAccess allows ${rules.prometheusWorkspaces.join(', ') || 'none'})`;
  }
  if (cloudWatch && rules.metricNamespaces) {
    return `a CloudWatch PromQL query reads any metric of the account, which cannot be checked against the CloudWatch namespaces namespace ${ns} may read (param metricAccess)`;
  }
  if (server) {
    const grant = serverGrant(o, access);
    if ('problem' in grant) return grant.problem;
  }
  return undefined;
}

/** An IAM-style ARN pattern: "*" any run of characters, "?" one. */
function arnPatternMatches(pattern: string, arn: string): boolean {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(arn);
}

/** Why the SQSQueueMetric may not read its queue (ARN as resolved; undefined: its role only), or undefined when it may; fails closed. */
export function sqsAccessProblem(o: SQSQueueMetric, queueArn: string | undefined, access: MetricAccess): string | undefined {
  const { ns, rules } = rulesOf(o, access);
  const refused = roleProblem(o, ns, rules);
  if (refused || queueArn === undefined) return refused;
  const granted = rules.sqsQueues ?? [];
  if (!granted.some((p) => arnPatternMatches(p, queueArn))) {
    return `queue ${queueArn} is not one namespace ${ns} may read (param metricAccess, sqsQueues: ${granted.join(', ') || 'none'})`;
  }
  return undefined;
}

/** How a server may be reached: refused (why), or allowed, to loopback and private addresses too when its origin is granted by name. */
export type ServerGrant = { problem: string } | { allowPrivate: boolean };

/** Whether the object's namespace may query its spec.server, and send its bearer token there. */
export function serverGrant(o: PrometheusMetric, access: MetricAccess): ServerGrant {
  const { ns, rules } = rulesOf(o, access);
  const server = o.spec.server;
  if (!server) return { problem: 'no spec.server' };
  const origin = originOf(server.url);
  const granted = rules.prometheusUrls ?? [];
  const byName = origin !== undefined && granted.some((g) => g !== '*' && originOf(g) === origin);
  if (!byName && !granted.includes('*')) {
    return { problem: `spec.server.url: origin ${origin ?? server.url} is not a Prometheus server namespace ${ns} may query (param metricAccess, prometheusUrls: ${granted.join(', ') || 'none'})` };
  }
  const secret = server.bearerTokenSecretArn;
  if (secret !== undefined && !(rules.bearerTokenSecrets ?? []).includes(secret)) {
    return { problem: `spec.server.bearerTokenSecretArn ${secret} is not a secret namespace ${ns} may send (param metricAccess, bearerTokenSecrets)` };
  }
  if (secret !== undefined && !byName) {
    return { problem: `spec.server.bearerTokenSecretArn: a bearer token is sent only to an origin granted by name, and ${origin} is granted to namespace ${ns} only through "*" (param metricAccess, prometheusUrls)` };
  }
  return { allowPrivate: byName };
}

/** SHPA_METRIC_ACCESS as the deploy writes it; throws naming what is wrong. */
export function parseMetricAccess(text: string | undefined): MetricAccess {
  if (text === undefined || text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${errorText(e)}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('must be a JSON object of namespaces');
  const out: MetricAccess = {};
  for (const [ns, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${ns}: must be an object {${FIELDS.map((f) => `${f}?`).join(', ')}}`);
    const rules: NamespaceMetricAccess = {};
    for (const [k, list] of Object.entries(v as Record<string, unknown>)) {
      const field = FIELDS.find((f) => f === k);
      if (!field) throw new Error(`${ns}: unknown field "${k}" (${FIELDS.join(', ')})`);
      if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && x !== '')) throw new Error(`${ns}.${k}: must be a list of names`);
      if (field === 'prometheusUrls') {
        const bad = (list as string[]).map(grantedOriginProblem).find((p) => p !== undefined);
        if (bad) throw new Error(`${ns}.prometheusUrls: ${bad}`);
      }
      rules[field] = list as string[];
    }
    if (rules.bearerTokenSecrets?.length && !rules.prometheusUrls?.some((u) => u !== '*')) {
      throw new Error(`${ns}.bearerTokenSecrets: grant the origins each token may be sent to, by name, in ${ns}.prometheusUrls`);
    }
    out[ns] = rules;
  }
  return out;
}
