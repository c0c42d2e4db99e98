// Our own kind, shpa.dev/v1 PrometheusMetric: a named PromQL instant query that an HPA's External
// metric reads when metric.name equals this object's name (same namespace), as a CloudWatchMetric.
// The query goes to one endpoint: an Amazon Managed Service for Prometheus workspace, CloudWatch's
// PromQL endpoint, or any Prometheus-compatible server the function can reach.
import type { ObjectMeta } from '#hpa';

/** An AMP workspace (SigV4, service "aps"), with the query-cost caps AMP applies per query. */
export interface AmpEndpoint {
  workspaceId: string;
  /** Default: the function's region. */
  region?: string;
  /** Query samples processed above which AMP warns (max_samples_processed_warning_threshold); default 1,000,000. */
  samplesProcessedWarningThreshold?: number;
  /** Query samples processed above which AMP refuses the query, unbilled (max_samples_processed_error_threshold); default 10,000,000. */
  samplesProcessedErrorThreshold?: number;
}

/** CloudWatch's PromQL endpoint (SigV4, service "monitoring"). */
export interface CloudWatchPromQLEndpoint {
  /** Default: the function's region. */
  region?: string;
}

/** Any Prometheus-compatible HTTP API; no auth, or a bearer token kept in Secrets Manager. */
export interface ServerEndpoint {
  /** The API's base URL: /api/v1/query is appended. */
  url: string;
  /** A Secrets Manager secret whose SecretString is the bearer token. */
  bearerTokenSecretArn?: string;
}

export interface PrometheusMetricSpec {
  /** A PromQL expression returning an instant vector; its samples are summed. */
  query: string;
  /** Exactly one of amp, cloudWatch, server. */
  amp?: AmpEndpoint;
  cloudWatch?: CloudWatchPromQLEndpoint;
  server?: ServerEndpoint;
  /** An IAM role to assume for amp or cloudWatch (another account). */
  roleArn?: string;
  /** Seconds an answer stands: the query is evaluated at the start of each period; default 15. */
  periodSeconds?: number;
}

export interface PrometheusMetric {
  apiVersion: 'shpa.dev/v1';
  kind: 'PrometheusMetric';
  metadata: ObjectMeta;
  spec: PrometheusMetricSpec;
}

/** As the sync period: an answer is at most this old, about a scrape interval. */
export const DEFAULT_PROMETHEUS_PERIOD_SECONDS = 15;
export const DEFAULT_SAMPLES_WARNING_THRESHOLD = 1_000_000;
export const DEFAULT_SAMPLES_ERROR_THRESHOLD = 10_000_000;

/** Which endpoint an object queries, in words for messages and `describe`: "AMP workspace ws-… (us-east-1)". */
export function prometheusEndpointText(spec: PrometheusMetricSpec, defaultRegion?: string): string {
  if (spec.amp) return `AMP workspace ${spec.amp.workspaceId} (${spec.amp.region ?? defaultRegion ?? 'default region'})`;
  if (spec.cloudWatch) return `CloudWatch PromQL (${spec.cloudWatch.region ?? defaultRegion ?? 'default region'})`;
  return `Prometheus ${spec.server?.url ?? '?'}`;
}
