// The local SQS's queues and messages: standard queues with delays, visibility timeouts,
// retention, redrive to a dead-letter queue and fair delivery across message groups, and FIFO
// queues (fifo.ts), all timed by one clock (epoch ms) so a virtual clock moves them. Inputs are the AWS JSON
// requests the SDK sends; outputs are the answers' bodies. Long polling (real time) is the
// server's job.
import { randomUUID } from 'node:crypto';
import { SqsError, sqsErrors } from './errors.js';
import {
  checkCharacters,
  checkMessageAttributes,
  messageGroupIdOf,
  messageSize,
  optionalInt,
  optionalString,
  optionalStringList,
  requiredString,
  stringMap,
  traceHeaderOf,
  type Input,
} from './input.js';
import {
  checkFifoSend,
  describeFifo,
  fifoOrder,
  findDuplicate,
  isFifoRequest,
  newFifoState,
  parseFifoAttributes,
  recordFifoSend,
  DEFAULT_FIFO_ATTRIBUTES,
  FIFO_ATTRIBUTE_NAMES,
  type FifoAttributes,
  type FifoState,
} from './fifo.js';
import { md5Hex, md5OfMessageAttributes, type WireMessageAttribute } from './md5.js';


interface QueueAttributes {
  DelaySeconds: number;
  MaximumMessageSize: number;
  MessageRetentionPeriod: number;
  ReceiveMessageWaitTimeSeconds: number;
  VisibilityTimeout: number;
  RedrivePolicy?: { deadLetterTargetArn: string; maxReceiveCount: number };
}

interface Message {
  id: string;
  body: string;
  md5OfBody: string;
  attributes: Record<string, WireMessageAttribute>;
  traceHeader?: string;
  /** Its tenant for fair delivery (SQS fair queues); without one, a message is its own tenant. */
  groupId?: string;
  senderId: string;
  sentAt: number;
  /** When it can next be received: the end of its delay or of its visibility timeout. */
  visibleAt: number;
  receiveCount: number;
  firstReceiveAt?: number;
  lastReceiveAt?: number;
  /** The latest receipt handle: only it deletes the message. */
  receipt?: string;
  deadLetterSourceArn?: string;
  /** FIFO queues: its sequence number and deduplication id. */
  sequenceNumber?: string;
  deduplicationId?: string;
}

interface Queue {
  name: string;
  url: string;
  arn: string;
  attributes: QueueAttributes;
  createdAt: number;
  modifiedAt: number;
  lastPurgeAt?: number;
  messages: Map<string, Message>;
  /** Per message group, the value of `taken` when one of its messages was last received. */
  lastServed: Map<string, number>;
  /** Messages received so far. */
  taken: number;
  /** A FIFO queue's attributes and deduplication state; absent for a standard queue. */
  fifo?: { attributes: FifoAttributes; state: FifoState };
}

/** What a ReceiveMessage asked for, checked; take() receives what is visible now. */
export interface PreparedReceive {
  queue: string;
  waitSeconds: number;
  take(): Input[];
  /** Server-clock ms until the next message becomes visible, if one will. */
  nextVisibleInMs(): number | undefined;
}

export interface SqsQueuesOptions {
  clock: () => number;
  region: string;
  accountId: string;
  /** Queue URLs start with it: http://127.0.0.1:PORT */
  baseUrl: string;
  /** Called when messages may have become receivable in a queue (wakes long polls). */
  onChange(queue: string): void;
}

const DEFAULTS: QueueAttributes = {
  DelaySeconds: 0,
  MaximumMessageSize: 262_144,
  MessageRetentionPeriod: 345_600,
  ReceiveMessageWaitTimeSeconds: 0,
  VisibilityTimeout: 30,
};
const RANGES: Record<Exclude<keyof QueueAttributes, 'RedrivePolicy'>, [number, number]> = {
  DelaySeconds: [0, 900],
  MaximumMessageSize: [1_024, 1_048_576],
  MessageRetentionPeriod: [60, 1_209_600],
  ReceiveMessageWaitTimeSeconds: [0, 20],
  VisibilityTimeout: [0, 43_200],
};
const READ_ONLY = [
  'QueueArn',
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
];
const SYSTEM_ATTRIBUTES = [
  'SenderId',
  'SentTimestamp',
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
  'AWSTraceHeader',
  'DeadLetterQueueSourceArn',
  'SequenceNumber',
  'MessageDeduplicationId',
  'MessageGroupId',
];
const MAX_VISIBILITY_SECONDS = 43_200;
const PURGE_INTERVAL_MS = 60_000;
const RECREATE_AFTER_DELETE_MS = 60_000;

