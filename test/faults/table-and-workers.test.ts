// Faults of DynamoDB, of SQS under the dispatcher, of the workers (killed, overlapping) and of the items in the table.
import { it } from 'vitest';
import { GROUPS } from './scenarios.js';
import { describeFaults } from './describe-faults.js';
import { baseline, undisturbed } from './suite.js';

describeFaults('faults of DynamoDB, SQS, workers and items', [...GROUPS.dynamodb, ...GROUPS.queue, ...GROUPS.cycles, ...GROUPS.items], (db) => {
  it('an undisturbed run replays exactly: the comparison is fair', { timeout: 120_000 }, async ({ expect }) => {
    const [a, b] = await Promise.all([baseline(db()), undisturbed(db())]);
    const decisions = (r: typeof a) => r.lines.filter(({ line }) => line.message === 'decision').map(({ tick, line }) => [tick, line.namespace, line.hpa, line.trigger, line.outcome, line.desiredReplicas]);
    expect(decisions(b)).toEqual(decisions(a));
    expect(b.writes).toEqual(a.writes);
    expect(b.snapshots).toEqual(a.snapshots);
    expect(a.writes.length).toBeGreaterThan(10);
  });
});
