// What Lambda's DynamoDB stream event source mapping does, run locally against DynamoDB
// Local's real table stream with the real @aws-sdk/client-dynamodb-streams client: follow
// the shards (a child after its parent), read records in order, filter, invoke in batches,
// retry a failed batch (see delivery.ts).
//
// start()/stop(): poll in real time (shpa local up, real-time e2e tests).
// drain(): read every shard up to its newest record, then resolve with what it did.
// The demo's dynalite has no streams: write-feed.ts synthesises the records there.
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type AttributeValue,
  type DynamoDBStreamsClient,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue as LambdaAttributeValue, DynamoDBRecord } from 'aws-lambda';
import { countersSince, lambdaContexts, sleep, type ContextFactory } from '../lambda/runtime.js';
import { checkDeliveryOptions, deliverRecords, zeroStreamCounters, type StreamCounters, type StreamDeliveryOptions } from './delivery.js';

export { writeFeed, type WriteFeed, type WriteFeedOptions } from './write-feed.js';
export type { StreamCounters, StreamEventHandler } from './delivery.js';

export interface StreamEventSourceOptions extends StreamDeliveryOptions {
  client: DynamoDBStreamsClient;
  /** The table's LatestStreamArn. */
  streamArn: string;
  /** Where to start in the shards open at the first drain()/start(). Default TRIM_HORIZON. */
  startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /** start(): pause between polls of the stream. Default 250 ms (Lambda reads a shard 4 times a second). */
  pollIntervalMs?: number;
  /** start(): a poll that failed (it polls again after the pause). */
  onPollError?: (error: unknown) => void;
}

interface ShardState {
  iterator?: string;
  lastSequenceNumber?: string;
  initialType: 'TRIM_HORIZON' | 'LATEST';
  done: boolean;
}

type LambdaImage = Record<string, LambdaAttributeValue>;

export class StreamEventSource {
  readonly counters: StreamCounters = zeroStreamCounters();
  private readonly shards = new Map<string, ShardState>();
  private readonly context: ContextFactory;
  private described = false;
  private polling?: { abort: AbortController; loop: Promise<void> };

  constructor(private readonly o: StreamEventSourceOptions) {
    checkDeliveryOptions(o, 'StreamEventSource');
    this.context = o.context ?? lambdaContexts();
  }

  /** Reads every shard up to its newest record (a closed shard to its end), delivering as it goes. */
  async drain(): Promise<StreamCounters> {
    if (this.polling) throw new Error('StreamEventSource.drain(): the source is polling since start(); stop() it first');
    const before = { ...this.counters };
    await this.readAll();
    return countersSince(this.counters, before);
  }

  start(): void {
    if (this.polling) return;
    const abort = new AbortController();
    const loop = async () => {
      while (!abort.signal.aborted) {
        try {
          await this.readAll();
        } catch (e) {
          this.o.onPollError?.(e);
        }
        await sleep(this.o.pollIntervalMs ?? 250, abort.signal);
      }
    };
    this.polling = { abort, loop: loop() };
  }

  /** Stops polling after the read under way (and its invocations) finishes. */
  async stop(): Promise<void> {
    const p = this.polling;
    if (!p) return;
    p.abort.abort();
    await p.loop;
    this.polling = undefined;
  }

  private async readAll(): Promise<void> {
    const shards = await this.describe();
    const ids = new Set(shards.map((s) => s.ShardId!));
    const first = !this.described;
    this.described = true;
    for (const s of shards) {
      if (this.shards.has(s.ShardId!)) continue;
      // Shards that appear later (children of a split) are read from their start.
      const initialType = first ? (this.o.startingPosition ?? 'TRIM_HORIZON') : 'TRIM_HORIZON';
      const closedAtLatest = initialType === 'LATEST' && s.SequenceNumberRange?.EndingSequenceNumber !== undefined;
      this.shards.set(s.ShardId!, { initialType, done: closedAtLatest });
    }
    // A child shard is read only once its parent is done: records of a key stay in order.
    for (let progress = true; progress; ) {
      progress = false;
      for (const s of shards) {
        const state = this.shards.get(s.ShardId!)!;
        const parent = s.ParentShardId && ids.has(s.ParentShardId) ? this.shards.get(s.ParentShardId) : undefined;
        if (state.done || (parent && !parent.done)) continue;
        await this.readShard(s.ShardId!, state);
        progress ||= state.done;
      }
    }
  }

