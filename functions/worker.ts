// The worker: the SQS work queue's event source. Each message is one cycle of one shard (a
// tick) or of the autoscalers an event names; wiring only, the logic is lib/sync/worker.ts.
// The evaluator (`evaluate`, the same code under its own function and reserved concurrency)
// takes one evaluate message per asynchronous invocation from the stream and events functions.
// It fails (throws) when it could not do its job, so Lambda's Errors metric, the alarms and
// SQS's retries mean something: a shard that could not be loaded, a lease that could not be
// taken, a cycle in which no autoscaler that should have been evaluated was. A metric that
// failed is a decision (upstream's FailedGet*Metric: nothing scaled, the condition says why),
// said once in its decision line and counted once in Errors: retrying the tick changes nothing.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type CycleReport, type FunctionConfig, loadFunctionConfig, MessageError, parseWorkMessage } from '#sync/messaging';
import { handleWorkMessage, type MessageResult } from '#sync';
import { createAdapters, type Adapters } from './adapters.js';
import { logCycle, logMessage, sourceStatsSince, type LogOptions, type SourceStats } from './log.js';
import { CycleLineGate } from './cycle-lines.js';
import { redact } from './redact.js';
import { withConfig } from './wiring/logger.js';
import { createTelemetry } from './wiring/telemetry.js';

export interface WorkerHandlerDeps {
  config: FunctionConfig;
  /** Made on the first invocation and kept by the warm container. */
  adapters: () => Adapters;
  logger: Logger;
  emf: Metrics;
  log: LogOptions;
  /**
   * Quiet cycles' lines at most once per SHPA_DECISION_LOG_SECONDS per shard (functions/cycle-lines.ts), as the
   * deployed worker writes them; default false: every cycle's line (the local stack, tests and benchmarks read them).
   */
  quietCycleLines?: boolean;
}

/**
 * Whether a cycle did its job: it loaded, and some autoscaler it should evaluate was evaluated (without error, or
 * decided on a metric that failed), or there were none.
 */
export function cycleDidItsJob(report: CycleReport): boolean {
  if (report.failed) return false;
  const due = report.autoscalers.filter((a) => !['notAllowed', 'invalid', 'broken'].includes(a.outcome));
  return due.length === 0 || due.some((a) => a.errors.length === 0 || decidedOnFailedMetric(a));
}

/** Upstream's FailedGetResourceMetric, FailedGetExternalMetric, ...: the autoscaler was evaluated, and holds its scale. */
function decidedOnFailedMetric(a: CycleReport['autoscalers'][number]): boolean {
  const reason = a.decision?.skipped?.reason;
  return a.outcome !== 'failed' && a.outcome !== 'skipped' && reason !== undefined && /^FailedGet\w*Metric$/.test(reason) && a.errors.every((e) => e.stage === 'reconcile');
}

type RunMessage = (body: string, id: string, context: Context, only?: 'evaluate') => Promise<{ ok: boolean; result?: MessageResult }>;

