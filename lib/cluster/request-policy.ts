// How one Kubernetes API call fails and is retried: bounded attempts with
// backoff inside a per-call deadline, one token refresh on 401, and errors
// that say what went wrong in the API server's own words.
import { ClusterApiError } from '#sync/ports';
import { type Gate, serverTimeout } from '#transport';
import { backoffMs } from '../shared/backoff.js';

/** What a call does, in RBAC terms (used for 403 and 404 messages). */
export type RequestTarget = ResourceTarget | NonResourceTarget;

export interface ResourceTarget {
  verb: 'get' | 'list' | 'patch' | 'create';
  group: string;
  resource: string;
  subresource?: string;
  namespace: string;
  name?: string;
}

/** Discovery (/api/v1, /apis/<group>/<version>): RBAC nonResourceURLs. */
export interface NonResourceTarget {
  verb: 'get';
  nonResourceURL: string;
}

export interface RetryPolicy {
  /** Whole call, all attempts and backoff included: retries go on, with jitter, until it is spent. */
  budgetMs: number;
  /** One attempt, in the server's time (lib/transport/server-timer.ts); cut to what is left of the budget. */
  attemptTimeoutMs: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
}

// A 1.5 s API server restart (or a short network blip) is ridden out, not failed: attempts are
// bounded by time, not by count.
export const defaultRetryPolicy: RetryPolicy = {
  budgetMs: 8_000,
  attemptTimeoutMs: 4_000,
  baseBackoffMs: 100,
  maxBackoffMs: 1_000,
};

/** A non-2xx answer of the API server. */
export class HttpStatusError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
    readonly headers: Record<string, string>,
  ) {
    super(`HTTP ${code}`);
  }
}

interface Failure {
  status?: number;
  /** The request never reached the server (connection refused or not resolved): retrying is safe. */
  notSent?: boolean;
  /** message of a Kubernetes Status body, when the server sent one */
  statusMessage?: string;
  retryAfterMs?: number;
  detail: string;
}

function statusMessageOf(body: unknown): string | undefined {
  if (typeof body !== 'string' || body === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && 'message' in parsed && typeof parsed.message === 'string') {
      return parsed.message;
    }
  } catch {
    // not JSON: keep the raw text short
  }
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

function classify(err: unknown): Failure {
  if (err instanceof HttpStatusError) {
    const retryAfter = Number(err.headers['retry-after']);
    return {
      status: err.code,
      statusMessage: statusMessageOf(err.body),
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined,
      detail: `HTTP ${err.code}`,
    };
  }
  const code = (err as { code?: string; cause?: { code?: string } } | undefined)?.code ?? (err as { cause?: { code?: string } } | undefined)?.cause?.code;
  const detail = err instanceof Error ? err.message : String(err);
  return { detail, notSent: code === 'ECONNREFUSED' || code === 'ENOTFOUND' || /ECONNREFUSED|ENOTFOUND/.test(detail) };
}

const retryableStatus = new Set([429, 500, 502, 503, 504]);

export function describeTarget(t: RequestTarget): string {
  if ('nonResourceURL' in t) return `${t.verb} ${t.nonResourceURL}`;
  const resource = t.subresource ? `${t.resource}/${t.subresource}` : t.resource;
  const group = t.group === '' ? 'core' : t.group;
  return `${t.verb} ${resource} (${group}) ${t.name ? `"${t.name}" ` : ''}in namespace "${t.namespace}"`;
}

function missingPermission(t: RequestTarget): string {
  if ('nonResourceURL' in t) {
    return `missing RBAC permission: verb "${t.verb}" on non-resource URL "${t.nonResourceURL}" (the built-in system:discovery role grants it)`;
  }
  const resource = t.subresource ? `${t.resource}/${t.subresource}` : t.resource;
  return `missing RBAC permission: verb "${t.verb}" on resource "${resource}" in API group "${t.group}" in namespace "${t.namespace}" (see infra/rbac.yaml)`;
}

