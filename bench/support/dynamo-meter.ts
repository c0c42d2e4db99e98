// Bench-only: an HTTP proxy in front of a DynamoDB endpoint that counts what the table is
// asked, as the table would bill it: calls per operation, and the read and write request
// units DynamoDB (here dynalite) reports when asked for them (ReturnConsumedCapacity is set
// on every request that takes it). A conditional write that fails still costs a unit. The
// local stack's own registry reads (pk "clusters": the Lambda reads its clusters from its
// environment) are counted apart.
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLUSTERS_PK } from '../../lib/store/items.js';

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

export interface DynamoCounts {
  calls: Record<string, number>;
  readUnits: number;
  writeUnits: number;
  /** Calls on the local registry (not made in Lambda). */
  registryCalls: number;
}

export interface DynamoMeter {
  endpoint: string;
  counts(): DynamoCounts;
  close(): Promise<void>;
}

const body = (s: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => resolve(Buffer.concat(chunks)));
    s.on('error', reject);
  });

function units(consumed: unknown): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((n: number, c: { CapacityUnits?: number }) => n + (c.CapacityUnits ?? 0), 0);
}

export async function startDynamoMeter(target: string): Promise<DynamoMeter> {
  const to = new URL(target);
  const c: DynamoCounts = { calls: {}, readUnits: 0, writeUnits: 0, registryCalls: 0 };
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    let payload = await body(req);
    let registry = false;
    if (READS.has(op) || WRITES.has(op)) {
      const input = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
      const key = (input.Key ?? (input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':pk']) as { pk?: { S?: string } } | { S?: string } | undefined;
      registry = JSON.stringify(key ?? '').includes(`"${CLUSTERS_PK}"`);
      input.ReturnConsumedCapacity = 'TOTAL';
      payload = Buffer.from(JSON.stringify(input));
    }
    const headers = { ...req.headers, 'content-length': String(payload.length), host: to.host };
    const upstream = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers, agent }, async (up) => {
      const answer = await body(up);
      if (registry) c.registryCalls++;
      else {
        c.calls[op] = (c.calls[op] ?? 0) + 1;
        if (up.statusCode === 200 && (READS.has(op) || WRITES.has(op))) {
          const n = units((JSON.parse(answer.toString('utf8')) as { ConsumedCapacity?: unknown }).ConsumedCapacity);
          if (READS.has(op)) c.readUnits += n;
          else c.writeUnits += n;
        } else if (WRITES.has(op) && answer.toString('utf8').includes('ConditionalCheckFailed')) c.writeUnits += 1;
      }
      res.writeHead(up.statusCode ?? 500, up.headers);
      res.end(answer);
    });
    upstream.on('error', () => res.destroy());
    upstream.end(payload);
  }

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => structuredClone(c),
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
