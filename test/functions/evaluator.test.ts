// The evaluator: the worker's code for one evaluate message per asynchronous invocation. What
// the work queue's handler would fail (a cycle that could not do its job, a malformed message)
// throws, so that Lambda counts it in Errors and sets it aside on the failed-events queue; what
// it would drop (an event too old) succeeds; a tick has no business here.
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Adapters } from '../../functions/adapters.js';
import { createEvaluatorHandler } from '../../functions/worker.js';
import { CapturingLogger, CapturingMetrics } from '../../lib/local/lambda/telemetry-capture.js';
import { loadFunctionConfig } from '../../lib/sync/config.js';

const NOW = new Date('2026-11-24T12:00:00Z');
const context = { awsRequestId: 'req', functionName: 'evaluator', getRemainingTimeInMillis: () => 15_000 } as unknown as Context;

function evaluator(cluster: () => unknown) {
  const released: string[] = [];
  const adapters = {
    clock: { now: () => NOW },
    clusters: { get: async () => ({ name: 'prod', region: 'us-east-1', shards: 1 }) },
    store: {
      readIndex: async () => ({ buckets: [], counts: [] }),
      acquireShard: async () => ({ outcome: 'acquired', warnings: [] }),
      releaseShard: async (shard: string) => void released.push(shard),
    },
    cluster,
    queue: { send: async () => undefined },
    sourceStats: () => ({ cloudWatchCalls: 0, cloudWatchMetricsRequested: 0, clusterMetricsCalls: 0 }),
  } as unknown as Adapters;
  const logger = new CapturingLogger();
  const emf = new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
  const handler = createEvaluatorHandler({
    config: loadFunctionConfig({ AWS_REGION: 'us-east-1', SHPA_TABLE: 't', SHPA_QUEUE_URL: 'http://127.0.0.1:1/q', SHPA_CLUSTERS: '[{"name":"prod"}]' }),
    adapters: () => adapters,
    logger,
    emf,
    log: { periodSeconds: 15, decisionLogSeconds: 300, autoscalerMetrics: false, detailedMetrics: false },
  });
  return { handler, logger, released };
}

const evaluation = (at: Date) => ({ kind: 'evaluate', shard: 'prod', targets: [{ kind: 'hpa', namespace: 'web', name: 'api' }], reason: 'spec change', at: at.toISOString(), attempt: 1 });
const run = (h: ReturnType<typeof evaluator>['handler'], event: unknown) => h(event, context).then((r) => r, (e: unknown) => (e as Error).message);

describe('evaluator handler', () => {
  it('throws when the cycle could not do its job, after saying it in an ERROR line', async () => {
    const { handler, logger } = evaluator(() => {
      throw new TypeError("Cannot read properties of undefined (reading 'items')");
    });
    expect(await run(handler, evaluation(NOW))).toMatch(/^serverless-hpa evaluator: the evaluation could not be processed: prod: unexpected failure: TypeError/);
    expect(logger.lines.filter((l) => l.level === 'ERROR').map((l) => JSON.stringify(l))).toEqual([expect.stringContaining('unexpected failure: TypeError')]);
  });

  it('throws on a malformed payload and on a tick, naming the field', async () => {
    const { handler, logger } = evaluator(() => ({}));
    expect(await run(handler, { ...evaluation(NOW), targets: [] })).toBe('serverless-hpa evaluator: the evaluation could not be processed: malformed message');
    expect(await run(handler, { kind: 'tick', shard: 'prod', tick: NOW.toISOString(), periodSeconds: 15 })).toBe('serverless-hpa evaluator: the evaluation could not be processed: malformed message');
    const errors = logger.lines.filter((l) => l.level === 'ERROR').map((l) => JSON.stringify(l));
    expect(errors).toEqual([expect.stringContaining('targets: must be a list of 1 to 500 targets'), expect.stringContaining('kind: the evaluator takes \\"evaluate\\" messages only, got \\"tick\\"')]);
  });

  it('succeeds on an evaluation too old to act on (a tick has covered it): dropped, not retried', async () => {
    const { handler, released } = evaluator(() => {
      throw new Error('never reached');
    });
    expect(await run(handler, evaluation(new Date(NOW.getTime() - 301_000)))).toEqual({ outcome: 'dropped' });
    expect(released).toEqual([]);
  });
});
