import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsEventSource, type SqsEventHandler, type SqsEventSourceOptions } from '../../lib/local/sqs/event-source.js';
import { lambdaContexts } from '../../lib/local/lambda/runtime.js';
import { useLocalSqs } from '../support/local-sqs.js';

const T0 = Date.parse('2025-01-01T12:00:00Z');
let now = T0;
const local = useLocalSqs(() => now);
let n = 0;

async function queue(attributes: Record<string, string> = {}): Promise<string> {
  return (await local.client.send(new CreateQueueCommand({ QueueName: `src${++n}`, Attributes: attributes }))).QueueUrl!;
}
const send = (QueueUrl: string, ...bodies: string[]) =>
  local.client.send(new SendMessageBatchCommand({ QueueUrl, Entries: bodies.map((b, i) => ({ Id: `m${i}`, MessageBody: b })) }));
const depth = async (QueueUrl: string) => {
  const a = (await local.client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }))).Attributes!;
  return { visible: Number(a.ApproximateNumberOfMessages), inFlight: Number(a.ApproximateNumberOfMessagesNotVisible) };
};
/** A handler that records the bodies of each invocation and answers what `answer` says. */
function recorder(answer: (event: SQSEvent) => SQSBatchResponse | void | Promise<SQSBatchResponse | void> = () => undefined) {
  const calls: string[][] = [];
  const handler: SqsEventHandler = async (event) => {
    calls.push(event.Records.map((r) => r.body));
    return answer(event);
  };
  return { calls, handler };
}
const source = (queueUrl: string, handler: SqsEventHandler, o: Partial<SqsEventSourceOptions> = {}) =>
  sqsEventSource({ client: local.client, queueUrl, handler, context: lambdaContexts({ clock: () => now }), ...o });

beforeEach(() => {
  now = T0;
});

