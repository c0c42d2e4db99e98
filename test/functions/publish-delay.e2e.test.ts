// CloudWatch's publication delay learned end to end (lib/sync/publish-delay.ts): the local stack
// (harness.ts) reading an SQS backlog whose samples (every 10 s) are visible 25 s after they are
// taken, so a period is complete 15 s after it ends. Learned, the change is read at the first
// tick 15 s after its period; on a fixed 60 s grid, 60 s after it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseQuantity, toFloat } from '../../lib/hpa/api/quantity.js';
import type { DynamoServer } from '../support/dynamo.js';
import { BACKLOG_METRIC, backlogMetric, backlogObject, CLUSTER, hpa, MIN, START, startDynamo, startHarness, type Harness } from './harness.js';

/** The backlog grows in the middle of a period, once the delay is learned. */
const T_UP = START + 10 * MIN + 7_000;
/** The period whose datapoint first shows it (its first sample after the change is at +10 s). */
const PERIOD_END = START + 11 * MIN;

let server: DynamoServer;
let harnesses: Harness[] = [];
beforeAll(async () => {
  server = await startDynamo('dynalite');
});
afterAll(() => server?.stop());
afterEach(async () => {
  await Promise.all(harnesses.map((h) => h.stop()));
  harnesses = [];
});

async function scaledUpAt(publishDelay: 'learn' | number): Promise<{ at: number; h: Harness }> {
  const h = await startHarness({ server, kind: 'dynalite' }, { cloudWatchPublishDelay: publishDelay }, 25);
  harnesses.push(h);
  h.model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'apps', name: 'web', replicas: 2, selector: { app: 'web' }, containers: [{ name: 'app', requests: { cpu: '500m' } }] });
  await h.fns.admin.applySpec(CLUSTER, backlogObject, h.clock.now());
  await h.fns.admin.applySpec(CLUSTER, hpa('web', { metrics: [backlogMetric], behavior: {} }), h.clock.now());
  h.cloudWatch.setSeriesFunction(BACKLOG_METRIC, (s) => (s * 1000 < T_UP ? 20 : 200), 10);
  await h.fns.drain();
  await h.run(14 * 4);
  const up = h.decisions('web').find((l) => l.trigger === 'tick' && Number(l.desiredReplicas) > 2);
  expect(up, 'scaled up').toBeDefined();
  return { at: Date.parse(String(up!.cycleStartedAt)), h };
}

describe('CloudWatch read when its periods are complete', () => {
  it('learned from the sample counts: the change is acted on 15 s after its period ends, not 60 s; no partial period is read', async () => {
    const learned = await scaledUpAt('learn');
    const grid = await scaledUpAt(60);
    expect(learned.at - PERIOD_END).toBe(15_000);
    expect(grid.at - PERIOD_END).toBe(60_000);
    // every value read is a whole period's: 20 before the change, the changed period's 170 (5 of its 6 samples at 200), then 200
    const totals = new Set(
      learned.h.decisions('web').flatMap((l) => {
        const m = (l.decision as { metrics?: { current?: { averageValue?: string } }[] }).metrics?.[0]?.current?.averageValue;
        return m === undefined || typeof l.currentReplicas !== 'number' ? [] : [Math.round(toFloat(parseQuantity(m)) * l.currentReplicas)];
      }),
    );
    expect([...totals].sort((a, b) => a - b)).toEqual([20, 170, 200]);
    // the learning probes: sample counts read at the ticks of its first minutes only
    const probes = learned.h.cloudWatch.requests.filter((r) => JSON.stringify(r.body).includes('SampleCount'));
    expect(probes.length).toBeGreaterThan(10);
    expect(probes.every((r) => r.at < START + 11 * MIN)).toBe(true);
  });
});
