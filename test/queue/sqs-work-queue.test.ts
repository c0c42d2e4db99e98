// The work queue adapter against the local SQS over HTTP, with the real SDK client: batches
// of ten, each message with its delay and its cluster's message group (SQS fair queues), and
// a refused entry said by name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { sqsWorkQueue } from '../../lib/queue/sqs-work-queue.js';
import { startLocalSqs, type LocalSqs } from '../../lib/local/sqs-server.js';

let now = Date.parse('2026-03-01T10:00:00Z');
let sqs: LocalSqs;
let client: SQSClient;
let n = 0;

async function queueUrl(): Promise<string> {
  return (await client.send(new CreateQueueCommand({ QueueName: `work${++n}` }))).QueueUrl!;
}
async function receiveAll(QueueUrl: string): Promise<Message[]> {
  const out: Message[] = [];
  for (;;) {
    const got = (await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }))).Messages ?? [];
    if (got.length === 0) return out;
    out.push(...got);
  }
}

beforeAll(async () => {
  sqs = await startLocalSqs({ clock: () => now });
  client = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 's' }, maxAttempts: 1 });
});
afterAll(async () => {
  client.destroy();
  await sqs.close();
});

describe('the SQS work queue', () => {
  it('sends in batches of ten, each message with its delay and its MessageGroupId', async () => {
    const url = await queueUrl();
    const queue = sqsWorkQueue(client, url);
    const messages: Parameters<typeof queue.send>[0] = [
      ...Array.from({ length: 15 }, (_, i) => ({ body: `prod-${i}`, delaySeconds: i < 12 ? 0 : 15, groupId: 'prod' })),
      ...Array.from({ length: 7 }, (_, i) => ({ body: `batch-${i}`, delaySeconds: 0, groupId: 'batch' })),
      { body: 'no-group', delaySeconds: 0 },
    ];
    const before = sqs.count('SendMessageBatch');
    await queue.send(messages);
    expect(sqs.count('SendMessageBatch') - before).toBe(3);
    expect(queue).toMatchObject({ sent: 23, calls: 3 });
    const first = await receiveAll(url);
    expect(first).toHaveLength(20);
    now += 15_000;
    const later = await receiveAll(url);
    expect(later.map((m) => m.Body).sort()).toEqual(['prod-12', 'prod-13', 'prod-14']);
    const group = Object.fromEntries([...first, ...later].map((m) => [m.Body, m.Attributes?.MessageGroupId]));
    expect(group).toEqual(Object.fromEntries(messages.map((m) => [m.body, m.groupId])));
  });

  it('a refused entry is an error naming it; the others are sent', async () => {
    const url = await queueUrl();
    const queue = sqsWorkQueue(client, url);
    const sent = queue.send([
      { body: 'ok', delaySeconds: 0, groupId: 'prod' },
      { body: 'bad', delaySeconds: 0, groupId: 'not a group' },
    ]);
    await expect(sent).rejects.toThrow(/^SQS refused 1 of 2 messages: InvalidParameterValue: Value not a group for parameter MessageGroupId is invalid\. .* \(bad\)$/);
    expect((await receiveAll(url)).map((m) => [m.Body, m.Attributes?.MessageGroupId])).toEqual([['ok', 'prod']]);
  });
});
