// FIFO queues of the local SQS endpoint, through the real SDK client: what a send must carry,
// deduplication, order within a message group, groups held back by an in-flight message, and
// the approximate counts as SQS defines them (a held-back message still counts as visible).
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import type { LocalSqs } from '../../lib/local/sqs/server.js';
import { useLocalSqs } from '../support/local-sqs.js';
import { SqsSource } from '../../lib/metrics/sqs-source.js';

const T0 = Date.parse('2026-01-01T12:00:00Z');
let now = T0;
let sqs: LocalSqs;
let client: SQSClient;
let n = 0;

async function fifoQueue(attributes: Record<string, string> = {}): Promise<string> {
  const out = await client.send(new CreateQueueCommand({ QueueName: `jobs-${++n}.fifo`, Attributes: { FifoQueue: 'true', VisibilityTimeout: '30', ...attributes } }));
  return out.QueueUrl!;
}
const send = (QueueUrl: string, MessageGroupId: string, body: string, MessageDeduplicationId: string | undefined = body) =>
  client.send(new SendMessageCommand({ QueueUrl, MessageBody: body, MessageGroupId, MessageDeduplicationId }));
const receive = (QueueUrl: string, MaxNumberOfMessages = 10, WaitTimeSeconds = 0) =>
  client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages, WaitTimeSeconds, MessageSystemAttributeNames: ['All'] })).then((r) => r.Messages ?? []);
const bodies = (ms: Message[]) => ms.map((m) => m.Body);
const remove = (QueueUrl: string, ms: Message[]) => Promise.all(ms.map((m) => client.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }))));
const counts = async (QueueUrl: string) => {
  const a = (await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }))).Attributes!;
  return { visible: Number(a.ApproximateNumberOfMessages), notVisible: Number(a.ApproximateNumberOfMessagesNotVisible), delayed: Number(a.ApproximateNumberOfMessagesDelayed) };
};

const local = useLocalSqs(() => now);
beforeAll(() => void ({ sqs, client } = local));
beforeEach(() => {
  now = T0;
});

