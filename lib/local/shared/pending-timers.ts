// Delays a local server injects (latency faults), cancelled together when it stops
// so no timer outlives it.
export class PendingTimers {
  private readonly timers = new Set<NodeJS.Timeout>();

  delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  /** A cancelled delay never settles; its request's socket is closed with the server. */
  cancelAll(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
