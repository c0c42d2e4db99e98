// The table's stream (filtered to spec items by infra/stream-filter.json): each spec written
// by `shpa apply` is evaluated within seconds, by the evaluator (invoked asynchronously), instead of at
// the next tick.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { specOfKeys, KIND_HPA } from '../lib/store/items.js';
import { fromSpecChanges, type FunctionConfig, loadFunctionConfig, type SpecChange } from '#sync/messaging';
import type { WorkQueue } from '#sync/ports';
import { createLogger, withConfig } from './wiring/logger.js';
import { createEvaluations } from './wiring/queue.js';

export function createStreamHandler(deps: { config: FunctionConfig; queue: () => WorkQueue; logger: Logger; now?: () => Date }) {
  const { logger, config } = deps;
  let queue: WorkQueue | undefined;
  return middy<DynamoDBStreamEvent, void, Error, Context>()
    .use(injectLambdaContext(logger))
    .handler(async (event) => {
      const now = deps.now?.() ?? new Date();
      const changes: SpecChange[] = [];
      for (const r of event.Records) {
        if (r.eventName === 'REMOVE') continue;
        const spec = specOfKeys(r.dynamodb?.Keys?.pk?.S ?? '', r.dynamodb?.Keys?.sk?.S ?? '');
        if (!spec) continue;
        const at = r.dynamodb?.ApproximateCreationDateTime;
        changes.push({ cluster: spec.cluster, namespace: spec.namespace, name: spec.name, kind: spec.kind === KIND_HPA ? 'hpa' : 'cwm', at: at ? new Date(at * 1000) : now });
      }
      const plan = fromSpecChanges(changes, config.clusters);
      for (const why of plan.ignored) logger.warn('spec change ignored', { ignored: why });
      // A failed invoke throws: the stream retries the batch (bisecting it), nothing is lost.
      await (queue ??= deps.queue()).send(plan.messages);
      if (plan.messages.length > 0) logger.info('spec changes', { specChanges: { records: event.Records.length, evaluations: plan.messages.length } });
    });
}

const env = process.env;
const logger = createLogger();

export const handler = withConfig(logger, () => {
  const config = loadFunctionConfig(env, { table: false, queue: false, evaluator: true });
  return createStreamHandler({ config, queue: () => createEvaluations(config), logger });
});
