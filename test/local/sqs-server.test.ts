import { createHash } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BatchEntryIdsNotDistinct,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  EmptyBatchRequest,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  InvalidAttributeName,
  ListQueuesCommand,
  PurgeQueueCommand,
  PurgeQueueInProgress,
  QueueDeletedRecently,
  QueueDoesNotExist,
  QueueNameExists,
  ReceiptHandleIsInvalid,
  ReceiveMessageCommand,
  RequestThrottled,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  SQSServiceException,
  TooManyEntriesInBatchRequest,
  type Message,
} from '@aws-sdk/client-sqs';
import type { LocalSqs } from '../../lib/local/sqs/server.js';
import { localSqsClient, useLocalSqs } from '../support/local-sqs.js';

const T0 = Date.parse('2025-01-01T12:00:00Z');
let now = T0;
let sqs: LocalSqs;
let client: SQSClient;
let n = 0;

const newClient = (extra: Parameters<typeof localSqsClient>[1] = {}) => localSqsClient(sqs, extra);
/** A fresh queue per test: names are never reused, so QueueDeletedRecently never interferes. */
async function queue(attributes: Record<string, string> = {}): Promise<string> {
  const out = await client.send(new CreateQueueCommand({ QueueName: `q${++n}`, Attributes: attributes }));
  return out.QueueUrl!;
}
const receive = (QueueUrl: string, extra: Partial<ConstructorParameters<typeof ReceiveMessageCommand>[0]> = {}) =>
  client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], ...extra })).then((r) => r.Messages ?? []);
const counts = async (QueueUrl: string) => {
  const a = (await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }))).Attributes!;
  return { visible: Number(a.ApproximateNumberOfMessages), inFlight: Number(a.ApproximateNumberOfMessagesNotVisible), delayed: Number(a.ApproximateNumberOfMessagesDelayed) };
};
const bodies = (ms: Message[]) => ms.map((m) => m.Body).sort();

const local = useLocalSqs(() => now);
beforeAll(() => void ({ sqs, client } = local));
beforeEach(() => {
  now = T0;
  sqs.clearFaults();
});

