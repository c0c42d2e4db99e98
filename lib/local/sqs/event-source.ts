// What Lambda's SQS event source mapping does, run locally with the real SQSClient:
// receive a batch, build the event as Lambda does, invoke the handler, then delete what
// succeeded. A handler that throws (or, with ReportBatchItemFailures, answers malformed)
// deletes nothing: the messages come back after their visibility timeout, and after
// maxReceiveCount receives the queue's redrive policy moves them to the DLQ.
//
// start()/stop(): long polling in real time (shpa local up, real-time e2e tests).
// drain(): for drivers on a virtual clock, every message visible now, batch by batch.
import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { countersSince, lambdaContexts, reportedFailures, sleep, type ContextFactory } from '../lambda/runtime.js';

export type SqsEventHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface SqsEventSourceOptions {
  client: SQSClient;
  queueUrl: string;
  handler: SqsEventHandler;
  /** Records per invocation: 1 to 10 (one ReceiveMessage). Default 10. */
  batchSize?: number;
  /** Invocations at once. Default 2 (Lambda's MaximumConcurrency goes from 2 to 1000; 1 is allowed here). */
  maximumConcurrency?: number;
  /** FunctionResponseTypes: ["ReportBatchItemFailures"]. Without it a handler's answer is ignored. */
  reportBatchItemFailures?: boolean;
  /** Default: lambdaContexts() (30 s timeout, real clock). */
  context?: ContextFactory;
  /** start(): the long poll's WaitTimeSeconds. Default 20, as Lambda. */
  waitTimeSeconds?: number;
  /** A ReceiveMessage or DeleteMessageBatch that failed; start() polls again a second later. */
  onPollError?: (error: unknown) => void;
}

export interface SqsEventSourceCounters {
  invocations: number;
  /** Records handed to the handler. */
  records: number;
  /** Records not deleted because the handler failed them (listed, or the whole batch failed). */
  failures: number;
  /** Invocations that threw or answered a malformed batch response. */
  errors: number;
  deleted: number;
  /** Failed ReceiveMessage or DeleteMessageBatch calls and entries. */
  pollErrors: number;
}

const MAX_DRAIN_BATCHES = 10_000;
const POLL_RETRY_MS = 1_000;

const zero = (): SqsEventSourceCounters => ({ invocations: 0, records: 0, failures: 0, errors: 0, deleted: 0, pollErrors: 0 });

export class SqsEventSource {
  readonly counters = zero();
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly context: ContextFactory;
  private arn?: string;
  private polling?: { abort: AbortController; loops: Promise<void>[] };

  constructor(private readonly o: SqsEventSourceOptions) {
    this.batchSize = checkInt('batchSize', o.batchSize ?? 10, 1, 10, 'one ReceiveMessage returns at most 10');
    this.concurrency = checkInt('maximumConcurrency', o.maximumConcurrency ?? 2, 1, 1000, 'Lambda allows up to 1000');
    checkInt('waitTimeSeconds', o.waitTimeSeconds ?? 20, 0, 20, 'SQS long polls wait at most 20 s');
    this.context = o.context ?? lambdaContexts();
  }

  /**
   * Processes every message visible now, batch by batch (maximumConcurrency batches at once),
   * until a receive finds none. Resolves with what this drain did. A failing ReceiveMessage rejects.
   */
  async drain(): Promise<SqsEventSourceCounters> {
    if (this.polling) throw new Error('SqsEventSource.drain(): the source is polling since start(); stop() it first');
    const before = { ...this.counters };
    let batches = 0;
    const worker = async () => {
      for (;;) {
        const messages = await this.receive(0);
        if (!messages.length) return;
        if (++batches > MAX_DRAIN_BATCHES) {
          throw new Error(`SqsEventSource.drain(): still receiving after ${MAX_DRAIN_BATCHES} batches; do failed messages come back at once (VisibilityTimeout 0, no redrive policy)?`);
        }
        await this.process(messages);
      }
    };
    const results = await Promise.allSettled(Array.from({ length: this.concurrency }, worker));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return countersSince(this.counters, before);
  }

