// What the events function reads to send an alarm's state change only to the shards that name it.
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline no longer has time for.
import type { ClusterIndex, ShardRecord } from './autoscaler-store.js';

/** What the events function reads to send an alarm's state change only to the shards that name it. */
export interface AlarmIndexStore {
  readIndexes(clusters: string[], signal?: AbortSignal): Promise<Map<string, ClusterIndex>>;
  /** What each shard's cycles recorded, by shard id (every id given has an entry). */
  shardRecords(shardIds: string[], signal?: AbortSignal): Promise<Map<string, ShardRecord>>;
}
