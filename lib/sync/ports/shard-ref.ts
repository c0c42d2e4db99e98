// Which shard a store call is about: a value type of the store port, which the shard arithmetic
// (lib/sync/shards.ts) works on. Here so the ports import nothing from lib/sync's implementation.

/** One shard of a cluster cut into `count` (lib/sync/shards.ts: which buckets and autoscalers it owns). */
export interface ShardRef {
  cluster: string;
  /** 0 ≤ index < count */
  index: number;
  /** K: how many shards the cluster is cut into. */
  count: number;
}
