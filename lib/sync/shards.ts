// Shards: a cluster's namespaces fall into 16 fixed buckets, and a cluster is cut into
// K shards (K divides 16); shard i owns the buckets b with b mod K = i. A bucket is one
// DynamoDB partition, so a partition belongs to exactly one shard whatever K is, and K
// can change at any minute without moving stored items (docs/architecture.md); how many
// is lib/sizing's choice.

import { NAMESPACE_BUCKETS, SHARD_COUNTS } from '../sizing/shard-sizing.cjs';
import type { ClusterIndex } from './ports.js';

export { NAMESPACE_BUCKETS, SHARD_COUNTS };

export interface ShardRef {
  cluster: string;
  /** 0 ≤ index < count */
  index: number;
  /** K: how many shards the cluster is cut into. */
  count: number;
}

/** FNV-1a (32 bit) of the namespace, mod 16: stable across versions and languages. */
export function bucketOf(namespace: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(namespace, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % NAMESPACE_BUCKETS;
}

export function isShardCount(k: number): boolean {
  return (SHARD_COUNTS as readonly number[]).includes(k);
}

/** The buckets a shard owns. */
export function bucketsOf(shard: ShardRef): number[] {
  const out: number[] = [];
  for (let b = shard.index; b < NAMESPACE_BUCKETS; b += shard.count) out.push(b);
  return out;
}

export function shardOfNamespace(cluster: string, count: number, namespace: string): ShardRef {
  return { cluster, index: bucketOf(namespace) % count, count };
}

/** "prod" when the cluster is one shard, "prod/2of4" otherwise. */
export function shardId(s: ShardRef): string {
  return s.count === 1 ? s.cluster : `${s.cluster}/${s.index}of${s.count}`;
}

/** Every shard of a cluster cut into `count`. */
export function shardsOf(cluster: string, count: number): ShardRef[] {
  return Array.from({ length: count }, (_, index) => ({ cluster, index, count }));
}

export class ShardIdError extends Error {
  override readonly name = 'ShardIdError';
}

/** Parses a shard id; throws naming what is wrong. */
export function parseShardId(id: string): ShardRef {
  const m = /^([0-9A-Za-z][A-Za-z0-9_-]*)(?:\/(\d+)of(\d+))?$/.exec(id);
  if (!m) throw new ShardIdError(`shard "${id}" is not CLUSTER or CLUSTER/IofK`);
  if (m[2] === undefined) return { cluster: m[1], index: 0, count: 1 };
  const index = Number(m[2]);
  const count = Number(m[3]);
  if (!isShardCount(count) || count === 1) throw new ShardIdError(`shard "${id}": K must be one of 2, 4, 8, 16`);
  if (index >= count) throw new ShardIdError(`shard "${id}": index ${index} is not below ${count}`);
  return { cluster: m[1], index, count };
}

/**
 * The shard count of a cluster at a tick (epoch ms), or now: the dispatcher's choice recorded in
 * its index (from its first tick on; the one before for earlier ticks), else the deploy's floor.
 */
export function shardCountAt(index: ClusterIndex, floor: number, tickMs?: number): number {
  const s = index.shards;
  if (!s) return floor;
  if (tickMs !== undefined && tickMs < s.since) return s.previous ?? floor;
  return s.k;
}
