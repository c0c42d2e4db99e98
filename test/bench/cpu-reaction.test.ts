// The scenario of `npm run bench -- reaction`'s CPU rows, short: ten workloads through the local stack
// with the shipped functions, on metrics-server's model (one loop a resolution, stored at once 50 ms
// into a second). The shard learns where its answers change, then ticks a second early and waits
// for the store (lib/sync/fresh-gate.ts): each load change is patched at the first store that shows it.
import { describe, expect, it } from 'vitest';
import { startFleet } from '../../bench/support/fleet.js';
import { clusterName, namespaceName, workloadName } from '../../bench/support/servers.js';

const workloads = Array.from({ length: 10 }, (_, i) => ({ cluster: clusterName(0), namespace: namespaceName(0), name: workloadName(i) }));

describe('CPU change → patch (the bench scenario, short)', () => {
  it('ticks settle a second before the store and wait for it: every change is patched by the store that first shows it', async () => {
    const fleet = await startFleet({ clusters: 1, namespacesPerCluster: 1, workloadsPerNamespace: 10, podsPerWorkload: 2, eks: true, shardsPerCluster: 1, scrapeSeconds: 15, sampleSpreadMs: 6_000, everySecond: true });
    try {
      const t0 = fleet.clock.t;
      // After five minutes of learning, one change every 5.3 s.
      const changes = workloads.map((w, i) => ({ ...w, at: t0 + 5 * 60_000 + i * 5_300 + 123 }));
      await fleet.servers.setLoadSteps(changes.map((c) => ({ ...c, metric: 'cpu' as const, steps: [{ at: c.at, factor: 2 }] })));
      const shown = await fleet.servers.firstVisible(changes);
      const patched = new Map<string, number>();
      const offsets: number[][] = [];
      const waits: unknown[] = [];
      while (fleet.clock.t < t0 + 7 * 60_000) {
        const tick = await fleet.tick();
        for (const d of fleet.fns.lines.filter((l) => l.message === 'dispatch')) {
          const timing = (d.dispatch as { timings?: Record<string, { offsetsSeconds?: number[] }> }).timings;
          offsets.push(Object.values(timing ?? {})[0]?.offsetsSeconds ?? []);
        }
        expect(tick.errors).toEqual([]);
        for (const l of fleet.fns.lines) if (l.message === 'cycle' && (l.cycle as { storeWait?: unknown }).storeWait) waits.push((l.cycle as { storeWait: unknown }).storeWait);
        for (const p of await fleet.servers.patches()) if (!patched.has(p.name)) patched.set(p.name, p.at);
      }
      // The store is 50 ms into 6 s: settled on 7 s, the ticks go to 6 s and wait.
      expect(offsets.at(-1)).toEqual([6, 6, 6, 6]);
      // The cycle lines say so: two reads, the second after the store.
      expect(waits.length).toBeGreaterThan(0);
      expect(waits.at(-1)).toEqual({ namespace: namespaceName(0), waitedMs: 100, reads: 2, changed: true });
      for (const [i, c] of changes.entries()) {
        const at = patched.get(c.name);
        expect(at, c.name).toBeDefined();
        // Within a poll (100 ms) of the store that first shows the change.
        expect(at! - shown[i]).toBeGreaterThanOrEqual(0);
        expect(at! - shown[i]).toBeLessThanOrEqual(100);
      }
    } finally {
      await fleet.stop();
    }
  }, 120_000);
});
