// FIFO queues of the local SQS: their attributes, what a send must carry (a message group,
// a deduplication id or content-based deduplication, no per-message delay), the five-minute
// deduplication window, sequence numbers, and the order a receive takes: oldest first within
// a message group, and nothing of a group while one of its messages is in flight.
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-queues-understanding-logic.html
import { createHash } from 'node:crypto';
import { sqsErrors } from './errors.js';
import { optionalString, type Input } from './input.js';

/** A FIFO queue's own attributes (SQS's names and values). */
export interface FifoAttributes {
  ContentBasedDeduplication: boolean;
  DeduplicationScope: 'queue' | 'messageGroup';
  FifoThroughputLimit: 'perQueue' | 'perMessageGroupId';
}

/** What a FIFO queue remembers between sends. */
export interface FifoState {
  /** Deduplication keys seen in the last five minutes: the first send's answer and when it was sent. */
  deduplicated: Map<string, { messageId: string; sequenceNumber: string; at: number }>;
  /** The last sequence number given. */
  sequence: bigint;
}

/** The part of a message the FIFO order reads. */
export interface OrderedMessage {
  groupId?: string;
  visibleAt: number;
  receiveCount: number;
}

export const FIFO_ATTRIBUTE_NAMES = ['FifoQueue', 'ContentBasedDeduplication', 'DeduplicationScope', 'FifoThroughputLimit'] as const;
const DEDUPLICATION_WINDOW_MS = 5 * 60_000;
// Sequence numbers are large, growing decimal strings; where they start says nothing.
const FIRST_SEQUENCE = 18_000_000_000_000_000_000n;
const DEDUPLICATION_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;
const invalid = sqsErrors.invalidParameterValue;

export const DEFAULT_FIFO_ATTRIBUTES: FifoAttributes = { ContentBasedDeduplication: false, DeduplicationScope: 'queue', FifoThroughputLimit: 'perQueue' };

export function newFifoState(): FifoState {
  return { deduplicated: new Map(), sequence: FIRST_SEQUENCE };
}

/**
 * Whether CreateQueue asks for a FIFO queue: a name ending in .fifo and FifoQueue "true" go
 * together (SQS refuses either without the other, and FifoQueue "false" on a .fifo name).
 */
export function isFifoRequest(name: string, given: Record<string, string>): boolean {
  const byName = name.endsWith('.fifo');
  const flag = given.FifoQueue;
  if (flag !== undefined && flag !== 'true' && flag !== 'false') {
    throw sqsErrors.invalidAttributeValue(`Invalid value for the parameter FifoQueue. Reason: must be true or false, got ${flag}.`);
  }
  if (byName !== (flag === 'true')) {
    throw invalid(`The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length; a FIFO queue also needs the attribute FifoQueue "true" (QueueName ${JSON.stringify(name)}, FifoQueue ${flag ?? 'not given'}).`);
  }
  if (byName && !/^[A-Za-z0-9_-]{1,75}\.fifo$/.test(name)) {
    throw invalid(`The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length (QueueName ${JSON.stringify(name)}).`);
  }
  return byName;
}

/** Applies the FIFO attributes among `given` to `base`; throws on a bad value, or on any of them for a standard queue. */
export function parseFifoAttributes(given: Record<string, string>, base: FifoAttributes | undefined, creating: boolean): FifoAttributes | undefined {
  const names = Object.keys(given).filter((k) => (FIFO_ATTRIBUTE_NAMES as readonly string[]).includes(k));
  if (names.length === 0) return base;
  if (!base) {
    // FifoQueue "false" is how a standard queue may say it is one.
    if (names.every((n) => n === 'FifoQueue' && given[n] === 'false' && creating)) return undefined;
    throw sqsErrors.invalidAttributeName(`Unknown Attribute ${names.join(', ')}: ${names.length > 1 ? 'they apply' : 'it applies'} to FIFO queues only.`);
  }
  const out = { ...base };
  for (const name of names) {
    const value = given[name];
    const bad = (allowed: string) => sqsErrors.invalidAttributeValue(`Invalid value for the parameter ${name}. Reason: must be ${allowed}, got ${value}.`);
    if (name === 'FifoQueue') {
      if (!creating) throw sqsErrors.invalidAttributeName('FifoQueue is set when the queue is created and cannot change.');
    } else if (name === 'ContentBasedDeduplication') {
      if (value !== 'true' && value !== 'false') throw bad('true or false');
      out.ContentBasedDeduplication = value === 'true';
    } else if (name === 'DeduplicationScope') {
      if (value !== 'queue' && value !== 'messageGroup') throw bad('queue or messageGroup');
      out.DeduplicationScope = value;
    } else {
      if (value !== 'perQueue' && value !== 'perMessageGroupId') throw bad('perQueue or perMessageGroupId');
      out.FifoThroughputLimit = value;
    }
  }
  if (out.FifoThroughputLimit === 'perMessageGroupId' && out.DeduplicationScope !== 'messageGroup') {
    throw sqsErrors.invalidAttributeValue('Invalid value for the parameter FifoThroughputLimit. Reason: perMessageGroupId needs DeduplicationScope messageGroup.');
  }
  return out;
}

