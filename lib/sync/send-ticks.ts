// The dispatcher's sending: a tick SQS did not take is sent again within the minute, with
// what is left of its delay, so that one failed batch or a short SQS outage costs no tick;
// what still could not be sent is counted and said, never dropped quietly.
import { UnsentMessagesError, type WorkMessageEntry, type WorkQueue } from './ports/work-queue.js';
import type { Clock } from './ports/clock.js';
import { errorText } from './report.js';
import { backoffMs } from '../shared/backoff.js';

export interface SendReport {
  sent: number;
  /** Messages still not sent when the time to send ran out. */
  lost: number;
  /** Calls to the queue (1 when all went at once). */
  attempts: number;
  /** Why messages were not sent, each reason once (at most 5). */
  errors: string[];
}

export interface SendOptions {
  /** When to stop trying (epoch ms on `clock`): the invocation's budget. */
  untilMs: number;
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
}

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4_000;

export async function sendWithRetries(queue: WorkQueue, messages: WorkMessageEntry[], clock: Clock, o: SendOptions): Promise<SendReport> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const startMs = clock.now().getTime();
  const errors = new Set<string>();
  let pending = messages;
  let attempts = 0;
  while (pending.length > 0 && attempts < (o.maxAttempts ?? 6) && (attempts === 0 || clock.now().getTime() < o.untilMs)) {
    attempts++;
    // A tick sent again keeps its second: its delay less the time already spent.
    const spent = Math.floor((clock.now().getTime() - startMs) / 1000);
    const batch = pending.map((m) => ({ ...m, delaySeconds: Math.max(0, m.delaySeconds - spent) }));
    try {
      await queue.send(batch, AbortSignal.timeout(Math.max(1, o.untilMs - clock.now().getTime())));
      pending = [];
    } catch (e) {
      const unsent = e instanceof UnsentMessagesError ? e.unsent : batch.map((_, index) => ({ index, error: errorText(e) }));
      for (const u of unsent) errors.add(u.error);
      pending = unsent.map((u) => pending[u.index]);
    }
    const backoff = backoffMs(attempts, { baseMs: FIRST_BACKOFF_MS, maxMs: MAX_BACKOFF_MS, jitter: false });
    if (pending.length === 0 || clock.now().getTime() + backoff >= o.untilMs) break;
    await sleep(backoff);
  }
  return { sent: messages.length - pending.length, lost: pending.length, attempts, errors: [...errors].slice(0, 5) };
}
