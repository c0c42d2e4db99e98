// Bench-only: Lambda execution environments as child processes held to Lambda's CPU share.
// Lambda gives a function 1 vCPU at 1,769 MB and CPU in proportion below (a 512 MB worker gets
// 0.289 vCPU: 28.9 ms of every 100 ms), which starves the event loop in a way no division of CPU
// time shows: timeouts fire, deadlines pass. So each host process is put in a cgroup whose CPU
// quota is that share, before it starts any thread (sh writes its own pid to the cgroup, then
// execs node), and runs the worker's code bundled as it ships (the shipped esbuild options).
// One host may hold several environments (each its own handler and adapters, so its own
// caches), addressed by id. An invocation carries a clock offset: the environment's clock is
// the real one shifted (now = Date.now() + offset), so the cycle runs in real time, with real
// timers, while the caller jumps from tick to tick without waiting. Where no cgroup can be
// made, the host runs unthrottled and says so once; its CPU time is then to be read scaled by
// the share (`Invocation.cpuAtShareMs`). A quota caps, it does not guarantee: on a busy shared
// machine a host may get less than its share, so a cgroup can also carry a CPU weight (a
// priority over other processes, within the quota), and the local servers can get one too
// (AWS's services are not starved by our neighbours).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { build } from 'esbuild';
import { ASSUMED } from '../../lib/cost/inputs.js';
import { md5Hex } from '../../lib/local/sqs/md5.js';
import type { TickMessage } from '#sync/messaging';
import { root, serverlessEsbuildOptions } from '../../test/deploy/bundle.js';
import { readThrottling, type EnvironmentSpec, type HostReply, type HostRequest, type Invocation, type Throttling } from './lambda-protocol.js';

export { readThrottling, throttlingSince, type EnvironmentSpec, type Invocation, type Throttling } from './lambda-protocol.js';

/** CFS period: Lambda's share is enforced per 100 ms. */
export const CFS_PERIOD_US = 100_000;

/** Lambda's vCPU at this memory: 1 at 1,769 MB, in proportion (lib/cost/inputs.ts ASSUMED.mbPerVcpu). */
export const cpuShare = (memoryMb: number) => memoryMb / ASSUMED.mbPerVcpu;

// ---- cgroups ----

export interface CpuCgroup {
  version: 1 | 2;
  name: string;
  dir: string;
  quotaUs: number;
  periodUs: number;
  /** Where a process is moved in (cgroup.procs) and its throttling read (cpu.stat). */
  procsFile: string;
  statFile: string;
}

const V1_CPU = '/sys/fs/cgroup/cpu';
const PREFIX = 'shpa-lambda-';

/** A cgroup v2 mount with the cpu controller available, if any (the unified hierarchy, or a hybrid's). */
function v2Root(): string | undefined {
  for (const dir of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
    const controllers = join(dir, 'cgroup.controllers');
    if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('cpu')) return dir;
  }
  return undefined;
}

/** Empty cgroups left by runs that were killed (their pid is gone): rmdir fails on a live one, harmlessly. */
function sweepStale(parent: string): void {
  for (const d of readdirSync(parent)) {
    const pid = Number(/^shpa-lambda-(\d+)-/.exec(d)?.[1]);
    if (!pid || existsSync(`/proc/${pid}`)) continue;
    try {
      rmdirSync(join(parent, d));
    } catch {
      // still holds a process: not ours to kill
    }
  }
}

/**
 * A cgroup with a CPU quota of `share` × the period (none when share is undefined) and a weight
 * of `priority` ordinary processes (default 1), or why none could be made.
 */
export function createCpuCgroup(share: number | undefined, priority = 1): { cgroup?: CpuCgroup; note?: string } {
  const name = `${PREFIX}${process.pid}-${randomUUID().slice(0, 8)}`;
  const quotaUs = share === undefined ? -1 : Math.round(share * CFS_PERIOD_US);
  const tried: string[] = [];
  if (existsSync(join(V1_CPU, 'cpu.cfs_quota_us'))) {
    const dir = join(V1_CPU, name);
    try {
      sweepStale(V1_CPU);
      mkdirSync(dir);
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
      writeFileSync(join(dir, 'cpu.shares'), String(Math.round(1024 * priority)));
      return { cgroup: { version: 1, name, dir, quotaUs, periodUs: CFS_PERIOD_US, procsFile: join(dir, 'cgroup.procs'), statFile: join(dir, 'cpu.stat') } };
    } catch (e) {
      tried.push(`cgroup v1 ${V1_CPU}: ${(e as Error).message}`);
      removeDir(dir);
    }
  }
  const v2 = v2Root();
  if (v2) {
    const dir = join(v2, name);
    try {
      sweepStale(v2);
      // Children get the cpu controller only when the parent delegates it.
      const subtree = join(v2, 'cgroup.subtree_control');
      if (!readFileSync(subtree, 'utf8').split(/\s+/).includes('cpu')) writeFileSync(subtree, '+cpu');
      mkdirSync(dir);
      writeFileSync(join(dir, 'cpu.max'), `${quotaUs < 0 ? 'max' : quotaUs} ${CFS_PERIOD_US}`);
      writeFileSync(join(dir, 'cpu.weight'), String(Math.min(10_000, Math.round(100 * priority))));
      return { cgroup: { version: 2, name, dir, quotaUs, periodUs: CFS_PERIOD_US, procsFile: join(dir, 'cgroup.procs'), statFile: join(dir, 'cpu.stat') } };
    } catch (e) {
      tried.push(`cgroup v2 ${v2}: ${(e as Error).message}`);
      removeDir(dir);
    }
  }
  if (tried.length === 0) tried.push(`neither ${V1_CPU} (v1) nor a cgroup v2 mount with the cpu controller exists`);
  return { note: tried.join('; ') };
}

