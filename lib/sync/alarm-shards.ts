// Which shards an alarm's state change goes to: those whose last cycle found a CloudWatchMetric
// naming it (the cycle item's `al`), and those that have recorded nothing yet (a new deploy, a
// shard count just changed), so that an alarm is never missed, only sometimes sent too widely.
import type { AlarmIndexStore } from './ports/alarm-index-store.js';
import type { ClusterConfig } from './ports/cluster-access.js';
import { shardCountAt, shardId, shardsOf } from './shards.js';

export interface AlarmShards {
  /** Shard ids, by cluster. */
  shards: Map<string, string[]>;
  /** Shards that have recorded no alarm list yet, sent the change anyway. */
  unknown: number;
}

export async function shardsNamingAlarm(store: AlarmIndexStore, clusters: ClusterConfig[], alarmName: string, signal?: AbortSignal): Promise<AlarmShards> {
  const indexes = await store.readIndexes(clusters.map((c) => c.name), signal);
  const byCluster = new Map(
    clusters.map((c) => {
      const index = indexes.get(c.name);
      return [c.name, shardsOf(c.name, index ? shardCountAt(index, c.shards) : c.shards).map(shardId)];
    }),
  );
  const recorded = await store.shardRecords([...byCluster.values()].flat(), signal);
  let unknown = 0;
  const shards = new Map<string, string[]>();
  for (const [cluster, ids] of byCluster) {
    const named = ids.filter((id) => {
      const alarms = recorded.get(id)?.alarms;
      if (alarms === undefined) unknown++;
      return alarms === undefined || alarms.includes(alarmName);
    });
    if (named.length > 0) shards.set(cluster, named);
  }
  return { shards, unknown };
}
