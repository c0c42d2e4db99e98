// The metric providers, by kind: the one place that lists them. Adding one: see ./provider.ts.
import type { MetricAnswer, MetricQuery, ObjectMetricQuery } from '#sync/ports';
import { cloudWatchProvider } from './cloudwatch.js';
import { prometheusProvider } from './prometheus.js';
import { sqsProvider } from './sqs.js';
import type { MetricObject, MetricProvider } from './provider.js';

export type { MetricObject, MetricObjectListing, MetricObjectValidation, MetricProvider } from './provider.js';

/** In the order their problems are reported when an External metric names objects of several kinds. */
export const metricProviders: readonly MetricProvider[] = [cloudWatchProvider as MetricProvider, prometheusProvider as MetricProvider, sqsProvider as MetricProvider];

const queryTypes = new Set<string>(metricProviders.map((p) => p.queryType));

/** A query of a provider's object: read in the cycle's batched fetch. */
export function isObjectQuery(q: MetricQuery): q is ObjectMetricQuery {
  return queryTypes.has(q.type);
}

/** An answer to a provider's query. */
export function isObjectAnswer(a: MetricAnswer): a is Extract<MetricAnswer, { type: ObjectMetricQuery['type'] }> {
  return queryTypes.has(a.type);
}

/** "CloudWatchMetric or PrometheusMetric": the kinds an External metric may name, in words. */
export function metricKindsText(joiner: 'or' | 'and'): string {
  const kinds = metricProviders.map((p) => p.kind);
  return kinds.length <= 1 ? kinds.join('') : `${kinds.slice(0, -1).join(', ')} ${joiner} ${kinds[kinds.length - 1]}`;
}

/** The valid objects of one provider per namespace, by name; and why the others are not ("is invalid: …", "is refused: …", by "namespace/name"). */
export interface CheckedMetricObjects {
  provider: MetricProvider;
  valid: Map<string, Map<string, MetricObject>>;
  invalid: Map<string, string>;
}
