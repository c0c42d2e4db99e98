// The worker as a fleet runs it in AWS: each shard's cycle in a Lambda execution environment
// held to Lambda's CPU share (bench/support/lambda-env.ts: a child process in a CPU cgroup, the
// worker bundled as it ships, real timers on a shifted real clock), against the local servers
// over real HTTP(S) (pods and objects dressed as EKS serves them), calls counted at the servers,
// shipped settings (15 s period, 512 MB unless stated). scale.bench.ts runs the worker in its
// own process, unthrottled, and divides CPU time by the share: it cannot see an event loop
// starved past the clients' timeouts and the cycle's deadline. Parts:
//   sizes       shards of 100, 250, 500 and 1,000 autoscalers and the size the product chooses at
//               512 MB (lib/sizing's capacity in whole namespaces; 20 a namespace, 250 as 10 × 25;
//               2 pods each, CPU at 50 % and one CloudWatch metric each), each shard's cycles one
//               at a time in one environment of its own: the first cycle (no state, a cold
//               environment), 2 ticks that warm the environment's JIT up (a long-lived one is
//               warm), steady state (3 ticks at 512 MB, values ±3 %), a cycle where every
//               autoscaler changes (load × 2), at 512 MB and, for sizing, at 1,024 and 1,769 MB.
//               Lost evaluations, wall, CPU, throttling, calls, units; the all-change wall fitted
//               as fixed + per autoscaler × n for each memory.
//   partition   2,000 autoscalers of one namespace (one partition) all change, at 1,769 and
//               512 MB, after ticks until a cycle loses nothing (4 at most), then the ticks that
//               take what the all-change cycle's deadline left (8 at most): peak DynamoDB write
//               units per partition key per wall-clock second. One pod each, as the workload
//               model serves them (not EKS-dressed); when not every autoscaler got to its write,
//               the peak is a lower bound (MISS).
//   clusters    whole clusters as the dispatcher cuts them: 1,000, 2,000 and 5,000 autoscalers (20 a
//               namespace) and one namespace of 2,000, seeded with no recorded counts (an import), from
//               one shard; each minute the dispatcher's choice (lib/sync/dispatch.ts chooseShards, recorded
//               in the cluster's index as the dispatcher does), each tick every ticking shard's cycle at
//               512 MB in a pool of environments of one host (one at a time: each its own CPU share);
//               the second minute's third tick an all-change one (load × 2). Per tick: shards, deferred,
//               deferred again, evaluated, lost, wall; items DynamoDB refused for size.
//   cloudwatch  10 clusters × 4 shards of 25 autoscalers, each tick's 40 messages handled by 40
//               of 42 environments picked at random (seeded), hosted 14 to a process at 1,769 MB
//               (CPU is not what this part measures; a whole vCPU keeps it quick): CloudWatch
//               metric stats requested per distinct query per minute, counted at the server.
// The machine is shared: a host's quota caps its CPU but cannot guarantee it, so hosts and the
// local servers get a CPU weight of 10 ordinary processes (cgroup cpu.shares / cpu.weight);
// --fair leaves them at 1. "vCPU got" (CPU / wall) and the run-queue wait show what a host got.
// Command lines:
//   npm run bench -- fleet                                    every part
//   npm run bench -- fleet -- --only sizes,cloudwatch         some parts
//   npm run bench -- fleet -- --sizes 100,500 --warmup 2 --steady 3 --seed 7 --minutes 3 --fair
//   npm run bench -- fleet -- --only clusters --clusters 5000  one cluster size alone (1000, 2000, 5000, ns2000)
//   npm run bench -- fleet -- --only clusters --hog 2          beside 2 processes spinning (a CPU hog)
//   SHPA_PROFILE_DIR=/tmp/p npm run bench -- fleet -- --only sizes --sizes 500
//                                                             a CPU profile of each invocation
//   SHPA_SERVER_PROFILE_DIR=/tmp/s ...                        a CPU profile of each local servers' process
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { PERIOD_MS, total } from './support/fleet.js';
import { startLambdaFleet, type CycleResult, type LambdaFleet, type Lost } from './support/lambda-fleet.js';
import { cpuShare, startLambdaHost, type LambdaEnvironment, type LambdaHost } from './support/lambda-env.js';
import { countWarnings, fixed, mean, quantile } from './support/stats.js';
import { shardCapacity } from '../lib/sizing/shard-sizing.cjs';
import { createDynamoStore } from '../lib/store/index.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../lib/local/stack/functions.js';
import { chooseShards, ownsAutoscaler, shardId, tickingShardsOf } from '#sync/messaging';
import { namespaceName, workloadName } from './support/servers.js';

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    only: { type: 'string' },
    sizes: { type: 'string' },
    seed: { type: 'string' },
    minutes: { type: 'string' },
    warmup: { type: 'string' },
    steady: { type: 'string' },
    fair: { type: 'boolean' },
    clusters: { type: 'string' },
    'cluster-minutes': { type: 'string' },
    hog: { type: 'string' },
  },
});
const PARTS = ['sizes', 'partition', 'clusters', 'cloudwatch'] as const;
const only = new Set((args.only ?? PARTS.join(',')).split(',').map((s) => s.trim()));
for (const p of only) if (!(PARTS as readonly string[]).includes(p)) throw new Error(`--only: unknown part ${p} (${PARTS.join(', ')})`);
/** The shard the product makes at 512 MB (lib/sizing's capacity), in whole namespaces of 20. */
const CHOSEN = Math.floor(shardCapacity(512, PERIOD_MS / 1000) / 20) * 20;
const SIZES = (args.sizes ?? [...new Set([100, 250, CHOSEN, 500, 1000])].sort((a, b) => a - b).join(',')).split(',').map(Number);
const SEED = Number(args.seed ?? 20260302);
const MINUTES = Number(args.minutes ?? 3);
const PRIORITY = args.fair ? 1 : 10;
const MEMORIES = [512, 1024, 1769];
const HALF_PERIOD_MS = PERIOD_MS / 2;
const WARMUP_TICKS = Number(args.warmup ?? 2);
const STEADY_TICKS = Number(args.steady ?? 3);
const GOAL_SHARD = 500;

