// The event-driven design at scale, over real HTTP(S) against the local servers (in processes
// of their own: bench/support/servers.ts), with the shipped settings: 1,000 and 10,000 autoscalers
// over 10 clusters (and a single one, for the cost model's fixed part), 2 pods each (about
// 7 KB of JSON a pod, as EKS returns them), CPU at 50 % and one CloudWatch metric each (its
// own queue). Shards: 1 per cluster at 1,000 (100 autoscalers a shard), 4 at 10,000 (about
// 250). Phases: the first cycle (no state yet), steady state (values moving ±3 %), a cycle
// where every autoscaler rescales (load × 2), and at 1,000 the three minutes after it. Shard
// cycles run one at a time, so each one's wall and CPU time is its own; CPU is also shown
// scaled to the 512 MB worker's 0.29 vCPU. Calls are counted at the servers. One more steady
// tick, not measured, is profiled. Ends with the cost model's inputs as this run measured them
// (lib/cost/inputs.ts) and the cost per autoscaler-month at 1,000 and 10,000.
import { DEFAULT_FLEET, estimateCost, steadyWritesPerTick } from '../lib/cost/estimate.js';
import { ASSUMED, MEASURED, type Measured } from '../lib/cost/inputs.js';
import { startFleet, total, type ShardCycle, type TickResult } from './support/fleet.js';
import { startProfile, type ProfileSummary } from './support/profile.js';
import { countWarnings, fixed, mean, quantile } from './support/stats.js';

const WORKER_VCPU = 512 / ASSUMED.mbPerVcpu;
const HALF_PERIOD_MS = 7_500;
const SIZES = [
  { clusters: 1, namespacesPerCluster: 1, workloadsPerNamespace: 1, shardsPerCluster: 1, steadyTicks: 8, afterTicks: 0 },
  // Six minutes of steady ticks: the write policy's refreshes (every 150–300 s) and the quiet decision lines (every 300 s) come round;
  // three minutes after the rescale: CloudWatch's values catch up (a minute's publish delay, read once a minute).
  { clusters: 10, namespacesPerCluster: 5, workloadsPerNamespace: 20, shardsPerCluster: 1, steadyTicks: 24, afterTicks: 12 },
  { clusters: 10, namespacesPerCluster: 50, workloadsPerNamespace: 20, shardsPerCluster: 4, steadyTicks: 2, afterTicks: 0 },
];

const warnings = countWarnings();

interface Phase {
  name: string;
  ticks: TickResult[];
}

interface SizeRun {
  autoscalers: number;
  shards: number;
  phases: Phase[];
  profile: ProfileSummary;
}

const cyclesOf = (p: Phase): ShardCycle[] => p.ticks.flatMap((t) => t.cycles);
const perTick = (p: Phase, f: (t: TickResult) => number) => mean(p.ticks.map(f));

async function run(size: (typeof SIZES)[number]): Promise<SizeRun> {
  const fleet = await startFleet({ ...size, podsPerWorkload: 2, eks: true, jitter: 0.03 });
  try {
    const phases: Phase[] = [{ name: 'first cycle', ticks: [await fleet.tick()] }];
    const steady: Phase = { name: 'steady', ticks: [] };
    for (let i = 0; i < size.steadyTicks; i++) steady.ticks.push(await fleet.tick());
    phases.push(steady);
    const stopProfile = await startProfile();
    await fleet.tick();
    const profile = await stopProfile();
    await fleet.servers.setLoadFactor(2);
    phases.push({ name: 'all rescale', ticks: [await fleet.tick()] });
    const after: Phase = { name: '3 min after', ticks: [] };
    for (let i = 0; i < size.afterTicks; i++) after.ticks.push(await fleet.tick());
    if (after.ticks.length > 0) phases.push(after);
    for (const p of phases) {
      const evaluated = cyclesOf(p).reduce((n, c) => n + c.autoscalers, 0) / p.ticks.length;
      const errors = cyclesOf(p).reduce((n, c) => n + c.errors, 0);
      if (evaluated !== fleet.autoscalers || errors > 0) {
        throw new Error(`${p.name} at ${fleet.autoscalers}: ${evaluated} autoscalers evaluated a tick, ${errors} errors: ${p.ticks.flatMap((t) => t.errors).slice(0, 5).join(' | ')}`);
      }
    }
    return { autoscalers: fleet.autoscalers, shards: fleet.shards, phases, profile };
  } finally {
    await fleet.stop();
  }
}

const started = performance.now();
const runs: SizeRun[] = [];
for (const size of SIZES) runs.push(await run(size));
const [single, small, large] = runs;

