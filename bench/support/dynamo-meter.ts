// Bench-only: an HTTP proxy in front of a DynamoDB endpoint that counts what the table is
// asked, as the table would bill it: calls per operation, and the read and write request
// units DynamoDB (here dynalite) reports when asked for them (ReturnConsumedCapacity is set
// on every request that takes it). A conditional write that fails still costs a unit. The
// local stack's own registry reads (pk "clusters": the Lambda reads its clusters from its
// environment) are counted apart. Write units are also kept by partition key and wall-clock
// second, since DynamoDB throttles a partition past 1,000 WCU a second however idle the table.
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

/** The busiest second of one partition key: write units consumed in it. */
export interface PartitionSecond {
  key: string;
  /** Start of the wall-clock second (epoch ms). */
  second: number;
  units: number;
}

export interface PartitionWrites {
  /** The busiest key-second of the window, if anything was written. */
  peak?: PartitionSecond;
  /** Each key's busiest second, busiest first (at most `top`). */
  byKey: PartitionSecond[];
  /** Write units in the window, all keys. */
  units: number;
}

export interface DynamoMeter {
  endpoint: string;
  counts(): DynamoCounts;
  /** Write units by partition key per wall-clock second, of the writes answered in [fromMs, toMs); only keys starting with one of `prefixes`, when given. */
  partitionWrites(fromMs: number, toMs: number, top?: number, prefixes?: string[]): PartitionWrites;
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

type Attr = { S?: string; N?: string; B?: string };
type WriteRequest = { PutRequest?: { Item?: Record<string, Attr> }; DeleteRequest?: { Key?: Record<string, Attr> } };

const keyText = (key: Record<string, Attr> | undefined) => {
  const pk = key?.pk;
  return pk ? String(pk.S ?? pk.N ?? pk.B ?? '?') : '?';
};

/**
 * The partition keys a write touches, each with its share of the request's units. A batch's
 * ConsumedCapacity is one total per table: it is split by item size, as DynamoDB bills each item
 * (a put by its KB, a delete one unit).
 */
function writeShares(op: string, input: Record<string, unknown>): { key: string; weight: number }[] {
  if (op !== 'BatchWriteItem') return [{ key: keyText((input.Key ?? input.Item) as Record<string, Attr> | undefined), weight: 1 }];
  const out: { key: string; weight: number }[] = [];
  for (const requests of Object.values((input.RequestItems ?? {}) as Record<string, WriteRequest[]>)) {
    for (const r of requests) {
      if (r.PutRequest) out.push({ key: keyText(r.PutRequest.Item), weight: Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(r.PutRequest.Item ?? {})) / 1024)) });
      else if (r.DeleteRequest) out.push({ key: keyText(r.DeleteRequest.Key), weight: 1 });
    }
  }
  return out;
}

export async function startDynamoMeter(target: string): Promise<DynamoMeter> {
  const to = new URL(target);
  const c: DynamoCounts = { calls: {}, readUnits: 0, writeUnits: 0, registryCalls: 0 };
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  /** Each write's units by key, when its answer came (epoch ms). */
  const writes: { at: number; key: string; units: number }[] = [];
  const record = (shares: { key: string; weight: number }[], units: number) => {
    const total = shares.reduce((n, s) => n + s.weight, 0);
    if (total === 0 || units === 0) return;
    const at = Date.now();
    for (const s of shares) writes.push({ at, key: s.key, units: (units * s.weight) / total });
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    let payload = await body(req);
    let registry = false;
    let shares: { key: string; weight: number }[] = [];
    if (READS.has(op) || WRITES.has(op)) {
      const input = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
      if (WRITES.has(op)) shares = writeShares(op, input);
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
          else {
            c.writeUnits += n;
            record(shares, n);
          }
        } else if (WRITES.has(op) && answer.toString('utf8').includes('ConditionalCheckFailed')) {
          c.writeUnits += 1;
          record(shares, 1);
        }
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
    partitionWrites(fromMs, toMs, top = 5, prefixes) {
      const perSecond = new Map<string, PartitionSecond>();
      let units = 0;
      for (const w of writes) {
        if (w.at < fromMs || w.at >= toMs || (prefixes && !prefixes.some((p) => w.key.startsWith(p)))) continue;
        units += w.units;
        const second = Math.floor(w.at / 1000) * 1000;
        const k = `${second} ${w.key}`;
        const s = perSecond.get(k) ?? { key: w.key, second, units: 0 };
        s.units += w.units;
        perSecond.set(k, s);
      }
      const peaks = new Map<string, PartitionSecond>();
      for (const s of perSecond.values()) if ((peaks.get(s.key)?.units ?? -1) < s.units) peaks.set(s.key, s);
      const byKey = [...peaks.values()].sort((a, b) => b.units - a.units);
      return { ...(byKey[0] ? { peak: byKey[0] } : {}), byKey: byKey.slice(0, top), units };
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