const warnings = countWarnings();
const hostWarnings = new Map<string, number>();
const started = performance.now();
// --hog N: N ordinary processes that spin for the whole run, the CPU hog a neighbour on the host would be.
const HOGS = Array.from({ length: Number(args.hog ?? 0) }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopHogs = () => HOGS.forEach((h) => h.exitCode === null && h.kill('SIGKILL'));
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (stopHogs(), process.exit(1)));
console.log(`load average at the start: ${loadavg().map((x) => fixed(x, 2)).join(' ')}; hosts and servers at the CPU weight of ${PRIORITY} ordinary process(es)${HOGS.length ? `; ${HOGS.length} CPU hog(s) spinning` : ''}`);

type PhaseName = 'first' | 'warm-up' | 'steady' | 'all change' | 'catch-up';
interface Phase {
  size: number;
  memoryMb: number;
  phase: PhaseName;
  cycles: CycleResult[];
}

/** Namespaces × autoscalers a namespace for a shard of n: 20 a namespace, as fleet.ts builds them, where n allows. */
const layout = (n: number) => (n % 20 === 0 ? { namespacesPerCluster: n / 20, workloadsPerNamespace: 20 } : { namespacesPerCluster: n / 25, workloadsPerNamespace: 25 });

function sumLost(cs: CycleResult[]): Lost {
  const sum: Lost = { skipped: 0, failed: 0, conflict: 0, other: 0, missing: 0, noCycle: 0 };
  for (const c of cs) for (const k of Object.keys(sum) as (keyof Lost)[]) sum[k] += c.lostBy[k];
  return sum;
}
const lostText = (l: Lost) =>
  Object.entries(l)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || '-';
const maxOf = (xs: number[]) => (xs.length ? Math.max(...xs) : Number.NaN);
/** The invocation's wall time; on an unthrottled host (no cgroup), at least its CPU time at the share. */
const wallOf = (c: CycleResult) => (c.invocation.throttling ? c.invocation.wallMs : Math.max(c.invocation.wallMs, c.invocation.cpuAtShareMs));
const noteWarnings = (cs: CycleResult[]) => {
  for (const c of cs) for (const w of c.invocation.warnings) hostWarnings.set(w.split('\n')[0], (hostWarnings.get(w.split('\n')[0]) ?? 0) + 1);
};

/** A host per memory, fresh for each fleet: each shard's environment starts cold, as a new Lambda environment does. */
async function startHosts(memories: number[]): Promise<Map<number, LambdaHost>> {
  const hosts = new Map<number, LambdaHost>();
  for (const m of memories) hosts.set(m, await startLambdaHost({ memoryMb: m, timeoutSeconds: PERIOD_MS / 1000, priority: PRIORITY }));
  return hosts;
}

function describeHost(h: LambdaHost): string {
  if (!h.cgroup || h.note) return `${h.memoryMb} MB: unthrottled (${h.note}); CPU read at ${fixed(h.share, 3)} vCPU`;
  const c = h.cgroup;
  return `${h.memoryMb} MB: pid ${h.pid} in cgroup v${c.version} ${c.check.path} (quota ${c.check.quotaUs}/${c.check.periodUs} µs = ${fixed(c.check.quotaUs / c.check.periodUs, 3)} vCPU, read back from ${c.dir})`;
}