describe('local SQS endpoint, through the real SDK client', () => {
  it('creates, finds, lists and describes queues', async () => {
    const url = await queue({ VisibilityTimeout: '45', DelaySeconds: '15' });
    expect(url).toBe(sqs.queueUrl(`q${n}`));
    expect(url).toBe(`${sqs.endpoint}/000000000000/q${n}`);
    expect((await client.send(new GetQueueUrlCommand({ QueueName: `q${n}` }))).QueueUrl).toBe(url);
    // Same attributes: the same queue; different ones: QueueNameExists.
    expect((await client.send(new CreateQueueCommand({ QueueName: `q${n}`, Attributes: { VisibilityTimeout: '45' } }))).QueueUrl).toBe(url);
    await expect(client.send(new CreateQueueCommand({ QueueName: `q${n}`, Attributes: { VisibilityTimeout: '30' } }))).rejects.toBeInstanceOf(QueueNameExists);
    const attrs = (await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes;
    expect(attrs).toMatchObject({
      QueueArn: `arn:aws:sqs:us-east-1:000000000000:q${n}`,
      VisibilityTimeout: '45',
      DelaySeconds: '15',
      MessageRetentionPeriod: '345600',
      MaximumMessageSize: '262144',
      ReceiveMessageWaitTimeSeconds: '0',
      ApproximateNumberOfMessages: '0',
      CreatedTimestamp: String(T0 / 1000),
    });
    const only = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
    expect(Object.keys(only.Attributes!)).toEqual(['QueueArn']);
    const other = await queue();
    const listed = await client.send(new ListQueuesCommand({ QueueNamePrefix: `q${n - 1}` }));
    expect(listed.QueueUrls).toEqual([url]);
    const first = await client.send(new ListQueuesCommand({ MaxResults: 1 }));
    const second = await client.send(new ListQueuesCommand({ MaxResults: 1, NextToken: first.NextToken }));
    expect([...first.QueueUrls!, ...second.QueueUrls!].sort()).toEqual([url, other].sort());
  });

  it('keeps a delayed message (DelaySeconds 45) invisible until the server clock passes it', async () => {
    const url = await queue();
    const sent = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'tick', DelaySeconds: 45 }));
    expect(await receive(url)).toEqual([]);
    expect(await counts(url)).toEqual({ visible: 0, inFlight: 0, delayed: 1 });
    now = T0 + 44_999;
    expect(await receive(url)).toEqual([]);
    now = T0 + 45_000;
    const [m] = await receive(url);
    expect(m.MessageId).toBe(sent.MessageId);
    expect(m.Attributes).toEqual({
      SenderId: 'AKIDLOCAL',
      SentTimestamp: String(T0),
      ApproximateReceiveCount: '1',
      ApproximateFirstReceiveTimestamp: String(T0 + 45_000),
    });
  });

  it('uses the queue default delay when a message names none', async () => {
    const url = await queue({ DelaySeconds: '30', VisibilityTimeout: '120' });
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'a' }));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'b', DelaySeconds: 0 }));
    expect(bodies(await receive(url))).toEqual(['b']);
    now += 30_000;
    expect(bodies(await receive(url))).toEqual(['a']);
  });

  it('hides a received message for the visibility timeout, then delivers it again with a new receipt handle', async () => {
    const url = await queue({ VisibilityTimeout: '30' });
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'work' }));
    const [first] = await receive(url);
    expect(await counts(url)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
    now += 29_999;
    expect(await receive(url)).toEqual([]);
    now += 1;
    const [second] = await receive(url, { VisibilityTimeout: 5 });
    expect(second.MessageId).toBe(first.MessageId);
    expect(second.ReceiptHandle).not.toBe(first.ReceiptHandle);
    expect(second.Attributes).toMatchObject({ ApproximateReceiveCount: '2', ApproximateFirstReceiveTimestamp: String(T0) });
    // The override (5 s) applies to this receive only.
    now += 5_000;
    const [third] = await receive(url);
    // A stale receipt handle "succeeds" but deletes nothing (DeleteMessage docs); the latest deletes.
    await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: first.ReceiptHandle }));
    now += 30_000;
    const [fourth] = await receive(url);
    expect(fourth.MessageId).toBe(first.MessageId);
    await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: fourth.ReceiptHandle }));
    now += 30_000;
    expect(await receive(url)).toEqual([]);
    expect(await counts(url)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    expect(third.Attributes?.ApproximateReceiveCount).toBe('3');
  });

  it('changes a message visibility: 0 makes it visible at once; an expired or stale handle is refused', async () => {
    const url = await queue();
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }));
    const [m] = await receive(url);
    await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 }));
    const [again] = await receive(url);
    expect(again.MessageId).toBe(m.MessageId);
    await expect(client.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 10 }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('The receipt handle has expired'),
    });
    now += 30_000;
    await expect(client.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: again.ReceiptHandle, VisibilityTimeout: 10 }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('not available for visibility timeout change'),
    });
    await expect(client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: 'not-a-handle' }))).rejects.toBeInstanceOf(ReceiptHandleIsInvalid);
  });

  it('moves a message received more than maxReceiveCount times to the dead-letter queue', async () => {
    const dlq = await queue();
    const dlqArn = sqs.queueArn(`q${n}`);
    const url = await queue({ VisibilityTimeout: '10', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 }) });
    const { MessageId } = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'poison' }));
    for (let i = 1; i <= 3; i++) {
      const [m] = await receive(url);
      expect(m.Attributes?.ApproximateReceiveCount).toBe(String(i));
      now += 10_000;
    }
    expect(await receive(url)).toEqual([]);
    expect(await counts(url)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    const [dead] = await receive(dlq);
    expect(dead).toMatchObject({ MessageId, Body: 'poison' });
    expect(dead.Attributes).toMatchObject({ SentTimestamp: String(T0), DeadLetterQueueSourceArn: sqs.queueArn(`q${n}`) });
    const policy = (await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['RedrivePolicy'] }))).Attributes!.RedrivePolicy!;
    expect(JSON.parse(policy)).toEqual({ deadLetterTargetArn: dlqArn, maxReceiveCount: 3 });
    await expect(queue({ RedrivePolicy: JSON.stringify({ deadLetterTargetArn: `${dlqArn}-missing`, maxReceiveCount: 3 }) })).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('Dead letter target does not exist'),
    });
  });

  it('sends a batch with per-entry delays; a bad entry fails alone', async () => {
    const url = await queue({ VisibilityTimeout: '120' });
    const out = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 't0', MessageBody: 'at 0', DelaySeconds: 0 },
          { Id: 't15', MessageBody: 'at 15', DelaySeconds: 15 },
          { Id: 't30', MessageBody: 'at 30', DelaySeconds: 30 },
          { Id: 'bad', MessageBody: 'too late', DelaySeconds: 901 },
        ],
      }),
    );
    expect(out.Successful!.map((s) => s.Id)).toEqual(['t0', 't15', 't30']);
    expect(out.Successful![0].MD5OfMessageBody).toBe(createHash('md5').update('at 0').digest('hex'));
    expect(out.Failed).toEqual([{ Id: 'bad', SenderFault: true, Code: 'InvalidParameterValue', Message: expect.stringContaining('DelaySeconds') }]);
    expect(bodies(await receive(url))).toEqual(['at 0']);
    now += 15_000;
    expect(bodies(await receive(url))).toEqual(['at 15']);
    now += 15_000;
    expect(bodies(await receive(url))).toEqual(['at 30']);
  });

  it('rejects malformed batches with the SDK exception classes', async () => {
    const url = await queue();
    const send = (Entries: { Id: string; MessageBody: string }[]) => client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries }));
    await expect(send([])).rejects.toBeInstanceOf(EmptyBatchRequest);
    await expect(send(Array.from({ length: 11 }, (_, i) => ({ Id: `m${i}`, MessageBody: 'x' })))).rejects.toBeInstanceOf(TooManyEntriesInBatchRequest);
    await expect(send([{ Id: 'a', MessageBody: 'x' }, { Id: 'a', MessageBody: 'y' }])).rejects.toBeInstanceOf(BatchEntryIdsNotDistinct);
    await expect(send([{ Id: 'a', MessageBody: 'x'.repeat(200_000) }, { Id: 'b', MessageBody: 'x'.repeat(70_000) }])).rejects.toMatchObject({
      name: 'BatchRequestTooLong',
    });
  });

  it('deletes a batch: a bad receipt handle fails alone', async () => {
    const url = await queue();
    await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', MessageBody: 'a' }, { Id: 'b', MessageBody: 'b' }] }));
    const ms = await receive(url);
    const out = await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: [...ms.map((m, i) => ({ Id: `ok${i}`, ReceiptHandle: m.ReceiptHandle })), { Id: 'bad', ReceiptHandle: 'garbage' }],
      }),
    );
    expect(out.Successful!.map((s) => s.Id)).toEqual(['ok0', 'ok1']);
    expect(out.Failed).toEqual([{ Id: 'bad', SenderFault: true, Code: 'ReceiptHandleIsInvalid', Message: expect.any(String) }]);
    now += 60_000;
    expect(await counts(url)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('long-polls: a waiting receive returns as soon as a message arrives', async () => {
    const url = await queue();
    const waiting = receive(url, { WaitTimeSeconds: 10 });
    while (sqs.waitingReceives === 0) await new Promise((r) => setTimeout(r, 5));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'wake up' }));
    expect(bodies(await waiting)).toEqual(['wake up']);
  });

  it('long-polls: returns empty when WaitTimeSeconds passes with nothing to receive', async () => {
    const url = await queue({ ReceiveMessageWaitTimeSeconds: '1' });
    // The queue's ReceiveMessageWaitTimeSeconds applies when the request names no wait.
    const started = Date.now();
    expect(await receive(url)).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('returns message attributes with the MD5 SQS computes (the SDK checks the body MD5 itself)', async () => {
    const url = await queue();
    const MessageAttributes = {
      kind: { DataType: 'String', StringValue: 'tick' },
      attempt: { DataType: 'Number', StringValue: '2' },
      blob: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 255]) },
    };
    const sent = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{"kind":"tick"}', MessageAttributes }));
    // Independently computed: length-prefixed name, type, transport byte, value, names sorted.
    const field = (b: Buffer) => [Buffer.from([0, 0, 0, b.length]), b];
    const expected = createHash('md5')
      .update(
        Buffer.concat([
          ...field(Buffer.from('attempt')), ...field(Buffer.from('Number')), Buffer.from([1]), ...field(Buffer.from('2')),
          ...field(Buffer.from('blob')), ...field(Buffer.from('Binary')), Buffer.from([2]), ...field(Buffer.from([0, 1, 255])),
          ...field(Buffer.from('kind')), ...field(Buffer.from('String')), Buffer.from([1]), ...field(Buffer.from('tick')),
        ]),
      )
      .digest('hex');
    expect(sent.MD5OfMessageAttributes).toBe(expected);
    const [m] = await receive(url, { MessageAttributeNames: ['All'] });
    expect(m.MD5OfBody).toBe(createHash('md5').update('{"kind":"tick"}').digest('hex'));
    expect(m.MD5OfMessageAttributes).toBe(expected);
    expect(m.MessageAttributes).toEqual({
      kind: { DataType: 'String', StringValue: 'tick' },
      attempt: { DataType: 'Number', StringValue: '2' },
      blob: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 255]) },
    });
    now += 30_000;
    const [only] = await receive(url, { MessageAttributeNames: ['kind'] });
    expect(Object.keys(only.MessageAttributes!)).toEqual(['kind']);
    now += 30_000;
    const [none] = await receive(url, { MessageSystemAttributeNames: ['ApproximateReceiveCount'] });
    expect(none.MessageAttributes).toBeUndefined();
    expect(none.Attributes).toEqual({ ApproximateReceiveCount: '3' });
  });

  it('answers errors as SQS does, so the SDK throws its exception classes', async () => {
    const url = await queue();
    const missing = `${sqs.endpoint}/000000000000/nope`;
    const err = await client.send(new SendMessageCommand({ QueueUrl: missing, MessageBody: 'x' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueueDoesNotExist);
    expect(err).toMatchObject({ Code: 'AWS.SimpleQueueService.NonExistentQueue', $metadata: { httpStatusCode: 400 } });
    await expect(client.send(new GetQueueUrlCommand({ QueueName: 'nope' }))).rejects.toBeInstanceOf(QueueDoesNotExist);
    // 256 KiB is the limit (the queue's MaximumMessageSize).
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x'.repeat(262_144) }));
    const long = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x'.repeat(262_145) })).catch((e: unknown) => e);
    expect(long).toBeInstanceOf(SQSServiceException);
    expect(long).toMatchObject({ name: 'InvalidParameterValue', message: 'One or more parameters are invalid. Reason: Message must be shorter than 262144 bytes.' });
    await expect(client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'bad \u0000' }))).rejects.toMatchObject({ name: 'InvalidMessageContents' });
    await expect(receive(url, { MaxNumberOfMessages: 11 })).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('MaxNumberOfMessages') });
    await expect(receive(url, { WaitTimeSeconds: 21 })).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['Bogus' as 'All'] }))).rejects.toBeInstanceOf(InvalidAttributeName);
    await expect(queue({ VisibilityTimeout: '43201' })).rejects.toMatchObject({ name: 'InvalidAttributeValue' });
    // FIFO: the .fifo name and FifoQueue "true" go together (test/local/sqs-fifo.test.ts).
    await expect(queue({ FifoQueue: 'true' })).rejects.toMatchObject({ name: 'InvalidParameterValue', message: expect.stringContaining('must end with .fifo suffix') });
  });

  it('purges at most once a minute, and refuses to re-create a queue within 60 s of deleting it', async () => {
    const url = await queue();
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }));
    await client.send(new PurgeQueueCommand({ QueueUrl: url }));
    expect(await counts(url)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    await expect(client.send(new PurgeQueueCommand({ QueueUrl: url }))).rejects.toBeInstanceOf(PurgeQueueInProgress);
    now += 60_000;
    await client.send(new PurgeQueueCommand({ QueueUrl: url }));
    await client.send(new DeleteQueueCommand({ QueueUrl: url }));
    await expect(receive(url)).rejects.toBeInstanceOf(QueueDoesNotExist);
    await expect(client.send(new CreateQueueCommand({ QueueName: `q${n}` }))).rejects.toBeInstanceOf(QueueDeletedRecently);
    now += 60_000;
    await client.send(new CreateQueueCommand({ QueueName: `q${n}` }));
  });

  describe('message groups on a standard queue (SQS fair queues)', () => {
    const sendIn = (QueueUrl: string, MessageGroupId: string | undefined, ...bodyList: string[]) =>
      client.send(new SendMessageBatchCommand({ QueueUrl, Entries: bodyList.map((b, i) => ({ Id: `m${i}`, MessageBody: b, MessageGroupId })) }));

    it('takes a MessageGroupId and gives it back with the system attributes; a MessageDeduplicationId is still refused', async () => {
      const url = await queue();
      await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'tick', MessageGroupId: 'prod' }));
      await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'plain' }));
      const got = await receive(url);
      expect(got.map((m) => [m.Body, m.Attributes?.MessageGroupId])).toEqual([
        ['tick', 'prod'],
        ['plain', undefined],
      ]);
      now += 30_000;
      const again = await receive(url, { MessageSystemAttributeNames: ['MessageGroupId'] });
      expect(again.find((m) => m.Body === 'tick')?.Attributes).toEqual({ MessageGroupId: 'prod' });
      expect(again.find((m) => m.Body === 'plain')?.Attributes).toBeUndefined();
      const dedup = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageDeduplicationId: 'd1' })).catch((e: unknown) => e);
      expect(dedup).toMatchObject({
        name: 'InvalidParameterValue',
        message: 'Value d1 for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.',
      });
    });

    it.each([
      ['129 characters', 'g'.repeat(129)],
      ['a space', 'my group'],
      ['a letter beyond ASCII', 'clüster'],
      ['nothing', ''],
    ])('refuses a MessageGroupId of %s as SQS does, alone in a batch', async (_what, id) => {
      const url = await queue();
      const err = await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageGroupId: id })).catch((e: unknown) => e);
      expect(err).toMatchObject({
        name: 'InvalidParameterValue',
        message: `Value ${id} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
      });
      const out = await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'bad', MessageBody: 'x', MessageGroupId: id }, { Id: 'ok', MessageBody: 'y', MessageGroupId: 'prod' }] }));
      expect(out.Successful!.map((s) => s.Id)).toEqual(['ok']);
      expect(out.Failed).toEqual([{ Id: 'bad', SenderFault: true, Code: 'InvalidParameterValue', Message: expect.stringContaining('for parameter MessageGroupId is invalid') }]);
    });

    it('takes 128 alphanumeric and punctuation characters', async () => {
      const url = await queue();
      const id = `${'Az9'.repeat(10)}!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`.padEnd(128, 'x');
      expect(id).toHaveLength(128);
      await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageGroupId: id }));
      expect((await receive(url)).map((m) => m.Attributes?.MessageGroupId)).toEqual([id]);
    });

    it("a backlog of 1,000 messages of cluster a does not hold back cluster b's one message beyond the first receive", async () => {
      const url = await queue();
      for (let i = 0; i < 1000; i += 10) await sendIn(url, 'a', ...Array.from({ length: 10 }, (_, j) => `a${i + j}`));
      await sendIn(url, 'b', 'b0');
      const first = await receive(url);
      expect(first.map((m) => m.Body)).toEqual(['a0', 'b0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8']);
      // One at a time (the worker's batch size): the groups take turns, least recently served first.
      const url2 = await queue();
      for (let i = 0; i < 1000; i += 10) await sendIn(url2, 'a', ...Array.from({ length: 10 }, (_, j) => `a${i + j}`));
      await sendIn(url2, 'b', 'b0', 'b1');
      await sendIn(url2, 'c', 'c0');
      const one = async () => (await receive(url2, { MaxNumberOfMessages: 1 })).map((m) => m.Body);
      const seen: (string | undefined)[] = [];
      for (let i = 0; i < 6; i++) seen.push(...(await one()));
      expect(seen).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2']);
    });

    it('treats a message without a group as a tenant of its own, as SQS does', async () => {
      const url = await queue();
      await sendIn(url, 'a', 'a0', 'a1', 'a2');
      await sendIn(url, undefined, 'u0', 'u1');
      expect((await receive(url)).map((m) => m.Body)).toEqual(['a0', 'u0', 'u1', 'a1', 'a2']);
    });
  });

  describe('faults', () => {
    it('throttles as SQS does (RequestThrottled, retried by the SDK as throttling)', async () => {
      const url = await queue();
      sqs.failNext('SendMessage', 'throttle');
      await expect(client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }))).rejects.toBeInstanceOf(RequestThrottled);
      const retrying = newClient({ maxAttempts: 3 });
      try {
        sqs.failNext('SendMessage', 'throttle');
        sqs.failNext('SendMessage', 'internal-error');
        const before = sqs.count('SendMessage');
        const out = await retrying.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x' }));
        expect(out.$metadata.attempts).toBe(3);
        expect(sqs.count('SendMessage') - before).toBe(3);
        expect(sqs.requestLog.slice(-3).map((r) => r.status)).toEqual([403, 500, 200]);
      } finally {
        retrying.destroy();
      }
    });

    it('hangs: the request is never answered', async () => {
      const url = await queue();
      sqs.failNext('ReceiveMessage', 'hang');
      const impatient = newClient({ requestHandler: { requestTimeout: 300, throwOnRequestTimeout: true } });
      try {
        await expect(impatient.send(new ReceiveMessageCommand({ QueueUrl: url }))).rejects.toMatchObject({ name: 'TimeoutError' });
        expect(sqs.requestLog.at(-1)).toMatchObject({ operation: 'ReceiveMessage', outcome: 'hung', status: 0 });
      } finally {
        impatient.destroy();
      }
    });

    it('loses the answer after acting: a retried SendMessage delivers the message twice', async () => {
      const url = await queue();
      sqs.failNext('SendMessage', 'lose-answer');
      const retrying = newClient({ maxAttempts: 2 });
      try {
        await retrying.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'once?' }));
      } finally {
        retrying.destroy();
      }
      expect(bodies(await receive(url))).toEqual(['once?', 'once?']);
      expect(sqs.requestLog.filter((r) => r.operation === 'SendMessage').slice(-2).map((r) => r.outcome)).toEqual(['lost', 'answered']);
    });

    it('fails chosen batch entries as an internal error', async () => {
      const url = await queue();
      sqs.failNext('SendMessageBatch', { failEntries: ['b'] });
      const out = await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [{ Id: 'a', MessageBody: 'a' }, { Id: 'b', MessageBody: 'b' }] }));
      expect(out.Successful!.map((s) => s.Id)).toEqual(['a']);
      expect(out.Failed).toEqual([{ Id: 'b', SenderFault: false, Code: 'InternalFailure', Message: expect.any(String) }]);
      expect(bodies(await receive(url))).toEqual(['a']);
    });
  });
});