function notFoundText(t: RequestTarget): string {
  if ('nonResourceURL' in t || !t.name) return 'the server could not find the requested resource';
  return `${t.group === '' ? t.resource : `${t.resource}.${t.group}`} "${t.name}" not found`;
}

function toClusterApiError(f: Failure, t: RequestTarget, unknown: boolean, timedOutMs?: number): ClusterApiError {
  if (timedOutMs !== undefined) {
    return new ClusterApiError(`${describeTarget(t)}: no answer within ${timedOutMs} ms`, undefined, unknown);
  }
  switch (f.status) {
    case undefined:
      return new ClusterApiError(`${describeTarget(t)}: ${f.detail}`, undefined, unknown);
    case 403:
      return new ClusterApiError(`${f.statusMessage ? `${f.statusMessage}; ` : ''}${missingPermission(t)}`, 403, unknown);
    case 404:
      // The API server's own text, e.g. deployments.apps "web" not found.
      return new ClusterApiError(f.statusMessage ?? notFoundText(t), 404, unknown);
    default:
      return new ClusterApiError(`${describeTarget(t)}: ${f.statusMessage ?? f.detail}`, f.status, unknown);
  }
}

export interface CallHooks {
  /** Called once on a 401; the call is then retried with a fresh token. */
  onUnauthorized(): void;
  sleep?: (ms: number) => Promise<void>;
  /** Bounds the attempts in flight to the API server; an attempt's timeout starts once it is let in. */
  gate?: Gate;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs fn with a per-attempt AbortSignal until it succeeds, fails for good, the budget is spent
 * or the caller's signal aborts. The error says whether an earlier attempt may have reached the
 * server and acted (outcomeUnknown): for a write, its effect must then be checked, not assumed.
 */
export async function callWithPolicy<T>(
  target: RequestTarget,
  policy: RetryPolicy,
  hooks: CallHooks,
  fn: (signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const sleep = hooks.sleep ?? realSleep;
  const deadline = Date.now() + policy.budgetMs;
  let refreshed = false;
  let attempt = 0;
  let mayHaveActed = false;
  /** The last answer the server gave: what to report when the budget's end cuts the last attempt short. */
  let answered: Failure | undefined;
  for (;;) {
    attempt++;
    if (signal?.aborted) throw new ClusterApiError(`${describeTarget(target)}: abandoned (cycle deadline)`, undefined, mayHaveActed);
    const remaining = deadline - Date.now();
    const attemptMs = Math.max(1, Math.min(policy.attemptTimeoutMs, remaining));
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const attemptOnce = async () => {
      const cancel = serverTimeout(attemptMs, () => controller.abort());
      try {
        return await fn(controller.signal);
      } finally {
        cancel();
      }
    };
    try {
      return await (hooks.gate ? hooks.gate.run(attemptOnce, signal) : attemptOnce());
    } catch (err) {
      // Already explained (e.g. no connection details): not a transient failure.
      if (err instanceof ClusterApiError) throw err;
      const timedOut = controller.signal.aborted && !signal?.aborted;
      const f = classify(err);
      if (f.status === undefined && !f.notSent) mayHaveActed = true;
      if (signal?.aborted) throw new ClusterApiError(`${describeTarget(target)}: abandoned (cycle deadline)`, undefined, mayHaveActed);
      if (f.status === 401 && !refreshed) {
        refreshed = true;
        hooks.onUnauthorized();
        attempt--;
        continue;
      }
      const retryable = timedOut || f.status === undefined || retryableStatus.has(f.status);
      const wait = Math.max(backoffMs(attempt, { baseMs: policy.baseBackoffMs, maxMs: policy.maxBackoffMs }), f.retryAfterMs ?? 0);
      if (f.status !== undefined) answered = f;
      if (!retryable || Date.now() + wait >= deadline) {
        if (timedOut && attemptMs < policy.attemptTimeoutMs && answered) throw toClusterApiError(answered, target, mayHaveActed);
        throw toClusterApiError(f, target, mayHaveActed, timedOut ? attemptMs : undefined);
      }
      await sleep(wait);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
