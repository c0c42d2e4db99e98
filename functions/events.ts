// EventBridge: a CloudWatch alarm changing state evaluates the autoscalers whose
// CloudWatchMetric names it (spec.alarmName); a "shpa.dev / Evaluate Autoscaler" event
// evaluates the one it names. CloudWatch Logs: a subscription on a cluster's audit log
// evaluates the objects created or edited (lib/sync/audit-events.ts). Bad events are logged
// and dropped (a retry would not fix them); events too old to act on are dropped; a failed
// send fails the invocation.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import type { CloudWatchLogsEvent, Context, EventBridgeEvent } from 'aws-lambda';
import { fromAuditLogData } from '../lib/sync/audit-events.js';
import { loadFunctionConfig, type FunctionConfig } from '../lib/sync/config.js';
import { fromBusEvent, type Planned } from '../lib/sync/event-sources.js';
import { MAX_EVENT_AGE_MS } from '../lib/sync/messages.js';
import type { WorkQueue } from '../lib/sync/ports.js';
import { createLogger, withConfig } from './wiring/logger.js';
import { createWorkQueue } from './wiring/queue.js';

export function createEventsHandler(deps: { config: FunctionConfig; queue: () => WorkQueue; logger: Logger; now?: () => Date }) {
  const { logger, config } = deps;
  let queue: WorkQueue | undefined;
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
        plan = fromBusEvent(input, config.clusters, now);
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
  const config = loadFunctionConfig(env, { table: false });
  return createEventsHandler({ config, queue: () => createWorkQueue(config).queue, logger });
});
