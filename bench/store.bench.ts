// DynamoDB write units per sync cycle at 1,000 autoscalers, 15 s cadence, steady load
// (each autoscaler's recommendation steady, its CPU utilization jittering ±3 points).
// Units are what dynalite reports through ReturnConsumedCapacity (1 unit per KB written).
// Goal: at most 10 % of the autoscaler count per cycle.
import { createDynamoStore, ensureTable } from '../lib/store/index.js';
import { startDynalite, TEST_CREDENTIALS, TEST_REGION } from '../test/support/dynamo.js';
import { hpa, status } from '../test/store/fixtures.js';

const AUTOSCALERS = 1000;
const CADENCE_S = 15;
const WARMUP_CYCLES = 2;
const CYCLES = 40; // 10 simulated minutes: covers the 5-minute refresh of metric values
const GOAL = 0.1;
const CLUSTER = 'bench';

const server = await startDynalite();
try {
  const store = createDynamoStore({ endpoint: server.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, tableName: 'shpa-bench' });
  await ensureTable(store.client, 'shpa-bench');
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  for (let i = 0; i < AUTOSCALERS; i++) await store.applySpec(CLUSTER, hpa(`app-${i}`, `ns-${i % 20}`), new Date(t0));

  // A deterministic jitter per autoscaler and cycle.
  const jitter = (i: number, c: number) => (((i * 7919 + c * 104729) % 7) - 3);
  const perCycle: number[] = [];
  let largest = 0;
  for (let c = 0; c < WARMUP_CYCLES + CYCLES; c++) {
    const now = new Date(t0 + (c + 1) * CADENCE_S * 1000);
    const snap = await store.loadCluster(CLUSTER);
    if (snap.autoscalers.length !== AUTOSCALERS) throw new Error(`loaded ${snap.autoscalers.length} autoscalers`);
    const before = store.writeUnits;
    for (let k = 0; k < snap.autoscalers.length; k += 50) {
      await Promise.all(
        snap.autoscalers.slice(k, k + 50).map((rec, j) => {
          const i = k + j;
          const history = structuredClone(rec.history);
          history.recommendations = [...(history.recommendations ?? []), { replicas: 3, timestamp: now.toISOString() }];
          const st = status(3, 60 + jitter(i, c), new Date(t0).toISOString());
          largest = Math.max(largest, Buffer.byteLength(JSON.stringify(st)));
          return store.saveState(rec, { status: st, history, log: rec.log ?? [] }, now, { markerMs: now.getTime() });
        }),
      );
    }
    if (c >= WARMUP_CYCLES) perCycle.push(store.writeUnits - before);
  }
  const mean = perCycle.reduce((a, b) => a + b, 0) / perCycle.length;
  const peak = Math.max(...perCycle);
  console.log(`autoscalers: ${AUTOSCALERS}, cadence ${CADENCE_S}s, ${CYCLES} steady cycles after ${WARMUP_CYCLES} warm-up`);
  console.log(`write units per cycle: mean ${mean.toFixed(1)} (${((mean / AUTOSCALERS) * 100).toFixed(1)} % of autoscalers), peak ${peak}`);
  console.log(`status JSON of one autoscaler: ${largest} bytes`);
  console.log(`goal: mean <= ${GOAL * AUTOSCALERS} units per cycle: ${mean <= GOAL * AUTOSCALERS ? 'met' : 'MISSED'}`);
  if (mean > GOAL * AUTOSCALERS) process.exitCode = 1;
} finally {
  await server.stop();
}