const invalid = sqsErrors.invalidParameterValue;

export class SqsQueues {
  private readonly queues = new Map<string, Queue>();
  private readonly deletedAt = new Map<string, number>();

  constructor(private readonly o: SqsQueuesOptions) {}

  queueUrl(name: string): string {
    return `${this.o.baseUrl}/${this.o.accountId}/${name}`;
  }

  queueArn(name: string): string {
    return `arn:aws:sqs:${this.o.region}:${this.o.accountId}:${name}`;
  }

  CreateQueue(input: Input): Input {
    const name = requiredString(input, 'QueueName');
    const given = stringMap(input.Attributes, 'Attributes');
    const isFifo = isFifoRequest(name, given);
    if (!isFifo && !/^[A-Za-z0-9_-]{1,80}$/.test(name)) {
      throw invalid(`Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length (QueueName ${JSON.stringify(name)}).`);
    }
    const existing = this.queues.get(name);
    const fifo = parseFifoAttributes(given, isFifo ? DEFAULT_FIFO_ATTRIBUTES : undefined, true);
    if (existing) {
      const attributes = this.parseAttributes(given, existing.attributes);
      const same = (key: string) =>
        (FIFO_ATTRIBUTE_NAMES as readonly string[]).includes(key)
          ? describeFifo(fifo)[key] === describeFifo(existing.fifo?.attributes)[key]
          : JSON.stringify(attributes[key as keyof QueueAttributes]) === JSON.stringify(existing.attributes[key as keyof QueueAttributes]);
      for (const key of Object.keys(given)) {
        if (!same(key)) {
          throw sqsErrors.queueNameExists(`A queue already exists with the same name and a different value for attribute ${key}`);
        }
      }
      return { QueueUrl: existing.url };
    }
    const now = this.o.clock();
    const deleted = this.deletedAt.get(name);
    if (deleted !== undefined && now - deleted < RECREATE_AFTER_DELETE_MS) {
      throw sqsErrors.queueDeletedRecently('You must wait 60 seconds after deleting a queue before you can create another with the same name.');
    }
    const attributes = this.parseAttributes(given, DEFAULTS);
    this.checkRedriveType(attributes, isFifo);
    const queue: Queue = {
      name,
      url: this.queueUrl(name),
      arn: this.queueArn(name),
      attributes,
      createdAt: now,
      modifiedAt: now,
      messages: new Map(),
      lastServed: new Map(),
      taken: 0,
      ...(fifo ? { fifo: { attributes: fifo, state: newFifoState() } } : {}),
    };
    this.queues.set(name, queue);
    return { QueueUrl: queue.url };
  }

  GetQueueUrl(input: Input): Input {
    const name = requiredString(input, 'QueueName');
    const owner = input.QueueOwnerAWSAccountId;
    const queue = this.queues.get(name);
    if (!queue || (owner !== undefined && owner !== this.o.accountId)) throw sqsErrors.queueDoesNotExist();
    return { QueueUrl: queue.url };
  }

  ListQueues(input: Input): Input {
    const prefix = optionalString(input, 'QueueNamePrefix') ?? '';
    const max = optionalInt(input, 'MaxResults', 1, 1000);
    const after = optionalString(input, 'NextToken');
    let names = [...this.queues.keys()].filter((n) => n.startsWith(prefix)).sort();
    if (after !== undefined) {
      const last = Buffer.from(after, 'base64').toString('utf8');
      names = names.filter((n) => n > last);
    }
    const page = names.slice(0, max ?? 1000);
    const more = max !== undefined && names.length > page.length;
    return {
      ...(page.length ? { QueueUrls: page.map((n) => this.queueUrl(n)) } : {}),
      ...(more ? { NextToken: Buffer.from(page[page.length - 1]).toString('base64') } : {}),
    };
  }

