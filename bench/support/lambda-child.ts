// Bench-only: the code of a Lambda host process (bench/support/lambda-env.ts starts it, bundled
// as the worker ships, inside its CPU cgroup). It holds environments by id, each the real
// worker handler on its own adapters, and answers the parent's requests over IPC: create,
// invoke (one SQS event, the environment's clock shifted to the parent's time), dispose.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createAdapters, type Adapters } from '../../functions/adapters.js';
import { createWorkerHandler } from '../../functions/worker.js';
import { lambdaContexts } from '../../lib/local/lambda/runtime.js';
import { CapturingLogger, CapturingMetrics } from '../../lib/local/lambda/telemetry-capture.js';
import { loadFunctionConfig } from '#sync/messaging';
import type { Clock } from '#sync/ports';
import { readRunQueueMs, readThrottling, throttlingSince, type EnvironmentSpec, type HostRequest, type Invocation } from './lambda-protocol.js';
import { startRawProfile } from './profile.js';

interface Wired {
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  logger: CapturingLogger;
  emf: CapturingMetrics;
  close(): void;
}

/**
 * All the product wiring of an environment, as functions/worker.ts's `handler` does it, with
 * the local endpoints and telemetry captured: the one place to adapt when the functions'
 * factories change shape.
 */
function wireWorker(spec: EnvironmentSpec, clock: Clock): Wired {
  const config = loadFunctionConfig(spec.env);
  const logger = new CapturingLogger({ serviceName: 'serverless-hpa' });
  const emf = new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
  let adapters: Adapters | undefined;
  const handler = createWorkerHandler({
    config,
    adapters: () => (adapters ??= createAdapters(config, { clock, local: spec.local })),
    logger,
    emf,
    log: { periodSeconds: config.syncPeriodSeconds, decisionLogSeconds: config.options.decisionLogSeconds, autoscalerMetrics: config.autoscalerMetrics, detailedMetrics: spec.env.SHPA_DETAILED_METRICS === 'true' },
  });
  return {
    handler: (event, context) => handler(event, context),
    logger,
    emf,
    close: () => {
      adapters?.store.client.destroy();
      adapters?.sqs.destroy();
    },
  };
}

interface Environment extends Wired {
  offsetMs: number;
  invocations: number;
  context: () => Context;
}

const environments = new Map<string, Environment>();
const timeoutSeconds = Number(process.env.SHPA_LAMBDA_TIMEOUT_SECONDS ?? 15);
const share = Number(process.env.SHPA_LAMBDA_SHARE ?? 1);
const throttled = process.env.SHPA_LAMBDA_THROTTLED === '1';
const statFile = process.env.SHPA_CGROUP_STAT;
/** SHPA_PROFILE_DIR: each invocation's V8 CPU profile is written there (open it in Chrome's DevTools). */
const profileDir = process.env.SHPA_PROFILE_DIR;
const processErrors: string[] = [];
const warnings: string[] = [];
let running = 0;

process.on('unhandledRejection', (e) => processErrors.push(`unhandled rejection: ${e instanceof Error ? e.message : String(e)}`));
// Lambda would end the environment; kept alive here, and said with the next answer.
process.on('uncaughtException', (e) => processErrors.push(`uncaught exception: ${e.message}`));
process.removeAllListeners('warning');
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message.slice(0, 160)}`));

function create(spec: EnvironmentSpec): void {
  if (environments.has(spec.id)) throw new Error(`environment ${spec.id} exists`);
  const env = { offsetMs: 0 } as Environment;
  const clock: Clock = { now: () => new Date(Date.now() + env.offsetMs) };
  Object.assign(env, wireWorker(spec, clock), {
    invocations: 0,
    context: lambdaContexts({ functionName: 'serverless-hpa-worker', timeoutSeconds, memoryMb: Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? 512), clock: () => clock.now().getTime() }),
  });
  environments.set(spec.id, env);
}

async function invoke(envId: string, event: SQSEvent, clockOffsetMs: number): Promise<Invocation> {
  const env = environments.get(envId);
  if (!env) throw new Error(`no environment ${envId}`);
  env.offsetMs = clockOffsetMs;
  const overlapped = running > 0;
  running++;
  const startedAt = Date.now() + clockOffsetMs;
  const throttle0 = statFile ? readThrottling(statFile) : undefined;
  const queue0 = readRunQueueMs(process.pid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let response: SQSBatchResponse | undefined;
  let error: string | undefined;
  const profiled = profileDir ? await startRawProfile() : undefined;
  try {
    response = await env.handler(event, env.context());
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  if (profiled) writeFileSync(join(profileDir!, `${process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE}MB-${envId}-${env.invocations}.cpuprofile`), JSON.stringify(await profiled()));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const throttle1 = statFile ? readThrottling(statFile) : undefined;
  const queue1 = readRunQueueMs(process.pid);
  running--;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const cold = env.invocations++ === 0;
  return {
    envId,
    cold,
    ...(response !== undefined ? { response } : {}),
    ...(error !== undefined ? { error } : {}),
    startedAt,
    wallMs,
    cpuMs,
    cpuAtShareMs: throttled ? cpuMs : cpuMs / share,
    ...(throttle0 && throttle1 ? { throttling: throttlingSince(throttle1, throttle0) } : {}),
    ...(queue0 !== undefined && queue1 !== undefined ? { runQueueMs: queue1 - queue0 } : {}),
    overlapped: overlapped || running > 0,
    timedOut: wallMs > timeoutSeconds * 1000,
    lines: env.logger.lines.splice(0),
    emf: env.emf.documents.splice(0),
    processErrors: processErrors.splice(0),
    warnings: warnings.splice(0),
  };
}

function handle(m: HostRequest): unknown {
  switch (m.cmd) {
    case 'create':
      return create(m.spec);
    case 'invoke':
      return invoke(m.envId, m.event, m.clockOffsetMs);
    case 'dispose': {
      environments.get(m.envId)?.close();
      environments.delete(m.envId);
      return undefined;
    }
  }
}

process.on('message', (m: HostRequest & { id: number }) => {
  void (async () => handle(m))().then(
    (value) => process.send!({ id: m.id, value }),
    (e: unknown) => process.send!({ id: m.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true, pid: process.pid });
