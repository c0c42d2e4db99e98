import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteItemCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { loadEventFilter, type EventFilter } from '../../lib/local/lambda/event-filter.js';
import { streamEventSource, writeFeed, type StreamEventHandler } from '../../lib/local/dynamodb-streams/event-source.js';
import { ensureTable } from '../../lib/store/table.js';
import { dynamoDbLocalUnavailable, startDynalite, startDynamoDbLocal, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';

const FILTER_FILE = new URL('../../infra/stream-filter.json', import.meta.url).pathname;
const unavailable = dynamoDbLocalUnavailable();
let n = 0;

const S = (s: string): AttributeValue => ({ S: s });
const item = (sk: string, extra: Record<string, AttributeValue> = {}) => ({ pk: S('c#prod#3'), sk: S(sk), ...extra });
/** A fresh table as the store makes it, described (its stream ARN). */
const createTable = async (client: DynamoDBClient, stream: boolean) => {
  const TableName = `shpa-${++n}`;
  await ensureTable(client, TableName, { stream });
  return (await client.send(new DescribeTableCommand({ TableName }))).Table!;
};
/** A handler keeping every record it was given, one list per invocation. */
function recorder(behave: (records: DynamoDBRecord[], call: number) => DynamoDBBatchResponse | void = () => undefined) {
  const calls: DynamoDBRecord[][] = [];
  const handler: StreamEventHandler = async (event) => {
    calls.push(event.Records);
    return behave(event.Records, calls.length);
  };
  return { calls, handler };
}
const summary = (records: DynamoDBRecord[]) => records.map((r) => `${r.eventName} ${r.dynamodb?.Keys?.sk?.S}`);

if (unavailable) console.warn(`skipping the DynamoDB stream event source suite: ${unavailable}`);

describe.skipIf(unavailable !== undefined)('DynamoDB stream event source on DynamoDB Local', () => {
  let db: DynamoServer;
  let client: DynamoDBClient;
  let streams: DynamoDBStreamsClient;
  let filter: EventFilter;
  /** A fresh table with a stream: writes go through put/remove, records are read from streamArn. */
  async function table() {
    const out = await createTable(client, true);
    const TableName = out.TableName!;
    return {
      streamArn: out.LatestStreamArn!,
      put: (Item: Record<string, AttributeValue>) => client.send(new PutItemCommand({ TableName, Item })),
      remove: (sk: string) => client.send(new DeleteItemCommand({ TableName, Key: { pk: S('c#prod#3'), sk: S(sk) } })),
    };
  }

  beforeAll(async () => {
    db = await startDynamoDbLocal();
    client = new DynamoDBClient({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, maxAttempts: 1 });
    streams = new DynamoDBStreamsClient({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, maxAttempts: 1 });
    filter = await loadEventFilter(FILTER_FILE);
  });
  afterAll(async () => {
    client?.destroy();
    streams?.destroy();
    await db?.stop();
  });

  it('hands over records as Lambda does, and infra/stream-filter.json passes spec inserts and changes only', async () => {
    const t = await table();
    await t.put(item('hpa#default#web', { spec: S('v1'), blob: { B: new Uint8Array([1, 2, 3]) } }));
    await t.put(item('cwm#workers#backlog', { spec: S('v1') }));
    await t.put(item('st#default#web', { rec: S('3') }));
    await t.put(item('cycle', { at: { N: '1' } }));
    await t.put(item('hpa#default#web', { spec: S('v2') }));
    await t.put(item('hpa#default#web', { spec: S('v2') })); // Unchanged: DynamoDB writes no record.
    await t.put(item('st#default#web', { rec: S('4') }));
    await t.remove('hpa#default#web');

    // Every record of the stream, and what the project's filter does with each.
    const all = recorder();
    await streamEventSource({ client: streams, streamArn: t.streamArn, handler: all.handler }).drain();
    expect(all.calls.flat().map((r) => `${summary([r])[0]} -> ${filter(r) ? 'passes' : 'dropped'}`)).toEqual([
      'INSERT hpa#default#web -> passes',
      'INSERT cwm#workers#backlog -> passes',
      'INSERT st#default#web -> dropped',
      'INSERT cycle -> dropped',
      'MODIFY hpa#default#web -> passes',
      'MODIFY st#default#web -> dropped',
      'REMOVE hpa#default#web -> dropped',
    ]);

    const spec = recorder();
    const src = streamEventSource({ client: streams, streamArn: t.streamArn, handler: spec.handler, filter });
    expect(await src.drain()).toEqual({ invocations: 1, records: 3, failures: 0, errors: 0, filtered: 4, discarded: 0 });
    const [insert, , modify] = spec.calls[0];
    expect(insert).toEqual({
      eventID: expect.any(String),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: expect.any(String),
      dynamodb: {
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { pk: { S: 'c#prod#3' }, sk: { S: 'hpa#default#web' } },
        NewImage: { pk: { S: 'c#prod#3' }, sk: { S: 'hpa#default#web' }, spec: { S: 'v1' }, blob: { B: 'AQID' } },
        SequenceNumber: expect.stringMatching(/^\d+$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
      eventSourceARN: t.streamArn,
    });
    expect(modify.dynamodb).toMatchObject({ NewImage: { spec: { S: 'v2' } }, OldImage: { spec: { S: 'v1' }, blob: { B: 'AQID' } } });
    expect(BigInt(modify.dynamodb!.SequenceNumber!) > BigInt(insert.dynamodb!.SequenceNumber!)).toBe(true);
  });

  it('batches by batchSize, and each drain reads only what is new', async () => {
    const t = await table();
    for (let i = 0; i < 5; i++) await t.put(item(`hpa#ns#a${i}`));
    const { calls, handler } = recorder();
    const src = streamEventSource({ client: streams, streamArn: t.streamArn, handler, filter, batchSize: 2 });
    expect(await src.drain()).toMatchObject({ invocations: 3, records: 5 });
    expect(calls.map((c) => c.length)).toEqual([2, 2, 1]);
    expect(await src.drain()).toMatchObject({ invocations: 0 });
    await t.put(item('hpa#ns#a5'));
    await src.drain();
    expect(summary(calls.flat())).toEqual([0, 1, 2, 3, 4, 5].map((i) => `INSERT hpa#ns#a${i}`));
  });

  it('starts at the newest record with LATEST', async () => {
    const t = await table();
    await t.put(item('hpa#ns#before'));
    const { calls, handler } = recorder();
    const src = streamEventSource({ client: streams, streamArn: t.streamArn, handler, startingPosition: 'LATEST' });
    expect(await src.drain()).toMatchObject({ invocations: 0 });
    await t.put(item('hpa#ns#after'));
    await src.drain();
    expect(summary(calls.flat())).toEqual(['INSERT hpa#ns#after']);
  });

  it('retries a batch whose invocation throws, and gives it up after maximumRetryAttempts', async () => {
    const t = await table();
    await t.put(item('hpa#ns#flaky'));
    const flaky = recorder((_, call) => {
      if (call === 1) throw new Error('once');
    });
    const src = streamEventSource({ client: streams, streamArn: t.streamArn, handler: flaky.handler });
    expect(await src.drain()).toMatchObject({ invocations: 2, errors: 1, failures: 1, discarded: 0 });
    expect(flaky.calls.map(summary)).toEqual([['INSERT hpa#ns#flaky'], ['INSERT hpa#ns#flaky']]);

    await t.put(item('hpa#ns#poison'));
    await t.put(item('hpa#ns#next'));
    const given: unknown[] = [];
    const poison = recorder((records) => {
      if (records.some((r) => r.dynamodb?.Keys?.sk?.S === 'hpa#ns#poison')) throw new Error('poison');
    });
    const strict = streamEventSource({
      client: streams,
      streamArn: t.streamArn,
      handler: poison.handler,
      batchSize: 1,
      maximumRetryAttempts: 2,
      startingPosition: 'TRIM_HORIZON',
      onDiscard: (records, reason) => given.push(...summary(records), (reason as Error).message),
    });
    expect(await strict.drain()).toMatchObject({ invocations: 5, errors: 3, discarded: 1 });
    // The stream moves on past the given-up batch.
    expect(poison.calls.map(summary)).toEqual([
      ['INSERT hpa#ns#flaky'],
      ['INSERT hpa#ns#poison'],
      ['INSERT hpa#ns#poison'],
      ['INSERT hpa#ns#poison'],
      ['INSERT hpa#ns#next'],
    ]);
    expect(given).toEqual(['INSERT hpa#ns#poison', 'poison']);
  });

  it('with ReportBatchItemFailures retries from the lowest sequence number reported', async () => {
    const t = await table();
    for (const name of ['a', 'b', 'c']) await t.put(item(`hpa#ns#${name}`));
    const { calls, handler } = recorder((records, call) => (call === 1 ? { batchItemFailures: [{ itemIdentifier: records[1].dynamodb!.SequenceNumber! }] } : undefined));
    const src = streamEventSource({ client: streams, streamArn: t.streamArn, handler, reportBatchItemFailures: true });
    expect(await src.drain()).toMatchObject({ invocations: 2, records: 5, failures: 2, errors: 0 });
    expect(calls.map(summary)).toEqual([
      ['INSERT hpa#ns#a', 'INSERT hpa#ns#b', 'INSERT hpa#ns#c'],
      ['INSERT hpa#ns#b', 'INSERT hpa#ns#c'],
    ]);
  });

  it('start() polls in real time until stop()', async () => {
    const t = await table();
    let got!: (r: DynamoDBRecord) => void;
    const seen = new Promise<DynamoDBRecord>((r) => (got = r));
    const src = streamEventSource({ client: streams, streamArn: t.streamArn, handler: async (e) => got(e.Records[0]), filter, pollIntervalMs: 20 });
    src.start();
    await t.put(item('hpa#ns#live'));
    expect(summary([await seen])).toEqual(['INSERT hpa#ns#live']);
    await src.stop();
    expect(src.counters.invocations).toBe(1);
  });
});

describe('writeFeed: synthesised stream records for the demo (dynalite has no streams)', () => {
  let db: DynamoServer;
  let client: DynamoDBClient;
  beforeAll(async () => {
    db = await startDynalite();
    client = new DynamoDBClient({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, maxAttempts: 1 });
  });
  afterAll(async () => {
    client.destroy();
    await db.stop();
  });

  it('tells INSERT, MODIFY and REMOVE apart, skips writes that change nothing, and leaves the caller its answer', async () => {
    const TableName = (await createTable(client, false)).TableName!;
    const { calls, handler } = recorder();
    const feed = writeFeed(client, { tableName: TableName, handler, clock: () => Date.parse('2025-01-01T00:00:00Z') });
    const key = { pk: S('c#prod#3'), sk: S('hpa#default#web') };
    const first = await client.send(new PutItemCommand({ TableName, Item: { ...key, spec: S('v1'), blob: { B: new Uint8Array([1, 2, 3]) } } }));
    expect(first.Attributes).toBeUndefined();
    await client.send(new PutItemCommand({ TableName, Item: { ...key, spec: S('v2') } }));
    await client.send(new PutItemCommand({ TableName, Item: { ...key, spec: S('v2') } }));
    await client.send(new UpdateItemCommand({ TableName, Key: key, UpdateExpression: 'SET spec = :s', ExpressionAttributeValues: { ':s': S('v3') } }));
    await expect(
      client.send(new PutItemCommand({ TableName, Item: { ...key, spec: S('lost') }, ConditionExpression: 'attribute_not_exists(pk)' })),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    const removed = await client.send(new DeleteItemCommand({ TableName, Key: key, ReturnValues: 'ALL_OLD' }));
    expect(removed.Attributes?.spec).toEqual(S('v3'));
    await client.send(new DeleteItemCommand({ TableName, Key: key }));
    // The document client's writes are seen too, images in their wire form.
    await DynamoDBDocumentClient.from(client).send(new PutCommand({ TableName, Item: { pk: 'c#prod#3', sk: 'cwm#workers#backlog', n: 5 } }));
    await feed.idle();

    const records = calls.flat();
    expect(summary(records)).toEqual(['INSERT hpa#default#web', 'MODIFY hpa#default#web', 'MODIFY hpa#default#web', 'REMOVE hpa#default#web', 'INSERT cwm#workers#backlog']);
    expect(records[0]).toEqual({
      eventID: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      dynamodb: {
        ApproximateCreationDateTime: Date.parse('2025-01-01T00:00:00Z') / 1000,
        Keys: key,
        NewImage: { ...key, spec: S('v1'), blob: { B: 'AQID' } },
        SequenceNumber: '000000000000000000001',
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
      eventSourceARN: feed.streamArn,
    });
    expect(records[1].dynamodb).toMatchObject({ NewImage: { spec: S('v2') }, OldImage: { spec: S('v1'), blob: { B: 'AQID' } } });
    expect(records[2].dynamodb).toMatchObject({ NewImage: { spec: S('v3') }, OldImage: { spec: S('v2') } });
    expect(records[3].dynamodb).toMatchObject({ Keys: key, OldImage: { spec: S('v3') } });
    expect(records[3].dynamodb?.NewImage).toBeUndefined();
    expect(records[4].dynamodb?.NewImage).toEqual({ pk: S('c#prod#3'), sk: S('cwm#workers#backlog'), n: { N: '5' } });
    feed.detach();
  });

  it('passes the records through the same filter, and stops at detach()', async () => {
    const TableName = (await createTable(client, false)).TableName!;
    const { calls, handler } = recorder();
    const feed = writeFeed(client, { tableName: TableName, handler, filter: await loadEventFilter(FILTER_FILE) });
    const put = (sk: string) => client.send(new PutItemCommand({ TableName, Item: item(sk) }));
    await put('hpa#default#web');
    await put('st#default#web');
    await client.send(new DeleteItemCommand({ TableName, Key: { pk: S('c#prod#3'), sk: S('hpa#default#web') } }));
    await feed.idle();
    expect(summary(calls.flat())).toEqual(['INSERT hpa#default#web']);
    expect(feed.counters).toMatchObject({ invocations: 1, filtered: 2 });
    feed.detach();
    await put('hpa#default#other');
    await feed.idle();
    expect(feed.counters.invocations).toBe(1);
  });
});
