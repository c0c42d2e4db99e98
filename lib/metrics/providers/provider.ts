/**
 * A metric provider: one kind of metric object (a Kubernetes CR of shpa.dev/v1, e.g. CloudWatchMetric)
 * that an autoscaler's External metric reads by naming it. The cycle and the evaluation loop go over
 * the table in ./index.ts and never name a provider.
 *
 * To add a provider:
 *  1. its kind in lib/api (types, schema, validation, one line in METRIC_KINDS: CRD, listing field, table prefix);
 *  2. a file beside ./cloudwatch.ts implementing MetricProvider, with its batched `read` (one call per
 *     distinct source per tick for the shard), and one line in `metricProviders` (./index.ts);
 *  3. its query type in lib/sync/ports/metrics-access.ts (ObjectMetricQuery).
 */
import type { FieldError } from '#hpa/api';
import type { MetricSample } from '#hpa';
import type { MetricAccess, MetricObjectLists } from '#api';
import type { MetricReadOptions, ObjectMetricQuery, SharedMetricAnswer } from '#sync/ports';
import type { MetricsAccessOptions, MetricsStats } from '../metrics-access.js';

/** What every metric object has: the CR's kind, where it lives and its spec. */
export interface MetricObject {
  kind: string;
  metadata: { namespace?: string; name: string };
  spec: unknown;
}

export type MetricObjectValidation<O> = { valid: true; object: O } | { valid: false; errors: FieldError[] };

export interface MetricProvider<O extends MetricObject = MetricObject> {
  /** The object's kind, as listed and as said in messages: "CloudWatchMetric". */
  readonly kind: string;
  /** The type of its queries and answers (lib/sync/ports.ts MetricQuery). */
  readonly queryType: ObjectMetricQuery['type'];
  /** Its objects in a listing (the table's or the cluster's). */
  objectsOf(listing: MetricObjectListing): readonly O[];
  /** Validates one object as `shpa apply` does. */
  validate(input: unknown): MetricObjectValidation<O>;
  /** Why the deploy's metricAccess refuses a valid object, if it does. */
  accessProblem(object: O, access: MetricAccess): string | undefined;
  /** The query an External metric naming the object makes. */
  query(cluster: string, namespace: string, source: O): ObjectMetricQuery;
  /** Where the value is read, in words for the decision line and `describe`. */
  describe(namespace: string, source: O): string;
  /** Its source as the cycle's errors name it: "CloudWatch". */
  readonly sourceName: string;
  /** Its reader's counts in the access's stats. */
  readonly statsKey: Exclude<keyof MetricsStats, 'clusterCalls'>;
  /** Its reader for one metrics access (the deploy's clients and settings). */
  createReader(options: MetricsAccessOptions): ObjectReader<O>;
}

/** One object's answer of a batched read. */
export interface ObjectAnswer {
  result: { value: MetricSample[]; error?: undefined } | { error: string; value?: undefined };
  messages?: string[];
  /** The answer to keep for the deployment while its window stands (absent: not to be kept). */
  shared?: { key: string; answer: SharedMetricAnswer };
}

/** Reads a provider's objects: one batched fetch of a cycle's objects, one call per distinct source. */
export interface ObjectReader<O extends MetricObject = MetricObject> {
  /** One answer per object, in order; a failure is that object's error, never an exception. */
  fetch(objects: O[], now: Date, signal?: AbortSignal, options?: MetricReadOptions): Promise<ObjectAnswer[]>;
  stats(): object;
  resetStats(): void;
}

/** The metric objects of a listing, one field per kind (lib/api METRIC_KINDS). */
export type MetricObjectListing = Partial<MetricObjectLists>;
