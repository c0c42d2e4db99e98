// A cycle's deadline: what cannot finish in time is cancelled (its AbortSignal fires), and
// writes are never started without the time they need. The deadline is one object with one
// write budget: reads end that long before it, a write starts only with that much left, and
// the writes after the cycle (counts, the lease's release) get that long past it.
import { setMaxListeners } from 'node:events';
import type { Clock } from './ports/clock.js';

/** A shard's lease: two periods, so a cycle (half a period at most, in an invocation that times out after one) ends well within it. */
export const leaseMs = (periodMs: number): number => 2 * periodMs;

export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  constructor(what: string) {
    super(`cycle deadline reached before ${what}`);
  }
}

export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly at: Date,
    private readonly clock: Clock,
    /** The time the writes of one autoscaler need (SyncOptions.writeBudgetMs). */
    readonly writeBudgetMs = 0,
  ) {
    // Every call of the cycle listens to this signal: hundreds at once in a big shard, none of them a leak.
    setMaxListeners(0, this.controller.signal);
    this.timer = setTimeout(() => this.controller.abort(new DeadlineExceededError('the end of the cycle')), Math.max(0, this.remainingMs()));
    this.timer.unref?.();
  }

  /** Fires at the deadline: pass it to every call of the cycle. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(): number {
    return this.at.getTime() - this.clock.now().getTime();
  }

  /** Throws unless more than marginMs are left. */
  check(what: string, marginMs = 0): void {
    if (this.controller.signal.aborted || this.remainingMs() <= marginMs) throw new DeadlineExceededError(what);
  }

  /** Resolves as `work` does, or rejects when the deadline (less marginMs) comes first. */
  async race<T>(what: string, work: Promise<T>, marginMs = 0): Promise<T> {
    this.check(what, marginMs);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceededError(what)), Math.max(0, this.remainingMs() - marginMs));
      timer.unref?.();
    });
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** When reads must have answered: the write budget before the deadline. */
  get readsEnd(): Date {
    return new Date(this.at.getTime() - this.writeBudgetMs);
  }

  /** A read: resolves as `work` does, or rejects when the reads' end comes first. */
  read<T>(what: string, work: Promise<T>): Promise<T> {
    return this.race(what, work, this.writeBudgetMs);
  }

  /** Throws unless a write can still start and finish: more than the write budget left. */
  checkWrite(what: string): void {
    this.check(what, this.writeBudgetMs);
  }

  /** Whether anything can be done at all: at least the write budget left. */
  leavesTimeToWrite(): boolean {
    return this.remainingMs() >= this.writeBudgetMs;
  }

  /** The deadline of the writes after the cycle: the write budget past it (dispose it when done). */
  afterWrites(): Deadline {
    return new Deadline(new Date(this.at.getTime() + this.writeBudgetMs), this.clock);
  }

  /** Stops the timer (the cycle is over). */
  dispose(): void {
    clearTimeout(this.timer);
  }
}
