// Reaction time on an SQS backlog (issue 31's goals), run by `npm run bench -- reaction` beside
// reaction.bench.ts: the whole product reading SQSQueueMetric objects live (GetQueueAttributes at
// each tick) through the local stack with the shipped worker, on a virtual clock second by second
// (bench/support/sqs-trace.ts), and on the same steps the other readers' models: KEDA's
// aws-sqs-queue (the HPA's 15 s loop over a live read; from zero, KEDA's 30 s pollingInterval
// first) and the CloudWatch route (one-minute datapoints, a minute or more after their period).
// `-- --only sqs` runs this part alone; `--only cpu,…` without sqs skips it.
import { cloudWatchModel, kedaModel, runSqsTrace, STEP_MESSAGES, type SqsTraceOptions, type SqsTraceRun } from './support/sqs-trace.js';
import { countWarnings, fixed, mean } from './support/stats.js';

const warnings = countWarnings();
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt < 0 ? undefined : (process.argv[onlyAt + 1] ?? '').split(',');
/** Queues (one step each) per run, and runs per case (each on its own seeded steps): 120 steps a case. */
const WORKLOADS = 40;
const ROUNDS = 3;
const MINUTES = 6;

const worst = (xs: number[]) => Math.max(...xs);
const row = (reader: string, xs: number[], note = '') => ({ reader, 'average s': fixed(mean(xs), 2), 'worst s': fixed(worst(xs), 2), note });
const verdict = (ok: boolean, goal: string, got: string) => console.log(`${ok ? 'MET ' : 'MISS'} ${goal}: ${got}`);

function describeRun(r: SqsTraceRun, periodS: number): string {
  // What the steps' times alone give: the wait for the next tick of an even grid (the trace's luck, no wall time).
  const waits = r.steps.map((t) => (Math.ceil(t / (periodS * 1000)) * periodS * 1000 - t) / 1000);
  return (
    `wait for the next ${periodS} s tick alone: mean ${fixed(mean(waits), 2)} s; cycle wall in the patching second: mean ${fixed(mean(r.walls), 3)} s, max ${fixed(worst(r.walls), 3)} s; ` +
    `GetQueueAttributes per queue per tick: ${fixed(r.readsPerQueueTick, 2)}`
  );
}

/** ROUNDS runs of the case, each on its own steps, pooled. */
async function runRounds(o: Omit<SqsTraceOptions, 'workloads' | 'minutes' | 'seed'>, seed: number): Promise<SqsTraceRun> {
  const runs: SqsTraceRun[] = [];
  for (let k = 0; k < ROUNDS; k++) runs.push(await runSqsTrace({ ...o, workloads: WORKLOADS, minutes: MINUTES, seed: seed + k }));
  return {
    steps: runs.flatMap((r) => r.steps),
    ours: runs.flatMap((r) => r.ours),
    patchedTo: runs.flatMap((r) => r.patchedTo),
    walls: runs.flatMap((r) => r.walls),
    readsPerQueueTick: mean(runs.map((r) => r.readsPerQueueTick)),
  };
}

async function measureSqsReaction(): Promise<void> {
  const oneToN = await runRounds({}, 20261128);
  const zero = await runRounds({ fromZero: true }, 20261138);
  const fast = await runRounds({ syncPeriodSeconds: 5 }, 20261148);
  const kedaOne = kedaModel(oneToN.steps, false, 7);
  const kedaZero = kedaModel(zero.steps, true, 8);
  const kedaFast = kedaModel(fast.steps, false, 9);

  console.log(
    `\nSQS backlog step (${STEP_MESSAGES} messages on an empty queue, 5 a replica) → patch: ${ROUNDS} runs of ${WORKLOADS} queues, one step each at a random time over ${MINUTES} minutes (${ROUNDS * WORKLOADS} steps a case, stratified over the 15 s phase), every reader on the same steps; ours timed through the local stack (virtual clock, the cycle's wall time added):`,
  );
  console.table([
    row('1 → N, default period: serverless-hpa (SQSQueueMetric, live read each 15 s tick)', oneToN.ours),
    row("1 → N: KEDA's model (HPA 15 s loop at a random phase, live read)", kedaOne.toN),
    row('1 → N: the CloudWatch route (1-min datapoints, visible 60 s after their minute)', cloudWatchModel(oneToN.steps), 'never below 60 s'),
    row('from zero (activation 2): serverless-hpa, 0 → N', zero.ours),
    row("from zero: KEDA's model, pollingInterval 30 s to 0 → 1", kedaZero.first),
    row("from zero: KEDA's model, then the HPA loop to N", kedaZero.toN),
    row('1 → N, spec.syncPeriodSeconds 5: serverless-hpa', fast.ours),
    row("1 → N: KEDA's model on these steps (EKS: 15 s loop, cannot go lower)", kedaFast.toN),
  ]);
  console.log(`  1 → N: ${describeRun(oneToN, 15)}\n  from zero: ${describeRun(zero, 15)}\n  5 s period: ${describeRun(fast, 5)}`);
  verdict(mean(oneToN.ours) <= 8 && worst(oneToN.ours) <= 16, '1 → N at most 8 s average / 16 s worst', `${fixed(mean(oneToN.ours), 2)} s / ${fixed(worst(oneToN.ours), 2)} s (KEDA's model ${fixed(mean(kedaOne.toN), 2)} / ${fixed(worst(kedaOne.toN), 2)} s)`);
  verdict(worst(zero.ours) <= 16, 'from zero at most 16 s worst', `${fixed(worst(zero.ours), 2)} s, average ${fixed(mean(zero.ours), 2)} s (KEDA's model to N: ${fixed(mean(kedaZero.toN), 2)} / ${fixed(worst(kedaZero.toN), 2)} s)`);
  verdict(mean(fast.ours) <= 3, 'spec.syncPeriodSeconds 5: at most 3 s average', `${fixed(mean(fast.ours), 2)} s (worst ${fixed(worst(fast.ours), 2)} s)`);
}

if (!only || only.includes('sqs')) await measureSqsReaction();
if (warnings.size > 0) console.log(`process warnings while the functions ran: ${[...warnings].map(([k, w]) => `${k} × ${w.count}`).join('; ')}`);
