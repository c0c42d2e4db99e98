// Bench-only: what a Lambda host process (lambda-child.ts) and its parent (lambda-env.ts) say to
// each other over IPC (JSON), and reading a cgroup's throttling. Small on purpose: the host's
// bundle carries it.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import type { LocalEndpoints } from '../../functions/adapters.js';
import type { LogLine } from '../../lib/local/lambda/telemetry-capture.js';

/** What an environment is: the function's environment variables and the local endpoints it talks to. */
export interface EnvironmentSpec {
  id: string;
  /** The function's environment (AWS_REGION, SHPA_TABLE, SHPA_QUEUE_URL, SHPA_CLUSTERS...). */
  env: Record<string, string>;
  local: LocalEndpoints;
}

/** cpu.stat's throttling counters, or their growth over an invocation. */
export interface Throttling {
  periods: number;
  throttledPeriods: number;
  throttledMs: number;
}

export interface Invocation {
  envId: string;
  /** The environment's first invocation (its adapters made then: a cold start, module loading aside). */
  cold: boolean;
  /** The handler's answer, or what it threw (Lambda's Errors metric; SQS retries the message). */
  response?: SQSBatchResponse;
  error?: string;
  /** The environment's clock when the invocation started (epoch ms). */
  startedAt: number;
  wallMs: number;
  /** The host process's CPU time over the invocation (every thread). */
  cpuMs: number;
  /** cpuMs at the share: what it takes at that vCPU when the host is not throttled (else cpuMs). */
  cpuAtShareMs: number;
  /** Throttling during the invocation (absent without a cgroup). */
  throttling?: Throttling;
  /**
   * Time the host's main thread was runnable but not running (/proc schedstat run_delay): the
   * quota's throttling and, beyond it, other processes of this machine taking the CPU.
   */
  runQueueMs?: number;
  /** Another invocation ran in the same host meanwhile: CPU and throttling are shared. */
  overlapped: boolean;
  /** Longer than the function's timeout (the period): Lambda would have ended it. */
  timedOut: boolean;
  lines: LogLine[];
  emf: Record<string, unknown>[];
  /** Unhandled rejections and uncaught exceptions in the host since the previous answer. */
  processErrors: string[];
  warnings: string[];
}

export type HostRequest =
  | { cmd: 'create'; spec: EnvironmentSpec }
  | { cmd: 'invoke'; envId: string; event: SQSEvent; clockOffsetMs: number }
  | { cmd: 'dispose'; envId: string };

export type HostReply = { id: number; value?: unknown; error?: string } | { ready: true; pid: number };

/** Reads cpu.stat: v1 counts throttled time in ns, v2 in µs. */
export function readThrottling(statFile: string): Throttling | undefined {
  let text: string;
  try {
    text = readFileSync(statFile, 'utf8');
  } catch {
    return undefined;
  }
  const v = Object.fromEntries(text.split('\n').filter(Boolean).map((l) => l.split(' ')).map(([k, n]) => [k, Number(n)])) as Record<string, number>;
  const throttledMs = v.throttled_usec !== undefined ? v.throttled_usec / 1000 : (v.throttled_time ?? 0) / 1e6;
  return { periods: v.nr_periods ?? 0, throttledPeriods: v.nr_throttled ?? 0, throttledMs };
}

export const throttlingSince = (now: Throttling, before: Throttling): Throttling => ({
  periods: now.periods - before.periods,
  throttledPeriods: now.throttledPeriods - before.throttledPeriods,
  throttledMs: now.throttledMs - before.throttledMs,
});

/** A thread's time waiting on a run queue (ms), from /proc/<pid>/task/<tid>/schedstat ("on-CPU ns, run_delay ns, slices"). */
export function readRunQueueMs(pid: number, tid = pid): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return undefined;
  }
}
