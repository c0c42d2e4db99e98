/**
 * A metric provider: one kind of metric object (a Kubernetes CR of shpa.dev/v1, e.g. CloudWatchMetric)
 * that an autoscaler's External metric reads by naming it. The cycle and the evaluation loop go over
 * the table in ./index.ts and never name a provider.
 *
 * To add a provider:
 *  1. a folder (or file) beside ./cloudwatch.ts implementing MetricProvider for its object type;
 *  2. one line in `metricProviders` (./index.ts), and its objects' field in MetricObjectListing;
 *  3. its query and answer type in lib/sync/ports.ts (ObjectMetricQuery / MetricAnswer), and its
 *     batched read (one call per distinct source per tick for the shard) in lib/metrics/metrics-access.ts.
 */
import type { FieldError } from '#hpa/api';
import type { MetricAccess } from '#api';
import type { ObjectMetricQuery } from '#sync/ports';

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
}

/** The metric objects of a listing, one field per provider (absent: none of that kind). */
export interface MetricObjectListing {
  cloudWatchMetrics?: readonly MetricObject[];
  prometheusMetrics?: readonly MetricObject[];
  sqsQueueMetrics?: readonly MetricObject[];
}
