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
  /** The width (s) of the window in which answers appear, once settled. */
  windowSeconds?: number;
  /** The evidence of when answers change, and the last read's digests (lib/sync/visibility.ts). */
  visibility?: Visibility;
  /** The offsets of one minute's ticks while learning or probing: `from` is the offset the minute's plan continued from. */
  plan?: { minute: number; from: number; offsets: number[] };
  /** What the ticks a second before the settled one (lib/sync/fresh-gate.ts) learned: where they wait for the answers to change. */
  gate?: TickGate;
}

/** A tick one second before the settled offset reads one namespace's pod metrics until its answers change, then runs. */
export interface TickGate {
  /** The namespace whose pod metrics are read (the compared pods' first). */
  namespace: string;
  /** How long into the second before the settled offset the answers last changed, at least (the last read before the change started then, ms); absent: not known. */
  storeMs?: number;
  /** Gated ticks in a row whose first read had already changed (delivered after the change): past a few, the change is learned again. */
  atOnce?: number;
}

/** When a shard's PodMetrics answers were seen changing between ticks (lib/sync/visibility.ts learns it). */
export interface Visibility {
  /** Per second b of the period: the share of compared answers last seen becoming visible in (b, b+1]; null: not probed. */
  bins: (number | null)[];
  /** When the oldest of this evidence was gathered (epoch ms): a scattered verdict is kept this long, then learning starts again. */
  sinceMs: number;
  /** The last tick's read: its tick (epoch ms) and the digests of up to SAMPLE_PODS pods' answers (pod hash → answer hash). */
  last?: { tickMs: number; answers: Record<string, string> };
}
