// `get -w`: DynamoDB has no watch, so the table is polled; a row is printed when an object's
// printed row changes (ages aside), appears, or goes away (its last row, as kubectl prints a deletion).
import { setTimeout as sleep } from 'node:timers/promises';

/** How often -w reads the table. */
export const WATCH_INTERVAL_MS = 2000;

export type Rows = Map<string, { line: string; key: string }>;

export interface WatchOptions {
  /** The rows already printed, by object. */
  initial: Rows;
  load(): Promise<Rows>;
  write(s: string): void;
  intervalMs: number;
  /** Ends the watch (tests); without it, the watch runs until the process is interrupted. */
  signal?: AbortSignal;
}

export async function watchRows(o: WatchOptions): Promise<void> {
  let seen = o.initial;
  while (!o.signal?.aborted) {
    try {
      await sleep(o.intervalMs, undefined, { signal: o.signal });
    } catch {
      return;
    }
    const now = await o.load();
    for (const [id, row] of now) if (seen.get(id)?.key !== row.key) o.write(`${row.line}\n`);
    for (const [id, row] of seen) if (!now.has(id)) o.write(`${row.line}\n`);
    seen = now;
  }
}
