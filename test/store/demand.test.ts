// spec.predictive's demand history in the store: its compact encoding (strict on read), and its trip
// through DynamoDB (dynalite, the real SDK) with the state, written when a bucket closes, not every tick.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDemand, type DemandHistory } from '../../lib/hpa/forecast.js';
import type { HorizontalPodAutoscaler } from '../../lib/hpa/types.js';
import { decodeDemand, encodeDemand } from '../../lib/store/demand-codec.js';
import { createDynamoStore, DynamoStore, ensureTable } from '../../lib/store/index.js';
import { bucketPk } from '../../lib/store/items.js';
import { bucketOf } from '../../lib/sync/shards.js';
import type { AutoscalerRecord } from '../../lib/sync/ports/autoscaler-store.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';
import { hpa, status } from './fixtures.js';

const T0 = Date.parse('2026-11-02T00:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000);

/** 14 days of 5-minute buckets, demand `f(bucket)`. */
function fortnight(f: (i: number) => number | null): DemandHistory {
  return { bucketSeconds: 300, firstBucket: T0 / 300_000, values: Array.from({ length: 4032 }, (_, i) => f(i)) };
}
const office = (i: number) => ((i % 288) >= 108 && (i % 288) < 204 && Math.floor(i / 288) % 7 < 5 ? 20 : 3);
const AFTER = T0 + 15 * 86_400_000;

describe('the demand codec', () => {
  it.each([
    ['office hours', fortnight(office)],
    ['gaps and large counts', fortnight((i) => (i % 17 === 0 ? null : (i * 7919) % 150_000))],
    ['empty', { bucketSeconds: 300, firstBucket: T0 / 300_000, values: [] }],
  ])('reads back %s exactly', (_what, h) => {
    expect(decodeDemand(encodeDemand(h), AFTER)).toEqual({ demand: h });
  });

  it('keeps 14 days of a recurring load in a few hundred bytes', () => {
    expect(encodeDemand(fortnight(office)).length).toBeLessThan(200);
    let seed = 1;
    const noise = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) % 1000);
    expect(encodeDemand(fortnight(noise)).length).toBeGreaterThan(3000);
  });

  it.each([
    ['not a string', 42, /^dem is not a string/],
    ['no header', 'abc', /^dem is not "bucketSeconds:firstBucket:data"/],
    ['a bucket of 5 s', `5:1:${encodeDemand(fortnight(office)).split(':')[2]}`, /bucket of 5 s/],
    ['from the future', encodeDemand({ ...fortnight(office), firstBucket: AFTER / 300_000 + 100 }), /in the future/],
    ['data that does not inflate', '300:1:AAAA', /does not inflate/],
    ['a negative count', `300:1:${deflateRawSync(Buffer.from([2])).toString('base64')}`, /^dem holds -1 replicas/],
    ['a value cut short', `300:1:${deflateRawSync(Buffer.from([0x81])).toString('base64')}`, /^dem data ends inside a value/],
  ])('refuses %s, naming it', (_what, raw, problem) => {
    const r = decodeDemand(raw, AFTER);
    expect('problem' in r && r.problem).toMatch(problem);
  });
});

describe('the demand in DynamoDB with the state (dynalite)', () => {
  let db: DynamoServer;
  let store: DynamoStore;
  const predictive = (): HorizontalPodAutoscaler => ({ ...hpa('web'), spec: { ...hpa('web').spec, predictive: { mode: 'ForecastAndScale' } } });
  const load = async (now: Date): Promise<AutoscalerRecord> => (await store.loadShard({ cluster: 'c1', index: 0, count: 1 }, { now })).autoscalers[0];
  const item = async () => (await store.doc.send(new GetCommand({ TableName: 'shpa-demand', Key: { pk: bucketPk('c1', bucketOf('default')), sk: 'st#default#web' } }))).Item!;

  beforeAll(async () => {
    db = await startDynalite();
    store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: 'shpa-demand' });
    await ensureTable(store.client, 'shpa-demand');
    await store.applySpec('c1', predictive(), at(0));
  });
  afterAll(async () => db?.stop());

  /** One tick as the worker runs it (lease, load at the marker, `body` learns and saves, release): the version saved. */
  async function tick(now: Date, body: (rec: AutoscalerRecord) => DemandHistory): Promise<{ before: number; after: number }> {
    const lease = await store.acquireShard('c1', { owner: 'test', now, leaseMs: 30_000, tick: now });
    const markerMs = lease.outcome === 'acquired' ? lease.markerMs : undefined;
    const [rec] = (await store.loadShard({ cluster: 'c1', index: 0, count: 1 }, { now, markerMs })).autoscalers;
    const history = structuredClone(rec.history);
    history.recommendations = [...(history.recommendations ?? []), { replicas: 3, timestamp: now.toISOString() }];
    const demand = body(rec);
    const after = await store.saveState(rec, { status: status(3, 60), history, log: [], demand }, now, { markerMs: now.getTime() });
    await store.releaseShard('c1', 'test', { markerMs: now.getTime() });
    return { before: rec.version, after };
  }

  it('stores it, reads it back, and writes again only when a bucket closes or its newest value rises', async () => {
    const learn = (s: number, replicas: number) => (rec: AutoscalerRecord) => recordDemand(rec.demand, at(s), replicas, 14 * 86_400);
    expect((await tick(at(0), learn(0, 3))).after).toBe(1);
    expect((await load(at(10))).demand).toEqual({ bucketSeconds: 300, firstBucket: T0 / 300_000, values: [3] });
    // Same bucket, a lower value: nothing to write.
    expect(await tick(at(15), learn(15, 2))).toEqual({ before: 1, after: 1 });
    // The bucket's value rose: written.
    expect(await tick(at(30), learn(30, 5))).toEqual({ before: 1, after: 2 });
    expect((await load(at(40))).demand?.values).toEqual([5]);
    expect(await tick(at(45), learn(45, 5))).toEqual({ before: 2, after: 2 });
    // A new bucket: written.
    expect(await tick(at(300), learn(300, 4))).toEqual({ before: 2, after: 3 });
    expect((await load(at(310))).demand?.values).toEqual([5, 4]);
    expect(typeof (await item()).dem).toBe('string');
  });

  it('drops a demand it cannot read and learns again, keeping the rest of the state', async () => {
    await store.doc.send(
      new UpdateCommand({ TableName: 'shpa-demand', Key: { pk: bucketPk('c1', bucketOf('default')), sk: 'st#default#web' }, UpdateExpression: 'SET dem = :d', ExpressionAttributeValues: { ':d': 'garbage' } }),
    );
    const rec = await load(at(320));
    expect(rec.demand).toBeUndefined();
    expect(rec.stateProblem).toBeUndefined();
    expect(rec.hpa.status?.desiredReplicas).toBe(3);
  });
});
