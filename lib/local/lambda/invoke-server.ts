// A local Lambda Invoke endpoint for the functions invoked asynchronously on the local stack
// (the evaluator): what the installed @aws-sdk/client-lambda sends for Invoke (REST JSON:
// POST /2015-03-31/functions/{FunctionName}/invocations, X-Amz-Invocation-Type), answered as
// Lambda answers: 202 for an Event invocation queued, ResourceNotFoundException (404) for an
// unknown function, InvalidRequestContentException (400) for a payload that is not JSON,
// RequestEntityTooLargeException (413) past the asynchronous payload limit. Only Event
// invocations are served: nothing here invokes synchronously.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '../shared/aws-json-protocol.js';
import type { AsyncInvoker } from './async-invoke.js';

/** Lambda's limit on an asynchronous invocation's payload (256 KB). */
export const ASYNC_PAYLOAD_LIMIT = 256 * 1024;
const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

export interface LocalLambda {
  endpoint: string;
  /** Every Invoke answered: function, invocation type, status. */
  requestLog: { functionName: string; invocationType: string; status: number }[];
  close(): Promise<void>;
}

/** Serves Invoke for the functions given, by name (a function ARN's last part names it too). */
export async function startLocalLambda(functions: Record<string, AsyncInvoker>): Promise<LocalLambda> {
  const requestLog: LocalLambda['requestLog'] = [];
  const server: Server = createServer((req, res) => {
    void answer(req, res, functions).then((r) => {
      requestLog.push(r);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, requestLog, close: () => closeServer(server) };
}

async function answer(req: IncomingMessage, res: ServerResponse, functions: Record<string, AsyncInvoker>): Promise<{ functionName: string; invocationType: string; status: number }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  const path = INVOKE_PATH.exec((req.url ?? '').split('?')[0]);
  const functionName = path ? decodeURIComponent(path[1]).split(':').filter((p) => !/^(\$LATEST|\d+)$/.test(p)).pop() ?? '' : '';
  const invocationType = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
  const fail = (status: number, type: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type, 'x-amzn-requestid': randomUUID() });
    res.end(JSON.stringify({ Type: 'User', message }));
    return { functionName, invocationType, status };
  };
  if (req.method !== 'POST' || !path) return fail(404, 'UnknownOperationException', `only Invoke is served here, not ${req.method ?? '?'} ${req.url ?? ''}`);
  const fn = functions[functionName];
  if (!fn) return fail(404, 'ResourceNotFoundException', `Function not found: ${functionName}`);
  if (invocationType !== 'Event') return fail(400, 'InvalidParameterValueException', `only InvocationType Event is served locally, got ${invocationType}`);
  if (body.length > ASYNC_PAYLOAD_LIMIT) return fail(413, 'RequestEntityTooLargeException', `${body.length} byte payload is larger than ${ASYNC_PAYLOAD_LIMIT}`);
  let payload: unknown;
  try {
    payload = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch {
    return fail(400, 'InvalidRequestContentException', 'Could not parse request body into json');
  }
  const requestId = fn.invoke(payload);
  res.writeHead(202, { 'x-amzn-requestid': requestId, 'content-length': '0' });
  res.end();
  return { functionName, invocationType, status: 202 };
}
