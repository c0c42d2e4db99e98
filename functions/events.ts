// EventBridge: a state change of one of our alarms (default bus; the rule matches param
// alarmNamePrefix) evaluates the autoscalers whose CloudWatchMetric names it (spec.alarmName),
// in the shards that name it; a "shpa.dev / Evaluate Autoscaler" event (the stack's own bus,
// whose policy names who may send) evaluates the one it names. CloudWatch Logs: a subscription
// on a cluster's audit log evaluates the objects created or edited (lib/sync/audit-events.ts).
// Bad events are logged and dropped (a retry would not fix them); events too old to act on are
// dropped; a failed send fails the invocation. Evaluations go to the evaluator, invoked asynchronously.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import type { CloudWatchLogsEvent, Context, EventBridgeEvent } from 'aws-lambda';
import {
  alarmOf,
  errorText,
  fromAuditLogData,
  fromBusEvent,
  type FunctionConfig,
  loadFunctionConfig,
  MAX_EVENT_AGE_MS,
  type Planned,
  shardsNamingAlarm,
} from '#sync/messaging';
import type { AlarmIndexStore, WorkQueue } from '#sync/ports';
import { createLogger, withConfig } from './wiring/logger.js';
import { createEvaluations } from './wiring/queue.js';
import { createStore } from './wiring/store.js';

/** How long the lookup of an alarm's shards may take before the change goes to every shard. */
const LOOKUP_MS = 5_000;

export function createEventsHandler(deps: { config: FunctionConfig; queue: () => WorkQueue; store: () => AlarmIndexStore; logger: Logger; now?: () => Date }) {
  const { logger, config } = deps;
  let queue: WorkQueue | undefined;
  let store: AlarmIndexStore | undefined;

  /** For an alarm's state change, the shards whose CloudWatchMetric objects name it; undefined: every shard. */
  async function alarmShards(event: EventBridgeEvent<string, unknown>): Promise<Map<string, string[]> | undefined> {
    const alarm = alarmOf(event);
    if (alarm === undefined) return undefined;
    try {
      const found = await shardsNamingAlarm((store ??= deps.store()), config.clusters, alarm, AbortSignal.timeout(LOOKUP_MS));
      if (found.shards.size === 0) logger.info('event', { event: { alarm, evaluations: 0, why: 'no CloudWatchMetric names this alarm' } });
      return found.shards;
    } catch (e) {
      // Sent too widely rather than not at all: each shard checks what names the alarm.
      logger.warn('event', { event: { alarm, lookup: `reading which shards name alarm ${alarm} from DynamoDB: ${errorText(e)}; sent to every shard` } });
      return undefined;
    }
  }

  return middy<EventBridgeEvent<string, unknown> | CloudWatchLogsEvent, { sent: number }, Error, Context>()
    .use(injectLambdaContext(logger))
    .handler(async (input) => {
      const now = deps.now?.() ?? new Date();
      let plan: Planned;
      let from: Record<string, string>;
      if ('awslogs' in input) {
        plan = fromAuditLogData(input.awslogs.data, config.clusters);
        from = { source: 'audit log' };
      } else {
        if (input.time && now.getTime() - Date.parse(input.time) > MAX_EVENT_AGE_MS) {
          logger.warn('event dropped', { ignored: `${input['detail-type']} of ${input.time} is too old to act on` });
          return { sent: 0 };
        }
        plan = fromBusEvent(input, config.clusters, now, await alarmShards(input));
        from = { source: input.source, detailType: input['detail-type'] };
      }
      for (const why of plan.ignored) logger.error('event ignored', { ignored: why });
      await (queue ??= deps.queue()).send(plan.messages);
      if (plan.messages.length > 0) logger.info('event', { event: { ...from, evaluations: plan.messages.length } });
      return { sent: plan.messages.length };
    });
}

const env = process.env;
const logger = createLogger();

export const handler = withConfig(logger, () => {
  const config = loadFunctionConfig(env, { queue: false, evaluator: true });
  return createEventsHandler({ config, queue: () => createEvaluations(config), store: () => createStore(config), logger });
});