describe('local SQS FIFO queues, through the real SDK client', () => {
  it('creates a FIFO queue only with a .fifo name and FifoQueue "true" together, and describes it', async () => {
    const url = await fifoQueue({ ContentBasedDeduplication: 'true' });
    const a = (await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes!;
    expect(a).toMatchObject({ FifoQueue: 'true', ContentBasedDeduplication: 'true', DeduplicationScope: 'queue', FifoThroughputLimit: 'perQueue', QueueArn: sqs.queueArn(`jobs-${n}.fifo`) });
    await expect(client.send(new CreateQueueCommand({ QueueName: 'plain.fifo' }))).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('FifoQueue not given') });
    await expect(client.send(new CreateQueueCommand({ QueueName: 'plain', Attributes: { FifoQueue: 'true' } }))).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('must end with .fifo suffix') });
    await expect(client.send(new CreateQueueCommand({ QueueName: 'plain', Attributes: { ContentBasedDeduplication: 'true' } }))).rejects.toMatchObject({ name: 'InvalidAttributeName', message: expect.stringContaining('FIFO queues only') });
    await expect(client.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { FifoQueue: 'true' } }))).rejects.toMatchObject({ name: 'InvalidAttributeName', message: expect.stringContaining('cannot change') });
    await expect(fifoQueue({ DeduplicationScope: 'group' })).rejects.toMatchObject({ name: 'InvalidAttributeValue', message: expect.stringContaining('DeduplicationScope') });
    // A standard queue may say FifoQueue "false".
    await client.send(new CreateQueueCommand({ QueueName: `std-${n}`, Attributes: { FifoQueue: 'false' } }));
  });

  it('refuses a send without a message group, without a deduplication id (no content-based deduplication), or with a delay of its own', async () => {
    const url = await fifoQueue();
    await expect(client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageDeduplicationId: 'd' }))).rejects.toMatchObject({ name: 'MissingParameter', message: expect.stringContaining('MessageGroupId') });
    await expect(client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageGroupId: 'g' }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: 'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
    });
    await expect(client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageGroupId: 'g', MessageDeduplicationId: 'd', DelaySeconds: 5 }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('parameter DelaySeconds is invalid'),
    });
    expect(await counts(url)).toEqual({ visible: 0, notVisible: 0, delayed: 0 });
  });

  it('answers a duplicate within five minutes as the first send, without queueing it; content-based deduplication hashes the body', async () => {
    const url = await fifoQueue();
    const first = await send(url, 'g', 'order-1', 'd1');
    now += 4 * 60_000;
    const again = await send(url, 'g', 'order-1 retried', 'd1');
    expect(again).toMatchObject({ MessageId: first.MessageId, SequenceNumber: first.SequenceNumber });
    expect(await counts(url)).toEqual({ visible: 1, notVisible: 0, delayed: 0 });
    now += 60_000;
    const later = await send(url, 'g', 'order-1', 'd1');
    expect(later.MessageId).not.toBe(first.MessageId);
    expect(BigInt(later.SequenceNumber!)).toBeGreaterThan(BigInt(first.SequenceNumber!));
    expect(await counts(url)).toEqual({ visible: 2, notVisible: 0, delayed: 0 });

    const byContent = await fifoQueue({ ContentBasedDeduplication: 'true' });
    const a = await client.send(new SendMessageCommand({ QueueUrl: byContent, MessageBody: 'same', MessageGroupId: 'g1' }));
    const b = await client.send(new SendMessageCommand({ QueueUrl: byContent, MessageBody: 'same', MessageGroupId: 'g2' }));
    expect(b.MessageId).toBe(a.MessageId);
    const [m] = await receive(byContent);
    expect(m.Attributes).toMatchObject({ MessageGroupId: 'g1', SequenceNumber: a.SequenceNumber, MessageDeduplicationId: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // Scope messageGroup: the same id in another group is another message.
    const perGroup = await fifoQueue({ DeduplicationScope: 'messageGroup', FifoThroughputLimit: 'perMessageGroupId' });
    await send(perGroup, 'g1', 'x', 'd');
    await send(perGroup, 'g2', 'x', 'd');
    await send(perGroup, 'g2', 'y', 'd');
    expect(await counts(perGroup)).toEqual({ visible: 2, notVisible: 0, delayed: 0 });
  });

  it('delivers a group in order and holds it back while one of its messages is in flight; held-back messages count as visible', async () => {
    const url = await fifoQueue();
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: ['a1', 'a2', 'a3', 'b1', 'a4', 'b2'].map((b) => ({ Id: b, MessageBody: b, MessageGroupId: b[0], MessageDeduplicationId: b })),
      }),
    );
    // As many of one group as it can, oldest group first.
    const first = await receive(url, 2);
    expect(bodies(first)).toEqual(['a1', 'a2']);
    // a3 and a4 wait for a1 and a2: only b is receivable, yet a3 and a4 are visible in SQS's count.
    expect(await counts(url)).toEqual({ visible: 4, notVisible: 2, delayed: 0 });
    const second = await receive(url);
    expect(bodies(second)).toEqual(['b1', 'b2']);
    expect(await receive(url)).toEqual([]);
    expect(await counts(url)).toEqual({ visible: 2, notVisible: 4, delayed: 0 });
    await remove(url, first.slice(0, 1));
    // a2 is still in flight.
    expect(await receive(url)).toEqual([]);
    await remove(url, first.slice(1));
    expect(bodies(await receive(url))).toEqual(['a3', 'a4']);
    expect(await counts(url)).toEqual({ visible: 0, notVisible: 4, delayed: 0 });
  });

  it('delivers an expired in-flight message again before the rest of its group', async () => {
    const url = await fifoQueue();
    for (const b of ['a1', 'a2']) await send(url, 'a', b);
    const [m] = await receive(url, 1);
    expect(m.Body).toBe('a1');
    now += 30_000;
    expect(await counts(url)).toEqual({ visible: 2, notVisible: 0, delayed: 0 });
    const again = await receive(url);
    expect(bodies(again)).toEqual(['a1', 'a2']);
    expect(again[0].Attributes?.ApproximateReceiveCount).toBe('2');
  });

  it("delays every message by the queue's DelaySeconds: delayed, then visible", async () => {
    const url = await fifoQueue({ DelaySeconds: '20' });
    await send(url, 'a', 'a1');
    expect(await counts(url)).toEqual({ visible: 0, notVisible: 0, delayed: 1 });
    expect(await receive(url)).toEqual([]);
    now += 20_000;
    expect(await counts(url)).toEqual({ visible: 1, notVisible: 0, delayed: 0 });
    expect(bodies(await receive(url))).toEqual(['a1']);
  });

  it('wakes a long poll when the message holding its group back is deleted', async () => {
    const url = await fifoQueue();
    for (const b of ['a1', 'a2']) await send(url, 'a', b);
    const first = await receive(url, 1);
    const waiting = receive(url, 10, 5);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await remove(url, first);
    expect(bodies(await waiting)).toEqual(['a2']);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('redrives to a FIFO dead-letter queue only', async () => {
    const dlq = await fifoQueue();
    const dlqArn = sqs.queueArn(`jobs-${n}.fifo`);
    const url = await fifoQueue({ RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) });
    await send(url, 'a', 'poison');
    await send(url, 'a', 'next');
    expect(bodies(await receive(url, 1))).toEqual(['poison']);
    now += 30_000;
    // The poison message goes to the dead-letter queue, and its group moves on.
    expect(bodies(await receive(url, 1))).toEqual(['next']);
    expect(bodies(await receive(dlq))).toEqual(['poison']);
    await client.send(new CreateQueueCommand({ QueueName: `std-dlq-${n}` }));
    await expect(fifoQueue({ RedrivePolicy: JSON.stringify({ deadLetterTargetArn: sqs.queueArn(`std-dlq-${n}`), maxReceiveCount: 1 }) })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('same type'),
    });
  });

  it('reads as the SQS queue source counts it: held-back messages are backlog, in flight counts by default', async () => {
    const url = await fifoQueue();
    for (const b of ['a1', 'a2', 'a3', 'b1']) await send(url, b[0], b);
    await receive(url, 1);
    const name = `jobs-${n}.fifo`;
    const source = new SqsSource({ access: { shop: { sqsQueues: ['arn:aws:sqs:us-east-1:000000000000:jobs-*'] } }, clientFor: () => client });
    const queueURL = `https://sqs.us-east-1.amazonaws.com/000000000000/${name}`;
    const object = (spec: { scaleOnInFlight?: boolean }) => ({ apiVersion: 'shpa.dev/v1' as const, kind: 'SQSQueueMetric' as const, metadata: { name: 'jobs', namespace: 'shop' }, spec: { queueURL, ...spec } });
    const answers = await source.fetch([object({}), object({ scaleOnInFlight: false })], new Date(now));
    expect(answers.map((a) => a.result.value?.[0]?.value)).toEqual(['4', '3']);
  });
});