function removeDir(dir: string): void {
  try {
    if (existsSync(dir)) rmdirSync(dir);
  } catch {
    // a process still in it: left for the next run's sweep
  }
}

/** Moves running processes (every thread) into a new cgroup of `priority` ordinary processes' CPU weight, no quota. */
export function prioritize(pids: number[], priority: number): { cgroup?: CpuCgroup; note?: string } {
  const made = createCpuCgroup(undefined, priority);
  if (!made.cgroup) return made;
  try {
    for (const pid of pids) writeFileSync(made.cgroup.procsFile, String(pid));
    return made;
  } catch (e) {
    removeCpuCgroup(made.cgroup);
    return { note: `moving ${pids.join(', ')} to ${made.cgroup.dir}: ${(e as Error).message}` };
  }
}

/** Moves what is left in the cgroup to its parent (so it can go even before its process exits), then removes it. */
export function removeCpuCgroup(c: CpuCgroup): void {
  try {
    const pids = readFileSync(c.procsFile, 'utf8').split('\n').filter(Boolean);
    for (const pid of pids) writeFileSync(join(c.dir, '..', 'cgroup.procs'), pid);
  } catch {
    // gone already
  }
  removeDir(c.dir);
}

/** What the host's own files say: its cgroup (from /proc/<pid>/cgroup) and the quota read back. */
export interface CgroupCheck {
  /** The process's cpu cgroup path, as /proc/<pid>/cgroup gives it. */
  path: string;
  inCgroup: boolean;
  quotaUs: number;
  periodUs: number;
}

export function checkCgroup(pid: number, c: CpuCgroup): CgroupCheck {
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').filter(Boolean);
  // v1: "4:cpu,cpuacct:/path"; v2: "0::/path".
  const line = lines.map((l) => l.split(':')).find(([, controllers]) => (c.version === 1 ? controllers.split(',').includes('cpu') : controllers === ''));
  const path = line ? line.slice(2).join(':') : '';
  let quotaUs: number;
  let periodUs: number;
  if (c.version === 1) {
    quotaUs = Number(readFileSync(join(c.dir, 'cpu.cfs_quota_us'), 'utf8'));
    periodUs = Number(readFileSync(join(c.dir, 'cpu.cfs_period_us'), 'utf8'));
  } else {
    [quotaUs, periodUs] = readFileSync(join(c.dir, 'cpu.max'), 'utf8').trim().split(' ').map((x) => (x === 'max' ? -1 : Number(x)));
  }
  return { path, inCgroup: path === `/${c.name}` || path.endsWith(`/${c.name}`), quotaUs, periodUs };
}

// ---- the host's code, bundled as the worker ships ----

let bundled: Promise<string> | undefined;

/** bench/support/lambda-child.ts bundled with serverless.yml's esbuild options, once per process. */
export function bundleHostCode(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shpa-lambda-env-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const { options, extension } = serverlessEsbuildOptions();
    const file = join(dir, `lambda-child${extension}`);
    await build({ ...options, ...(process.env.SHPA_PROFILE_DIR ? { minify: false, keepNames: true } : {}), absWorkingDir: root, entryPoints: [join(root, 'bench', 'support', 'lambda-child.ts')], outfile: file, logLevel: 'silent' });
    return file;
  })();
  return bundled;
}

// ---- hosts and environments ----

export interface LambdaHostOptions {
  /** The function's memory: the CPU share, and the context's memoryLimitInMB. */
  memoryMb: number;
  /** Skip the cgroup (unthrottled; CPU read at the share). */
  unthrottled?: boolean;
  /** The cgroup's CPU weight, in ordinary processes: how much it is preferred when the machine is busy. Default 1. */
  priority?: number;
  /** The function's timeout (s): an invocation longer than it is marked timedOut. Default 15. */
  timeoutSeconds?: number;
}

export interface LambdaEnvironment {
  readonly id: string;
  readonly host: LambdaHost;
  /** One invocation: the event as the event source mapping sends it, with the environment's clock set to Date.now() + clockOffsetMs. */
  invoke(event: SQSEvent, clockOffsetMs: number): Promise<Invocation>;
  dispose(): Promise<void>;
}

export interface LambdaHost {
  readonly pid: number;
  readonly memoryMb: number;
  readonly share: number;
  /** The cgroup the host runs in and what its files say, when throttled. */
  readonly cgroup?: CpuCgroup & { check: CgroupCheck };
  /** Why the host is not throttled, when it is not. */
  readonly note?: string;
  /** cpu.stat since the host started (absent without a cgroup). */
  throttling(): Throttling | undefined;
  createEnvironment(spec: EnvironmentSpec): Promise<LambdaEnvironment>;
  stop(): Promise<void>;
}