// ---- per shard cycle ----
console.log('\nPer shard cycle (wall: the invocation, the servers on this machine included; CPU: the worker process; @0.29 vCPU: CPU / 0.289)');
const rows = runs.flatMap((r) =>
  r.phases.map((p) => {
    const c = cyclesOf(p);
    const cpu = c.map((x) => x.cpuMs);
    return {
      autoscalers: r.autoscalers,
      phase: p.name,
      shards: r.shards,
      'per shard': fixed(mean(c.map((x) => x.autoscalers))),
      'wall p50 ms': fixed(quantile(c.map((x) => x.wallMs), 0.5)),
      'wall max ms': fixed(Math.max(...c.map((x) => x.wallMs))),
      'CPU p50 ms': fixed(quantile(cpu, 0.5)),
      'CPU max ms': fixed(Math.max(...cpu)),
      'max @0.29 vCPU ms': fixed(Math.max(...cpu) / WORKER_VCPU),
      'CPU ms/autoscaler': fixed(c.reduce((n, x) => n + x.cpuMs, 0) / c.reduce((n, x) => n + x.autoscalers, 0), 2),
    };
  }),
);
console.table(rows);

// ---- calls and units per tick ----
console.log('Per tick, counted at the servers (calls per autoscaler; DynamoDB units; CloudWatch metrics requested; log lines)');
console.table(
  runs.flatMap((r) =>
    r.phases.map((p) => {
      const k8s = perTick(p, (t) => total(t.counts.k8s));
      const cw = perTick(p, (t) => t.counts.cloudWatch.calls);
      const ddb = perTick(p, (t) => total(t.counts.dynamo.calls));
      const sqs = perTick(p, (t) => total(t.sqs));
      return {
        autoscalers: r.autoscalers,
        phase: p.name,
        'k8s/as': fixed(k8s / r.autoscalers, 3),
        'CW calls/as': fixed(cw / r.autoscalers, 4),
        'DynamoDB/as': fixed(ddb / r.autoscalers, 3),
        'SQS/as': fixed(sqs / r.autoscalers, 4),
        'total/as': fixed((k8s + cw + ddb + sqs) / r.autoscalers, 3),
        RRU: fixed(perTick(p, (t) => t.counts.dynamo.readUnits)),
        WRU: fixed(perTick(p, (t) => t.counts.dynamo.writeUnits)),
        'CW metrics': fixed(perTick(p, (t) => t.counts.cloudWatch.metricStats)),
        'decision lines': fixed(perTick(p, (t) => t.logs['worker:decision']?.lines ?? 0), 1),
        'log KB': fixed(perTick(p, (t) => Object.values(t.logs).reduce((n, l) => n + l.bytes, 0) + t.emfBytes) / 1024),
      };
    }),
  ),
);
/** Every call of a tick by service and operation. */
const callsOf = (t: TickResult): Record<string, number> => ({
  ...t.counts.k8s,
  ...Object.fromEntries(Object.entries(t.counts.dynamo.calls).map(([k, v]) => [`dynamodb ${k}`, v])),
  ...Object.fromEntries(Object.entries(t.sqs).map(([k, v]) => [`sqs ${k}`, v])),
  'cloudwatch GetMetricData': t.counts.cloudWatch.calls,
});
for (const r of runs) {
  const s = r.phases.find((p) => p.name === 'steady')!;
  const calls: Record<string, number> = {};
  for (const t of s.ticks) for (const [k, v] of Object.entries(callsOf(t))) calls[k] = (calls[k] ?? 0) + v / s.ticks.length;
  console.log(`${r.autoscalers} steady, calls a tick: ${Object.entries(calls).map(([k, v]) => `${k} ${fixed(v, 2)}`).join(', ')}`);
}

