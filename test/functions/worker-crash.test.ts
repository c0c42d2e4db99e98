// A throw nothing below the handler caught (a bug, an unforeseen fault) is said in an ERROR
// line and counted in Errors, and the message fails so SQS retries it: never a silent crash.
import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Adapters } from '../../functions/adapters.js';
import { createWorkerHandler, cycleDidItsJob } from '../../functions/worker.js';
import type { CycleReport } from '../../lib/sync/report.js';
import { CapturingLogger, CapturingMetrics } from '../../lib/local/lambda/telemetry-capture.js';
import { loadFunctionConfig } from '../../lib/sync/config.js';

describe('worker handler', () => {
  it('reports an unexpected throw as a failed message, with an ERROR line and an Errors count', async () => {
    const released: string[] = [];
    const adapters = {
      clock: { now: () => new Date('2026-11-24T12:00:00Z') },
      clusters: { get: async () => ({ name: 'prod', region: 'us-east-1', shards: 1 }) },
      store: {
        readIndex: async () => ({ buckets: [], counts: [] }),
        acquireShard: async () => ({ outcome: 'acquired', warnings: [] }),
        releaseShard: async (shard: string) => void released.push(shard),
      },
      cluster: () => {
        throw new TypeError("Cannot read properties of undefined (reading 'items')");
      },
      sourceStats: () => ({ cloudWatchCalls: 0, cloudWatchMetricsRequested: 0, clusterMetricsCalls: 0 }),
    } as unknown as Adapters;
    const logger = new CapturingLogger();
    const emf = new CapturingMetrics({ namespace: 'ServerlessHPA', serviceName: 'serverless-hpa' });
    const handler = createWorkerHandler({
      config: loadFunctionConfig({ AWS_REGION: 'us-east-1', SHPA_TABLE: 't', SHPA_QUEUE_URL: 'http://127.0.0.1:1/q', SHPA_CLUSTERS: '[{"name":"prod"}]' }),
      adapters: () => adapters,
      logger,
      emf,
      log: { periodSeconds: 15, decisionLogSeconds: 300, autoscalerMetrics: false, detailedMetrics: false },
    });
    const event: SQSEvent = {
      Records: [
        {
          messageId: 'm1',
          receiptHandle: 'r1',
          body: JSON.stringify({ kind: 'tick', shard: 'prod', tick: '2026-11-24T12:00:00Z', periodSeconds: 15 }),
          attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 's', ApproximateFirstReceiveTimestamp: '0' },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:q',
          awsRegion: 'us-east-1',
        },
      ],
    };
    const context = { awsRequestId: 'req', functionName: 'worker', getRemainingTimeInMillis: () => 15_000 } as unknown as Context;
    const thrown = await handler(event, context).then(() => undefined, (e: unknown) => (e as Error).message);
    expect(thrown).toMatch(/prod: unexpected failure: TypeError: Cannot read properties of undefined/);
    const errors = logger.lines.filter((l) => l.level === 'ERROR');
    expect(errors.map((l) => JSON.stringify(l))).toEqual([expect.stringContaining('unexpected failure: TypeError')]);
    expect(emf.documents.some((d) => JSON.stringify(d).includes('"Errors"'))).toBe(true);
  });
});

describe('when a cycle did its job (the invocation fails otherwise, for Lambda Errors and SQS retries)', () => {
  const a = (outcome: string, errors: { stage: string; message: string }[] = [], skipped?: string) => ({ namespace: 'apps', name: 'web', outcome, errors, ...(skipped ? { decision: { skipped: { reason: skipped, message: 'x' } } } : {}) });
  const report = (failed: boolean, ...autoscalers: ReturnType<typeof a>[]) => ({ failed, autoscalers }) as unknown as CycleReport;
  const metricOutage = a('unchanged', [{ stage: 'reconcile', message: 'FailedGetExternalMetric: AccessDenied' }], 'FailedGetExternalMetric');
  it.each([
    ['every autoscaler decided on a failing metric (a metric outage): a decision, not a failure', report(false, metricOutage, metricOutage), true],
    ['the shard could not be loaded', report(true), false],
    ['no autoscaler could be read at all (every scale read failed)', report(false, a('unchanged', [{ stage: 'reconcile', message: 'FailedGetScale: 503' }], 'FailedGetScale')), false],
    ['every autoscaler left by the deadline', report(false, a('skipped', [{ stage: 'deadline', message: 'not evaluated' }])), false],
    ['one evaluated without error', report(false, a('failed', [{ stage: 'updateScale', message: 'x' }]), a('scaled')), true],
    ['nothing to evaluate', report(false, a('invalid', [{ stage: 'validate', message: 'x' }])), true],
  ])('%s', (_, r, ok) => {
    expect(cycleDidItsJob(r)).toBe(ok);
  });
});
