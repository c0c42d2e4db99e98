// The per-cycle deadline: reads that cannot finish in time are abandoned, writes are never started late.
import type { Clock } from './ports.js';

export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  constructor(what: string) {
    super(`cycle deadline reached before ${what}`);
  }
}

export class Deadline {
  constructor(
    readonly at: Date,
    private readonly clock: Clock,
  ) {}

  remainingMs(): number {
    return this.at.getTime() - this.clock.now().getTime();
  }

  /** Throws unless at least marginMs are left. */
  check(what: string, marginMs = 0): void {
    if (this.remainingMs() <= marginMs) throw new DeadlineExceededError(what);
  }

  /**
   * Resolves as the read does, or rejects when the deadline comes first. The read
   * itself keeps running (ports take no abort signal); its result is then ignored.
   */
  async race<T>(what: string, read: () => Promise<T>): Promise<T> {
    this.check(what);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceededError(what)), Math.max(0, this.remainingMs()));
      timer.unref?.();
    });
    try {
      return await Promise.race([read(), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