  GetQueueAttributes(input: Input): Input {
    const queue = this.queueOf(input);
    const names = optionalStringList(input, 'AttributeNames') ?? [];
    const all = this.describe(queue);
    const wanted = names.includes('All') ? Object.keys(all) : names;
    const out: Record<string, string> = {};
    for (const n of wanted) {
      if (!(n in all)) throw sqsErrors.invalidAttributeName(`Unknown Attribute ${n}.`);
      if (all[n] !== undefined) out[n] = all[n];
    }
    return Object.keys(out).length ? { Attributes: out } : {};
  }

  SetQueueAttributes(input: Input): Input {
    const queue = this.queueOf(input);
    const given = stringMap(input.Attributes, 'Attributes');
    const fifo = parseFifoAttributes(given, queue.fifo?.attributes, false);
    const attributes = this.parseAttributes(given, queue.attributes);
    this.checkRedriveType(attributes, queue.fifo !== undefined);
    queue.attributes = attributes;
    if (queue.fifo && fifo) queue.fifo.attributes = fifo;
    queue.modifiedAt = this.o.clock();
    return {};
  }

  PurgeQueue(input: Input): Input {
    const queue = this.queueOf(input);
    const now = this.o.clock();
    if (queue.lastPurgeAt !== undefined && now - queue.lastPurgeAt < PURGE_INTERVAL_MS) {
      throw sqsErrors.purgeQueueInProgress(`Only one PurgeQueue operation on ${queue.name} is allowed every 60 seconds.`);
    }
    queue.lastPurgeAt = now;
    queue.messages.clear();
    queue.lastServed.clear();
    return {};
  }

  DeleteQueue(input: Input): Input {
    const queue = this.queueOf(input);
    this.queues.delete(queue.name);
    this.deletedAt.set(queue.name, this.o.clock());
    queue.messages.clear();
    this.o.onChange(queue.name);
    return {};
  }

  SendMessage(input: Input, senderId: string): Input {
    return this.send(this.queueOf(input), input, senderId);
  }

  SendMessageBatch(input: Input, senderId: string, failEntries: string[] = []): Input {
    const queue = this.queueOf(input);
    const entries = this.batchEntries(input, 'SendMessageBatchRequestEntry');
    const size = entries.reduce((n, e) => n + messageSize(e), 0);
    if (size > queue.attributes.MaximumMessageSize) {
      throw sqsErrors.batchRequestTooLong(`Batch requests cannot be longer than ${queue.attributes.MaximumMessageSize} bytes. You have sent ${size} bytes.`);
    }
    return this.batch(entries, failEntries, (e) => ({ Id: e.Id, ...this.send(queue, e, senderId) }));
  }

  DeleteMessage(input: Input): Input {
    const queue = this.queueOf(input);
    this.deleteMessage(queue, requiredString(input, 'ReceiptHandle'));
    return {};
  }

  DeleteMessageBatch(input: Input, failEntries: string[] = []): Input {
    const queue = this.queueOf(input);
    const entries = this.batchEntries(input, 'DeleteMessageBatchRequestEntry');
    return this.batch(entries, failEntries, (e) => {
      this.deleteMessage(queue, requiredString(e, 'ReceiptHandle'));
      return { Id: e.Id };
    });
  }

  ChangeMessageVisibility(input: Input): Input {
    const queue = this.queueOf(input);
    this.changeVisibility(queue, input);
    return {};
  }

  ChangeMessageVisibilityBatch(input: Input, failEntries: string[] = []): Input {
    const queue = this.queueOf(input);
    const entries = this.batchEntries(input, 'ChangeMessageVisibilityBatchRequestEntry');
    return this.batch(entries, failEntries, (e) => {
      this.changeVisibility(queue, e);
      return { Id: e.Id };
    });
  }

