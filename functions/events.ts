// EventBridge: a state change of one of our alarms (default bus; the rule matches param
// alarmNamePrefix) evaluates the autoscalers whose CloudWatchMetric names it (spec.alarmName),
// in the shards that name it; a "shpa.dev / Evaluate Autoscaler" event (the stack's own bus,
// whose policy names who may send) evaluates the one it names. Bad events are logged and
// dropped (a retry would not fix them); events too old to act on are dropped; a failed send
// fails the invocation.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { shardsNamingAlarm } from '../lib/sync/alarm-shards.js';
import { loadFunctionConfig, type FunctionConfig } from '../lib/sync/config.js';
import { alarmOf, fromBusEvent } from '../lib/sync/event-sources.js';
import { MAX_EVENT_AGE_MS } from '../lib/sync/messages.js';
import type { AlarmIndexStore, WorkQueue } from '../lib/sync/ports.js';
import { errorText } from '../lib/sync/report.js';
import { createLogger, withConfig } from './wiring/logger.js';
import { createWorkQueue } from './wiring/queue.js';
import { createStore } from './wiring/store.js';

/** How long the lookup of an alarm's shards may take before the change goes to every shard. */
const LOOKUP_MS = 5_000;

export function createEventsHandler(deps: { config: FunctionConfig; queue: () => WorkQueue; store: () => AlarmIndexStore; logger: Logger; now?: () => Date }) {
  const { logger, config } = deps;
  let queue: WorkQueue | undefined;
  let store: AlarmIndexStore | undefined;
  return middy<EventBridgeEvent<string, unknown>, { sent: number }, Error, Context>()
    .use(injectLambdaContext(logger))
    .handler(async (event) => {
      const now = deps.now?.() ?? new Date();
      if (event.time && now.getTime() - Date.parse(event.time) > MAX_EVENT_AGE_MS) {
        logger.warn('event dropped', { ignored: `${event['detail-type']} of ${event.time} is too old to act on` });
        return { sent: 0 };
      }
      const alarm = alarmOf(event);
      let alarmShards: Map<string, string[]> | undefined;
      if (alarm !== undefined) {
        try {
          const found = await shardsNamingAlarm((store ??= deps.store()), config.clusters, alarm, AbortSignal.timeout(LOOKUP_MS));
          alarmShards = found.shards;
          if (found.shards.size === 0) logger.info('event', { event: { alarm, evaluations: 0, why: 'no CloudWatchMetric names this alarm' } });
        } catch (e) {
          // Sent too widely rather than not at all: each shard checks what names the alarm.
          logger.warn('event', { event: { alarm, lookup: `reading which shards name alarm ${alarm} from DynamoDB: ${errorText(e)}; sent to every shard` } });
        }
      }
      const plan = fromBusEvent(event, config.clusters, now, alarmShards);
      for (const why of plan.ignored) logger.error('event ignored', { ignored: why });
      await (queue ??= deps.queue()).send(plan.messages);
      if (plan.messages.length > 0) logger.info('event', { event: { source: event.source, detailType: event['detail-type'], evaluations: plan.messages.length } });
      return { sent: plan.messages.length };
    });
}

const env = process.env;
const logger = createLogger();

export const handler = withConfig(logger, () => {
  const config = loadFunctionConfig(env);
  return createEventsHandler({ config, queue: () => createWorkQueue(config).queue, store: () => createStore(config), logger });
});
