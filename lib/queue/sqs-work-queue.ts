// The work queue on SQS: ticks, and what the worker sends again a second later (a busy tick, a
// busy, coalesced or conflicting evaluation; lib/sync/worker.ts). Events' evaluations go to the
// evaluator function instead (lib/queue/lambda-evaluations.ts). Messages
// are sent in batches of ten (SendMessageBatch), each with its own delay and, when given, its
// group: the cluster. A batch entry SQS refuses is an error
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
import { UnsentMessagesError, type WorkMessageEntry, type WorkQueue } from '#sync/ports';

const BATCH = 10;

/** The work queue, with counters of messages sent and SendMessageBatch calls. */
export type SqsWorkQueue = WorkQueue & { sent: number; calls: number };

/** The work queue's URL. */
export interface QueueUrls {
  ticks: string;
}

/**
 * Every batch is tried, whatever happened to the one before: what was not sent (an entry SQS
 * refused, a batch whose call failed, batches not tried once the signal aborted) is thrown as
 * an UnsentMessagesError naming each, so that a caller can send exactly those again.
 */
export function sqsWorkQueue(client: SQSClient, urls: QueueUrls): SqsWorkQueue {
  const queue = {
    sent: 0,
    calls: 0,
    async send(messages: WorkMessageEntry[], signal?: AbortSignal): Promise<void> {
      const unsent: { index: number; error: string }[] = [];
      const refused: string[] = [];
      let notSent = 0;
      let why = '';
      const url = urls.ticks;
      for (let i = 0; i < messages.length; i += BATCH) {
        const batch = messages.slice(i, i + BATCH).map((_, j) => i + j);
        const all = (error: string) => {
          batch.forEach((index) => unsent.push({ index, error }));
          notSent += batch.length;
          why ||= error;
        };
        if (signal?.aborted) {
          all('the time to send ran out');
          continue;
        }
        queue.calls++;
        let r;
        try {
          r = await client.send(
            new SendMessageBatchCommand({
              QueueUrl: url,
              Entries: batch.map((index, j) => {
                const m = messages[index];
                return { Id: String(j), MessageBody: m.body, DelaySeconds: m.delaySeconds, MessageGroupId: m.groupId };
              }),
            }),
            { abortSignal: signal },
          );
        } catch (e) {
          all(`SQS SendMessageBatch failed: ${e instanceof Error ? e.message : String(e)}`);
          continue;
        }
        queue.sent += r.Successful?.length ?? 0;
        for (const f of r.Failed ?? []) {
          const error = `${f.Code ?? 'error'}: ${f.Message ?? ''}`;
          const index = batch[Number(f.Id)];
          unsent.push({ index, error });
          refused.push(`${error} (${messages[index]?.body.slice(0, 120) ?? f.Id})`);
        }
      }
      if (unsent.length === 0) return;
      unsent.sort((a, b) => a.index - b.index);
      const said = [...refused, ...(notSent > 0 ? [`${notSent} in batches not sent (${why})`] : [])];
      throw new UnsentMessagesError(`${unsent.length} of ${messages.length} messages not sent to SQS: ${said.join('; ')}`, unsent);
    },
  };
  return queue;
}
