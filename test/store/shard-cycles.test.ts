// Taking a shard's lease from an owner that never released it: its cycle may still be
// running and writing, so the new owner is told who it was and how long ago it expired.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../lib/store/index.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000);
const LEASE_MS = 30_000;

let db: DynamoServer;
let store: DynamoStore;
let n = 0;
const shard = () => `prod/${++n}of16`;

beforeAll(async () => {
  db = await startDynalite();
  store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: 'shard-cycles' });
  await ensureTable(store.client, store.tableName);
});
afterAll(async () => {
  await db?.stop();
});

it('an expired lease never released is taken over with a warning naming its owner and how long ago it expired', async () => {
  const s = shard();
  await store.acquireShard(s, { owner: 'frozen', now: at(0), leaseMs: LEASE_MS, tick: at(0) });
  const got = await store.acquireShard(s, { owner: 'next', now: at(32.5), leaseMs: LEASE_MS, tick: at(30) });
  expect(got).toEqual({
    outcome: 'acquired',
    markerMs: undefined,
    warnings: [`shard ${s}: lease of frozen expired 2.5 s ago (${at(30).toISOString()}) without being released: taken over; its cycle may still be running`],
  });
});

it('a released lease, a free shard and our own lease are taken silently', async () => {
  const s = shard();
  expect(await store.acquireShard(s, { owner: 'a', now: at(0), leaseMs: LEASE_MS, tick: at(0) })).toMatchObject({ warnings: [] });
  // Ours again (an evaluation's message redelivered to the same owner id): no takeover.
  expect(await store.acquireShard(s, { owner: 'a', now: at(40), leaseMs: LEASE_MS })).toMatchObject({ warnings: [] });
  await store.releaseShard(s, 'a', { markerMs: at(40).getTime() });
  expect(await store.acquireShard(s, { owner: 'b', now: at(100), leaseMs: LEASE_MS, tick: at(100) })).toEqual({ outcome: 'acquired', markerMs: at(40).getTime(), warnings: [] });
});

it("the next lease hands the cycle the phase its last tick released (its learning of when the shard's data changes); one it cannot read, none", async () => {
  const s = shard();
  const phase = {
    offsetSeconds: 7,
    spreadMs: 11_000,
    samples: 40,
    atMs: T0,
    windowSeconds: 3,
    visibility: { bins: [null, 0, 0, 0, 0.4, 0.5, 0.1, 0, null, null, null, null, null, null, null], sinceMs: T0 - 180_000, last: { tickMs: T0, answers: { k1: 'd1', k2: 'd2' } } },
    plan: { minute: Math.floor(T0 / 60_000) + 1, from: 9, offsets: [8, 7, 7, 6] },
  };
  await store.acquireShard(s, { owner: 'a', now: at(0), leaseMs: LEASE_MS, tick: at(0) });
  await store.releaseShard(s, 'a', { markerMs: T0, phase });
  expect(await store.acquireShard(s, { owner: 'b', now: at(15), leaseMs: LEASE_MS, tick: at(15) })).toMatchObject({ outcome: 'acquired', phase });
  await store.releaseShard(s, 'b', { markerMs: T0 + 15_000, phase: { ...phase, samples: -1 } as never });
  const got = await store.acquireShard(s, { owner: 'c', now: at(30), leaseMs: LEASE_MS, tick: at(30) });
  expect(got.outcome).toBe('acquired');
  expect(got).not.toHaveProperty('phase');
});
