// How long to wait before a retry: exponential from a base, capped, with "equal jitter" (AWS Architecture
// Blog, "Exponential Backoff And Jitter"): half the capped delay plus a random part of the other half, so
// that calls refused together do not come back together, and none comes back at once.

export interface BackoffOptions {
  /** The wait before the second attempt (ms). */
  baseMs: number;
  /** The longest wait before the jitter (ms). */
  maxMs: number;
  /** Equal jitter (default true); false: the capped delay itself, for a caller whose retries nobody else shares. */
  jitter?: boolean;
  /** A number in [0, 1): Math.random by default, seeded in tests. */
  random?: () => number;
}

/** The wait (ms) after failed attempt `attempt` (1 for the first): min(maxMs, baseMs × 2^(attempt−1)), jittered to between half of it and all of it. */
export function backoffMs(attempt: number, o: BackoffOptions): number {
  const capped = Math.min(o.maxMs, o.baseMs * 2 ** (attempt - 1));
  return o.jitter === false ? capped : capped * (0.5 + (o.random ?? Math.random)() / 2);
}
