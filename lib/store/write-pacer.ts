// Writes paced per partition key. DynamoDB serves at most 1,000 write units a second on one
// partition key, and a namespace's items share one (its bucket's): 2,000 autoscalers of one
// namespace that all change in one tick would ask for more, be throttled, and retry with
// backoff into the cycle's deadline. A token bucket per key holds the worker under the limit
// instead: at most `burst` units at once, then `rate` a second, so no one-second window
// exceeds burst + rate. A partition belongs to one shard and a shard runs one cycle at a
// time (its lease), so this process's pace is the key's pace.

export interface PaceOptions {
  /** Units a second, once the burst is spent. Default 800. */
  rate?: number;
  /** Units at once. Default 200: with the rate, 1,000 in any second. */
  burst?: number;
  /** Monotonic milliseconds and the wait (tests); default performance.now and a timer. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class WritePacer {
  private readonly buckets = new Map<string, Bucket>();
  private readonly rate: number;
  private readonly burst: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Milliseconds writes waited for their key, in all: said in the cycle, a sign of a hot namespace. */
  waitedMs = 0;

  constructor(o: PaceOptions = {}) {
    this.rate = o.rate ?? 800;
    this.burst = o.burst ?? 200;
    this.now = o.now ?? (() => performance.now());
    this.sleep = o.sleep ?? sleep;
  }

  /** Waits until `units` may be written to `key` now, and takes them; a signal that aborts stops the wait. */
  async take(key: string, units: number, signal?: AbortSignal): Promise<void> {
    const want = Math.min(units, this.burst);
    for (;;) {
      const b = this.refill(key);
      if (b.tokens >= want) {
        b.tokens -= units;
        return;
      }
      const wait = Math.ceil(((want - b.tokens) / this.rate) * 1000);
      this.waitedMs += wait;
      await this.sleep(wait, signal);
    }
  }

  /** Corrects what a write took once DynamoDB says what it consumed. */
  settle(key: string, taken: number, consumed: number | undefined): void {
    if (consumed === undefined || consumed === taken) return;
    this.refill(key).tokens -= consumed - taken;
  }

  private refill(key: string): Bucket {
    const now = this.now();
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = { tokens: this.burst, at: now }));
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rate);
    b.at = now;
    // Keys of the past are forgotten: a full bucket holds nothing worth keeping.
    if (this.buckets.size > 10_000) for (const [k, x] of this.buckets) if (x.tokens >= this.burst) this.buckets.delete(k);
    return b;
  }
}

/** DynamoDB's write units for an item of this many bytes: one per KB, rounded up. */
export function writeUnitsOf(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 1024));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
