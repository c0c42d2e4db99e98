// What the dispatcher reads and writes: every cluster's index and the shard count it chose.
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline no longer has time for.
import type { ClusterIndex, ShardCountRecord, ShardRecord } from './autoscaler-store.js';

/** What the dispatcher reads and writes: every cluster's index, and the shard count it chose. */
export interface DispatchStore {
  readIndexes(clusters: string[], signal?: AbortSignal): Promise<Map<string, ClusterIndex>>;
  shardRecords(shardIds: string[], signal?: AbortSignal): Promise<Map<string, ShardRecord>>;
  /** Records the count of a minute (record.planned); false when another invocation already planned that minute. */
  recordShardCount(cluster: string, record: ShardCountRecord, signal?: AbortSignal): Promise<boolean>;
}
