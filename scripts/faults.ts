// The fault suite: `npm run faults [-- WORD...]` runs every fault scenario (or those whose
// name contains one of the words) on the product on local parts, undisturbed and with the
// fault, and prints one row per fault (test/faults/; docs/faults.md). It exits 1 when a harm
// column is not 0 or a fault produced no clear error, and says why under the table.
import { startDynalite } from '../lib/store/dynalite.js';
import { SCENARIOS } from '../test/faults/scenarios.js';
import { formatTable, harmless, runScenario, type ScenarioResult } from '../test/faults/suite.js';

const words = process.argv.slice(2).map((w) => w.toLowerCase());
const chosen = words.length ? SCENARIOS.filter((s) => words.some((w) => s.name.toLowerCase().includes(w))) : SCENARIOS;
if (chosen.length === 0) {
  console.error(`no fault matches ${words.join(', ')}; the faults are:\n${SCENARIOS.map((s) => `  ${s.name}`).join('\n')}`);
  process.exit(2);
}

const db = await startDynalite();
const results: ScenarioResult[] = [];
const started = performance.now();
try {
  for (const scenario of chosen) {
    const t0 = performance.now();
    const result = await runScenario(db, scenario);
    results.push(result);
    console.error(`${scenario.name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
} finally {
  await db.stop();
}

console.log(formatTable(results));
const failing = results.filter(({ verdict }) => !harmless(verdict) || !verdict.clearError);
for (const { scenario, verdict } of failing) {
  console.log(`\n${scenario.name} (${scenario.hits}):`);
  for (const note of verdict.notes) console.log(`  - ${note}`);
}
console.log(`\n${results.length - failing.length} of ${results.length} faults harmless with a clear error (${((performance.now() - started) / 1000).toFixed(0)} s)`);
// A killed worker's cycle never ends: exit rather than wait for it.
process.exit(failing.length > 0 ? 1 : 0);