// ---- where the CPU goes ----
for (const r of [small, large]) {
  const p = r.profile;
  const share = (re: RegExp) => p.byFile.filter((f) => re.test(f.file)).reduce((n, f) => n + f.share, 0);
  console.log(`\nCPU profile of one more steady tick at ${r.autoscalers} (${fixed(p.totalMs)} ms sampled): by file`);
  console.log(p.byFile.slice(0, 12).map((f) => `  ${fixed(f.share * 100, 1).padStart(5)} %  ${f.file}`).join('\n'));
  console.log(
    `  selector matching (lib/hpa/selector.ts, pod-index.ts): ${fixed(share(/lib\/hpa\/(selector|pod-index)\.ts/) * 100, 1)} %; ` +
      `HTTP client and TLS (node-fetch, node:http/https/net/tls/_http, @kubernetes/client-node, native): ${fixed(share(/npm:node-fetch|node:(_http|http|https|net|tls|_tls)|npm:@kubernetes|\(native\)/) * 100, 1)} %; ` +
      `AWS SDK: ${fixed(share(/npm:@(aws-sdk|smithy)/) * 100, 1)} %; lib/store: ${fixed(share(/^lib\/store\//) * 100, 1)} %; lib/sync: ${fixed(share(/^lib\/sync\//) * 100, 1)} %; ` +
      `lib/hpa: ${fixed(share(/^lib\/hpa\//) * 100, 1)} %; logging (functions/log.ts, Powertools, the local capture): ${fixed(share(/^functions\/|powertools|telemetry-capture/) * 100, 1)} %; GC: ${fixed(share(/garbage collector/) * 100, 1)} %`,
  );
  console.log(`  top functions (self time, and the caller most of it was under):\n${p.byFunction.slice(0, 8).map((f) => `  ${fixed(f.share * 100, 1).padStart(5)} %  ${f.fn}  ← ${f.caller}`).join('\n')}`);
}

// ---- the cost model's inputs, as measured here ----
const phase = (r: SizeRun, name: string) => r.phases.find((p) => p.name === name)!;
// A shard cycle's CPU: the single autoscaler's cycles give the fixed part, the 10,000 fleet's the part per autoscaler.
const fixedCpu = mean(cyclesOf(phase(single, 'steady')).map((c) => c.cpuMs));
const largeCycles = cyclesOf(phase(large, 'steady'));
const perAutoscalerCpu = (largeCycles.reduce((n, c) => n + c.cpuMs, 0) - fixedCpu * largeCycles.length) / largeCycles.reduce((n, c) => n + c.autoscalers, 0);
const lines = (p: Phase, k: string) => p.ticks.reduce((n, t) => n + (t.logs[k]?.lines ?? 0), 0);
const bytes = (p: Phase, k: string) => p.ticks.reduce((n, t) => n + (t.logs[k]?.bytes ?? 0), 0);
const allPhases = runs.flatMap((r) => r.phases);
const sum = (ps: Phase[], f: (t: TickResult) => number) => ps.reduce((n, p) => n + p.ticks.reduce((m, t) => m + f(t), 0), 0);
const largeSteady = phase(large, 'steady');
const first = phase(large, 'first cycle');
const shardsFirst = first.ticks[0].cycles.length;
const stateWrites = (t: TickResult) => (t.counts.dynamo.calls.UpdateItem ?? 0) - 2 * t.cycles.length;
const rescale = phase(small, 'all rescale');
const after = phase(small, '3 min after');
const smallSteady = phase(small, 'steady');
const steadyPerAs = (f: (t: TickResult) => number) => perTick(smallSteady, f) / small.autoscalers;
/** What a rescale adds, per autoscaler: the rescale's tick and the three minutes after it, beyond as many steady ticks. */
const extra = (f: (t: TickResult) => number) => sum([rescale, after], f) / small.autoscalers - (1 + after.ticks.length) * steadyPerAs(f);
const measured: Measured = {
  source: `bench/scale.bench.ts, ${new Date().toISOString().slice(0, 10)}: 1, 1,000 and 10,000 autoscalers, 2 pods each (7 KB as EKS returns them)`,
  cycleCpuFixedMs: +fixedCpu.toFixed(1),
  cycleCpuPerAutoscalerMs: +perAutoscalerCpu.toFixed(3),
  k8sCallsPerAutoscaler: +(perTick(largeSteady, (t) => total(t.counts.k8s)) / large.autoscalers).toFixed(3),
  loadReadUnitsPerAutoscaler: +(perTick(largeSteady, (t) => t.counts.dynamo.readUnits - (t.counts.dynamo.calls.GetItem ?? 0) - 0.5 * (t.counts.dynamo.calls.Query ?? 0)) / large.autoscalers).toFixed(3),
  stateWriteUnits: +((first.ticks[0].counts.dynamo.writeUnits - 2 * shardsFirst) / stateWrites(first.ticks[0])).toFixed(2),
  rescaleCpuMs: +extra((t) => t.cycles.reduce((n, c) => n + c.cpuMs, 0)).toFixed(2),
  rescaleWriteUnits: +extra((t) => t.counts.dynamo.writeUnits).toFixed(2),
  rescaleReadUnits: +extra((t) => t.counts.dynamo.readUnits).toFixed(2),
  rescaleDecisionLines: +extra((t) => t.logs['worker:decision']?.lines ?? 0).toFixed(2),
  cycleLineBytes: Math.round(sum(allPhases, (t) => t.logs['worker:cycle']?.bytes ?? 0) / sum(allPhases, (t) => t.logs['worker:cycle']?.lines ?? 0)),
  decisionLineBytes: Math.round(bytes(smallSteady, 'worker:decision') / lines(smallSteady, 'worker:decision')),
  emfBytesPerCycle: Math.round(sum(allPhases, (t) => t.emfBytes) / sum(allPhases, (t) => t.cycles.length)),
  dispatchLineBytes: Math.round(sum(allPhases, (t) => t.logs['dispatcher:dispatch']?.bytes ?? 0) / sum(allPhases, (t) => t.logs['dispatcher:dispatch']?.lines ?? 0)),
  sharedAnswerBytes: MEASURED.sharedAnswerBytes,
};
console.log('\nThe cost model\'s measured inputs, as this run measured them (lib/cost/inputs.ts MEASURED):');
console.log(JSON.stringify(measured, null, 2));
const writesMeasured = perTick(smallSteady, stateWrites) / small.autoscalers;
// The same policy over this window (the first writes at its start): an autoscaler refreshes every ceil(age / 15 s) ticks, age uniform over 150–300 s.
const n = smallSteady.ticks.length;
const inWindow = mean(Array.from({ length: 1000 }, (_, i) => Math.floor(n / Math.ceil((150 + (i + 0.5) * 0.15) / 15)) / n));
console.log(
  `steady state at 1,000 over ${n} ticks: ${fixed(writesMeasured * 100, 2)} % of autoscalers written a tick (the write policy over this window: ${fixed(inWindow * 100, 2)} %; in the long run: ${fixed(steadyWritesPerTick(15) * 100, 2)} %), ` +
    `${fixed(steadyPerAs((t) => t.logs['worker:decision']?.lines ?? 0) * 100, 2)} % logged a decision line a tick (model: ${fixed((15 / 300) * 100, 2)} %), ` +
    `CloudWatch metrics requested ${fixed(steadyPerAs((t) => t.counts.cloudWatch.metricStats) * 4, 3)} per distinct query a minute (model: 1)`,
);

