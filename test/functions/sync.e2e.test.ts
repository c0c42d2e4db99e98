// The sync handler end to end on real local parts and a virtual clock (see sync-harness.ts),
// from the source and from the esbuild bundle that ships (same options as serverless.yml).
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as source from '../../functions/sync.js';
import { clusterPk, KIND_HPA, specSk } from '../../lib/store/items.js';
import { leaseName } from '../../lib/sync/invocation.js';
import { bundleSync } from '../deploy/bundle.js';
import { BACKLOG_METRIC, backlogMetric, backlogObject, CLUSTER, hpa, START, startHarness, type Harness, type Instance, type SyncModule } from './sync-harness.js';

const MIN = 60_000;
const T_UP = START + 2 * MIN;
const T_DOWN = START + 8 * MIN;

interface Tick {
  at: string;
  outcome: string;
  current?: number;
  desired?: number;
  recommendation?: number;
  steps: string[];
}

let fn: SyncModule;
let harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.map((h) => h.stop()));
  harnesses = [];
});

async function arrange(replicas = 2): Promise<Harness> {
  const h = await startHarness(fn);
  harnesses.push(h);
  h.model.addWorkload({ kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'apps', name: 'web', replicas, selector: { app: 'web' }, containers: [{ name: 'app', requests: { cpu: '500m' } }] });
  const now = h.clock.now();
  await h.admin.applySpec(CLUSTER, backlogObject, now);
  // behavior: {} → upstream's default rules (scale up max(+4 pods, +100 %) per 15 s; down 100 % per 15 s after a 300 s window).
  await h.admin.applySpec(CLUSTER, hpa('web', { metrics: [backlogMetric], behavior: {} }), now);
  h.cloudWatch.setSeriesFunction(BACKLOG_METRIC, (s) => (s * 1000 < T_UP ? 20 : s * 1000 < T_DOWN ? 200 : 20), 60);
  return h;
}

/** One invocation per minute of virtual time; a new instance (cold start) at the given minutes. */
async function run(h: Harness, minutes: number, coldStartAt: number[] = []): Promise<Tick[]> {
  let instance = h.newInstance();
  const seen: Instance[] = [instance];
  for (let m = 0; m < minutes; m++) {
    if (coldStartAt.includes(m)) seen.push((instance = h.newInstance()));
    h.clock.t = START + m * MIN;
    const result = await instance.invoke();
    expect(result).toMatchObject({ held: [CLUSTER], lost: [], stoppedBecause: 'done', cycles: 4 });
  }
  return seen
    .flatMap((i) => i.lines)
    .filter((l) => l.message === 'decision' && l.hpa === 'web')
    .map((l) => {
      const decision = l.decision as { recommendation?: number; steps: { rule: string }[] } | undefined;
      return {
        at: l.cycleStartedAt as string,
        outcome: l.outcome as string,
        current: l.currentReplicas as number | undefined,
        desired: l.desiredReplicas as number | undefined,
        recommendation: decision?.recommendation,
        steps: (decision?.steps ?? []).map((s) => s.rule),
      };
    });
}

let bundleDir: string | undefined;
afterAll(() => bundleDir && rmSync(bundleDir, { recursive: true, force: true }));

const modules: [string, () => Promise<SyncModule>][] = [
  ['source', async () => source],
  [
    'esbuild bundle',
    async () => {
      bundleDir = mkdtempSync(join(tmpdir(), 'shpa-bundle-'));
      // Under node_modules, vitest leaves the import to Node's own ESM loader, as Lambda loads it
      // (createRequire banner, CJS interop); elsewhere it would transform the bundle itself.
      const { file } = await bundleSync(join(bundleDir, 'node_modules', 'shpa-bundle'));
      return (await import(pathToFileURL(file).href)) as SyncModule;
    },
  ],
];

