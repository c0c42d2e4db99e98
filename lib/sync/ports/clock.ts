// The clock every stage reads (tests and the local stack pass their own).
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline no longer has time for.


export interface Clock {
  now(): Date;
  /** Waits this long (a virtual clock moves on instead); absent: a timer. Rejects when the signal aborts. */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}