  prepareReceive(input: Input): PreparedReceive {
    const queue = this.queueOf(input);
    const max = optionalInt(input, 'MaxNumberOfMessages', 1, 10, 'Must be between 1 and 10, if provided.') ?? 1;
    const waitSeconds = optionalInt(input, 'WaitTimeSeconds', 0, 20, 'Must be >= 0 and <= 20, if provided.') ?? queue.attributes.ReceiveMessageWaitTimeSeconds;
    const visibility = optionalInt(input, 'VisibilityTimeout', 0, MAX_VISIBILITY_SECONDS) ?? queue.attributes.VisibilityTimeout;
    const system = [...(optionalStringList(input, 'MessageSystemAttributeNames') ?? []), ...(optionalStringList(input, 'AttributeNames') ?? [])];
    for (const n of system) if (n !== 'All' && !SYSTEM_ATTRIBUTES.includes(n)) throw sqsErrors.invalidAttributeName(`Unknown Attribute ${n}.`);
    const wantedSystem = system.includes('All') ? SYSTEM_ATTRIBUTES : system;
    const userNames = optionalStringList(input, 'MessageAttributeNames') ?? [];
    return {
      queue: queue.name,
      waitSeconds,
      take: () => this.take(queue, max, visibility).map((m) => this.wireMessage(m, wantedSystem, userNames)),
      nextVisibleInMs: () => {
        const now = this.o.clock();
        const later = [...queue.messages.values()].map((m) => m.visibleAt).filter((t) => t > now);
        return later.length ? Math.min(...later) - now : undefined;
      },
    };
  }

  private describe(queue: Queue): Record<string, string | undefined> {
    const now = this.expire(queue);
    let visible = 0;
    let inFlight = 0;
    let delayed = 0;
    for (const m of queue.messages.values()) {
      if (m.visibleAt <= now) visible++;
      else if (m.receiveCount > 0) inFlight++;
      else delayed++;
    }
    const a = queue.attributes;
    return {
      QueueArn: queue.arn,
      ApproximateNumberOfMessages: String(visible),
      ApproximateNumberOfMessagesNotVisible: String(inFlight),
      ApproximateNumberOfMessagesDelayed: String(delayed),
      CreatedTimestamp: String(Math.floor(queue.createdAt / 1000)),
      LastModifiedTimestamp: String(Math.floor(queue.modifiedAt / 1000)),
      VisibilityTimeout: String(a.VisibilityTimeout),
      MaximumMessageSize: String(a.MaximumMessageSize),
      MessageRetentionPeriod: String(a.MessageRetentionPeriod),
      DelaySeconds: String(a.DelaySeconds),
      ReceiveMessageWaitTimeSeconds: String(a.ReceiveMessageWaitTimeSeconds),
      RedrivePolicy: a.RedrivePolicy && JSON.stringify(a.RedrivePolicy),
      ...describeFifo(queue.fifo?.attributes),
    };
  }

