// The request handler of our AWS SDK clients (DynamoDB, CloudWatch, SQS): the SDK's own
// NodeHttpHandler, with the requests in flight bounded (gate.ts) and each attempt timed by
// the server's time, not ours (server-timer.ts). The SDK's connection and request timeouts
// are plain timers: on a starved event loop they fire while the answer already waits in
// the socket ("the request socket did not establish a connection within the configured
// timeout of 1000 ms"). They stay only as a far backstop. An attempt that the server
// really leaves unanswered fails as a TimeoutError, which the SDK's retry strategy retries.
import type { HttpHandler, HttpRequest, HttpResponse } from '@smithy/protocol-http';
import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import type { HttpHandlerOptions } from '@smithy/types';
import { Gate } from './gate.js';
import { serverTimeout } from './server-timer.js';

export interface AwsHttpHandlerOptions {
  /** Requests in flight at once through this client; more wait their turn, in order. */
  maxInFlight: number;
  /** One attempt, from the request's start to its answer's headers, in server time (ms). */
  attemptTimeoutMs: number;
  /** The plain timers kept as a backstop (ms): far beyond the attempt timeout. Default 30,000. */
  backstopMs?: number;
}

export class AwsHttpHandler implements HttpHandler<NodeHttpHandlerOptions> {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  readonly gate: Gate;
  private readonly inner: NodeHttpHandler;

  constructor(private readonly o: AwsHttpHandlerOptions) {
    this.gate = new Gate(o.maxInFlight);
    const backstop = o.backstopMs ?? 30_000;
    this.inner = new NodeHttpHandler({ connectionTimeout: backstop, requestTimeout: backstop, throwOnRequestTimeout: true });
  }

  handle(request: HttpRequest, options: HttpHandlerOptions = {}): Promise<{ response: HttpResponse }> {
    const caller = options.abortSignal as AbortSignal | undefined;
    return this.gate.run(() => this.attempt(request, options, caller), caller);
  }

  private async attempt(request: HttpRequest, options: HttpHandlerOptions, caller: AbortSignal | undefined): Promise<{ response: HttpResponse }> {
    const controller = new AbortController();
    let timedOut = false;
    const cancel = serverTimeout(this.o.attemptTimeoutMs, () => {
      timedOut = true;
      controller.abort();
    });
    const onAbort = () => controller.abort(caller?.reason);
    if (caller?.aborted) onAbort();
    else caller?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.inner.handle(request, { ...options, abortSignal: controller.signal });
    } catch (e) {
      if (timedOut && !caller?.aborted) {
        throw Object.assign(new Error(`no answer from ${request.hostname} within ${this.o.attemptTimeoutMs} ms of the server's time`, { cause: e }), { name: 'TimeoutError' });
      }
      throw e;
    } finally {
      cancel();
      caller?.removeEventListener('abort', onAbort);
    }
  }

  updateHttpClientConfig(key: keyof NodeHttpHandlerOptions, value: NodeHttpHandlerOptions[typeof key]): void {
    this.inner.updateHttpClientConfig(key, value);
  }

  httpHandlerConfigs(): NodeHttpHandlerOptions {
    return this.inner.httpHandlerConfigs();
  }

  destroy(): void {
    this.inner.destroy();
  }
}

/**
 * The SDK's logger middleware copies every request and answer through their sensitive-field
 * filters for a logger that discards them: a tenth of a call's CPU, paid by every call of a
 * worker held to its CPU share. We log what matters ourselves.
 */
export function withoutSdkLogging(client: { middlewareStack: { remove(name: string): boolean } }): void {
  client.middlewareStack.remove('loggerMiddleware');
}
