// The work queue adapter against the local SQS over HTTP, with the real SDK client: batches
// of ten, each message with its delay and its cluster's message group (SQS fair queues), and
// a refused entry said by name.
import { describe, expect, it } from 'vitest';
import { CreateQueueCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { sqsWorkQueue } from '../../lib/queue/sqs-work-queue.js';
import { UnsentMessagesError } from '../../lib/sync/ports/work-queue.js';
import { sendWithRetries } from '../../lib/sync/send-ticks.js';
import { useLocalSqs } from '../support/local-sqs.js';

let now = Date.parse('2026-03-01T10:00:00Z');
const local = useLocalSqs(() => now);
let n = 0;

async function queueUrl(): Promise<string> {
  return (await local.client.send(new CreateQueueCommand({ QueueName: `work${++n}` }))).QueueUrl!;
}
async function receiveAll(QueueUrl: string): Promise<Message[]> {
  const out: Message[] = [];
  for (;;) {
    const got = (await local.client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }))).Messages ?? [];
    if (got.length === 0) return out;
    out.push(...got);
  }
}


describe('the SQS work queue', () => {
  it('sends in batches of ten, each message with its delay and its MessageGroupId', async () => {
    const url = await queueUrl();
    const queue = sqsWorkQueue(local.client, { ticks: url });
    const messages: Parameters<typeof queue.send>[0] = [
      ...Array.from({ length: 15 }, (_, i) => ({ kind: 'tick' as const, body: `prod-${i}`, delaySeconds: i < 12 ? 0 : 15, groupId: 'prod' })),
      ...Array.from({ length: 7 }, (_, i) => ({ kind: 'tick' as const, body: `batch-${i}`, delaySeconds: 0, groupId: 'batch' })),
      { kind: 'tick', body: 'no-group', delaySeconds: 0 },
    ];
    const before = local.sqs.count('SendMessageBatch');
    await queue.send(messages);
    expect(local.sqs.count('SendMessageBatch') - before).toBe(3);
    expect(queue).toMatchObject({ sent: 23, calls: 3 });
    const first = await receiveAll(url);
    expect(first).toHaveLength(20);
    now += 15_000;
    const later = await receiveAll(url);
    expect(later.map((m) => m.Body).sort()).toEqual(['prod-12', 'prod-13', 'prod-14']);
    const group = Object.fromEntries([...first, ...later].map((m) => [m.Body, m.Attributes?.MessageGroupId]));
    expect(group).toEqual(Object.fromEntries(messages.map((m) => [m.body, m.groupId])));
  });

  it('ticks and the worker\'s delayed evaluations go to the work queue alike; a failure is named by its index in the whole send', async () => {
    const ticks = await queueUrl();
    const queue = sqsWorkQueue(local.client, { ticks });
    await queue.send([
      { kind: 'evaluate', body: 'e1', delaySeconds: 0, groupId: 'prod' },
      { kind: 'tick', body: 't1', delaySeconds: 0, groupId: 'prod' },
      { kind: 'evaluate', body: 'e2', delaySeconds: 0, groupId: 'prod' },
    ]);
    expect(queue.calls).toBe(1);
    expect((await receiveAll(ticks)).map((m) => m.Body).sort()).toEqual(['e1', 'e2', 't1']);
    const sent = queue.send([
      { kind: 'tick', body: 't2', delaySeconds: 0, groupId: 'prod' },
      { kind: 'evaluate', body: 'bad', delaySeconds: 0, groupId: 'not a group' },
    ]);
    const e = (await sent.catch((x: unknown) => x)) as UnsentMessagesError;
    expect(e.unsent.map((u) => u.index)).toEqual([1]);
  });

  it('a refused entry is an error naming it; the others are sent', async () => {
    const url = await queueUrl();
    const queue = sqsWorkQueue(local.client, { ticks: url });
    const sent = queue.send([
      { kind: 'tick', body: 'ok', delaySeconds: 0, groupId: 'prod' },
      { kind: 'tick', body: 'bad', delaySeconds: 0, groupId: 'not a group' },
    ]);
    await expect(sent).rejects.toThrow(/^1 of 2 messages not sent to SQS: InvalidParameterValue: Value not a group for parameter MessageGroupId is invalid\. .* \(bad\)$/);
    expect((await receiveAll(url)).map((m) => [m.Body, m.Attributes?.MessageGroupId])).toEqual([['ok', 'prod']]);
  });
});

describe('sending with retries (the dispatcher)', () => {
  const ticks = (n: number, delaySeconds = 10) => Array.from({ length: n }, (_, i) => ({ kind: 'tick' as const, body: `tick-${i}`, delaySeconds, groupId: 'prod' }));
  /** A queue whose time passes only while it waits: each wait takes 3 s of the virtual clock. */
  const waiting = () => ({ clock: { now: () => new Date(now) }, sleep: async () => void (now += 3_000) });

  it('a failed batch does not stop the others: what was not sent is named, message by message', async () => {
    const url = await queueUrl();
    const queue = sqsWorkQueue(local.client, { ticks: url });
    local.sqs.failNext('SendMessageBatch', 'internal-error');
    const sent = queue.send(ticks(25));
    await expect(sent).rejects.toThrow(/^10 of 25 messages not sent to SQS: 10 in batches not sent \(SQS SendMessageBatch failed: .*\)$/);
    const e = (await sent.catch((x: unknown) => x)) as UnsentMessagesError;
    expect(e).toBeInstanceOf(UnsentMessagesError);
    expect(e.unsent.map((u) => u.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    now += 10_000;
    expect((await receiveAll(url)).map((m) => m.Body).sort()).toEqual(ticks(25).slice(10).map((m) => m.body).sort());
  });

  it('sends again what SQS did not take, each keeping its second; nothing twice', async () => {
    const url = await queueUrl();
    const queue = sqsWorkQueue(local.client, { ticks: url });
    const start = now;
    local.sqs.failNext('SendMessageBatch', 'internal-error');
    local.sqs.failNext('SendMessageBatch', { failEntries: ['3'] });
    const { clock, sleep } = waiting();
    const r = await sendWithRetries(queue, ticks(16), clock, { untilMs: now + 12_000, sleep });
    expect(r).toMatchObject({ sent: 16, lost: 0, attempts: 2 });
    expect(r.errors).toEqual([expect.stringMatching(/^SQS SendMessageBatch failed: /), expect.stringMatching(/^InternalFailure: /)]);
    // The first batch went 3 s late with 7 s of its 10 left; the others at once with 10: all due at the same second.
    now = start + 9_999;
    expect(await receiveAll(url)).toEqual([]);
    now = start + 10_000;
    const got = (await receiveAll(url)).map((m) => m.Body);
    expect(got.sort()).toEqual(ticks(16).map((m) => m.body).sort());
  });

  it('what SQS keeps refusing is counted lost when the time to send runs out, with why', async () => {
    const url = await queueUrl();
    const queue = sqsWorkQueue(local.client, { ticks: url });
    local.sqs.failNext('SendMessageBatch', { failEntries: ['0', '1'] }, 10);
    const { clock, sleep } = waiting();
    const r = await sendWithRetries(queue, ticks(5), clock, { untilMs: now + 12_000, sleep });
    // Waits of 3 s each: the fourth would end past the 12 s.
    expect(r).toMatchObject({ sent: 3, lost: 2, attempts: 4 });
    expect(r.errors).toEqual([expect.stringMatching(/^InternalFailure: /)]);
    local.sqs.clearFaults();
  });
});