  private parseAttributes(given: Record<string, string>, base: QueueAttributes): QueueAttributes {
    const out: QueueAttributes = { ...base };
    for (const [key, value] of Object.entries(given)) {
      if ((FIFO_ATTRIBUTE_NAMES as readonly string[]).includes(key)) continue; // fifo.ts
      if (key === 'RedrivePolicy') {
        out.RedrivePolicy = value === '' ? undefined : this.parseRedrivePolicy(value);
      } else if (key in RANGES) {
        const [min, max] = RANGES[key as keyof typeof RANGES];
        if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
          throw sqsErrors.invalidAttributeValue(`Invalid value for the parameter ${key}. Reason: must be an integer from ${min} to ${max}.`);
        }
        out[key as keyof typeof RANGES] = Number(value);
      } else {
        const why = READ_ONLY.includes(key) ? ' (it is read-only)' : '';
        throw sqsErrors.invalidAttributeName(`Unknown Attribute ${key}${why}. The local SQS sets ${[...Object.keys(RANGES), 'RedrivePolicy'].join(', ')}.`);
      }
    }
    return out;
  }

  private parseRedrivePolicy(value: string): QueueAttributes['RedrivePolicy'] {
    const bad = (why: string) => invalid(`Value ${value} for parameter RedrivePolicy is invalid. Reason: ${why}`);
    let p: unknown;
    try {
      p = JSON.parse(value);
    } catch {
      throw bad('Redrive policy is not a valid JSON map.');
    }
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw bad('Redrive policy is not a valid JSON map.');
    const { deadLetterTargetArn, maxReceiveCount, ...rest } = p as Record<string, unknown>;
    if (Object.keys(rest).length) throw bad('Only following attributes are supported: [deadLetterTargetArn, maxReceiveCount].');
    const count = Number(maxReceiveCount);
    if (maxReceiveCount === undefined) throw bad('Redrive policy does not contain mandatory attribute: maxReceiveCount.');
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw bad(`Invalid value for maxReceiveCount: ${String(maxReceiveCount)}, valid values are from 1 to 1000 both inclusive.`);
    if (typeof deadLetterTargetArn !== 'string') throw bad('Redrive policy does not contain mandatory attribute: deadLetterTargetArn.');
    if (!this.queueByArn(deadLetterTargetArn)) throw bad('Dead letter target does not exist.');
    return { deadLetterTargetArn, maxReceiveCount: count };
  }

  /** A dead-letter queue must be of its source queue's type (FIFO or standard). */
  private checkRedriveType(a: QueueAttributes, isFifo: boolean): void {
    const dlq = a.RedrivePolicy && this.queueByArn(a.RedrivePolicy.deadLetterTargetArn);
    if (dlq && (dlq.fifo !== undefined) !== isFifo) {
      throw invalid(`Value ${JSON.stringify(a.RedrivePolicy)} for parameter RedrivePolicy is invalid. Reason: Dead-letter target owner queue must be of the same type (${isFifo ? 'FIFO' : 'standard'}) as the source queue.`);
    }
  }

  private queueByArn(arn: string): Queue | undefined {
    const name = arn.split(':').pop() ?? '';
    const queue = this.queues.get(name);
    return queue?.arn === arn ? queue : undefined;
  }

  private queueOf(input: Input): Queue {
    const url = requiredString(input, 'QueueUrl');
    let path: string[];
    try {
      path = new URL(url).pathname.split('/').filter(Boolean);
    } catch {
      throw sqsErrors.queueDoesNotExist();
    }
    const queue = path.length === 2 && path[0] === this.o.accountId ? this.queues.get(path[1]) : undefined;
    if (!queue) throw sqsErrors.queueDoesNotExist();
    return queue;
  }

  /** Drops messages past the queue's retention period; returns now. */
  private expire(queue: Queue): number {
    const now = this.o.clock();
    const keepMs = queue.attributes.MessageRetentionPeriod * 1000;
    for (const [id, m] of queue.messages) if (now - m.sentAt >= keepMs) queue.messages.delete(id);
    return now;
  }

  private send(queue: Queue, input: Input, senderId: string): Input {
    const body = input.MessageBody;
    if (typeof body !== 'string' || body === '') throw sqsErrors.missingParameter('The request must contain the parameter MessageBody.');
    checkCharacters(body, 'the message body');
    // A standard queue takes a MessageGroupId (fair queues), never a MessageDeduplicationId.
    if (!queue.fifo && input.MessageDeduplicationId !== undefined) {
      throw invalid(`Value ${String(input.MessageDeduplicationId)} for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.`);
    }
    const groupId = messageGroupIdOf(input);
    const fifo = queue.fifo && checkFifoSend(input, groupId, queue.fifo.attributes);
    const delay = optionalInt(input, 'DelaySeconds', 0, 900, 'DelaySeconds must be >= 0 and <= 900.') ?? queue.attributes.DelaySeconds;
    const attributes = checkMessageAttributes(input.MessageAttributes);
    const traceHeader = traceHeaderOf(input.MessageSystemAttributes);
    const size = messageSize(input);
    if (size > queue.attributes.MaximumMessageSize) {
      throw invalid(`One or more parameters are invalid. Reason: Message must be shorter than ${queue.attributes.MaximumMessageSize} bytes.`);
    }
    const now = this.expire(queue);
    const duplicate = fifo && findDuplicate(queue.fifo!.state, fifo.dedupKey, now);
    // A duplicate within five minutes is accepted and answered as the first send was, not queued again.
    if (duplicate) return { MessageId: duplicate.messageId, SequenceNumber: duplicate.sequenceNumber, ...this.sendDigests(body, attributes, traceHeader) };
    const id = randomUUID();
    const m: Message = {
      id,
      body,
      md5OfBody: md5Hex(body),
      attributes,
      traceHeader,
      groupId,
      senderId,
      sentAt: now,
      visibleAt: now + delay * 1000,
      receiveCount: 0,
      ...(fifo ? { sequenceNumber: recordFifoSend(queue.fifo!.state, fifo.dedupKey, id, now), deduplicationId: fifo.dedupId } : {}),
    };
    queue.messages.set(m.id, m);
    this.o.onChange(queue.name);
    return { MessageId: m.id, ...(m.sequenceNumber ? { SequenceNumber: m.sequenceNumber } : {}), ...this.sendDigests(body, attributes, traceHeader) };
  }

  private sendDigests(body: string, attributes: Record<string, WireMessageAttribute>, traceHeader: string | undefined): Input {
    return {
      MD5OfMessageBody: md5Hex(body),
      ...(Object.keys(attributes).length ? { MD5OfMessageAttributes: md5OfMessageAttributes(attributes) } : {}),
      ...(traceHeader !== undefined
        ? { MD5OfMessageSystemAttributes: md5OfMessageAttributes({ AWSTraceHeader: { DataType: 'String', StringValue: traceHeader } }) }
        : {}),
    };
  }

  /** Receives up to max visible messages in fair order (FIFO order on a FIFO queue), moving those past maxReceiveCount to the dead-letter queue. */
  private take(queue: Queue, max: number, visibilitySeconds: number): Message[] {
    if (this.queues.get(queue.name) !== queue) return [];
    const now = this.expire(queue);
    const redrive = queue.attributes.RedrivePolicy;
    const dlq = redrive && this.queueByArn(redrive.deadLetterTargetArn);
    const out: Message[] = [];
    for (const m of queue.fifo ? fifoOrder(queue.messages.values(), now) : fairOrder(queue, now)) {
      if (out.length === max) break;
      if (redrive && dlq && dlq !== queue && m.receiveCount >= redrive.maxReceiveCount) {
        // SQS moves the message on the receive that would exceed maxReceiveCount; it keeps
        // its id, body, sent time and receive count.
        queue.messages.delete(m.id);
        m.deadLetterSourceArn = queue.arn;
        m.receipt = undefined;
        dlq.messages.set(m.id, m);
        this.o.onChange(dlq.name);
        continue;
      }
      m.receiveCount++;
      m.firstReceiveAt ??= now;
      m.lastReceiveAt = now;
      m.visibleAt = now + visibilitySeconds * 1000;
      m.receipt = Buffer.from(JSON.stringify([queue.name, m.id, randomUUID()])).toString('base64');
      out.push(m);
      queue.taken++;
      if (m.groupId !== undefined) queue.lastServed.set(m.groupId, queue.taken);
    }
    return out;
  }

  private wireMessage(m: Message, system: string[], userNames: string[]): Input {
    const values: Record<string, string | undefined> = {
      SenderId: m.senderId,
      SentTimestamp: String(m.sentAt),
      ApproximateReceiveCount: String(m.receiveCount),
      ApproximateFirstReceiveTimestamp: m.firstReceiveAt === undefined ? undefined : String(m.firstReceiveAt),
      AWSTraceHeader: m.traceHeader,
      DeadLetterQueueSourceArn: m.deadLetterSourceArn,
      MessageGroupId: m.groupId,
      SequenceNumber: m.sequenceNumber,
      MessageDeduplicationId: m.deduplicationId,
    };
    const attributes = Object.fromEntries(system.filter((n) => values[n] !== undefined).map((n) => [n, values[n]]));
    const user = Object.fromEntries(Object.entries(m.attributes).filter(([n]) => wantsAttribute(userNames, n)));
    const hasUser = Object.keys(user).length > 0;
    return {
      MessageId: m.id,
      ReceiptHandle: m.receipt,
      MD5OfBody: m.md5OfBody,
      Body: m.body,
      ...(Object.keys(attributes).length ? { Attributes: attributes } : {}),
      ...(hasUser ? { MessageAttributes: user, MD5OfMessageAttributes: md5OfMessageAttributes(user) } : {}),
    };
  }

  /** The message a receipt handle names in this queue (undefined once gone). */
  private byReceipt(queue: Queue, handle: string): Message | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(handle, 'base64').toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== queue.name || typeof parsed[1] !== 'string') {
      throw sqsErrors.receiptHandleIsInvalid(`The input receipt handle "${handle}" is not a valid receipt handle.`);
    }
    return queue.messages.get(parsed[1]);
  }

  private deleteMessage(queue: Queue, handle: string): void {
    const m = this.byReceipt(queue, handle);
    // An older receipt handle "succeeds, but the message will not be deleted" (DeleteMessage docs).
    if (m && m.receipt === handle) {
      queue.messages.delete(m.id);
      // On a FIFO queue, the group's next message may be received now.
      if (queue.fifo) this.o.onChange(queue.name);
    }
  }

  private changeVisibility(queue: Queue, input: Input): void {
    const handle = requiredString(input, 'ReceiptHandle');
    if (input.VisibilityTimeout === undefined) throw sqsErrors.missingParameter('The request must contain the parameter VisibilityTimeout.');
    const seconds = optionalInt(input, 'VisibilityTimeout', 0, MAX_VISIBILITY_SECONDS)!;
    const m = this.byReceipt(queue, handle);
    const now = this.expire(queue);
    const reason = (why: string) => invalid(`Value ${handle} for parameter ReceiptHandle is invalid. Reason: ${why}`);
    if (!m || m.visibleAt <= now) throw reason('Message does not exist or is not available for visibility timeout change.');
    if (m.receipt !== handle) throw reason('The receipt handle has expired.');
    if (now + seconds * 1000 - m.lastReceiveAt! > MAX_VISIBILITY_SECONDS * 1000) {
      throw invalid(`Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]`);
    }
    m.visibleAt = now + seconds * 1000;
    if (seconds === 0) this.o.onChange(queue.name);
  }

  private batchEntries(input: Input, entryName: string): Input[] {
    const entries = input.Entries;
    if (!Array.isArray(entries) || entries.length === 0) throw sqsErrors.emptyBatchRequest(`There should be at least one ${entryName} in the request.`);
    if (entries.length > 10) throw sqsErrors.tooManyEntriesInBatchRequest(`Maximum number of entries per request are 10. You have sent ${entries.length}.`);
    const seen = new Set<string>();
    for (const e of entries as Input[]) {
      if (typeof e?.Id !== 'string' || !/^[A-Za-z0-9_-]{1,80}$/.test(e.Id)) {
        throw sqsErrors.invalidBatchEntryId('A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.');
      }
      if (seen.has(e.Id)) throw sqsErrors.batchEntryIdsNotDistinct(`Id ${e.Id} repeated.`);
      seen.add(e.Id);
    }
    return entries as Input[];
  }

  /** Runs each entry; its error becomes a Failed entry. Entries in failEntries fail as an internal error. */
  private batch(entries: Input[], failEntries: string[], run: (e: Input) => Input): Input {
    const Successful: Input[] = [];
    const Failed: Input[] = [];
    for (const e of entries) {
      try {
        if (failEntries.includes(e.Id as string)) throw sqsErrors.internalFailure();
        Successful.push(run(e));
      } catch (err) {
        if (!(err instanceof SqsError)) throw err;
        Failed.push({ Id: e.Id, SenderFault: err.senderFault, Code: err.code, Message: err.message });
      }
    }
    return { Successful, Failed };
  }
}