function phaseRow(p: Phase) {
  const c = p.cycles;
  const walls = c.map(wallOf);
  const cpu = c.map((x) => x.invocation.cpuAtShareMs);
  const k8s = mean(c.map((x) => (x.counts ? total(x.counts.k8s) : Number.NaN)));
  return {
    'per shard': p.size,
    MB: p.memoryMb,
    phase: p.phase,
    cycles: c.length,
    'lost max/cycle': maxOf(c.map((x) => x.lost)),
    'lost by (sum)': lostText(sumLost(c)),
    'inv. failed': c.filter((x) => x.invocationFailed).length,
    'timed out': c.filter((x) => x.invocation.timedOut).length,
    'wall p50': fixed(quantile(walls, 0.5)),
    'wall max': fixed(maxOf(walls)),
    '< 7.5 s': maxOf(walls) < HALF_PERIOD_MS ? 'yes' : 'NO',
    'CPU p50': fixed(quantile(cpu, 0.5)),
    'CPU max': fixed(maxOf(cpu)),
    'throttled max': fixed(maxOf(c.map((x) => x.invocation.throttling?.throttledMs ?? Number.NaN))),
    'run-queue max': fixed(maxOf(c.map((x) => x.invocation.runQueueMs ?? Number.NaN))),
    'vCPU got': fixed(mean(c.map((x) => x.invocation.cpuMs / x.invocation.wallMs)), 2),
    'k8s/as': fixed(k8s / p.size, 3),
    'servers CPU ddb/k8s': `${fixed(maxOf(c.map((x) => x.counts?.cpuMsBy?.dynamo ?? Number.NaN)))}/${fixed(maxOf(c.map((x) => x.counts?.cpuMsBy?.clusters ?? Number.NaN)))}`,
    RRU: fixed(mean(c.map((x) => x.counts?.dynamo.readUnits ?? Number.NaN))),
    WRU: fixed(mean(c.map((x) => x.counts?.dynamo.writeUnits ?? Number.NaN))),
    scaled: fixed(mean(c.map((x) => x.cycle?.counts.scaled ?? 0))),
  };
}

/** Each phase's error texts by kind (names of autoscalers and namespaces left out), most frequent first. */
function printErrors(phases: Phase[]): void {
  for (const p of phases) {
    const kinds = new Map<string, number>();
    for (const c of p.cycles) for (const [k, n] of Object.entries(c.errorKinds)) kinds.set(k, (kinds.get(k) ?? 0) + n);
    if (kinds.size === 0) continue;
    const top = [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 4);
    console.log(`  ${p.size} @ ${p.memoryMb} MB ${p.phase}: ${top.map(([k, n]) => `${n} × ${k.length > 240 ? `${k.slice(0, 240)}…` : k}`).join(' | ')}${kinds.size > 4 ? ` | (${kinds.size - 4} more kinds)` : ''}`);
  }
}

// ---- sizes ----

async function runSize(n: number): Promise<Phase[]> {
  const fleet = await startLambdaFleet({ clusters: MEMORIES.length, ...layout(n), podsPerWorkload: 2, shardsPerCluster: 1, eks: true, jitter: 0.03, serverPriority: PRIORITY });
  const hosts = await startHosts(MEMORIES);
  try {
    // Cluster i's one shard is handled by the environment at MEMORIES[i].
    const envs: LambdaEnvironment[] = [];
    for (const m of MEMORIES) envs.push(await hosts.get(m)!.createEnvironment(fleet.environmentSpec(`${n}@${m}`)));
    const phases = new Map<string, Phase>();
    // Steady state is measured at 512 MB only: the other memories are there for the all-change cycle.
    const tick = async (i: number, phase: PhaseName) => {
      const at = fleet.start + i * PERIOD_MS;
      await fleet.setTime(at);
      for (const [j, m] of MEMORIES.entries()) {
        if (phase === 'steady' && m !== 512) continue;
        const r = await fleet.runCycle(envs[j], fleet.shards[j], at, { measure: true });
        noteWarnings([r]);
        const key = `${m}/${phase}`;
        if (!phases.has(key)) phases.set(key, { size: n, memoryMb: m, phase, cycles: [] });
        phases.get(key)!.cycles.push(r);
      }
    };
    let i = 0;
    await tick(i++, 'first');
    for (let k = 0; k < WARMUP_TICKS; k++) await tick(i++, 'warm-up');
    for (let k = 0; k < STEADY_TICKS; k++) await tick(i++, 'steady');
    await fleet.servers.setLoadFactor(2);
    await tick(i, 'all change');
    if (n === SIZES[0]) for (const h of hosts.values()) console.log(`  host ${describeHost(h)}`);
    return [...phases.values()];
  } finally {
    for (const h of hosts.values()) await h.stop();
    await fleet.stop();
  }
}

interface Fit {
  memoryMb: number;
  fixedMs: number;
  perAutoscalerMs: number;
  used: number[];
  left: string[];
}

/** Least squares of an all-change cycle's figure on n, over the sizes that lost nothing (a cycle cut by its deadline says nothing of its cost). */
function fitWall(phases: Phase[], memoryMb: number, value: (c: CycleResult) => number): Fit | undefined {
  const ps = phases.filter((p) => p.memoryMb === memoryMb && p.phase === 'all change');
  const used = ps.filter((p) => p.cycles.every((c) => c.lost === 0));
  const left = ps.filter((p) => !used.includes(p)).map((p) => `${p.size} (lost ${p.cycles.reduce((a, c) => a + c.lost, 0)})`);
  if (used.length < 2) return undefined;
  const xs = used.map((p) => p.size);
  const ys = used.map((p) => mean(p.cycles.map(value)));
  const mx = mean(xs);
  const my = mean(ys);
  const b = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  return { memoryMb, fixedMs: my - b * mx, perAutoscalerMs: b, used: xs, left };
}

