// What Lambda's event source mappings (SQS here, DynamoDB streams in stream-*.ts) share:
// the context of an invocation, how a partial batch response is read, a poll's pause.
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LambdaContextOptions {
  functionName?: string;
  /** The function's timeout: getRemainingTimeInMillis counts down from it. Default 30. */
  timeoutSeconds?: number;
  memoryMb?: number;
  region?: string;
  accountId?: string;
  /** Epoch ms (a virtual clock in tests). Default Date.now. */
  clock?: () => number;
}

/** Makes the context of one invocation. */
export type ContextFactory = () => Context;

export function lambdaContexts(o: LambdaContextOptions = {}): ContextFactory {
  const name = o.functionName ?? 'local-function';
  const clock = o.clock ?? Date.now;
  const timeoutMs = (o.timeoutSeconds ?? 30) * 1000;
  const unsupported = (what: string) => () => {
    throw new Error(`context.${what} is not supported by the local event source: return or throw from the async handler`);
  };
  return () => {
    const deadline = clock() + timeoutMs;
    return {
      callbackWaitsForEmptyEventLoop: true,
      functionName: name,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${o.region ?? 'us-east-1'}:${o.accountId ?? '000000000000'}:function:${name}`,
      memoryLimitInMB: String(o.memoryMb ?? 1024),
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${name}`,
      logStreamName: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
      getRemainingTimeInMillis: () => Math.max(0, deadline - clock()),
      done: unsupported('done'),
      fail: unsupported('fail'),
      succeed: unsupported('succeed'),
    };
  };
}

// Partial batch responses (ReportBatchItemFailures), for SQS and streams alike: no answer,
// or no or an empty batchItemFailures, is complete success; a malformed answer (not an
// object, batchItemFailures not a list, an itemIdentifier missing, empty or not in the
// batch) fails the whole batch.
/** The identifiers reported failed, or 'all' when the answer fails the whole batch. */
export function reportedFailures(response: unknown, ids: readonly string[]): string[] | 'all' {
  if (response === undefined || response === null) return [];
  if (typeof response !== 'object' || Array.isArray(response)) return 'all';
  const list = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return 'all';
  const failed = new Set<string>();
  for (const item of list) {
    const id = (item as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.includes(id)) return 'all';
    failed.add(id);
  }
  return [...failed];
}

/** Each counter's growth since `before`. */
export function countersSince<T extends Record<string, number>>(now: T, before: T): T {
  return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - before[k]])) as T;
}

/** Resolves after ms, or at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
