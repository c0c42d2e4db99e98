// For the demo only: dynalite (the embedded DynamoDB) has no streams, so this feed watches
// the writes an SDK DynamoDBClient makes to one table and synthesises the stream record
// DynamoDB would have written, then hands it through the same filter and delivery as the
// real stream source (one record per invocation, in write order). Tests use DynamoDB
// Local's real stream (event-source.ts).
//
// PutItem and DeleteItem are sent with ReturnValues ALL_OLD (the caller's answer is left as
// it asked), so INSERT/MODIFY/REMOVE and the old image are exact; the new image is the
// request's item. UpdateItem's new image is read back (GetItem, consistent) right after it.
// As DynamoDB does, a write that changes nothing writes no record. BatchWriteItem,
// TransactWriteItems and PartiQL writes are not seen.
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, GetItemCommand, type AttributeValue as SdkAttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HttpRequest, HttpResponse } from '@smithy/protocol-http';
import type { AttributeValue, DynamoDBRecord, StreamRecord } from 'aws-lambda';
import { stableKey } from '../../shared/stable-key.js';
import { lambdaContexts } from '../lambda/runtime.js';
import { checkDeliveryOptions, deliverRecords, zeroStreamCounters, type StreamCounters, type StreamDeliveryOptions } from './delivery.js';

export interface WriteFeedOptions extends StreamDeliveryOptions {
  tableName: string;
  /** Default NEW_AND_OLD_IMAGES. */
  streamViewType?: 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';
  /** For awsRegion and the stream ARN. Default us-east-1. */
  region?: string;
  accountId?: string;
  /** ApproximateCreationDateTime, epoch ms. Default Date.now. */
  clock?: () => number;
  /** A write whose record could not be made (the write itself succeeded). Default: a warning on stderr. */
  onError?: (error: unknown) => void;
}

export interface WriteFeed {
  readonly counters: StreamCounters;
  readonly streamArn: string;
  /** Resolves once every record written so far has been delivered. */
  idle(): Promise<void>;
  /** Stops watching the client's writes (records already taken are still delivered). */
  detach(): void;
}

type Image = Record<string, AttributeValue>;
type Wire = Record<string, unknown>;

const WRITES = ['PutItemCommand', 'DeleteItemCommand', 'UpdateItemCommand'];
const FORCE = 'shpaWriteFeedReturnValues';
const WATCH = 'shpaWriteFeedRecords';

