// A bound on the requests in flight to one dependency. At Lambda's CPU share every answer
// costs the event loop parsing time: with 32 requests out at once their answers queue behind
// each other in the loop and each waits for all the others. A few at a time, in the order
// asked (FIFO), keeps each answer's wait short and lets the work asked first finish first.
// Waiting for a slot is not the server's time: callers start their timeouts once let in.

export class Gate {
  private active = 0;
  private readonly waiting: { resolve: () => void; reject: (e: unknown) => void; signal?: AbortSignal; onAbort?: () => void }[] = [];
  /** Requests that had to wait for a slot. */
  queued = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a gate needs a limit of at least 1, got ${limit}`);
  }

  get inFlight(): number {
    return this.active;
  }

  /** Runs fn once a slot is free; a signal that aborts while waiting rejects with its reason and frees the place. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    this.queued++;
    return new Promise<void>((resolve, reject) => {
      const entry: (typeof this.waiting)[number] = { resolve, reject, signal };
      if (signal) {
        entry.onAbort = () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.active--;
      return;
    }
    // The slot passes straight to the next in line.
    if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
    next.resolve();
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('Request aborted'), { name: 'AbortError' });
}
