// Our metric object kinds (shpa.dev/v1): the one list that the cluster's listing, the table, the CRDs and the CLI go over.
// Adding a kind: its types, schema and validation here in lib/api, one line below, and its provider (lib/metrics/providers).
import type { JSONSchemaProps } from '#hpa/api';
import { cloudWatchMetricSpecSchema } from './cloudwatch-schema.js';
import type { CloudWatchMetric } from './cloudwatch-types.js';
import { prometheusMetricSpecSchema } from './prometheus-schema.js';
import { sqsQueueMetricSpecSchema } from './sqs-schema.js';
import type { PrometheusMetric } from './prometheus-types.js';
import type { SQSQueueMetric } from './sqs-types.js';

/** The metric objects of a listing (the table's or the cluster's), one field per kind; absent: none of that kind. */
export interface MetricObjectLists {
  cloudWatchMetrics: CloudWatchMetric[];
  prometheusMetrics?: PrometheusMetric[];
  sqsQueueMetrics?: SQSQueueMetric[];
}

export type AnyMetricObject = NonNullable<MetricObjectLists[keyof MetricObjectLists]>[number];

export interface MetricKind {
  kind: AnyMetricObject['kind'];
  /** The CRD's plural (resource name) and its short names. */
  plural: string;
  shortNames: string[];
  /** Its field in a listing. */
  field: keyof MetricObjectLists;
  /** The table's sort-key prefix of its items (lib/store). */
  tablePrefix: string;
  /** The CRD's description and its spec's schema (infra/crds, npm run crds). */
  description: string;
  specSchema(): JSONSchemaProps;
}

export const METRIC_KINDS: readonly MetricKind[] = [
  {
    kind: 'CloudWatchMetric',
    plural: 'cloudwatchmetrics',
    shortNames: ['cwm'],
    field: 'cloudWatchMetrics',
    tablePrefix: 'cwm',
    description: 'A named CloudWatch GetMetricData query; an External metric of an autoscaler in the same namespace reads it by name.',
    specSchema: cloudWatchMetricSpecSchema,
  },
  {
    kind: 'PrometheusMetric',
    plural: 'prometheusmetrics',
    shortNames: ['pm'],
    field: 'prometheusMetrics',
    tablePrefix: 'pm',
    description:
      'A named PromQL instant query (AMP, CloudWatch PromQL or a Prometheus server); an External metric of an autoscaler in the same namespace reads the sum of its vector by name.',
    specSchema: prometheusMetricSpecSchema,
  },
  {
    kind: 'SQSQueueMetric',
    plural: 'sqsqueuemetrics',
    shortNames: ['sqm'],
    field: 'sqsQueueMetrics',
    tablePrefix: 'sqm',
    description:
      "An SQS queue's backlog (visible, in flight by default, delayed on request), read live with GetQueueAttributes; an External metric of an autoscaler in the same namespace reads it by name.",
    specSchema: sqsQueueMetricSpecSchema,
  },
];

/** The kind's entry, undefined when it is not one of our metric kinds. */
export function metricKindOf(kind: unknown): MetricKind | undefined {
  return METRIC_KINDS.find((k) => k.kind === kind);
}

/** A listing with no objects. */
export function emptyMetricObjects(): MetricObjectLists {
  return Object.fromEntries(METRIC_KINDS.map((k) => [k.field, []])) as unknown as MetricObjectLists;
}

/** Every metric object of a listing, of all kinds. */
export function allMetricObjects(lists: Partial<MetricObjectLists> | undefined): AnyMetricObject[] {
  return METRIC_KINDS.flatMap((k) => (lists?.[k.field] ?? []) as AnyMetricObject[]);
}

/** The metric objects of a larger record (a snapshot), by kind. */
export function pickMetricObjects(from: Partial<MetricObjectLists>): Partial<MetricObjectLists> {
  return Object.fromEntries(METRIC_KINDS.filter((k) => from[k.field]).map((k) => [k.field, from[k.field]]));
}

/** Adds an object to the listing's field of its kind; false when it is not a metric kind. */
export function addMetricObject(lists: MetricObjectLists, object: { kind?: unknown }): object is AnyMetricObject {
  const k = metricKindOf(object.kind);
  if (!k) return false;
  ((lists[k.field] ??= []) as unknown[]).push(object);
  return true;
}