async function sizesPart(): Promise<Phase[]> {
  const phases: Phase[] = [];
  for (const n of SIZES) {
    const t = performance.now();
    const ps = await runSize(n);
    phases.push(...ps);
    console.log(`  ${n} per shard: ${fixed((performance.now() - t) / 1000)} s`);
  }
  console.log(`\nSizes at 512 MB (${fixed(cpuShare(512), 3)} vCPU): one shard's cycles, one at a time, in one environment of its own. ms; wall: the invocation's (on a host without a cgroup, at least its CPU at the share); lost: autoscalers of the shard not evaluated in a cycle (skipped: the deadline came first; failed: an error stopped them; missing: absent from the cycle line; noCycle: the invocation ran no cycle); inv. failed: invocations that threw or reported the message failed; CPU: the host process's; throttled: cpu.stat's throttled time (v1 sums it over CPUs); run-queue: time the host's main thread was runnable but not running (the quota, and other processes of this machine); vCPU got: CPU / wall; k8s/as: Kubernetes calls per autoscaler a cycle; RRU/WRU: DynamoDB units a cycle`);
  console.table(phases.filter((p) => p.memoryMb === 512 && p.phase !== 'warm-up').map(phaseRow));
  console.log('All-change cycles at each memory (sizing):');
  console.table(phases.filter((p) => p.phase === 'all change').sort((a, b) => a.memoryMb - b.memoryMb || a.size - b.size).map(phaseRow));
  const elsewhere = phases.filter((p) => (p.phase === 'warm-up' || (p.memoryMb !== 512 && p.phase !== 'all change')) && p.cycles.some((c) => c.lost > 0));
  for (const p of elsewhere) console.log(`  lost at ${p.memoryMb} MB, ${p.size} per shard, ${p.phase}: ${lostText(sumLost(p.cycles))}`);
  console.log('Errors seen, by kind (names of autoscalers and namespaces left out), most frequent first:');
  printErrors(phases);
  for (const m of MEMORIES) {
    const wall = fitWall(phases, m, wallOf);
    const cpu = fitWall(phases, m, (c) => c.invocation.cpuAtShareMs);
    if (!wall || !cpu) {
      console.log(`fit ${m} MB: too few sizes without lost evaluations to fit`);
      continue;
    }
    const fits = Math.floor((HALF_PERIOD_MS - wall.fixedMs) / wall.perAutoscalerMs);
    console.log(
      `fit ${m} MB, all change: wall = ${fixed(wall.fixedMs)} ms + ${fixed(wall.perAutoscalerMs, 2)} ms × n; CPU = ${fixed(cpu.fixedMs)} ms + ${fixed(cpu.perAutoscalerMs, 2)} ms × n ` +
        `(from ${wall.used.join(', ')}${wall.used.length === 2 ? ', two sizes: a rough line' : ''}${wall.left.length ? `; left out: ${wall.left.join(', ')}` : ''}); wall reaches ${HALF_PERIOD_MS} ms at n ≈ ${fits}`,
    );
  }
  return phases;
}

// ---- partition ----

interface PartitionRun {
  memoryMb: number;
  phase: PhaseName;
  cycle: CycleResult;
  peak?: { key: string; units: number; atS: number };
  units: number;
}

async function partitionPart(): Promise<PartitionRun[]> {
  const n = 2_000;
  const memories = [1769, 512];
  const SETTLE_TICKS = 4;
  const CATCH_UP_TICKS = 8;
  const fleet = await startLambdaFleet({ clusters: memories.length, namespacesPerCluster: 1, workloadsPerNamespace: n, podsPerWorkload: 1, shardsPerCluster: 1, eks: false, jitter: 0.03, serverPriority: PRIORITY });
  const hosts = await startHosts(memories);
  const runs: PartitionRun[] = [];
  try {
    const envs = await Promise.all(memories.map((m) => hosts.get(m)!.createEnvironment(fleet.environmentSpec(`one-namespace@${m}`))));
    let i = 0;
    const tick = async (j: number, phase: PhaseName) => {
      const at = fleet.start + i++ * PERIOD_MS;
      await fleet.setTime(at);
      const cycle = await fleet.runCycle(envs[j], fleet.shards[j], at, { measure: true });
      noteWarnings([cycle]);
      // The invocation's writes, on the keys of this shard's cluster.
      const cluster = fleet.shards[j].cluster;
      const w = await fleet.servers.partitionWrites(cycle.wall.from, cycle.wall.to + 1, 5, [`c#${cluster}#`, `shard#${cluster}`]);
      runs.push({ memoryMb: memories[j], phase, cycle, units: w.units, ...(w.peak ? { peak: { key: w.peak.key, units: w.peak.units, atS: (w.peak.second - cycle.wall.from) / 1000 } } : {}) });
      return cycle;
    };
    // Each memory's shard until a cycle loses nothing (its states written, its environment warm), a few ticks at most.
    for (const j of memories.keys()) {
      if ((await tick(j, 'first')).lost === 0) continue;
      for (let k = 0; k < SETTLE_TICKS; k++) if ((await tick(j, 'warm-up')).lost === 0) break;
    }
    await fleet.servers.setLoadFactor(2);
    // The all-change cycle, then the ticks that take what its deadline left (first in line), until one leaves nothing.
    for (const j of memories.keys()) {
      if ((await tick(j, 'all change')).lost === 0) continue;
      for (let k = 0; k < CATCH_UP_TICKS; k++) if ((await tick(j, 'catch-up')).lost === 0) break;
    }
  } finally {
    for (const h of hosts.values()) await h.stop();
    await fleet.stop();
  }
  console.log(`\nOne namespace of ${n} autoscalers (one partition key; 1 pod each, model-sized), cycles one at a time: DynamoDB write units by partition key per wall-clock second (from each write's ConsumedCapacity and key); state writes: UpdateItem and PutItem calls but the lease's two`);
  console.table(
    runs.map((r) => ({
      MB: r.memoryMb,
      phase: r.phase,
      'wall ms': fixed(wallOf(r.cycle)),
      lost: r.cycle.lost,
      'lost by': lostText(r.cycle.lostBy),
      'state writes': (r.cycle.counts?.dynamo.calls.UpdateItem ?? 0) + (r.cycle.counts?.dynamo.calls.PutItem ?? 0) - 2,
      WRU: fixed(r.units),
      'WRU/s (mean over wall)': fixed(r.units / (r.cycle.invocation.wallMs / 1000)),
      'peak WRU/key/s': fixed(r.peak?.units ?? 0),
      key: r.peak?.key ?? '-',
      'peak at s': r.peak ? fixed(Math.max(0, r.peak.atS), 0) : '-',
      scaled: r.cycle.cycle?.counts.scaled ?? 0,
      'vCPU got': fixed(r.cycle.invocation.cpuMs / r.cycle.invocation.wallMs, 2),
    })),
  );
  printErrors(runs.map((r) => ({ size: n, memoryMb: r.memoryMb, phase: r.phase, cycles: [r.cycle] })));
  return runs;
}