describe.each(modules)('sync handler end to end (%s)', (_, load) => {
  beforeAll(async () => {
    fn = await load();
  });

  it('scales up by the default policies, holds for the stabilization window, then scales down; a cold start changes nothing', async () => {
    const warm = await arrange();
    const ticks = await run(warm, 18);
    expect(ticks).toHaveLength(18 * 4);
    expect(warm.k8s.count('PATCH', /\/scale$/)).toBe(ticks.filter((t) => t.outcome === 'scaled').length);

    // Steady at 2 until the backlog of 200 (20 pods' worth) is seen.
    const firstUp = ticks.findIndex((t) => t.outcome === 'scaled');
    expect(Date.parse(ticks[firstUp].at)).toBeGreaterThan(T_UP);
    expect(ticks.slice(0, firstUp).every((t) => t.desired === 2 && t.outcome === 'unchanged')).toBe(true);
    // Upstream default scale-up rules: max(+4 pods, +100 %) per 15 s → 2 → 6 → 12 → 20, tick after tick.
    const ups = ticks.slice(firstUp, firstUp + 3);
    expect(ups.map((t) => [t.current, t.desired, t.outcome])).toEqual([
      [2, 6, 'scaled'],
      [6, 12, 'scaled'],
      [12, 20, 'scaled'],
    ]);
    expect(ups[0].recommendation).toBe(20);
    expect(ups[0].steps).toContain('scaleUpPolicy');

    // The backlog drops: recommendations of 2 are held at 20 for the 300 s downscale window.
    const lastHigh = ticks.map((t) => t.recommendation).lastIndexOf(20);
    const down = ticks.findIndex((t, i) => i > firstUp + 2 && t.outcome === 'scaled');
    expect(down).toBeGreaterThan(lastHigh);
    for (const t of ticks.slice(lastHigh + 1, down)) {
      expect(t).toMatchObject({ desired: 20, outcome: 'unchanged', recommendation: 2 });
      expect(t.steps).toContain('scaleDownStabilization');
    }
    expect(Date.parse(ticks[down].at) - Date.parse(ticks[lastHigh].at)).toBe(300_000);
    expect(ticks[down]).toMatchObject({ current: 20, desired: 2 });
    expect(warm.model.replicasOf('apps', 'Deployment', 'web')).toBe(2);

    // Same story with a new instance at every minute of the hold and before the scale-up.
    const cold = await arrange();
    const coldTicks = await run(cold, 18, [1, 3, 9, 10, 11, 12, 13]);
    expect(coldTicks).toEqual(ticks);
  });

  it('two overlapping invocations: exactly one acts, the other exits and says so', async () => {
    const h = await arrange();
    h.clock.t = T_UP + 3 * MIN;
    const [a, b] = [h.newInstance(), h.newInstance()];
    const results = await Promise.all([a.invoke('A'), b.invoke('B')]);
    const winner = results.find((r) => r.held.length === 1)!;
    const loser = results.find((r) => r.lost.length === 1)!;
    expect(winner).toMatchObject({ held: [CLUSTER], cycles: 4 });
    expect(loser).toMatchObject({ held: [], lost: [CLUSTER], cycles: 0, stoppedBecause: 'noLease' });
    const loserLines = (loser.owner === 'A' ? a : b).lines;
    expect(loserLines.some((l) => l.message === 'decision')).toBe(false);
    expect(loserLines.find((l) => String(l.message).startsWith('lease held by another invocation'))).toMatchObject({ lease: { lost: [CLUSTER] } });
    const patches = h.k8s.requestLog.filter((r) => r.method === 'PATCH');
    expect(patches.length).toBeGreaterThan(0);
    expect((winner.owner === 'A' ? a : b).lines.filter((l) => l.outcome === 'scaled')).toHaveLength(patches.length);
    // The lease was released: the next minute's invocation acts.
    const next = await h.newInstance().invoke('C');
    expect(next.held).toEqual([CLUSTER]);
    expect(leaseName(CLUSTER)).toBe('sync:local');
  });

  it('a metrics outage never scales down, and the conditions say why', async () => {
    const h = await arrange(6);
    // 20 messages want 2 pods, but CloudWatch answers nothing but errors.
    h.cloudWatch.failNext(...Array.from({ length: 50 }, () => 'InternalError' as const));
    h.clock.t = START;
    const instance = h.newInstance();
    await instance.invoke();
    const lines = instance.lines.filter((l) => l.message === 'decision');
    expect(lines).toHaveLength(4);
    for (const l of lines) {
      // desiredReplicas is the stored status's, as upstream leaves it on a failed sync.
      expect(l).toMatchObject({ outcome: 'unchanged', currentReplicas: 6, patched: false });
      expect((l.decision as { skipped: { reason: string } }).skipped.reason).toBe('FailedGetExternalMetric');
    }
    expect(h.model.replicasOf('apps', 'Deployment', 'web')).toBe(6);
    const stored = await h.admin.getAutoscaler(CLUSTER, 'apps', 'web');
    expect(stored?.hpa.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'ScalingActive', status: 'False', reason: 'FailedGetExternalMetric' }),
    );
  });

  it('a bad record in the table is reported; the other autoscalers scale', async () => {
    const h = await arrange();
    h.clock.t = T_UP + 3 * MIN;
    await h.admin.doc.send(
      new PutCommand({
        TableName: h.table,
        Item: { pk: clusterPk(CLUSTER), sk: specSk(KIND_HPA, 'apps', 'broken'), kind: KIND_HPA, doc: '{"spec": tru', v: 1, ct: 'x', ut: 'x' },
      }),
    );
    const instance = h.newInstance();
    await instance.invoke();
    const decisions = instance.lines.filter((l) => l.message === 'decision' && l.cycleStartedAt === new Date(T_UP + 3 * MIN).toISOString());
    const byName = Object.fromEntries(decisions.map((l) => [l.hpa, l]));
    expect(byName.broken).toMatchObject({ outcome: 'broken', level: 'ERROR' });
    expect(JSON.stringify(byName.broken.errors)).toMatch(/broken/);
    expect(byName.web).toMatchObject({ outcome: 'scaled', currentReplicas: 2, desiredReplicas: 6 });
    const summary = instance.lines.find((l) => l.message === 'cycle') as { cycle: { counts: Record<string, number> } };
    expect(summary.cycle.counts).toMatchObject({ autoscalers: 2, broken: 1, scaled: 1 });
  });
});
