// The evaluations adapter (the stream and events functions' way to the evaluator) with the real
// @aws-sdk/client-lambda against the local Invoke endpoint: one asynchronous invocation per
// evaluate message, its body as the payload; what cannot go there (ticks, delayed messages) or
// was not accepted is named by its index, never dropped.
import { LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AsyncInvoker } from '../../lib/local/lambda/async-invoke.js';
import { startLocalLambda, type LocalLambda } from '../../lib/local/lambda/invoke-server.js';
import { lambdaEvaluations } from '../../lib/queue/lambda-evaluations.js';
import { UnsentMessagesError, type WorkMessageEntry } from '../../lib/sync/ports/work-queue.js';

const evaluation = (n: number): WorkMessageEntry => ({
  kind: 'evaluate',
  body: JSON.stringify({ kind: 'evaluate', shard: 'prod', targets: [{ kind: 'hpa', namespace: 'web', name: `api-${n}` }], reason: 'spec change', at: '2026-03-01T10:00:00Z', attempt: 1 }),
  delaySeconds: 0,
  groupId: 'prod',
});

describe('evaluations to the evaluator (Lambda Invoke, InvocationType Event)', () => {
  let lambda: LocalLambda;
  let payloads: unknown[];
  let evaluator: AsyncInvoker;
  let client: LambdaClient;
  beforeEach(async () => {
    payloads = [];
    evaluator = new AsyncInvoker({ handler: async (e) => void payloads.push(e), reservedConcurrency: 2, maximumEventAgeSeconds: 60, maximumRetryAttempts: 0 });
    lambda = await startLocalLambda({ 'shpa-evaluator': evaluator });
    client = new LambdaClient({ endpoint: lambda.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  });
  afterEach(() => lambda.close());

  it('invokes the evaluator once per message, with the message as the payload', async () => {
    const queue = lambdaEvaluations(client, 'shpa-evaluator');
    const messages = Array.from({ length: 9 }, (_, i) => evaluation(i));
    await queue.send(messages);
    expect(queue).toMatchObject({ sent: 9, calls: 9 });
    expect(lambda.requestLog.map((r) => [r.functionName, r.invocationType, r.status])).toEqual(messages.map(() => ['shpa-evaluator', 'Event', 202]));
    await evaluator.drain();
    expect(payloads.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(messages.map((m) => JSON.parse(m.body) as unknown).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))));
  });

  it('refuses ticks and delayed messages by index (they belong on the work queue), and sends the others', async () => {
    const queue = lambdaEvaluations(client, 'shpa-evaluator');
    const e = (await queue
      .send([evaluation(0), { kind: 'tick', body: '{}', delaySeconds: 0 }, { ...evaluation(2), delaySeconds: 1 }, evaluation(3)])
      .catch((x: unknown) => x)) as UnsentMessagesError;
    expect(e).toBeInstanceOf(UnsentMessagesError);
    expect(e.unsent.map((u) => u.index)).toEqual([1, 2]);
    expect(e.message).toContain('not a tick');
    expect(e.message).toContain('not one delayed by 1 s');
    expect(queue.sent).toBe(2);
  });

  it('names each message Lambda did not accept (an unknown function), and what the aborted signal left unsent', async () => {
    const wrong = lambdaEvaluations(client, 'no-such-function');
    const e = (await wrong.send([evaluation(0), evaluation(1)]).catch((x: unknown) => x)) as UnsentMessagesError;
    expect(e.unsent.map((u) => u.index)).toEqual([0, 1]);
    expect(e.message).toContain('Lambda Invoke of no-such-function failed: Function not found: no-such-function');
    const queue = lambdaEvaluations(client, 'shpa-evaluator');
    const aborted = (await queue.send([evaluation(0)], AbortSignal.abort()).catch((x: unknown) => x)) as UnsentMessagesError;
    expect(aborted.unsent).toEqual([{ index: 0, error: 'the time to send ran out' }]);
    expect(evaluator.counters.received).toBe(0);
  });
});