// ---- clusters ----

interface ClusterScenario {
  name: string;
  namespaces: number;
  perNamespace: number;
}
interface TickRow {
  scenario: string;
  tick: number;
  minute: number;
  kind: 'from one shard' | 'first at new count' | 'steady' | 'all change';
  shards: number;
  ticked: number;
  evaluated: number;
  deferred: number;
  deferredAgain: number;
  lost: number;
  sizeRefused: number;
  failed: number;
  wallMax: number;
  wallP50: number;
  /** The slowest cycle's CPU (ms) and the vCPU it got (CPU / wall): at the share (0.289) it was CPU-bound, below it waited. */
  slowestCpuMs: number;
  slowestVcpu: number;
}

const SCENARIOS: ClusterScenario[] = (args.clusters ?? '1000,2000,5000,ns2000').split(',').map((x) => {
  const one = /^ns(\d+)$/.exec(x.trim());
  if (one) return { name: `one namespace of ${one[1]}`, namespaces: 1, perNamespace: Number(one[1]) };
  return { name: `${x.trim()} in namespaces of 20`, namespaces: Number(x) / 20, perNamespace: 20 };
});
const CLUSTER_MINUTES = Number(args['cluster-minutes'] ?? 2);
const ENV_POOL = 6;

async function runClusterScenario(sc: ClusterScenario, host: LambdaHost): Promise<TickRow[]> {
  const fleet = await startLambdaFleet({ clusters: 1, namespacesPerCluster: sc.namespaces, workloadsPerNamespace: sc.perNamespace, podsPerWorkload: 2, shardsPerCluster: 1, eks: true, jitter: 0.03, serverPriority: PRIORITY });
  const rows: TickRow[] = [];
  const envs: LambdaEnvironment[] = [];
  try {
    for (let e = 0; e < ENV_POOL; e++) envs.push(await host.createEnvironment(fleet.environmentSpec(`${sc.name}/${e}`)));
    const admin = createDynamoStore({ endpoint: fleet.servers.dynamo, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, tableName: fleet.tableName });
    const cluster = { name: fleet.shards[0].cluster, region: LOCAL_REGION, shards: 1 };
    const seeded: [string, string][] = [];
    for (let n = 0; n < sc.namespaces; n++) for (let w = 0; w < sc.perNamespace; w++) seeded.push([namespaceName(n), workloadName(w)]);
    let next = 0;
    for (let minute = 0; minute < CLUSTER_MINUTES; minute++) {
      const minuteMs = fleet.start + minute * 60_000;
      // The dispatcher's minute: the count from what the workers recorded, written to the index before any tick.
      const indexes = await admin.readIndexes([cluster.name]);
      const [choice] = chooseShards([cluster], indexes, minuteMs, { memoryMb: 512, periodSeconds: PERIOD_MS / 1000 });
      if (choice.record) await admin.recordShardCount(cluster.name, choice.record);
      const shards = tickingShardsOf({ ...cluster, shards: choice.shards }, indexes.get(cluster.name)).map((ref) => ({
        id: shardId(ref),
        cluster: cluster.name,
        autoscalers: seeded.filter(([ns, name]) => ownsAutoscaler(ref, ns, name)).length,
      }));
      for (let k = 0; k < 60_000 / PERIOD_MS; k++) {
        const tick = minute * 4 + k;
        const at = minuteMs + k * PERIOD_MS;
        const allChange = minute === 1 && k === 2;
        if (allChange) await fleet.servers.setLoadFactor(2);
        await fleet.setTime(at);
        const cycles: CycleResult[] = [];
        for (const shard of shards) {
          const c = await fleet.runCycle(envs[next++ % envs.length], shard, at);
          noteWarnings([c]);
          cycles.push(c);
        }
        const walls = cycles.map(wallOf);
        rows.push({
          scenario: sc.name,
          tick,
          minute: minute + 1,
          kind: minute === 0 ? 'from one shard' : allChange ? 'all change' : k === 0 && choice.changed ? 'first at new count' : 'steady',
          shards: choice.shards,
          ticked: shards.length,
          evaluated: cycles.reduce((a, c) => a + c.evaluated, 0),
          deferred: cycles.reduce((a, c) => a + c.deferred, 0),
          deferredAgain: cycles.reduce((a, c) => a + c.deferredAgain, 0),
          lost: cycles.reduce((a, c) => a + c.lost, 0),
          sizeRefused: cycles.reduce((a, c) => a + c.sizeRefused, 0),
          failed: cycles.filter((c) => c.invocationFailed).length,
          wallMax: maxOf(walls),
          wallP50: quantile(walls, 0.5),
          ...slowestOf(cycles),
        });
        const r = rows.at(-1)!;
        console.log(`  ${sc.name} tick ${tick} (${r.kind}): ${r.shards} shards, ${r.ticked} ticked, evaluated ${r.evaluated}, deferred ${r.deferred} (again ${r.deferredAgain}), lost ${r.lost}, wall max ${fixed(r.wallMax)} ms (CPU ${fixed(r.slowestCpuMs)} ms, ${fixed(r.slowestVcpu, 2)} vCPU got)${r.sizeRefused ? `, ${r.sizeRefused} refused for size` : ''}`);
        printErrors([{ size: seeded.length, memoryMb: 512, phase: allChange ? 'all change' : 'steady', cycles: cycles.filter((c) => c.lost > 0) }]);
      }
    }
    admin.client.destroy();
  } finally {
    for (const e of envs) await e.dispose();
    await fleet.stop();
  }
  return rows;
}

