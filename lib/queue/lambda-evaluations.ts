// Evaluations (spec changes, alarm state changes, evaluate-now) go to the evaluator function as
// asynchronous invocations (Lambda Invoke, InvocationType Event): Lambda's own queue holds them,
// so no SQS queue is long-polled while nothing happens. The evaluator's reserved concurrency
// keeps a flood of events off the ticks' share; its maximumEventAge, retries and on-failure
// destination decide what becomes of one it cannot run (serverless.yml). The payload is the
// evaluate message itself, as the work queue carries it. Ticks and delayed messages have no
// place here (async invocations cannot be delayed): they are refused, named, never dropped.
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { UnsentMessagesError, type WorkMessageEntry, type WorkQueue } from '#sync/ports';

/** Invocations in flight at once: a stream batch names at most a few shards' worth of messages. */
const IN_FLIGHT = 4;

/** The evaluator, with counters of messages sent and Invoke calls. */
export type LambdaEvaluations = WorkQueue & { sent: number; calls: number };

/**
 * Every message is tried, whatever happened to the one before: what was not sent (refused here, an
 * Invoke that failed or was not tried once the signal aborted) is thrown as an UnsentMessagesError
 * naming each, so that a caller can send exactly those again.
 */
export function lambdaEvaluations(client: LambdaClient, functionName: string): LambdaEvaluations {
  const encoder = new TextEncoder();
  const evaluations = {
    sent: 0,
    calls: 0,
    async send(messages: WorkMessageEntry[], signal?: AbortSignal): Promise<void> {
      const unsent: { index: number; error: string }[] = [];
      const invokeOne = async (m: WorkMessageEntry, index: number): Promise<void> => {
        if (m.kind !== 'evaluate' || m.delaySeconds > 0) {
          unsent.push({ index, error: `the evaluator takes evaluations to run at once, not ${m.kind === 'evaluate' ? `one delayed by ${m.delaySeconds} s` : `a ${m.kind}`} (those go to the work queue)` });
          return;
        }
        if (signal?.aborted) {
          unsent.push({ index, error: 'the time to send ran out' });
          return;
        }
        evaluations.calls++;
        try {
          const r = await client.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: encoder.encode(m.body) }), { abortSignal: signal });
          // 202: queued for an asynchronous invocation; anything else is not what was asked.
          if (r.StatusCode !== 202) throw new Error(`Invoke answered status ${String(r.StatusCode)}, not 202`);
          evaluations.sent++;
        } catch (e) {
          unsent.push({ index, error: `Lambda Invoke of ${functionName} failed: ${e instanceof Error ? e.message : String(e)}` });
        }
      };
      let next = 0;
      const lanes = Array.from({ length: Math.min(IN_FLIGHT, messages.length) }, async () => {
        while (next < messages.length) {
          const index = next++;
          await invokeOne(messages[index], index);
        }
      });
      await Promise.all(lanes);
      if (unsent.length === 0) return;
      unsent.sort((a, b) => a.index - b.index);
      const said = [...new Set(unsent.map((u) => u.error))];
      throw new UnsentMessagesError(`${unsent.length} of ${messages.length} evaluations not sent to the evaluator: ${said.join('; ')}`, unsent);
    },
  };
  return evaluations;
}
