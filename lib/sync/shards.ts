// Shards: a cluster's namespaces fall into 16 fixed buckets, and a cluster is cut into
// K shards; up to 16 (K divides 16), shard i owns the buckets b with b mod K = i. A bucket is one
// DynamoDB partition, so a partition belongs to exactly one shard whatever K is, and K
// can change at any minute without moving stored items (docs/architecture.md); how many
// is lib/sizing's choice. Past 16 (32 to 256), a bucket is cut below its namespaces, by
// autoscaler: shard i owns bucket i mod 16 and, of its autoscalers, those whose name hashes to
// part ⌊i / 16⌋ of K / 16; every part reads the bucket's partition and its metric objects.

import { NAMESPACE_BUCKETS, SHARD_COUNTS } from '../sizing/shard-sizing.cjs';
import type { ClusterIndex } from './ports/autoscaler-store.js';
import type { ShardRef } from './ports/shard-ref.js';

export { NAMESPACE_BUCKETS, SHARD_COUNTS };
export type { ShardRef } from './ports/shard-ref.js';

/** FNV-1a (32 bit): stable across versions and languages. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The namespace's bucket: FNV-1a mod 16. */
export function bucketOf(namespace: string): number {
  return fnv1a(namespace) % NAMESPACE_BUCKETS;
}

/** Parts a bucket is cut into at K shards (1 up to 16), and which of them the shard is. */
export function partOf(shard: ShardRef): { part: number; parts: number } {
  const parts = Math.max(1, shard.count / NAMESPACE_BUCKETS);
  return { part: Math.floor(shard.index / NAMESPACE_BUCKETS), parts };
}

/** Whether the shard owns this autoscaler: its namespace's bucket, and past 16 shards its name's part (FNV-1a of "namespace/name"). */
export function ownsAutoscaler(shard: ShardRef, namespace: string, name: string): boolean {
  const b = bucketOf(namespace);
  const { part, parts } = partOf(shard);
  if (parts === 1) return b % shard.count === shard.index;
  return b === shard.index % NAMESPACE_BUCKETS && fnv1a(`${namespace}/${name}`) % parts === part;
}

/** The shard of an autoscaler. */
export function shardOfAutoscaler(cluster: string, count: number, namespace: string, name: string): ShardRef {
  const b = bucketOf(namespace);
  if (count <= NAMESPACE_BUCKETS) return { cluster, index: b % count, count };
  const parts = count / NAMESPACE_BUCKETS;
  return { cluster, index: (fnv1a(`${namespace}/${name}`) % parts) * NAMESPACE_BUCKETS + b, count };
}

/** Every shard that holds autoscalers of a namespace: one up to 16 shards, each part of its bucket past that. */
export function shardsOfNamespace(cluster: string, count: number, namespace: string): ShardRef[] {
  const b = bucketOf(namespace);
  if (count <= NAMESPACE_BUCKETS) return [{ cluster, index: b % count, count }];
  return Array.from({ length: count / NAMESPACE_BUCKETS }, (_, p) => ({ cluster, index: p * NAMESPACE_BUCKETS + b, count }));
}

export function isShardCount(k: number): boolean {
  return (SHARD_COUNTS as readonly number[]).includes(k);
}

/** The buckets a shard owns (or a part of, past 16 shards). */
export function bucketsOf(shard: ShardRef): number[] {
  if (shard.count > NAMESPACE_BUCKETS) return [shard.index % NAMESPACE_BUCKETS];
  const out: number[] = [];
  for (let b = shard.index; b < NAMESPACE_BUCKETS; b += shard.count) out.push(b);
  return out;
}

/** The shard of a namespace's autoscalers up to 16 shards (the deploy's floor); past that, shardOfAutoscaler. */
export function shardOfNamespace(cluster: string, count: number, namespace: string): ShardRef {
  return shardsOfNamespace(cluster, count, namespace)[0];
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
  if (!isShardCount(count) || count === 1) throw new ShardIdError(`shard "${id}": K must be one of ${SHARD_COUNTS.slice(1).join(', ')}`);
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