describe('local SQS event source mapping', () => {
  it('builds the event as Lambda does', async () => {
    const url = await queue();
    const { MessageId } = await local.client.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: '{"kind":"tick"}',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'tick' }, raw: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2]) } },
      }),
    );
    let seen: SQSEvent | undefined;
    let remaining = 0;
    now = T0 + 5_000;
    const src = source(url, async (event, context) => {
      seen = event;
      now += 1_000;
      remaining = context.getRemainingTimeInMillis();
    }, { context: lambdaContexts({ clock: () => now, timeoutSeconds: 10, functionName: 'worker' }) });
    await src.drain();
    expect(seen!.Records).toEqual([
      {
        messageId: MessageId,
        receiptHandle: expect.any(String),
        body: '{"kind":"tick"}',
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(T0), SenderId: 'AKIDLOCAL', ApproximateFirstReceiveTimestamp: String(T0 + 5_000) },
        messageAttributes: {
          kind: { stringValue: 'tick', stringListValues: [], binaryListValues: [], dataType: 'String' },
          raw: { binaryValue: 'AQI=', stringListValues: [], binaryListValues: [], dataType: 'Binary' },
        },
        md5OfBody: createHash('md5').update('{"kind":"tick"}').digest('hex'),
        md5OfMessageAttributes: expect.stringMatching(/^[0-9a-f]{32}$/),
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:src${n}`,
        awsRegion: 'us-east-1',
      },
    ]);
    expect(remaining).toBe(9_000);
  });

  it("gives the handler a message's group in attributes.MessageGroupId, as Lambda does for a fair queue", async () => {
    const url = await queue();
    await local.client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', MessageBody: 'tick', MessageGroupId: 'prod' }, { Id: 'b', MessageBody: 'plain' }] }));
    let seen: SQSEvent | undefined;
    await source(url, async (event) => void (seen = event)).drain();
    expect(seen!.Records.map((r) => [r.body, r.attributes.MessageGroupId])).toEqual([
      ['tick', 'prod'],
      ['plain', undefined],
    ]);
  });

  it('with ReportBatchItemFailures deletes all but the listed records; those come back after the visibility timeout', async () => {
    const url = await queue({ VisibilityTimeout: '30' });
    await send(url, 'a', 'b', 'c');
    const { calls, handler } = recorder((e) => ({ batchItemFailures: e.Records.filter((r) => r.body === 'b').map((r) => ({ itemIdentifier: r.messageId })) }));
    const src = source(url, handler, { reportBatchItemFailures: true });
    expect(await src.drain()).toEqual({ invocations: 1, records: 3, failures: 1, errors: 0, deleted: 2, pollErrors: 0 });
    expect(await depth(url)).toEqual({ visible: 0, inFlight: 1 });
    now += 30_000;
    await src.drain();
    expect(calls).toEqual([['a', 'b', 'c'], ['b']]);
  });

  it('fails the whole batch on a malformed batch response, as Lambda does', async () => {
    const url = await queue();
    await send(url, 'a', 'b');
    const answers: unknown[] = [{ batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] }, { batchItemFailures: [{ itemIdentifier: '' }] }, { batchItemFailures: 'b' }, 'ok'];
    for (const answer of answers) {
      const src = source(url, async () => answer as SQSBatchResponse, { reportBatchItemFailures: true });
      expect(await src.drain()).toMatchObject({ invocations: 1, failures: 2, errors: 1, deleted: 0 });
      now += 30_000;
    }
    // No answer, or an empty list, is complete success.
    const ok = source(url, async () => ({ batchItemFailures: [] }), { reportBatchItemFailures: true });
    expect(await ok.drain()).toMatchObject({ invocations: 1, failures: 0, deleted: 2 });
  });

  it('ignores a batch response without ReportBatchItemFailures', async () => {
    const url = await queue();
    await send(url, 'a', 'b');
    const src = source(url, async (e) => ({ batchItemFailures: [{ itemIdentifier: e.Records[0].messageId }] }));
    expect(await src.drain()).toMatchObject({ failures: 0, deleted: 2 });
  });

  it('deletes nothing when the handler throws; after maxReceiveCount receives the messages are in the DLQ', async () => {
    const dlq = await queue();
    const dlqArn = local.sqs.queueArn(`src${n}`);
    const url = await queue({ VisibilityTimeout: '60', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 }) });
    await send(url, 'poison');
    const counts: string[] = [];
    const src = source(url, async (e) => {
      counts.push(e.Records[0].attributes.ApproximateReceiveCount);
      throw new Error('boom');
    });
    for (let i = 0; i < 4; i++) {
      await src.drain();
      now += 60_000;
    }
    expect(counts).toEqual(['1', '2', '3']);
    expect(src.counters).toMatchObject({ invocations: 3, errors: 3, failures: 3, deleted: 0 });
    const { calls, handler } = recorder();
    await source(dlq, handler).drain();
    expect(calls).toEqual([['poison']]);
  });

  it('runs at most maximumConcurrency invocations at once', async () => {
    const url = await queue();
    await send(url, '1', '2', '3', '4', '5', '6');
    let inFlight = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const src = source(
      url,
      async () => {
        most = Math.max(most, ++inFlight);
        await gate;
        inFlight--;
      },
      { batchSize: 1, maximumConcurrency: 2 },
    );
    const drained = src.drain();
    while (inFlight < 2) await new Promise((r) => setTimeout(r, 5));
    // Two invocations hold their messages; nobody took a third.
    expect(await depth(url)).toEqual({ visible: 4, inFlight: 2 });
    release();
    expect(await drained).toMatchObject({ invocations: 6, deleted: 6 });
    expect(most).toBe(2);
  });

  it('drains on a virtual clock: the dispatcher ticks at 0/15/30/45 s arrive when the clock gets there', async () => {
    const url = await queue();
    await local.client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [0, 15, 30, 45].map((d) => ({ Id: `t${d}`, MessageBody: `tick+${d}`, DelaySeconds: d })),
      }),
    );
    const { calls, handler } = recorder();
    const src = source(url, handler, { batchSize: 1 });
    const seen: string[][] = [];
    for (const t of [0, 14, 15, 30, 45, 60]) {
      now = T0 + t * 1000;
      const before = calls.length;
      await src.drain();
      seen.push(calls.slice(before).flat());
    }
    expect(seen).toEqual([['tick+0'], [], ['tick+15'], ['tick+30'], ['tick+45'], []]);
  });

  it('start() long-polls in real time and stop() ends the polls at once', async () => {
    const url = await queue();
    let got!: (body: string) => void;
    const received = new Promise<string>((r) => (got = r));
    const src = source(url, async (e) => got(e.Records[0].body), { maximumConcurrency: 3 });
    src.start();
    while (local.sqs.waitingReceives < 3) await new Promise((r) => setTimeout(r, 5));
    await send(url, 'now');
    expect(await received).toBe('now');
    await src.stop();
    expect(src.counters).toMatchObject({ invocations: 1, deleted: 1 });
    while (local.sqs.waitingReceives > 0) await new Promise((r) => setTimeout(r, 5));
    // Nothing polls any more: a message sent now stays in the queue.
    await send(url, 'later');
    expect(await depth(url)).toEqual({ visible: 1, inFlight: 0 });
  });

  it('counts a failing poll and keeps polling', async () => {
    const url = await queue();
    const errors: unknown[] = [];
    const { calls, handler } = recorder();
    const src = source(url, handler, { waitTimeSeconds: 1, onPollError: (e) => errors.push(e) });
    await src.drain(); // resolves the queue ARN first
    local.sqs.failNext('ReceiveMessage', 'internal-error');
    await send(url, 'after the error');
    src.start();
    while (calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    await src.stop();
    expect(errors).toHaveLength(1);
    expect(src.counters.pollErrors).toBe(1);
    expect(calls).toEqual([['after the error']]);
  });

  it('refuses options Lambda would not take', () => {
    expect(() => source('http://x', async () => undefined, { batchSize: 11 })).toThrow(/batchSize must be an integer from 1 to 10/);
    expect(() => source('http://x', async () => undefined, { maximumConcurrency: 0 })).toThrow(/maximumConcurrency/);
  });
});