// ---- cost per autoscaler-month, from this run's measurements ----
const costs = [small, large].map((r) => {
  const e = estimateCost({ ...DEFAULT_FLEET, autoscalers: r.autoscalers, clusters: 10, shards: r.shards / 10 }, { measured });
  return { autoscalers: r.autoscalers, e };
});
console.log('\nCost per autoscaler-month (shpa cost with this run\'s measurements, 10 clusters, one CloudWatch metric each):');
console.table(costs.map(({ autoscalers, e }) => ({ autoscalers, shards: e.fleet.clusters * e.fleet.shards, total: fixed(e.totalUsd, 2), 'per autoscaler': fixed(e.perAutoscalerUsd, 4), 'without monitoring': fixed(e.perAutoscalerWithoutMonitoringUsd, 4), 'tick ms (est.)': fixed(e.cycle.durationMs) })));
const [c1, c2] = costs.map((c) => c.e.perAutoscalerWithoutMonitoringUsd);
const worst = Math.max(...runs.flatMap((r) => r.phases.flatMap((p) => cyclesOf(p).map((c) => c.cpuMs / WORKER_VCPU))));
const worstSteady = Math.max(...runs.flatMap((r) => cyclesOf(phase(r, 'steady')).map((c) => c.cpuMs / WORKER_VCPU)));
const goals = [
  [`every shard's cycle, in every phase, under half the period at 512 MB (CPU at 0.29 vCPU)`, worst < HALF_PERIOD_MS, `worst ${fixed(worst)} ms (steady: ${fixed(worstSteady)} ms)`],
  [`cost per autoscaler flat from 1,000 to 10,000 (±10 %)`, Math.abs(c2 / c1 - 1) <= 0.1, `${fixed(c1, 4)} → ${fixed(c2, 4)} $ (×${fixed(c2 / c1, 3)})`],
] as const;
for (const [goal, ok, got] of goals) console.log(`${ok ? 'MET ' : 'MISS'} ${goal}: ${got}`);
if (warnings.size > 0) console.log(`process warnings while the functions ran: ${[...warnings].map(([k, w]) => `${k} × ${w.count} (${w.first})`).join('; ')}`);
console.log(`(the model's shipped inputs: ${MEASURED.source}; this run took ${fixed((performance.now() - started) / 1000)} s)`);
