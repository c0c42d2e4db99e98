// The publication delay learning a CloudWatch object carries with its kept answer (SharedMetricAnswer.learn):
// a value type of the store port, learned by lib/metrics (publish-delay.ts) and stored by lib/store
// (publish-delay-codec.ts, in its compact encoding).

/** A period watched while probing: its sample count, and when that count was first read. */
export interface WatchedPeriod {
  /** The period's start (epoch seconds). */
  periodStart: number;
  /** Its sample count, summed over the object's metric stats. */
  sampleCount: number;
  /** The first read at which the count had this value (epoch ms). */
  firstSeenMs: number;
}

/** What a shard keeps of one object's learning (stored with its answers: it survives restarts and containers). */
export interface DelayLearning {
  /** The learned delay, whole seconds after a period ends; absent: not learned, the default applies. */
  learnedDelaySeconds?: number;
  /** The last settled periods' completion delays (seconds), newest last. */
  settledDelaysSeconds: number[];
  /** Periods watched until they settle, oldest first. */
  watched: WatchedPeriod[];
  /** Probing until then (epoch ms); after it, the next probing starts at nextProbingMs. */
  probingUntilMs: number;
  /** When the next probing starts (epoch ms). */
  nextProbingMs?: number;
  /** The datapoint the last decision read, checked at the next read. */
  used?: { periodStart: number; value: number };
}