/** Runs one message (an SQS record's body, or an asynchronous invocation's payload): whether it did its job, and what happened. */
function createMessageRunner(deps: WorkerHandlerDeps): RunMessage {
  let adapters: Adapters | undefined;
  let stats: SourceStats | undefined;
  const { logger, emf, config } = deps;
  const cycleLines = deps.quietCycleLines ? new CycleLineGate() : undefined;
  const workerConfig = { periodSeconds: config.syncPeriodSeconds, options: config.options };

  return async function one(body: string, id: string, context: Context, only?: 'evaluate'): Promise<{ ok: boolean; result?: MessageResult }> {
    const a = (adapters ??= deps.adapters());
    let msg;
    try {
      msg = parseWorkMessage(body);
      if (only && msg.kind !== only) throw new MessageError(`kind: the evaluator takes "${only}" messages only, got "${msg.kind}"`);
    } catch (e) {
      // Retries cannot fix it: after maxReceiveCount (or the evaluator's retries) it is set aside, for an operator to read.
      const error = e instanceof MessageError ? e.message : String(e);
      logMessage(logger, emf, { outcome: 'failed', shard: '?', error: `malformed message ${id}: ${redact(error)}` }, deps.log);
      return { ok: false };
    }
    let result: MessageResult;
    try {
      result = await handleWorkMessage(a, workerConfig, msg, `${context.awsRequestId}/${id}`);
    } catch (e) {
      // A bug or a fault nothing below caught: said and counted here, never a silent crash.
      result = { outcome: 'failed', shard: msg.shard, error: `unexpected failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` };
    }
    if (result.outcome === 'synced') {
      const now = a.sourceStats();
      const delta = stats && sourceStatsSince(now, stats);
      stats = now;
      logCycle(logger, emf, result.report, delta, deps.log, cycleLines);
      return { ok: cycleDidItsJob(result.report), result };
    }
    if (result.outcome === 'failed' && result.report) logCycle(logger, emf, result.report, undefined, deps.log, cycleLines);
    logMessage(logger, emf, result, deps.log);
    return { ok: result.outcome !== 'failed', result };
  };
}

/** The work queue's handler (batch size 1; partial batch responses). */
export function createWorkerHandler(deps: WorkerHandlerDeps) {
  const one = createMessageRunner(deps);
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(injectLambdaContext(deps.logger))
    // Flushes the EMF counts of every message once, after the handler returns or throws.
    .use(logMetrics(deps.emf))
    .handler(async (event, context) => {
      const results = await Promise.all(event.Records.map(async (r) => ({ id: r.messageId, ...(await one(r.body, r.messageId, context)) })));
      const failed = results.filter((r) => !r.ok);
      // Every message failed: the invocation fails (Lambda's Errors metric); otherwise SQS retries just those.
      if (failed.length > 0 && failed.length === results.length) {
        throw new Error(`serverless-hpa worker: ${failed.length} message(s) could not be processed: ${failed.map((f) => describe(f.result)).join('; ')}`);
      }
      return { batchItemFailures: failed.map((f) => ({ itemIdentifier: f.id })) };
    });
}

/** The evaluator's handler: the payload is the evaluate message itself; a failure throws, so Lambda retries it or sets it aside (its on-failure destination). */
export function createEvaluatorHandler(deps: WorkerHandlerDeps) {
  const one = createMessageRunner(deps);
  return middy<unknown, { outcome: MessageResult['outcome'] }, Error, Context>()
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.emf))
    .handler(async (event, context) => {
      const r = await one(JSON.stringify(event), context.awsRequestId, context, 'evaluate');
      if (!r.ok) throw new Error(`serverless-hpa evaluator: the evaluation could not be processed: ${describe(r.result)}`);
      return { outcome: r.result!.outcome };
    });
}

function describe(result: MessageResult | undefined): string {
  if (!result) return 'malformed message';
  if (result.outcome === 'failed') return redact(`${result.shard}: ${result.error}`);
  if (result.outcome === 'synced') return `${result.shard}: no autoscaler could be evaluated (see its decision lines)`;
  return result.shard;
}

const env = process.env;
const { logger, emf } = createTelemetry(env.SHPA_METRICS_NAMESPACE, env.SHPA_STAGE);

/** The deps of either handler: the worker function runs `handler`, the evaluator function `evaluate`. */
const handlerDeps = (): WorkerHandlerDeps => {
  const config = loadFunctionConfig(env);
  return {
    config,
    adapters: () => createAdapters(config),
    logger,
    emf,
    log: {
      periodSeconds: config.syncPeriodSeconds,
      decisionLogSeconds: config.options.decisionLogSeconds,
      autoscalerMetrics: config.autoscalerMetrics,
      detailedMetrics: env.SHPA_DETAILED_METRICS === 'true',
      cyclesMetric: env.SHPA_MONITORING === 'full',
    },
    quietCycleLines: true,
  };
};

export const handler = withConfig(logger, () => createWorkerHandler(handlerDeps()));
export const evaluate = withConfig(logger, () => createEvaluatorHandler(handlerDeps()));
