// Lambda's asynchronous invocation on the local stack: the evaluator's queue, reserved
// concurrency, retries (1 then 2 minutes later), maximum event age and on-failure records, as
// https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html says; and
// the Invoke endpoint the real @aws-sdk/client-lambda calls (202, or Lambda's errors).
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { AsyncInvoker, type AsyncFailureRecord } from '../../lib/local/lambda/async-invoke.js';
import { startLocalLambda, type LocalLambda } from '../../lib/local/lambda/invoke-server.js';

let now = Date.parse('2026-03-01T10:00:00Z');
const clock = () => now;

function invoker(handler: (event: unknown) => Promise<unknown>, o: { reservedConcurrency?: number; maximumEventAgeSeconds?: number; maximumRetryAttempts?: number } = {}) {
  const failures: AsyncFailureRecord[] = [];
  const inv = new AsyncInvoker({
    handler,
    reservedConcurrency: o.reservedConcurrency ?? 2,
    maximumEventAgeSeconds: o.maximumEventAgeSeconds ?? 60,
    maximumRetryAttempts: o.maximumRetryAttempts ?? 0,
    onFailure: async (r) => void failures.push(r),
    clock,
  });
  return { inv, failures };
}

describe('asynchronous invocation', () => {
  it('runs each event once, never more at once than the reserved concurrency', async () => {
    let running = 0;
    let most = 0;
    const seen: unknown[] = [];
    const { inv, failures } = invoker(
      async (e) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 5));
        seen.push(e);
        running--;
      },
      { reservedConcurrency: 2 },
    );
    for (let i = 0; i < 7; i++) inv.invoke({ i });
    const did = await inv.drain();
    expect(inv.counters.received).toBe(7);
    expect(did).toMatchObject({ invocations: 7, errors: 0, givenUp: 0 });
    expect(most).toBe(2);
    expect(seen.map((e) => (e as { i: number }).i).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(failures).toEqual([]);
  });

  it('retries a failure 1 minute, then 2 minutes later, and sets it aside when its retries are spent', async () => {
    let calls = 0;
    const { inv, failures } = invoker(
      async () => {
        calls++;
        throw new TypeError('boom');
      },
      { maximumRetryAttempts: 2, maximumEventAgeSeconds: 21_600 },
    );
    const id = inv.invoke({ kind: 'evaluate' });
    await inv.drain();
    expect(calls).toBe(1);
    now += 59_000;
    await inv.drain();
    expect(calls).toBe(1);
    now += 1_000;
    await inv.drain();
    expect(calls).toBe(2);
    now += 120_000;
    await inv.drain();
    expect(calls).toBe(3);
    expect(inv.waiting).toBe(0);
    expect(failures).toEqual([
      expect.objectContaining({
        requestContext: expect.objectContaining({ requestId: id, condition: 'RetriesExhausted', approximateInvokeCount: 3 }),
        requestPayload: { kind: 'evaluate' },
        responsePayload: { errorType: 'TypeError', errorMessage: 'boom' },
      }),
    ]);
  });

  it('with no retry (the evaluator), a failure is set aside at once', async () => {
    const { inv, failures } = invoker(async () => {
      throw new Error('no');
    });
    inv.invoke({ a: 1 });
    expect(await inv.drain()).toMatchObject({ invocations: 1, errors: 1, givenUp: 1 });
    expect(failures.map((f) => f.requestContext.condition)).toEqual(['RetriesExhausted']);
  });

  it('never runs an event older than its maximum age: it is set aside as EventAgeExceeded', async () => {
    const ran: unknown[] = [];
    const { inv, failures } = invoker(async (e) => void ran.push(e), { maximumEventAgeSeconds: 60 });
    inv.invoke({ old: true });
    now += 61_000;
    inv.invoke({ old: false });
    await inv.drain();
    expect(ran).toEqual([{ old: false }]);
    expect(failures).toEqual([expect.objectContaining({ requestContext: expect.objectContaining({ condition: 'EventAgeExceeded', approximateInvokeCount: 0 }), requestPayload: { old: true } })]);
    expect(failures[0].responsePayload).toBeUndefined();
  });

  it('refuses settings Lambda refuses', () => {
    expect(() => invoker(async () => undefined, { maximumEventAgeSeconds: 30 })).toThrow('maximumEventAgeSeconds: must be an integer from 60 to 21600');
    expect(() => invoker(async () => undefined, { maximumRetryAttempts: 3 })).toThrow('maximumRetryAttempts: must be an integer from 0 to 2');
  });
});

describe('the local Invoke endpoint, through @aws-sdk/client-lambda', () => {
  let lambda: LocalLambda | undefined;
  afterEach(async () => {
    await lambda?.close();
    lambda = undefined;
  });
  const client = (endpoint: string) => new LambdaClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

  it('queues an Event invocation (202) and runs it later with the payload sent', async () => {
    const ran: unknown[] = [];
    const { inv } = invoker(async (e) => void ran.push(e));
    lambda = await startLocalLambda({ fn: inv });
    const r = await client(lambda.endpoint).send(new InvokeCommand({ FunctionName: 'fn', InvocationType: 'Event', Payload: new TextEncoder().encode('{"kind":"evaluate","n":1}') }));
    expect(r.StatusCode).toBe(202);
    expect(ran).toEqual([]);
    await inv.drain();
    expect(ran).toEqual([{ kind: 'evaluate', n: 1 }]);
    // a function ARN names it too
    await client(lambda.endpoint).send(new InvokeCommand({ FunctionName: 'arn:aws:lambda:us-east-1:000000000000:function:fn', InvocationType: 'Event', Payload: new TextEncoder().encode('{}') }));
    expect(inv.counters.received).toBe(2);
  });

  it('answers as Lambda does: an unknown function, a synchronous invocation, a payload not JSON or too big', async () => {
    const { inv } = invoker(async () => undefined);
    lambda = await startLocalLambda({ fn: inv });
    const c = client(lambda.endpoint);
    const fail = (input: ConstructorParameters<typeof InvokeCommand>[0]) => c.send(new InvokeCommand(input)).then(() => 'sent', (e: Error) => e.name);
    const json = (s: string) => new TextEncoder().encode(s);
    expect(await fail({ FunctionName: 'other', InvocationType: 'Event', Payload: json('{}') })).toBe('ResourceNotFoundException');
    expect(await fail({ FunctionName: 'fn', InvocationType: 'RequestResponse', Payload: json('{}') })).toBe('InvalidParameterValueException');
    expect(await fail({ FunctionName: 'fn', InvocationType: 'Event', Payload: json('{not json') })).toBe('InvalidRequestContentException');
    expect(await fail({ FunctionName: 'fn', InvocationType: 'Event', Payload: json(JSON.stringify({ s: 'x'.repeat(300_000) })) })).toBe('RequestEntityTooLargeException');
    expect(inv.counters.received).toBe(0);
  });
});
