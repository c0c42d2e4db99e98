// Predictive minimums through the real simulator (issue 32's goals): 28 days of three traces, one a
// real public one (bench/support/predictive-traces.ts), replayed by `shpa simulate`'s engine (lib/sim
// over lib/hpa's reconcile) without spec.predictive, with ForecastOnly and with ForecastAndScale at
// the shipped settings; the forecast learns from the trace itself, from nothing, as a new autoscaler
// would (the first days are learning). Reported: under-provisioned replica-minutes and replica-minutes
// (`shpa simulate -o json`'s figures), and whether ForecastOnly's replicas equal those without it.
// Goals: ≥ 50 % fewer under-provisioned replica-minutes (aim 80 %) for ≤ 15 % more replica-minutes
// on recurring load, ≤ 2 % more replica-minutes on the trace with no seasonality, ForecastOnly identical.
// Metrics lag the load by 30 s (as the model comparison assumes: a metrics pipeline's delay) and by none.
// Usage: npm run bench -- predictive [-- --days 28 --only flights --metric-delay 30 --report out.html --models]
//   --models: also the comparison of forecast models that chose ours (bench/support/predictive-models.ts).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { renderHtmlReport } from '../lib/report/html.js';
import { compareModels } from './support/predictive-models.js';
import { POD_START_SECONDS, runScenarios, SYNC_SECONDS } from './support/predictive-scenario.js';
import { flightsTrace, type LoadTrace, randomWalkTrace, seasonalTrace } from './support/predictive-traces.js';

const { values: args } = parseArgs({
  options: {
    days: { type: 'string', default: '28' },
    only: { type: 'string' },
    // Seconds the metrics lag the load: 30 as the model comparison assumes, and none (the reactive side at its best).
    'metric-delay': { type: 'string', multiple: true, default: ['30', '0'] },
    report: { type: 'string' },
    models: { type: 'boolean', default: false },
  },
});
const DAYS = Number(args.days);
const traces: LoadTrace[] = [seasonalTrace(DAYS), randomWalkTrace(DAYS), await flightsTrace(DAYS)].filter((t) => !args.only || t.name.includes(args.only));

function pct(a: number, b: number): string {
  return `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)} %`;
}

console.log(`predictive minimums through the simulator: ${DAYS} days, ${SYNC_SECONDS} s sync, pods ready ${POD_START_SECONDS} s after creation, shipped settings`);
console.log(`| trace | metrics behind | under-provisioned replica-min, off | ForecastAndScale | change | replica-min, off | ForecastAndScale | change | ForecastOnly identical | syncs acting | run time (3 runs) |`);
console.log(`|---|---|---|---|---|---|---|---|---|---|---|`);
const failures: string[] = [];
const reports = [];
for (const delay of args['metric-delay'].map(Number)) {
  for (const t of traces) {
    const t0 = performance.now();
    const o = runScenarios(t, delay);
    const seconds = (performance.now() - t0) / 1000;
    const under = (o.forecastAndScale.underProvisionedReplicaMinutes - o.off.underProvisionedReplicaMinutes) / o.off.underProvisionedReplicaMinutes;
    const cost = (o.forecastAndScale.replicaMinutes - o.off.replicaMinutes) / o.off.replicaMinutes;
    console.log(
      `| ${t.name} | ${delay} s | ${o.off.underProvisionedReplicaMinutes.toFixed(0)} | ${o.forecastAndScale.underProvisionedReplicaMinutes.toFixed(0)} | ${pct(o.forecastAndScale.underProvisionedReplicaMinutes, o.off.underProvisionedReplicaMinutes)} | ${o.off.replicaMinutes.toFixed(0)} | ${o.forecastAndScale.replicaMinutes.toFixed(0)} | ${pct(o.forecastAndScale.replicaMinutes, o.off.replicaMinutes)} | ${o.forecastOnlyIdentical ? 'yes' : 'NO'} | ${o.syncsActing} of ${o.reports.off.times.length} | ${seconds.toFixed(1)} s |`,
    );
    const where = `${t.name}, metrics ${delay} s behind`;
    if (!o.forecastOnlyIdentical) failures.push(`${where}: ForecastOnly changed replicas`);
    if (t.name === 'no seasonality') {
      if (cost > 0.02) failures.push(`${where}: +${(cost * 100).toFixed(1)} % replica-minutes (goal ≤ 2 %)`);
    } else {
      if (under > -0.5) failures.push(`${where}: ${(under * 100).toFixed(1)} % under-provisioned replica-minutes (goal ≤ −50 %)`);
      if (cost > 0.15) failures.push(`${where}: +${(cost * 100).toFixed(1)} % replica-minutes (goal ≤ 15 %)`);
    }
    if (args.report) reports.push(o.reports.ForecastAndScale, o.reports.off);
  }
}
for (const t of traces) console.log(`  ${t.name}: ${t.note}`);
console.log(failures.length ? `\ngoals missed:\n  ${failures.join('\n  ')}` : '\nall goals met');
if (args.report) {
  writeFileSync(args.report, renderHtmlReport({ title: 'npm run bench -- predictive', subtitle: `${DAYS} days, ${SYNC_SECONDS} s sync, pods ready after ${POD_START_SECONDS} s`, autoscalers: reports.map((r, i) => ({ ...r, name: `${r.name} (${i})` })) }));
  console.log(`report: ${args.report}`);
}
if (args.models) {
  console.log('');
  compareModels(traces);
}
