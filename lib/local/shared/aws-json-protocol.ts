// What the local AWS endpoints (CloudWatch, SQS) share of the AWS JSON protocol: the operation
// named by X-Amz-Target, the whole body, and closing the server with its open connections.
import type { IncomingMessage, Server } from 'node:http';

export async function readAwsJsonRequest(req: IncomingMessage, targetPrefix: string): Promise<{ operation: string; body: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const target = String(req.headers['x-amz-target'] ?? '');
  return { operation: target.startsWith(targetPrefix) ? target.slice(targetPrefix.length) : target, body: Buffer.concat(chunks) };
}

/** Stops listening and drops kept-alive connections, so a test's servers end at once. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
