// Types of shard-sizing.cjs (see there).
export declare const NAMESPACE_BUCKETS: 16;
export declare const SHARD_COUNTS: readonly [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** The all-change cycle of one shard, as measured: wall = fixedMs + n × (cpuMsPerAutoscaler / vCPU + waitMsPerAutoscaler). */
export interface CycleCost {
  source: string;
  fixedMs: number;
  cpuMsPerAutoscaler: number;
  waitMsPerAutoscaler: number;
}
export declare const MEASURED: CycleCost;
export declare const POLICY: { mbPerVcpu: number; halfPeriodShare: number; shrinkBelow: number };

export declare function vcpuOf(memoryMb: number): number;
export declare function allChangeCycleMs(n: number, memoryMb: number, measured?: CycleCost): number;
export declare function shardCapacity(memoryMb: number, periodSeconds: number, measured?: CycleCost): number;
export declare function largestShard(bucketCounts: readonly number[], k: number): number;

export interface SizingOptions {
  memoryMb: number;
  periodSeconds: number;
  /** The operator's floor (the deploy's `shards`); default 1. */
  floor?: number;
  /** The count in use: fewer only with room to spare. */
  current?: number;
  measured?: CycleCost;
}
export interface Sizing {
  shards: number;
  /** Autoscalers a shard holds at this memory and period. */
  capacity: number;
  /** The largest shard's autoscalers at that count. */
  largest: number;
  /** Even 256 shards leave one over capacity. */
  over: boolean;
}
export declare function shardCountFor(bucketCounts: readonly number[], o: SizingOptions): Sizing;
export declare function tickingShards(bucketCounts: readonly number[], k: number): number;
export declare function evenBuckets(autoscalers: number): number[];