const noted = new Set<string>();
let signalsHandled = false;

/** Starts a host process (in its cgroup when possible) and waits until it is ready. */
export async function startLambdaHost(o: LambdaHostOptions): Promise<LambdaHost> {
  const file = await bundleHostCode();
  const share = cpuShare(o.memoryMb);
  const made = o.unthrottled ? { note: 'unthrottled on request' } : createCpuCgroup(share, o.priority);
  const cgroup = made.cgroup;
  if (made.note && !noted.has(made.note)) {
    noted.add(made.note);
    console.log(`note: Lambda hosts run without a CPU quota (${made.note}); their CPU is counted unthrottled and scaled by the share (cpuAtShareMs = cpuMs / share), their wall times are this machine's`);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: 'UTC',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(o.memoryMb),
    SHPA_LAMBDA_TIMEOUT_SECONDS: String(o.timeoutSeconds ?? 15),
    SHPA_LAMBDA_SHARE: String(share),
    SHPA_LAMBDA_THROTTLED: cgroup ? '1' : '0',
    ...(process.env.SHPA_PROFILE_DIR ? { SHPA_PROFILE_DIR: process.env.SHPA_PROFILE_DIR } : {}),
    ...(cgroup ? { SHPA_CGROUP_PROCS: cgroup.procsFile, SHPA_CGROUP_STAT: cgroup.statFile } : {}),
  };
  // In the cgroup before node starts: every thread it makes is then held to the quota.
  const child: ChildProcess = cgroup
    ? spawn('/bin/sh', ['-c', 'echo $$ > "$SHPA_CGROUP_PROCS" && exec "$@"', 'sh', process.execPath, file], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn(process.execPath, [file], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const cleanup = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (cgroup) removeCpuCgroup(cgroup);
  };
  process.once('exit', cleanup);
  if (!signalsHandled) {
    signalsHandled = true;
    // Ctrl-C: exit through 'exit', so the hosts are killed and their cgroups removed.
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => process.exit(130));
  }

  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let exited: string | undefined;
  const ready = new Promise<number>((resolve, reject) => {
    child.on('message', (m: HostReply) => {
      if ('ready' in m) return resolve(m.pid);
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve(m.value);
    });
    child.on('exit', (code, signal) => {
      exited = `the Lambda host (${o.memoryMb} MB) exited (${signal ?? code})`;
      reject(new Error(exited));
      for (const w of waiting.values()) w.reject(new Error(exited));
      waiting.clear();
    });
  });
  const call = <T>(req: HostRequest) =>
    new Promise<T>((resolve, reject) => {
      if (exited) return reject(new Error(exited));
      const id = ++next;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, ...req });
    });

  let pid: number;
  try {
    pid = await ready;
  } catch (e) {
    cleanup();
    process.removeListener('exit', cleanup);
    throw e;
  }
  let checked: (CpuCgroup & { check: CgroupCheck }) | undefined;
  let note = made.note;
  if (cgroup) {
    const check = checkCgroup(pid, cgroup);
    checked = { ...cgroup, check };
    if (!check.inCgroup || check.quotaUs !== cgroup.quotaUs) {
      note = `the host is not held to its quota: /proc/${pid}/cgroup says "${check.path}", ${cgroup.dir} has quota ${check.quotaUs}/${check.periodUs} µs`;
      console.log(`note: ${note}`);
    }
  }
  const host: LambdaHost = {
    pid,
    memoryMb: o.memoryMb,
    share,
    ...(checked ? { cgroup: checked } : {}),
    ...(note ? { note } : {}),
    throttling: () => (cgroup ? readThrottling(cgroup.statFile) : undefined),
    async createEnvironment(spec) {
      await call({ cmd: 'create', spec });
      return {
        id: spec.id,
        host,
        invoke: (event, clockOffsetMs) => call<Invocation>({ cmd: 'invoke', envId: spec.id, event, clockOffsetMs }),
        dispose: () => call<void>({ cmd: 'dispose', envId: spec.id }),
      };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      if (cgroup) removeCpuCgroup(cgroup);
      process.removeListener('exit', cleanup);
    },
  };
  return host;
}

/** The SQS event of one tick message, one record (batch size 1), as the event source mapping delivers it. */
export function tickEvent(msg: TickMessage, queueArn: string, sentAt: number): SQSEvent {
  const body = JSON.stringify(msg);
  const messageId = randomUUID();
  return {
    Records: [
      {
        messageId,
        receiptHandle: `${messageId}#1`,
        body,
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(sentAt), SenderId: 'AROALOCAL:dispatcher', ApproximateFirstReceiveTimestamp: String(sentAt) },
        messageAttributes: {},
        md5OfBody: md5Hex(body),
        eventSource: 'aws:sqs',
        eventSourceARN: queueArn,
        awsRegion: queueArn.split(':')[3],
      },
    ],
  };
}
