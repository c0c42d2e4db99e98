import { it } from 'vitest';
import { startDynalite } from '../support/dynamo.js';
import { GROUPS } from '../faults/scenarios.js';
import { runScenario } from '../faults/suite.js';

it('dbg', { timeout: 120_000 }, async () => {
  const db = await startDynalite();
  const s = GROUPS.dynamodb.find((x) => x.name === process.env.SCEN)!;
  const r = await runScenario(db, s);
  for (const { tick, line } of r.faulted.lines) if (tick >= 2 && tick <= 3) console.log(tick, JSON.stringify(line).slice(0, 600));
  console.log(r.verdict.notes, r.faulted.failedInvocations);
  await db.stop();
});
