// The dispatcher: every minute, one tick message per shard per tick of the coming minute
// (lib/sync/dispatch.ts), and the registry mirrored from the deploy's clusters parameter.
// An event too old to act on (a throttled, retried schedule) is dropped and said.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { loadFunctionConfig, type FunctionConfig } from '../lib/sync/config.js';
import { planTicks } from '../lib/sync/dispatch.js';
import type { Clock, WorkQueue } from '../lib/sync/ports.js';
import { mirrorRegistry, type Registry } from '../lib/sync/registry.js';
import { redact } from './redact.js';
import { withConfig } from './wiring/logger.js';
import { systemClock } from './wiring/options.js';
import { createWorkQueue } from './wiring/queue.js';
import { createStore } from './wiring/store.js';
import { createTelemetry } from './wiring/telemetry.js';

export interface DispatcherResult {
  sent: number;
  late: number;
  tooOld: boolean;
}

/** What the dispatcher uses: the clock, the table's cluster registry and the work queue. */
export interface DispatcherAdapters {
  clock: Clock;
  store: Registry;
  queue: WorkQueue;
}

export function createDispatcherHandler(deps: { config: FunctionConfig; adapters: () => DispatcherAdapters; logger: Logger; emf: Metrics; mirror?: boolean }) {
  let adapters: DispatcherAdapters | undefined;
  const { logger, emf, config } = deps;
  return middy<ScheduledEvent, DispatcherResult, Error, Context>()
    .use(injectLambdaContext(logger))
    .handler(async (event) => {
      const a = (adapters ??= deps.adapters());
      const now = a.clock.now();
      const scheduled = event.time && !Number.isNaN(Date.parse(event.time)) ? new Date(event.time) : now;
      const plan = planTicks(config.clusters, scheduled, now, config.syncPeriodSeconds);
      const result: DispatcherResult = { sent: 0, late: plan.late, tooOld: plan.tooOld };
      if (plan.tooOld) {
        logger.warn('dispatch', { dispatch: { ...result, scheduledAt: scheduled.toISOString(), reason: 'the scheduled event is too old: its ticks are past' } });
        return result;
      }
      if (deps.mirror !== false) {
        try {
          const changes = await mirrorRegistry(a.store, config.clusters, now);
          if (changes.length > 0) logger.info('registry', { registry: { changes } });
        } catch (e) {
          logger.error('registry', { registryError: redact((e as Error).message) });
          emf.addMetric('Errors', MetricUnit.Count, 1);
          emf.publishStoredMetrics();
        }
      }
      await a.queue.send(plan.messages);
      result.sent = plan.messages.length;
      logger.info('dispatch', { dispatch: { ...result, scheduledAt: scheduled.toISOString(), shards: config.clusters.reduce((n, c) => n + c.shards, 0) } });
      return result;
    });
}

const env = process.env;
const { logger, emf } = createTelemetry(env.SHPA_METRICS_NAMESPACE);

export const handler = withConfig(logger, () => {
  const config = loadFunctionConfig(env);
  return createDispatcherHandler({ config, adapters: () => ({ clock: systemClock, store: createStore(config), queue: createWorkQueue(config).queue }), logger, emf });
});
