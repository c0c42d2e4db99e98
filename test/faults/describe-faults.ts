// The fault scenarios as tests: each runs the product undisturbed and with its fault
// (suite.ts) and expects no harm and a clear error; a failure lists what the judge found.
// The runs start together, a few at a time (most of a run waits for timeouts), and each
// test waits for its own.
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startDynalite, type DynamoServer } from '../support/dynamo.js';
import { baseline, runScenario, type ScenarioResult, type Scenario } from './suite.js';

/** Runs at once: enough to overlap the waits, few enough that no call misses its timeout for want of CPU. */
const AT_ONCE = 5;

export function describeFaults(title: string, scenarios: Scenario[], more?: (db: () => DynamoServer) => void): void {
  describe(title, () => {
    let db: DynamoServer;
    const results = new Map<Scenario, Promise<{ result: ScenarioResult } | { error: unknown }>>();
    beforeAll(async () => {
      db = await startDynalite();
      await baseline(db);
      const limit = pLimit(AT_ONCE);
      for (const s of scenarios) results.set(s, limit(() => runScenario(db, s)).then((result) => ({ result }), (error: unknown) => ({ error })));
    });
    afterAll(async () => {
      await Promise.all(results.values());
      await db?.stop();
    });

    for (const scenario of scenarios) {
      it(`${scenario.name} (${scenario.hits}): no harm, and a clear error`, { timeout: 120_000 }, async ({ expect }) => {
        const outcome = await results.get(scenario)!;
        if ('error' in outcome) throw outcome.error;
        const { verdict } = outcome.result;
        expect(verdict.tried, 'the fault was never met: the scenario proves nothing').toBeGreaterThan(0);
        expect(verdict.notes).toEqual([]);
      });
    }
    more?.(() => db);
  });
}
