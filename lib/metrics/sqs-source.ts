// SQSQueueMetric objects read at the source: one GetQueueAttributes per distinct queue (region,
// role, URL) per fetch, shared by every object on that queue, so a shard's tick asks each queue
// once. What counts follows KEDA's aws-sqs-queue scaler: visible, plus in flight unless
// scaleOnInFlight is false, plus delayed when scaleOnDelayed is true. A failure is that object's
// error in our words and the queue's identity, never AWS's text.
import { GetQueueAttributesCommand, type QueueAttributeName, type SQSClient } from '@aws-sdk/client-sqs';
import type { MetricSample } from '#hpa';
import { type MetricAccess, sqsAccessProblem, sqsQueueIdentity, type SqsQueueIdentity, type SQSQueueMetric } from '#api';

export interface SqsSourceOptions {
  /** A client for the queue's region, through the role when one is named. */
  clientFor(region: string, roleArn?: string): SQSClient;
  /** Region of a queueName that names none. */
  defaultRegion?: string;
  /** The deploy's grants (param metricAccess): a queue no pattern grants is not read. */
  access: MetricAccess;
}

export interface SqsAnswer {
  result: { value: MetricSample[]; error?: undefined } | { error: string; value?: undefined };
}

export interface SqsStats {
  /** GetQueueAttributes calls made. */
  calls: number;
  /** Objects answered (several may share one call). */
  objects: number;
}

/** The three counts GetQueueAttributes gives, as SQS defines them. */
export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

const ATTRIBUTES: QueueAttributeName[] = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'];

/** The object's value from its queue's counts, as KEDA's aws-sqs-queue sums them. */
export function countMessages(spec: SQSQueueMetric['spec'], counts: QueueCounts): number {
  return counts.visible + (spec.scaleOnInFlight === false ? 0 : counts.inFlight) + (spec.scaleOnDelayed === true ? counts.delayed : 0);
}

/** Why a call failed, in our words: the error's kind is read, its text is not. */
export function describeSqsFailure(e: unknown, queue: SqsQueueIdentity): string {
  const err = e as { name?: unknown; Code?: unknown; $metadata?: { httpStatusCode?: number } };
  const code = [err.name, err.Code].filter((x): x is string => typeof x === 'string').join(' ');
  const status = err.$metadata?.httpStatusCode;
  const at = `SQS queue ${queue.arn}`;
  if (/QueueDoesNotExist|NonExistentQueue/.test(code)) return `${at} does not exist`;
  if (/AccessDenied|NotAuthorized|InvalidClientTokenId|UnrecognizedClient/.test(code)) return `${at}: access denied to sqs:GetQueueAttributes (check the function's role, the role assumed and param sqsQueueArns)`;
  if (/Throttl|RequestThrottled|OverLimit/.test(code)) return `${at}: GetQueueAttributes throttled by SQS`;
  if (/AbortError|TimeoutError/.test(code)) return `${at}: GetQueueAttributes did not answer in time`;
  return `${at}: GetQueueAttributes failed${status ? ` (HTTP ${status})` : ''}`;
}

function count(attrs: Partial<Record<string, string>> | undefined, name: string): number | undefined {
  const n = Number(attrs?.[name]);
  return attrs?.[name] !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

export class SqsSource {
  private calls = 0;
  private objects = 0;

  constructor(private readonly options: SqsSourceOptions) {}

  /** One answer per object, in order; never throws. */
  async fetch(objects: SQSQueueMetric[], now: Date, signal?: AbortSignal): Promise<SqsAnswer[]> {
    this.objects += objects.length;
    const reads = new Map<string, Promise<QueueCounts | { error: string }>>();
    const planned = objects.map((o): { key: string; queue: SqsQueueIdentity } | { error: string } => {
      let queue: SqsQueueIdentity;
      try {
        queue = sqsQueueIdentity(o.spec, this.options.defaultRegion);
      } catch (e) {
        return { error: (e as Error).message };
      }
      const refused = sqsAccessProblem(o, queue.arn, this.options.access);
      if (refused) return { error: refused };
      const key = `${queue.region}\u0000${o.spec.roleArn ?? ''}\u0000${queue.url}`;
      if (!reads.has(key)) reads.set(key, this.readQueue(queue, o.spec.roleArn, signal));
      return { key, queue };
    });
    const timestamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const answers: SqsAnswer[] = [];
    for (const [i, p] of planned.entries()) {
      if ('error' in p) {
        answers.push({ result: { error: p.error } });
        continue;
      }
      const counts = await reads.get(p.key)!;
      if ('error' in counts) answers.push({ result: { error: counts.error } });
      else answers.push({ result: { value: [{ value: String(countMessages(objects[i].spec, counts)), timestamp }] } });
    }
    return answers;
  }

  private async readQueue(queue: SqsQueueIdentity, roleArn: string | undefined, signal?: AbortSignal): Promise<QueueCounts | { error: string }> {
    this.calls++;
    try {
      const client = this.options.clientFor(queue.region, roleArn);
      const out = await client.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ATTRIBUTES }), { abortSignal: signal });
      const visible = count(out.Attributes, 'ApproximateNumberOfMessages');
      const inFlight = count(out.Attributes, 'ApproximateNumberOfMessagesNotVisible');
      const delayed = count(out.Attributes, 'ApproximateNumberOfMessagesDelayed');
      if (visible === undefined || inFlight === undefined || delayed === undefined) {
        return { error: `SQS queue ${queue.arn}: GetQueueAttributes answered without the message counts` };
      }
      return { visible, inFlight, delayed };
    } catch (e) {
      return { error: describeSqsFailure(e, queue) };
    }
  }

  stats(): SqsStats {
    return { calls: this.calls, objects: this.objects };
  }

  resetStats(): void {
    this.calls = 0;
    this.objects = 0;
  }
}