function slowestOf(cycles: CycleResult[]): { slowestCpuMs: number; slowestVcpu: number } {
  const slowest = cycles.reduce((a, c) => (c.invocation.wallMs > a.invocation.wallMs ? c : a), cycles[0]);
  return { slowestCpuMs: slowest.invocation.cpuMs, slowestVcpu: slowest.invocation.cpuMs / slowest.invocation.wallMs };
}

async function clustersPart(): Promise<TickRow[]> {
  const host = await startLambdaHost({ memoryMb: 512, timeoutSeconds: PERIOD_MS / 1000, priority: PRIORITY });
  const rows: TickRow[] = [];
  try {
    console.log(`\nWhole clusters from one shard, the dispatcher's count each minute, every shard's cycle at 512 MB (${describeHost(host)}), ${CLUSTER_MINUTES} minutes`);
    for (const sc of SCENARIOS) rows.push(...(await runClusterScenario(sc, host)));
  } finally {
    await host.stop();
  }
  console.table(
    rows.map((r) => ({
      cluster: r.scenario,
      tick: r.tick,
      kind: r.kind,
      shards: r.shards,
      ticked: r.ticked,
      evaluated: r.evaluated,
      deferred: r.deferred,
      'deferred again': r.deferredAgain,
      lost: r.lost,
      'inv. failed': r.failed,
      'refused for size': r.sizeRefused,
      'wall p50': fixed(r.wallP50),
      'wall max': fixed(r.wallMax),
      'slowest: CPU, vCPU got': `${fixed(r.slowestCpuMs)}, ${fixed(r.slowestVcpu, 2)}`,
      '< 60 %': r.wallMax < 0.6 * PERIOD_MS ? 'yes' : 'NO',
    })),
  );
  return rows;
}

// ---- cloudwatch ----

