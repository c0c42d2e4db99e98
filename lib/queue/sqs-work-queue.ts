// The work queue on SQS: messages sent in batches of ten (SendMessageBatch), each with its
// own delay and, when given, its group: the cluster. A batch entry SQS refuses is an error
// naming it; nothing is dropped silently.
//
// On a standard queue a MessageGroupId turns on SQS fair queues (no queue setting): it names
// the tenant, and a tenant holding a disproportionate share of the in-flight messages or of
// the consumers' time is served after the others until its backlog is gone. So one cluster's
// backlog cannot hold back another's ticks; within a group it stays a standard queue (no
// ordering, full parallelism). Group ids: 1–128 alphanumeric or punctuation characters; an
// EKS cluster name (at most 100 of [A-Za-z0-9_-]) always is one.
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { WorkQueue } from '../sync/ports.js';

const BATCH = 10;

/** The work queue, with counters of messages sent and SendMessageBatch calls. */
export type SqsWorkQueue = WorkQueue & { sent: number; calls: number };

export function sqsWorkQueue(client: SQSClient, queueUrl: string): SqsWorkQueue {
  const queue = {
    sent: 0,
    calls: 0,
    async send(messages: { body: string; delaySeconds: number; groupId?: string }[], signal?: AbortSignal): Promise<void> {
      const failures: string[] = [];
      for (let i = 0; i < messages.length; i += BATCH) {
        const batch = messages.slice(i, i + BATCH);
        queue.calls++;
        const r = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((m, j) => ({ Id: String(j), MessageBody: m.body, DelaySeconds: m.delaySeconds, MessageGroupId: m.groupId })),
          }),
          { abortSignal: signal },
        );
        queue.sent += r.Successful?.length ?? 0;
        for (const f of r.Failed ?? []) failures.push(`${f.Code ?? 'error'}: ${f.Message ?? ''} (${batch[Number(f.Id)]?.body.slice(0, 120) ?? f.Id})`);
      }
      if (failures.length > 0) throw new Error(`SQS refused ${failures.length} of ${messages.length} messages: ${failures.join('; ')}`);
    },
  };
  return queue;
}
