// An HTTP proxy in front of a DynamoDB endpoint that injects faults into chosen
// operations: throttling, a request lost before the server, an answer lost after it,
// and rejected credentials (any access key other than the expected one).
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'throttle' | 'dropRequest' | 'dropResponse';

export interface FaultProxy {
  endpoint: string;
  /** The next `times` requests of `operation` (e.g. "PutItem") get `fault`. */
  inject(operation: string, fault: Fault, times?: number): void;
  /** Requests seen per operation, faulted or not. */
  readonly calls: Record<string, number>;
  /** When set, requests signed with another access key are rejected as AWS would. */
  requireAccessKey?: string;
  stop(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const pending: { operation: string; fault: Fault; left: number }[] = [];
  const calls: Record<string, number> = {};

  const reply = (res: ServerResponse, type: string, message: string) => {
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault' });
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
        return reply(res, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      }
      const p = pending.find((f) => f.operation === operation && f.left > 0);
      if (p) p.left--;
      if (p?.fault === 'throttle') {
        return reply(res, 'ProvisionedThroughputExceededException', 'The level of configured provisioned throughput for the table was exceeded.');
      }
      if (p?.fault === 'dropRequest') return req.socket.destroy();
      const up = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          if (p?.fault === 'dropResponse') {
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => req.socket.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: FaultProxy = {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inject(operation, fault, times = 1) {
      pending.push({ operation, fault, left: times });
    },
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