/** mulberry32: a small seeded PRNG, so a placement can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

interface MinuteRow {
  minute: number;
  metricStats: number;
  queries: number;
  perQuery: number;
  maxOneQuery: number;
  environments: number;
  lost: number;
  failed: number;
}

async function cloudWatchPart(): Promise<MinuteRow[]> {
  const ENVIRONMENTS = 42;
  const HOSTS = 3;
  const MEMORY = 1769;
  const fleet: LambdaFleet = await startLambdaFleet({ clusters: 10, namespacesPerCluster: 4, workloadsPerNamespace: 25, podsPerWorkload: 2, shardsPerCluster: 4, eks: true, jitter: 0.03, serverPriority: PRIORITY });
  const hosts: LambdaHost[] = [];
  const rows: MinuteRow[] = [];
  const random = prng(SEED);
  try {
    for (let h = 0; h < HOSTS; h++) hosts.push(await startLambdaHost({ memoryMb: MEMORY, timeoutSeconds: PERIOD_MS / 1000, priority: PRIORITY }));
    const envs: LambdaEnvironment[] = [];
    for (let e = 0; e < ENVIRONMENTS; e++) envs.push(await hosts[e % HOSTS].createEnvironment(fleet.environmentSpec(`env-${e}`)));
    console.log(`\nCloudWatch under random placement: ${fleet.shards.length} shards (${fleet.autoscalers} autoscalers, one CloudWatch query each) on ${ENVIRONMENTS} environments in ${HOSTS} host processes at ${MEMORY} MB, seed ${SEED}, ${MINUTES} minutes`);
    let before: Record<string, number> = {};
    for (let minute = 0; minute < MINUTES; minute++) {
      const used = new Set<string>();
      const cycles: CycleResult[] = [];
      for (let k = 0; k < 60_000 / PERIOD_MS; k++) {
        const at = fleet.start + minute * 60_000 + k * PERIOD_MS;
        await fleet.setTime(at);
        // Concurrent messages go to distinct environments: a random draw of 40 of the 42 (Fisher-Yates).
        const order = envs.map((_, i) => i);
        for (let i = order.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [order[i], order[j]] = [order[j], order[i]];
        }
        const byHost = hosts.map(() => [] as { env: LambdaEnvironment; shard: (typeof fleet.shards)[number] }[]);
        fleet.shards.forEach((shard, s) => {
          const env = envs[order[s]];
          used.add(env.id);
          byHost[hosts.indexOf(env.host)].push({ env, shard });
        });
        // One invocation at a time in a host (its CPU is one environment's share); hosts side by side.
        await Promise.all(
          byHost.map(async (list) => {
            for (const { env, shard } of list) cycles.push(await fleet.runCycle(env, shard, at));
          }),
        );
      }
      noteWarnings(cycles);
      const now = await fleet.servers.cloudWatchQueries();
      const delta = Object.entries(now).map(([k, v]) => v - (before[k] ?? 0));
      before = now;
      const metricStats = delta.reduce((a, b) => a + b, 0);
      rows.push({
        minute: minute + 1,
        metricStats,
        queries: fleet.autoscalers,
        perQuery: metricStats / fleet.autoscalers,
        maxOneQuery: maxOf(delta),
        environments: used.size,
        lost: cycles.reduce((a, c) => a + c.lost, 0),
        failed: cycles.filter((c) => c.invocationFailed).length,
      });
    }
    // A cache per environment: a query is read once per distinct environment its shard meets in a minute.
    const perEnvironment = ENVIRONMENTS * (1 - (1 - 1 / ENVIRONMENTS) ** (60_000 / PERIOD_MS));
    console.log(`distinct queries seen at the server: ${Object.keys(before).length}; a cache per environment predicts ${fixed(perEnvironment, 2)} reads per query a minute, one shared cache 1.00`);
  } finally {
    for (const h of hosts) await h.stop();
    await fleet.stop();
  }
  console.table(rows.map((r) => ({ minute: r.minute, 'metric stats requested': r.metricStats, 'distinct queries': r.queries, 'reads per query': fixed(r.perQuery, 2), 'most reads of one query': r.maxOneQuery, 'environments used': r.environments, 'lost evaluations': r.lost, 'inv. failed': r.failed })));
  return rows;
}

// ---- run, then the goals ----

const goals: [string, boolean, string][] = [];
const timings: string[] = [];
const memoriesOf = (runs: { memoryMb: number }[]) => [...new Set(runs.map((r) => r.memoryMb))];

const timed = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
  const t = performance.now();
  try {
    return await f();
  } finally {
    timings.push(`${name} ${fixed((performance.now() - t) / 1000)} s`);
  }
};

if (only.has('sizes')) {
  const phases = await timed('sizes', sizesPart);
  const at = phases.filter((p) => p.size === GOAL_SHARD && p.memoryMb === 512);
  if (at.length > 0) {
    goals.push([`lost evaluations 0 at ${GOAL_SHARD} per shard at 512 MB in every kind of cycle`, at.every((p) => p.cycles.every((c) => c.lost === 0)), at.map((p) => `${p.phase} ${p.cycles.reduce((a, c) => a + c.lost, 0)} (${lostText(sumLost(p.cycles))})`).join('; ')]);
    const worst = maxOf(at.flatMap((p) => p.cycles.map(wallOf)));
    goals.push([`wall under half the period (${HALF_PERIOD_MS} ms) at ${GOAL_SHARD} per shard at 512 MB, every kind of cycle`, worst < HALF_PERIOD_MS, `worst ${fixed(worst)} ms (${at.map((p) => `${p.phase} ${fixed(maxOf(p.cycles.map(wallOf)))}`).join(', ')})`]);
    const steady = at.find((p) => p.phase === 'steady')!;
    const k8s = mean(steady.cycles.map((c) => total(c.counts!.k8s))) / GOAL_SHARD;
    goals.push([`Kubernetes calls per autoscaler in steady state ≤ 0.2 (${GOAL_SHARD} per shard)`, k8s <= 0.2, fixed(k8s, 3)]);
  }
  const chosen = phases.filter((p) => p.size === CHOSEN && p.memoryMb === 512);
  if (chosen.length > 0) {
    goals.push([
      `lost evaluations 0 at the size the product chooses at 512 MB (${CHOSEN}, lib/sizing's ${shardCapacity(512, PERIOD_MS / 1000)} in whole namespaces) in every kind of cycle`,
      chosen.every((p) => p.cycles.every((c) => c.lost === 0)),
      chosen.map((p) => `${p.phase} ${p.cycles.reduce((a, c) => a + c.lost, 0)}`).join('; '),
    ]);
  }
  const others = phases.filter((p) => p.memoryMb === 512 && p.size !== GOAL_SHARD && p.size !== CHOSEN);
  if (others.length > 0) console.log(`(lost at 512 MB elsewhere: ${[...new Set(others.map((p) => p.size))].map((n) => `${n}: ${others.filter((p) => p.size === n).map((p) => `${p.phase} ${p.cycles.reduce((a, c) => a + c.lost, 0)}`).join(', ')}`).join('; ')})`);
}
if (only.has('partition')) {
  const runs = await timed('partition', partitionPart);
  const change = runs.filter((r) => r.phase === 'all change' || r.phase === 'catch-up');
  // Below the goal means nothing if the cycles wrote little: some cycle must have written (nearly) every autoscaler of the namespace.
  const n = runs[0]?.cycle.autoscalers ?? 0;
  const writes = (r: PartitionRun) => (r.cycle.counts?.dynamo.calls.UpdateItem ?? 0) + (r.cycle.counts?.dynamo.calls.PutItem ?? 0) - 2;
  const most = runs.reduce((a, r) => (writes(r) > writes(a) ? r : a), runs[0]);
  const whole = writes(most) >= 0.9 * n;
  const any = runs.reduce((a, r) => ((r.peak?.units ?? 0) > (a.peak?.units ?? 0) ? r : a), runs[0]);
  goals.push([
    'peak write units per partition key per second ≤ 1,000 (2,000 autoscalers of one namespace all change), in every cycle',
    whole && (any.peak?.units ?? 0) <= 1000,
    `highest ${fixed(any.peak?.units ?? 0)} (${any.memoryMb} MB ${any.phase}, ${writes(any)} state writes); the cycle that wrote most: ${writes(most)} state writes, ${fixed(most.units)} WRU in ${fixed(most.cycle.invocation.wallMs)} ms at ${most.memoryMb} MB, peak ${fixed(most.peak?.units ?? 0)}; ` +
      `all change and catch-up: ${memoriesOf(runs).map((m) => `${m} MB peak ${fixed(Math.max(...change.filter((r) => r.memoryMb === m).map((r) => r.peak?.units ?? 0)))} over ${change.filter((r) => r.memoryMb === m).length} cycle(s), ${change.filter((r) => r.memoryMb === m).reduce((k, r) => k + writes(r), 0)} state writes`).join('; ')}` +
      `${whole ? '' : `; no cycle wrote 90 % of the ${n}: a lower bound`}`,
  ]);
}
if (only.has('clusters')) {
  const rows = await timed('clusters', clustersPart);
  for (const sc of new Set(rows.map((r) => r.scenario))) {
    const later = rows.filter((r) => r.scenario === sc && r.minute >= 2);
    const all = rows.filter((r) => r.scenario === sc);
    goals.push([
      `${sc}: from the second minute on no evaluation lost, in steady and all-change ticks, at 512 MB`,
      later.length > 0 && later.every((r) => r.lost === 0),
      later.map((r) => `tick ${r.tick} ${r.kind}: ${r.shards} shards, lost ${r.lost}, wall max ${fixed(r.wallMax)}`).join('; '),
    ]);
    goals.push([`${sc}: no DynamoDB item refused for size`, all.every((r) => r.sizeRefused === 0), `${all.reduce((a, r) => a + r.sizeRefused, 0)} refusals`]);
    goals.push([`${sc}: every cycle under 60 % of the period (${0.6 * PERIOD_MS} ms) from the second minute on`, later.every((r) => r.wallMax < 0.6 * PERIOD_MS), `worst ${fixed(maxOf(later.map((r) => r.wallMax)))} ms`]);
  }
}
if (only.has('cloudwatch')) {
  const rows = await timed('cloudwatch', cloudWatchPart);
  const warm = rows.length > 1 ? rows.slice(1) : rows;
  const per = mean(warm.map((r) => r.perQuery));
  goals.push([`CloudWatch reads per distinct query per minute 1.0 under random placement (minutes ${warm[0].minute}–${warm.at(-1)!.minute}; seed ${SEED})`, Number(per.toFixed(2)) <= 1, `${fixed(per, 2)} (minute 1, cold environments: ${fixed(rows[0].perQuery, 2)})`]);
}

console.log('\nGoals:');
for (const [goal, ok, got] of goals) console.log(`${ok ? 'MET ' : 'MISS'} ${goal}: ${got}`);
if (hostWarnings.size > 0) console.log(`warnings in the hosts: ${[...hostWarnings].map(([w, n]) => `${w} × ${n}`).join('; ')}`);
if (warnings.size > 0) console.log(`warnings in the benchmark's process: ${[...warnings].map(([k, w]) => `${k} × ${w.count} (${w.first})`).join('; ')}`);
stopHogs();
console.log(`load average at the end: ${loadavg().map((x) => fixed(x, 2)).join(' ')}; run time ${fixed((performance.now() - started) / 1000)} s (${timings.join(', ')})`);