  private async describe(): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await this.o.client.send(new DescribeStreamCommand({ StreamArn: this.o.streamArn, ExclusiveStartShardId: start }));
      shards.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return shards;
  }

  /** Reads one shard up to its newest record, or to its end when closed. */
  private async readShard(shardId: string, state: ShardState): Promise<void> {
    for (;;) {
      state.iterator ??= await this.iterator(shardId, state);
      let out;
      try {
        out = await this.o.client.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 1000 }));
      } catch (e) {
        if ((e as Error).name !== 'ExpiredIteratorException') throw e;
        state.iterator = undefined;
        continue;
      }
      const records = out.Records ?? [];
      await deliverRecords(records.map((r) => lambdaRecord(r, this.o.streamArn)), this.o, this.context, this.counters);
      if (records.length) state.lastSequenceNumber = records[records.length - 1].dynamodb?.SequenceNumber;
      state.iterator = out.NextShardIterator;
      if (!state.iterator) state.done = true;
      if (state.done || !records.length) return;
    }
  }

  private async iterator(shardId: string, state: ShardState): Promise<string> {
    const at = state.lastSequenceNumber;
    const out = await this.o.client.send(
      new GetShardIteratorCommand({
        StreamArn: this.o.streamArn,
        ShardId: shardId,
        ...(at ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: at } : { ShardIteratorType: state.initialType }),
      }),
    );
    if (!out.ShardIterator) throw new Error(`StreamEventSource: GetShardIterator gave no iterator for ${shardId} of ${this.o.streamArn}`);
    return out.ShardIterator;
  }
}

export function streamEventSource(options: StreamEventSourceOptions): StreamEventSource {
  return new StreamEventSource(options);
}

/** A stream record as Lambda puts it in the event: binary values in base64, the time in epoch seconds. */
function lambdaRecord(r: _Record, streamArn: string): DynamoDBRecord {
  const d = r.dynamodb ?? {};
  return {
    eventID: r.eventID,
    eventName: r.eventName,
    eventVersion: r.eventVersion,
    eventSource: r.eventSource,
    awsRegion: r.awsRegion,
    dynamodb: {
      ...(d.ApproximateCreationDateTime ? { ApproximateCreationDateTime: d.ApproximateCreationDateTime.getTime() / 1000 } : {}),
      ...(d.Keys ? { Keys: lambdaImage(d.Keys) } : {}),
      ...(d.NewImage ? { NewImage: lambdaImage(d.NewImage) } : {}),
      ...(d.OldImage ? { OldImage: lambdaImage(d.OldImage) } : {}),
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType,
    },
    eventSourceARN: streamArn,
    ...(r.userIdentity ? { userIdentity: r.userIdentity } : {}),
  };
}

function lambdaImage(image: Record<string, AttributeValue>): LambdaImage {
  return Object.fromEntries(Object.entries(image).map(([k, v]) => [k, lambdaValue(v)]));
}

function lambdaValue(v: AttributeValue): LambdaAttributeValue {
  const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  if (v.B !== undefined) return { B: base64(v.B) };
  if (v.BS !== undefined) return { BS: v.BS.map(base64) };
  if (v.L !== undefined) return { L: v.L.map(lambdaValue) };
  if (v.M !== undefined) return { M: lambdaImage(v.M) };
  // S, N, SS, NS, BOOL and NULL look the same in the event.
  return v as LambdaAttributeValue;
}
