// Lambda's asynchronous invocation (InvocationType Event), in process, for a function on the
// local stack: the event waits in the function's own queue, runs when one of its reserved
// concurrency's slots is free, and a failure is retried after 1 minute, then 2 more (up to
// maximumRetryAttempts); an event older than maximumEventAge is never run. What is given up on
// goes to the on-failure destination as Lambda's record says it (condition RetriesExhausted or
// EventAgeExceeded). Times follow the clock (a virtual one in tests).
// https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html
// https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { lambdaContexts, type ContextFactory } from './runtime.js';

export type AsyncHandler = (event: unknown, context: Context) => Promise<unknown>;

/** What Lambda sends to an on-failure destination. */
export interface AsyncFailureRecord {
  version: '1.0';
  timestamp: string;
  requestContext: { requestId: string; functionArn: string; condition: 'RetriesExhausted' | 'EventAgeExceeded'; approximateInvokeCount: number };
  requestPayload: unknown;
  responseContext?: { statusCode: number; executedVersion: string; functionError: 'Unhandled' };
  responsePayload?: { errorType: string; errorMessage: string };
}

export interface AsyncInvokerOptions {
  handler: AsyncHandler;
  /** The function's reserved concurrency: invocations at once (1 to 1000). */
  reservedConcurrency: number;
  /** MaximumEventAgeInSeconds: 60 to 21,600. */
  maximumEventAgeSeconds: number;
  /** MaximumRetryAttempts: 0 to 2. */
  maximumRetryAttempts: number;
  /** The on-failure destination; absent: what is given up on is only counted. */
  onFailure?: (record: AsyncFailureRecord) => Promise<void>;
  /** Default: lambdaContexts() (30 s timeout, real clock). */
  context?: ContextFactory;
  /** Epoch ms (a virtual clock in tests). Default Date.now. */
  clock?: () => number;
}

export interface AsyncInvokerCounters {
  /** Events accepted (Lambda's AsyncEventsReceived). */
  received: number;
  invocations: number;
  /** Invocations that threw. */
  errors: number;
  /** Events given up on: retries exhausted or too old (Lambda's AsyncEventsDropped when no destination takes them). */
  givenUp: number;
  /** On-failure records the destination refused. */
  destinationErrors: number;
}

interface Pending {
  requestId: string;
  payload: unknown;
  receivedAt: number;
  dueAt: number;
  attempts: number;
}

/** Lambda's waits before the first and the second retry. */
const RETRY_DELAYS_MS = [60_000, 120_000];
const PUMP_MS = 20;

export class AsyncInvoker {
  readonly counters: AsyncInvokerCounters = { received: 0, invocations: 0, errors: 0, givenUp: 0, destinationErrors: 0 };
  private readonly queue: Pending[] = [];
  private readonly running = new Set<Promise<void>>();
  /** On-failure records being sent for events too old to run (no concurrency slot). */
  private readonly settling = new Set<Promise<void>>();
  private readonly clock: () => number;
  private readonly context: ContextFactory;
  private timer?: NodeJS.Timeout;

  constructor(private readonly o: AsyncInvokerOptions) {
    checkInt('reservedConcurrency', o.reservedConcurrency, 1, 1000);
    checkInt('maximumEventAgeSeconds', o.maximumEventAgeSeconds, 60, 21_600);
    checkInt('maximumRetryAttempts', o.maximumRetryAttempts, 0, 2);
    this.clock = o.clock ?? Date.now;
    this.context = o.context ?? lambdaContexts();
  }

  /** Queues one event, as Invoke with InvocationType Event does (202): it runs later, never in the caller's time. */
  invoke(payload: unknown): string {
    const now = this.clock();
    const requestId = randomUUID();
    this.queue.push({ requestId, payload, receivedAt: now, dueAt: now, attempts: 0 });
    this.counters.received++;
    return requestId;
  }

  /** Events waiting (retries not yet due included). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs every event due now (reservedConcurrency at once) until none is due or running. Resolves with what this drain did. */
  async drain(): Promise<AsyncInvokerCounters> {
    if (this.timer) throw new Error('AsyncInvoker.drain(): the invoker runs on its own since start(); stop() it first');
    const before = { ...this.counters };
    for (;;) {
      this.pump();
      if (this.running.size + this.settling.size === 0) break;
      await Promise.race([...this.running, ...this.settling]);
    }
    return Object.fromEntries(Object.entries(this.counters).map(([k, v]) => [k, v - before[k as keyof AsyncInvokerCounters]])) as unknown as AsyncInvokerCounters;
  }

  /** Real time: events run as they come and as their retries fall due. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.pump(), PUMP_MS);
    this.timer.unref?.();
  }

  /** Stops running new events and waits for those running. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.running, ...this.settling]);
  }

  /** Gives up on events too old, then starts those due while a slot is free (oldest first). */
  private pump(): void {
    const now = this.clock();
    for (const p of this.queue.filter((q) => now - q.receivedAt > this.o.maximumEventAgeSeconds * 1000)) {
      this.remove(p);
      const sent: Promise<void> = this.giveUp(p, 'EventAgeExceeded').finally(() => this.settling.delete(sent));
      this.settling.add(sent);
    }
    while (this.running.size < this.o.reservedConcurrency) {
      const next = this.queue.filter((q) => q.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt)[0];
      if (!next) return;
      this.remove(next);
      const run: Promise<void> = this.run(next).finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  private async run(p: Pending): Promise<void> {
    p.attempts++;
    this.counters.invocations++;
    try {
      await this.o.handler(structuredClone(p.payload), { ...this.context(), awsRequestId: p.requestId });
    } catch (e) {
      this.counters.errors++;
      const error = e instanceof Error ? { errorType: e.name, errorMessage: e.message } : { errorType: 'Error', errorMessage: String(e) };
      if (p.attempts > this.o.maximumRetryAttempts) {
        await this.giveUp(p, 'RetriesExhausted', error);
        return;
      }
      this.queue.push({ ...p, dueAt: this.clock() + RETRY_DELAYS_MS[p.attempts - 1] });
    }
  }

  private async giveUp(p: Pending, condition: AsyncFailureRecord['requestContext']['condition'], error?: { errorType: string; errorMessage: string }): Promise<void> {
    this.counters.givenUp++;
    if (!this.o.onFailure) return;
    const functionArn = `${this.context().invokedFunctionArn}:$LATEST`;
    const record: AsyncFailureRecord = {
      version: '1.0',
      timestamp: new Date(this.clock()).toISOString(),
      requestContext: { requestId: p.requestId, functionArn, condition, approximateInvokeCount: p.attempts },
      requestPayload: p.payload,
      ...(error ? { responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' as const }, responsePayload: error } : {}),
    };
    await this.o.onFailure(record).catch(() => {
      this.counters.destinationErrors++;
    });
  }

  private remove(p: Pending): void {
    this.queue.splice(this.queue.indexOf(p), 1);
  }
}

function checkInt(name: string, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max) throw new Error(`${name}: must be an integer from ${min} to ${max} (as Lambda allows), got ${v}`);
}