/**
 * The visible messages in the order a receive takes them, a model of SQS fair queues: one
 * message of each tenant in turn (a message group; a message without one is its own tenant,
 * as in SQS), so one group's backlog never holds back another group's messages. Tenants never
 * served (or not since their messages ran out) go first, then those served least recently;
 * oldest first within a tenant. SQS itself only steps in once a tenant holds a large share of
 * the in-flight messages: this is fairer than SQS, never less fair.
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html
 */
function* fairOrder(queue: Queue, now: number): Generator<Message> {
  const tenants = new Map<string | Message, Message[]>();
  const present = new Set<string>();
  for (const m of queue.messages.values()) {
    if (m.groupId !== undefined) present.add(m.groupId);
    if (m.visibleAt > now) continue;
    const key = m.groupId ?? m;
    const list = tenants.get(key);
    if (list) list.push(m);
    else tenants.set(key, [m]);
  }
  // A group with no message left starts afresh, as a tenant whose backlog SQS saw drained.
  for (const g of queue.lastServed.keys()) if (!present.has(g)) queue.lastServed.delete(g);
  const served = (key: string | Message) => (typeof key === 'string' ? (queue.lastServed.get(key) ?? 0) : 0);
  // Stable: tenants served alike keep the order of their oldest message.
  const lists = [...tenants].sort(([a], [b]) => served(a) - served(b)).map(([, list]) => list);
  for (let round = 0; lists.length > 0; round++) {
    for (const list of lists) yield list[round];
    for (let i = lists.length - 1; i >= 0; i--) if (lists[i].length <= round + 1) lists.splice(i, 1);
  }
}

function wantsAttribute(names: string[], name: string): boolean {
  return names.some((n) => n === 'All' || n === '.*' || n === name || (n.endsWith('.*') && name.startsWith(n.slice(0, -1))));
}
