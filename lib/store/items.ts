// The table's item layout (docs/store.md). Autoscalers and metric objects (lib/api METRIC_KINDS) live in
// their namespace bucket's partition (lib/sync/shards.ts), so a shard's load is one Query
// per non-empty bucket it owns; each cluster has one small index of its non-empty buckets;
// each shard has one cycle item (lease, last tick, marker).
import { METRIC_KINDS, type MetricKind } from '#api';

export const KIND_HPA = 'HorizontalPodAutoscaler';
export const KIND_CLOUDWATCH = 'CloudWatchMetric';
export const KIND_PROMETHEUS = 'PrometheusMetric';
export type SpecKind = typeof KIND_HPA | MetricKind['kind'];

const SPEC_PREFIX = { [KIND_HPA]: 'hpa', ...Object.fromEntries(METRIC_KINDS.map((k) => [k.kind, k.tablePrefix])) } as Record<SpecKind, string>;
const STATE_PREFIX = 'st';
export const BUCKETS_SK = 'buckets';
export const CYCLE_SK = 'cycle';
export const CLUSTERS_PK = 'clusters';

/** The partition of one namespace bucket of a cluster. */
export const bucketPk = (cluster: string, bucket: number): string => `c#${cluster}#${String(bucket).padStart(2, '0')}`;
/** The cluster's index of non-empty buckets: pk `c#<cluster>`, sk `buckets`. */
export const bucketIndexKey = (cluster: string): ItemKey => ({ pk: `c#${cluster}`, sk: BUCKETS_SK });
export const shardCycleKey = (shardId: string): ItemKey => ({ pk: `shard#${shardId}`, sk: CYCLE_SK });
// Namespaces and names are DNS labels/subdomains: they cannot contain '#'.
export const specSk = (kind: SpecKind, namespace: string, name: string): string => `${SPEC_PREFIX[kind]}#${namespace}#${name}`;
export const stateSk = (namespace: string, name: string): string => `${STATE_PREFIX}#${namespace}#${name}`;

export type ItemKey = { pk: string; sk: string };

/** A spec as stored: the validated, defaulted object as JSON, with its own version. */
export interface SpecItem extends ItemKey {
  kind: SpecKind;
  doc: string;
  v: number;
  ct: string;
  ut: string;
}

export function parseSk(sk: string): { prefix: string; namespace: string; name: string } | undefined {
  const parts = sk.split('#');
  return parts.length === 3 ? { prefix: parts[0], namespace: parts[1], name: parts[2] } : undefined;
}

export function kindOfPrefix(prefix: string): SpecKind | 'state' | undefined {
  if (prefix === STATE_PREFIX) return 'state';
  return (Object.keys(SPEC_PREFIX) as SpecKind[]).find((k) => SPEC_PREFIX[k] === prefix);
}

/** Cluster and bucket of a bucket partition key, or undefined for any other key. */
export function parseBucketPk(pk: string): { cluster: string; bucket: number } | undefined {
  const m = /^c#([^#]+)#(\d\d)$/.exec(pk);
  return m ? { cluster: m[1], bucket: Number(m[2]) } : undefined;
}

/** The spec a stream record's keys name, or undefined for any other item. */
export function specOfKeys(pk: string, sk: string): { cluster: string; namespace: string; name: string; kind: SpecKind } | undefined {
  const bucket = parseBucketPk(pk);
  const key = parseSk(sk);
  const kind = key && kindOfPrefix(key.prefix);
  if (!bucket || !key || !kind || kind === 'state') return undefined;
  return { cluster: bucket.cluster, namespace: key.namespace, name: key.name, kind };
}
