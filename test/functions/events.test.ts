// The events function on a real table (dynalite): an alarm's state change goes only to the
// shards whose CloudWatchMetric objects name the alarm (as their last cycle recorded it), and
// to shards that have recorded nothing yet; when the table cannot be read, to every shard.
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventsHandler } from '../../functions/events.js';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../lib/hpa/api/defaults.js';
import { lambdaContexts } from '../../lib/local/lambda/runtime.js';
import { CapturingLogger } from '../../lib/local/lambda/telemetry-capture.js';
import { createDynamoStore, ensureTable, type DynamoStore } from '../../lib/store/index.js';
import type { FunctionConfig } from '../../lib/sync/config.js';
import type { EvaluateMessage } from '../../lib/sync/messages.js';
import type { AlarmIndexStore } from '../../lib/sync/ports/alarm-index-store.js';
import type { WorkMessageEntry } from '../../lib/sync/ports/work-queue.js';
import { shardId, shardsOf } from '../../lib/sync/shards.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION, type DynamoServer } from '../support/dynamo.js';

const NOW = Date.parse('2026-03-01T10:00:00Z');
const config: FunctionConfig = {
  region: TEST_REGION,
  tableName: 'events',
  queueUrl: 'unused',
  clusters: [
    { name: 'prod', region: TEST_REGION, shards: 4 },
    { name: 'batch', region: TEST_REGION, shards: 1 },
  ],
  syncPeriodSeconds: 15,
  options: { settings: DEFAULT_CONTROLLER_SETTINGS, dryRun: false, concurrency: 8, writeBudgetMs: 1_000, clusterBudgetMs: 8_000, sources: { table: true, cluster: true }, decisionLogSeconds: 300 },
  autoscalerMetrics: false,
  workerMemoryMb: 512,
};
const PROD = shardsOf('prod', 4).map(shardId);
const BATCH = shardId(shardsOf('batch', 1)[0]);

let db: DynamoServer;
let store: DynamoStore;
beforeAll(async () => {
  db = await startDynalite();
  store = createDynamoStore({ endpoint: db.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: config.tableName });
  await ensureTable(store.client, store.tableName);
  // What the shards' last cycles found: prod's first two name an alarm each, the third none; the fourth and batch have not run.
  const record = async (shard: string, alarms: string[]) => {
    expect((await store.acquireShard(shard, { owner: 'w', now: new Date(NOW), leaseMs: 30_000 })).outcome).toBe('acquired');
    await store.releaseShard(shard, 'w', { alarms });
  };
  await record(PROD[0], ['shpa-jobs-high']);
  await record(PROD[1], ['shpa-other']);
  await record(PROD[2], []);
});
afterAll(() => db?.stop());

function run(alarmStore: AlarmIndexStore) {
  const sent: WorkMessageEntry[] = [];
  const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
  const handler = createEventsHandler({ config, queue: () => ({ send: async (m) => void sent.push(...m) }), store: () => alarmStore, logger, now: () => new Date(NOW) });
  const alarm = (alarmName: string) =>
    handler(
      { source: 'aws.cloudwatch', 'detail-type': 'CloudWatch Alarm State Change', time: new Date(NOW).toISOString(), detail: { alarmName, state: { value: 'ALARM' } } } as EventBridgeEvent<string, unknown>,
      lambdaContexts()() as Context,
    );
  const shards = () => sent.map((m) => (JSON.parse(m.body) as EvaluateMessage).shard).sort();
  return { alarm, sent, shards, logger };
}

describe('the events function', () => {
  it('sends an alarm change only to the shards that name it, and to those that have recorded nothing yet', async () => {
    const r = run(store);
    expect(await r.alarm('shpa-jobs-high')).toEqual({ sent: 3 });
    expect(r.shards()).toEqual([PROD[0], PROD[3], BATCH].sort());
    expect(r.sent.every((m) => m.kind === 'evaluate')).toBe(true);
  });

  it('an alarm no recorded shard names reaches only the shards that have not recorded', async () => {
    const r = run(store);
    await r.alarm('shpa-nobody');
    expect(r.shards()).toEqual([PROD[3], BATCH].sort());
  });

  it('when the table cannot be read, sends the change to every shard, and says so', async () => {
    const failing: AlarmIndexStore = { readIndexes: () => Promise.reject(new Error('socket hang up')), shardRecords: () => Promise.reject(new Error('unused')) };
    const r = run(failing);
    await r.alarm('shpa-jobs-high');
    expect(r.shards()).toEqual([...PROD, BATCH].sort());
    expect(r.logger.lines.find((l) => l.level === 'WARN')).toMatchObject({ event: { lookup: expect.stringContaining('reading which shards name alarm shpa-jobs-high from DynamoDB: socket hang up') } });
  });
});