/** The FIFO attributes as GetQueueAttributes answers them. */
export function describeFifo(a: FifoAttributes | undefined): Record<string, string | undefined> {
  return {
    FifoQueue: a ? 'true' : undefined,
    ContentBasedDeduplication: a ? String(a.ContentBasedDeduplication) : undefined,
    DeduplicationScope: a?.DeduplicationScope,
    FifoThroughputLimit: a?.FifoThroughputLimit,
  };
}

/**
 * What a send to a FIFO queue must carry, checked as SQS checks it: a MessageGroupId, a
 * MessageDeduplicationId unless the queue deduplicates by content, and no DelaySeconds of its
 * own (FIFO queues delay per queue only). Returns the group and the deduplication key.
 */
export function checkFifoSend(input: Input, groupId: string | undefined, a: FifoAttributes): { groupId: string; dedupKey: string; dedupId: string } {
  if (groupId === undefined) throw sqsErrors.missingParameter('The request must contain the parameter MessageGroupId.');
  if (input.DelaySeconds !== undefined && input.DelaySeconds !== null && input.DelaySeconds !== 0) {
    throw invalid(`Value ${String(input.DelaySeconds)} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.`);
  }
  let dedupId = optionalString(input, 'MessageDeduplicationId');
  if (dedupId !== undefined && !DEDUPLICATION_ID.test(dedupId)) {
    throw invalid(`Value ${dedupId} for parameter MessageDeduplicationId is invalid. Reason: MessageDeduplicationId can only include alphanumeric and punctuation characters. 1 to 128 in length.`);
  }
  if (dedupId === undefined) {
    if (!a.ContentBasedDeduplication) throw invalid('The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly');
    // Content-based: the SHA-256 of the body (not the attributes).
    dedupId = createHash('sha256').update(String(input.MessageBody)).digest('hex');
  }
  const dedupKey = a.DeduplicationScope === 'messageGroup' ? JSON.stringify([groupId, dedupId]) : dedupId;
  return { groupId, dedupKey, dedupId };
}

/** The earlier send of the same deduplication key within five minutes, if any (older keys are forgotten). */
export function findDuplicate(state: FifoState, dedupKey: string, now: number): { messageId: string; sequenceNumber: string } | undefined {
  for (const [k, v] of state.deduplicated) {
    if (now - v.at < DEDUPLICATION_WINDOW_MS) break;
    state.deduplicated.delete(k);
  }
  return state.deduplicated.get(dedupKey);
}

/** Gives the next sequence number and remembers the send for deduplication. */
export function recordFifoSend(state: FifoState, dedupKey: string, messageId: string, now: number): string {
  state.sequence += 1n;
  const sequenceNumber = state.sequence.toString();
  state.deduplicated.set(dedupKey, { messageId, sequenceNumber, at: now });
  return sequenceNumber;
}

/**
 * The messages a receive may take now, in order: message groups by their oldest message, and
 * within a group, its visible messages oldest first up to the first that is not. A group with
 * a message in flight gives nothing (SQS returns as many of one group as it can, and holds a
 * group back while any of its messages is in flight). `messages` is in send order.
 */
export function fifoOrder<M extends OrderedMessage>(messages: Iterable<M>, now: number): M[] {
  const groups = new Map<string, M[]>();
  const blocked = new Set<string>();
  for (const m of messages) {
    const g = m.groupId ?? '';
    if (m.visibleAt > now && m.receiveCount > 0) blocked.add(g);
    const list = groups.get(g);
    if (list) list.push(m);
    else groups.set(g, [m]);
  }
  const out: M[] = [];
  for (const [g, list] of groups) {
    if (blocked.has(g)) continue;
    for (const m of list) {
      if (m.visibleAt > now) break;
      out.push(m);
    }
  }
  return out;
}
