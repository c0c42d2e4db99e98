// How Lambda's stream event source hands records to a function: filter first (records
// that do not match are skipped, the iterator moves past them), then batches in order.
// A batch whose invocation throws is retried whole; with ReportBatchItemFailures, from the
// lowest sequence number reported. After maximumRetryAttempts the batch is given up.
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { EventFilter } from '../lambda/event-filter.js';
import { reportedFailures, type ContextFactory } from '../lambda/runtime.js';

export type StreamEventHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export interface StreamCounters {
  invocations: number;
  /** Records handed to the handler, retries included. */
  records: number;
  /** Records an invocation failed (to be retried or given up). */
  failures: number;
  /** Invocations that threw or answered a malformed batch response. */
  errors: number;
  /** Records the filter skipped. */
  filtered: number;
  /** Records given up after maximumRetryAttempts. */
  discarded: number;
}

export interface StreamDeliveryOptions {
  handler: StreamEventHandler;
  filter?: EventFilter;
  /** Records per invocation, 1 to 10000. Default 100, as Lambda. */
  batchSize?: number;
  /** Retries of a failed batch, 0 to 10000. Default 3 (Lambda's default, -1, retries until the records expire). */
  maximumRetryAttempts?: number;
  /** FunctionResponseTypes: ["ReportBatchItemFailures"]. */
  reportBatchItemFailures?: boolean;
  /** Default: lambdaContexts(). */
  context?: ContextFactory;
  /** Records given up after the last retry, and the reason. */
  onDiscard?: (records: DynamoDBRecord[], reason: unknown) => void;
}

export const zeroStreamCounters = (): StreamCounters => ({ invocations: 0, records: 0, failures: 0, errors: 0, filtered: 0, discarded: 0 });

export function checkDeliveryOptions(o: StreamDeliveryOptions, who: string): void {
  for (const [name, v, min, max] of [
    ['batchSize', o.batchSize ?? 100, 1, 10_000],
    ['maximumRetryAttempts', o.maximumRetryAttempts ?? 3, 0, 10_000],
  ] as const) {
    if (!Number.isInteger(v) || v < min || v > max) throw new Error(`${who}: ${name} must be an integer from ${min} to ${max}, got ${v}`);
  }
}

/** Filters the records (in stream order) and delivers them batch by batch. */
export async function deliverRecords(records: DynamoDBRecord[], o: StreamDeliveryOptions, context: ContextFactory, c: StreamCounters): Promise<void> {
  const passed = o.filter ? records.filter(o.filter) : records;
  c.filtered += records.length - passed.length;
  const size = o.batchSize ?? 100;
  for (let i = 0; i < passed.length; i += size) await deliverBatch(passed.slice(i, i + size), o, context, c);
}

async function deliverBatch(records: DynamoDBRecord[], o: StreamDeliveryOptions, context: ContextFactory, c: StreamCounters): Promise<void> {
  let batch = records;
  for (let attempt = 0; ; attempt++) {
    c.invocations++;
    c.records += batch.length;
    let failedFrom: number;
    let reason: unknown;
    try {
      const response = await o.handler({ Records: batch }, context());
      const seqs = batch.map((r) => r.dynamodb?.SequenceNumber ?? '');
      const failed = o.reportBatchItemFailures ? reportedFailures(response, seqs) : [];
      if (failed === 'all') {
        c.errors++;
        failedFrom = 0;
        reason = new Error(`malformed batch response: ${JSON.stringify(response)}`);
      } else if (failed.length) {
        // Lambda checkpoints before the lowest sequence number reported and retries from it.
        failedFrom = Math.min(...failed.map((s) => seqs.indexOf(s)));
        reason = new Error(`records reported failed: ${failed.join(', ')}`);
      } else {
        return;
      }
    } catch (e) {
      c.errors++;
      failedFrom = 0;
      reason = e;
    }
    batch = batch.slice(failedFrom);
    c.failures += batch.length;
    if (attempt >= (o.maximumRetryAttempts ?? 3)) {
      c.discarded += batch.length;
      o.onDiscard?.(batch, reason);
      return;
    }
  }
}
