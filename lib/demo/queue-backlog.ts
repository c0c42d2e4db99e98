// The demo's SQS queues: for each SQSQueueMetric an example applies, its queue on the local SQS,
// whose backlog follows the trace's load. Before each tick the queue is brought to the backlog the
// load asks for: messages are sent when work arrives, and received and deleted (the consumers'
// work) when it drains, through the real SDK client, so the worker's GetQueueAttributes reads
// real counts.
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sqsQueueIdentity, type SQSQueueMetric } from '#api';

/** Messages in an SQS backlog at relative load l: none below twice the usual load, 200 at the 4× spike. */
export const SQS_BACKLOG = (l: number) => Math.max(0, Math.round(100 * (l - 2)));

export interface DemoQueues {
  /** The queues' names, in the order of the objects. */
  names: string[];
  /** Brings every queue to the backlog of the load at `ms`. */
  follow(ms: number): Promise<void>;
  close(): void;
}

/** Creates each object's queue on the local SQS (by name: the local SQS answers any account's URL path by its own). */
export async function startDemoQueues(
  sqs: { endpoint: string; region: string; queueUrl(name: string): string },
  credentials: { accessKeyId: string; secretAccessKey: string },
  objects: SQSQueueMetric[],
  loadAt: (ms: number) => number,
): Promise<DemoQueues> {
  const client = new SQSClient({ endpoint: sqs.endpoint, region: sqs.region, credentials });
  const names = [...new Set(objects.map((o) => sqsQueueIdentity(o.spec, sqs.region).name))];
  for (const name of names) {
    const fifo = name.endsWith('.fifo');
    await client.send(new CreateQueueCommand({ QueueName: name, Attributes: fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'false' } : {} }));
  }
  let sent = 0;
  return {
    names,
    async follow(ms) {
      const target = SQS_BACKLOG(loadAt(ms));
      for (const name of names) sent = await setBacklog(client, sqs.queueUrl(name), target, sent);
    },
    close: () => client.destroy(),
  };
}

/** Sends or takes messages until the queue holds `target` visible ones; returns the count of messages sent so far. */
async function setBacklog(client: SQSClient, QueueUrl: string, target: number, sent: number): Promise<number> {
  const a = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  let have = Number(a.Attributes?.ApproximateNumberOfMessages ?? 0);
  const fifo = QueueUrl.endsWith('.fifo');
  while (have < target) {
    const n = Math.min(10, target - have);
    const Entries = Array.from({ length: n }, (_, i) => ({
      Id: `m${i}`,
      MessageBody: `order ${sent + i + 1}`,
      ...(fifo ? { MessageGroupId: `g${(sent + i) % 8}`, MessageDeduplicationId: `order-${sent + i + 1}` } : {}),
    }));
    await client.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
    sent += n;
    have += n;
  }
  while (have > target) {
    const r = await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: Math.min(10, have - target) }));
    const got = r.Messages ?? [];
    if (got.length === 0) break;
    await client.send(new DeleteMessageBatchCommand({ QueueUrl, Entries: got.map((m, i) => ({ Id: `m${i}`, ReceiptHandle: m.ReceiptHandle! })) }));
    have -= got.length;
  }
  return sent;
}