export function writeFeed(client: DynamoDBClient, o: WriteFeedOptions): WriteFeed {
  checkDeliveryOptions(o, 'writeFeed');
  const clock = o.clock ?? Date.now;
  const region = o.region ?? 'us-east-1';
  const streamArn = `arn:aws:dynamodb:${region}:${o.accountId ?? '000000000000'}:table/${o.tableName}/stream/${new Date(clock()).toISOString().slice(0, -1)}`;
  const viewType = o.streamViewType ?? 'NEW_AND_OLD_IMAGES';
  const context = o.context ?? lambdaContexts({ clock });
  const counters = zeroStreamCounters();
  const onError = o.onError ?? ((e: unknown) => console.warn(`writeFeed: no stream record for a write to ${o.tableName}: ${String(e)}`));
  let sequence = 0;
  let delivered = Promise.resolve();
  let keyNames: Promise<string[]> | undefined;
  const ours = (commandName: string | undefined, input: Wire) => WRITES.includes(commandName ?? '') && input.TableName === o.tableName;

  // Outermost: ask for the old item where the caller did not, and hide it from the caller again.
  client.middlewareStack.add(
    (next, ctx) => async (args) => {
      const input = args.input as Wire;
      const force = ours(ctx.commandName, input) && (input.ReturnValues === undefined || input.ReturnValues === 'NONE');
      if (!force) return next(args);
      const result = await next({ ...args, input: { ...input, ReturnValues: 'ALL_OLD' } as typeof args.input });
      delete (result.output as unknown as Wire).Attributes;
      return result;
    },
    { step: 'initialize', priority: 'high', name: FORCE },
  );
  // Innermost: the request and answer as they travel (AWS JSON), before the SDK (or the
  // document client) parses them.
  client.middlewareStack.add(
    (next, ctx) => async (args) => {
      if (!WRITES.includes(ctx.commandName ?? '')) return next(args);
      const result = await next(args);
      const { request } = args;
      const { response } = result;
      if (!HttpRequest.isInstance(request) || !HttpResponse.isInstance(response) || response.statusCode !== 200) return result;
      const sent = JSON.parse(bodyText(request.body)) as Wire;
      if (!ours(ctx.commandName, sent)) return result;
      const body = await readBody(response.body);
      response.body = body;
      const answer = JSON.parse(body.toString('utf8') || '{}') as Wire;
      try {
        const record = await recordOf(ctx.commandName!, sent, answer);
        if (record) delivered = delivered.then(() => deliverRecords([record], o, context, counters));
      } catch (e) {
        // Never fail the caller's write for the feed's sake.
        onError(e);
      }
      return result;
    },
    { step: 'deserialize', priority: 'low', name: WATCH },
  );

  async function recordOf(command: string, sent: Wire, answer: Wire): Promise<DynamoDBRecord | undefined> {
    const oldKnown = sent.ReturnValues === 'ALL_OLD';
    const oldImage = oldKnown ? (answer.Attributes as Image | undefined) : undefined;
    let newImage: Image | undefined;
    let keys: Image;
    if (command === 'PutItemCommand') {
      newImage = sent.Item as Image;
      keyNames ??= client.send(new DescribeTableCommand({ TableName: o.tableName })).then((d) => (d.Table?.KeySchema ?? []).map((k) => k.AttributeName!));
      const names = await keyNames;
      keys = Object.fromEntries(names.map((n) => [n, newImage![n]]));
    } else {
      keys = sent.Key as Image;
      if (command === 'UpdateItemCommand') newImage = await readBack(keys);
    }
    if (!oldImage && !newImage) return undefined; // A delete of nothing.
    if (oldImage && newImage && stableKey(oldImage) === stableKey(newImage)) return undefined;
    const eventName = !newImage ? 'REMOVE' : oldImage || !oldKnown ? 'MODIFY' : 'INSERT';
    const images = {
      ...(newImage && (viewType === 'NEW_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES') ? { NewImage: newImage } : {}),
      ...(oldImage && (viewType === 'OLD_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES') ? { OldImage: oldImage } : {}),
    };
    const dynamodb: StreamRecord = {
      ApproximateCreationDateTime: Math.floor(clock() / 1000),
      Keys: keys,
      ...images,
      SequenceNumber: String(++sequence).padStart(21, '0'),
      SizeBytes: [keys, ...Object.values(images)].reduce((n, image) => n + imageSize(image), 0),
      StreamViewType: viewType,
    };
    return {
      eventID: randomUUID().replaceAll('-', ''),
      eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: region,
      dynamodb,
      eventSourceARN: streamArn,
    };
  }

  async function readBack(key: Image): Promise<Image | undefined> {
    const out = await client.send(new GetItemCommand({ TableName: o.tableName, Key: wireToSdk(key), ConsistentRead: true }));
    // The SDK decoded binaries; the stream record carries them in base64, as the wire does.
    return out.Item && (JSON.parse(JSON.stringify(out.Item, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v))) as Image);
  }

  return {
    counters,
    streamArn,
    idle: () => delivered,
    detach: () => {
      client.middlewareStack.remove(FORCE);
      client.middlewareStack.remove(WATCH);
    },
  };
}

/** The SDK's JSON request body: a string, or bytes (read as bytes: it warns when read as a string). */
function bodyText(body: unknown): string {
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return typeof body === 'string' ? body : '{}';
}

async function readBody(body: unknown): Promise<Buffer> {
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const c of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

/** Keys as the SDK takes them: binaries as bytes. */
function wireToSdk(image: Image): Record<string, SdkAttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([k, v]) => [k, v.B !== undefined ? { B: Buffer.from(v.B, 'base64') } : v])) as Record<string, SdkAttributeValue>;
}

/** About DynamoDB's item size: names and values in bytes (numbers roughly one byte per two digits). */
function imageSize(image: Image): number {
  const value = (v: AttributeValue): number => {
    if (v.S !== undefined) return Buffer.byteLength(v.S);
    if (v.N !== undefined) return Math.ceil(v.N.length / 2) + 1;
    if (v.B !== undefined) return Buffer.from(v.B, 'base64').length;
    if (v.SS ?? v.NS ?? v.BS) return (v.SS ?? v.NS ?? v.BS)!.reduce((n, x) => n + Buffer.byteLength(x), 0);
    if (v.M !== undefined) return 3 + imageSize(v.M);
    if (v.L !== undefined) return 3 + v.L.reduce((n, x) => n + 1 + value(x), 0);
    return 1;
  };
  return Object.entries(image).reduce((n, [k, v]) => n + Buffer.byteLength(k) + value(v), 0);
}
