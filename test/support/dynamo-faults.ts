// An HTTP proxy in front of a DynamoDB endpoint that injects faults into chosen requests:
// throttling, a 500, a failed condition, a request lost before the server, an answer lost
// after it, a request never answered (a hung endpoint), rejected credentials (any access key
// other than the expected one), and the whole endpoint down (connections refused).
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'throttle' | 'internalError' | 'conditionalCheckFailed' | 'dropRequest' | 'dropResponse' | 'hang';

/** A request as the proxy sees it: its operation (e.g. "PutItem") and JSON body text. */
export interface ProxiedRequest {
  operation: string;
  body: string;
}

export interface FaultRule {
  /** The operation it applies to (e.g. "PutItem"); every operation when absent. */
  operation?: string;
  fault: Fault;
  /** How many matching requests it affects; default: all, until removed. */
  times?: number;
  /** Only requests for which this holds (e.g. the body names one partition). */
  when?: (r: ProxiedRequest) => boolean;
}

export interface FaultProxy {
  endpoint: string;
  /** The next `times` requests of `operation` (e.g. "PutItem") get `fault`. */
  inject(operation: string, fault: Fault, times?: number): void;
  /** Adds a rule; returns a function that removes it. */
  add(rule: FaultRule): () => void;
  /** Requests seen per operation, faulted or not. */
  readonly calls: Record<string, number>;
  /** Requests that met a fault, per fault. */
  readonly injected: Record<string, number>;
  /** When set, requests signed with another access key are rejected as AWS would. */
  requireAccessKey?: string;
  /** The endpoint goes down: open connections are dropped and new ones refused, until up(). */
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

const ERRORS: Partial<Record<Fault, { status: number; type: string; message: string }>> = {
  throttle: { status: 400, type: 'ProvisionedThroughputExceededException', message: 'The level of configured provisioned throughput for the table was exceeded.' },
  internalError: { status: 500, type: 'InternalServerError', message: 'Internal server error' },
  conditionalCheckFailed: { status: 400, type: 'ConditionalCheckFailedException', message: 'The conditional request failed' },
};

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let rules: (FaultRule & { left: number })[] = [];
  const calls: Record<string, number> = {};
  const injected: Record<string, number> = {};

  const reply = (res: ServerResponse, status: number, type: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault' });
    res.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message }));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    calls[operation] = (calls[operation] ?? 0) + 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
      if (proxy.requireAccessKey && key !== proxy.requireAccessKey) {
        return reply(res, 400, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      }
      const body = Buffer.concat(chunks);
      const seen = { operation, body: body.toString('utf8') };
      const rule = rules.find((r) => r.left > 0 && (r.operation === undefined || r.operation === operation) && (r.when?.(seen) ?? true));
      const fault = rule?.fault;
      if (rule) {
        rule.left--;
        injected[rule.fault] = (injected[rule.fault] ?? 0) + 1;
      }
      const error = fault && ERRORS[fault];
      if (error) return reply(res, error.status, error.type, error.message);
      if (fault === 'hang') return; // never answered: the client's timeout ends it
      if (fault === 'dropRequest') return req.socket.destroy();
      const up = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        if (fault === 'dropResponse') {
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => req.socket.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const proxy: FaultProxy = {
    endpoint: `http://127.0.0.1:${port}`,
    inject(operation, fault, times = 1) {
      proxy.add({ operation, fault, times });
    },
    add(rule) {
      const entry = { ...rule, left: rule.times ?? Number.POSITIVE_INFINITY };
      rules.push(entry);
      return () => {
        rules = rules.filter((r) => r !== entry);
      };
    },
    calls,
    injected,
    down: () => (server.listening ? close() : Promise.resolve()),
    up: () => (server.listening ? Promise.resolve() : new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))),
    stop: () => (server.listening ? close() : Promise.resolve()),
  };
  return proxy;
}