  /** Polls continuously in real time with maximumConcurrency long-polling loops. */
  start(): void {
    if (this.polling) return;
    const abort = new AbortController();
    const wait = this.o.waitTimeSeconds ?? 20;
    const loop = async () => {
      while (!abort.signal.aborted) {
        let messages: Message[];
        try {
          messages = await this.receive(wait, abort.signal);
        } catch (e) {
          if (abort.signal.aborted) return;
          this.pollError(e);
          await sleep(POLL_RETRY_MS, abort.signal);
          continue;
        }
        if (messages.length) await this.process(messages);
      }
    };
    this.polling = { abort, loops: Array.from({ length: this.concurrency }, loop) };
  }

  /** Ends the long polls at once and waits for the invocations under way to finish. */
  async stop(): Promise<void> {
    const p = this.polling;
    if (!p) return;
    p.abort.abort();
    await Promise.all(p.loops);
    this.polling = undefined;
  }

  private async receive(waitSeconds: number, abortSignal?: AbortSignal): Promise<Message[]> {
    this.arn ??= await this.queueArn();
    const out = await this.o.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.o.queueUrl,
        MaxNumberOfMessages: this.batchSize,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal },
    );
    return out.Messages ?? [];
  }

  private async queueArn(): Promise<string> {
    const out = await this.o.client.send(new GetQueueAttributesCommand({ QueueUrl: this.o.queueUrl, AttributeNames: ['QueueArn'] }));
    const arn = out.Attributes?.QueueArn;
    if (!arn) throw new Error(`SqsEventSource: GetQueueAttributes of ${this.o.queueUrl} returned no QueueArn`);
    return arn;
  }

  /** Invokes the handler with one batch, then deletes the records that succeeded. */
  private async process(messages: Message[]): Promise<void> {
    const records = messages.map((m) => lambdaRecord(m, this.arn!));
    const c = this.counters;
    c.invocations++;
    c.records += records.length;
    let failed: string[] | 'all';
    try {
      const response = await this.o.handler({ Records: records }, this.context());
      failed = this.o.reportBatchItemFailures ? reportedFailures(response, records.map((r) => r.messageId)) : [];
      if (failed === 'all') c.errors++;
    } catch {
      c.errors++;
      failed = 'all';
    }
    if (failed === 'all') {
      c.failures += records.length;
      return;
    }
    c.failures += failed.length;
    const done = records.filter((r) => !failed.includes(r.messageId));
    if (done.length) await this.delete(done);
  }

  private async delete(records: SQSRecord[]): Promise<void> {
    try {
      const out = await this.o.client.send(
        new DeleteMessageBatchCommand({ QueueUrl: this.o.queueUrl, Entries: records.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }),
      );
      this.counters.deleted += out.Successful?.length ?? 0;
      for (const f of out.Failed ?? []) this.pollError(new Error(`DeleteMessageBatch entry ${f.Id} failed: ${f.Code} ${f.Message ?? ''}`));
    } catch (e) {
      // Undeleted messages come back after their visibility timeout, as with Lambda.
      this.pollError(e);
    }
  }

  private pollError(e: unknown): void {
    this.counters.pollErrors++;
    this.o.onPollError?.(e);
  }
}

export function sqsEventSource(options: SqsEventSourceOptions): SqsEventSource {
  return new SqsEventSource(options);
}

/** One record of the event, as Lambda builds it from a received message. */
function lambdaRecord(m: Message, arn: string): SQSRecord {
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, a] of Object.entries(m.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      ...(a.StringValue !== undefined ? { stringValue: a.StringValue } : {}),
      ...(a.BinaryValue !== undefined ? { binaryValue: Buffer.from(a.BinaryValue).toString('base64') } : {}),
      stringListValues: [],
      binaryListValues: [],
      dataType: a.DataType ?? 'String',
    };
  }
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    // The system attributes as received (all of them asked for), MessageGroupId included.
    attributes: (m.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes,
    md5OfBody: m.MD5OfBody!,
    ...(m.MD5OfMessageAttributes ? { md5OfMessageAttributes: m.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: arn.split(':')[3],
  };
}

function checkInt(name: string, v: number, min: number, max: number, why: string): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new Error(`SqsEventSource: ${name} must be an integer from ${min} to ${max} (${why}), got ${v}`);
  return v;
}
