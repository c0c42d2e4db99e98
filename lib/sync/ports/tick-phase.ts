// A shard's tick phase as learned from a cycle (lib/sync/tick-phase.ts learns it): a value type of the
// store port, which keeps it with the shard's cycle record.

/** The tick's offset within the period, in whole seconds (SQS delays are whole seconds), as learned from a cycle. */
export interface TickPhase {
  /** Seconds after each multiple of the period; undefined: samples too scattered, even ticks. */
  offsetSeconds?: number;
  /** The samples' spread within the period (ms): the smallest arc holding every sample's phase. */
  spreadMs: number;
  samples: number;
  /** When it was learned (epoch ms). */
  atMs: number;
}
