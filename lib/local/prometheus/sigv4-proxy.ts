// A local stand-in for AMP's query endpoint and CloudWatch's PromQL endpoint in front of a real
// Prometheus: it checks each request's SigV4 signature as AWS does (computed here from the
// request, independently of the client's signer) and refuses, with AWS's 403 messages, a wrong
// service or region in the credential scope, an unknown key, a clock more than 5 minutes off or
// a signature that does not match; what passes is forwarded to Prometheus' /api/v1/query.
// With a bearer token instead, it stands for a Prometheus behind an authenticating proxy.
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '../shared/aws-json-protocol.js';
import { errorText } from '../../shared/error-text.js';

export type ProxyAuth =
  | { sigv4: { service: 'aps' | 'monitoring'; region: string; credentials: { accessKeyId: string; secretAccessKey: string } }; now?: () => number }
  | { bearerToken: string };

export interface ProxyOptions {
  /** Prometheus' base URL. */
  upstream: string;
  auth: ProxyAuth;
  /** AMP: the workspaces it serves; queries go to /workspaces/<id>/api/v1/query. Absent: /api/v1/query. */
  workspaces?: string[];
}

export interface QueryProxy {
  url: string;
  /** Requests received, and refused; the query string of the last one forwarded. */
  counts: { received: number; refused: number; lastForwarded?: URLSearchParams };
  close(): Promise<void>;
}

const MAX_SKEW_MS = 5 * 60_000;
const hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function amzDateMs(d: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(d);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : NaN;
}

/** Why AWS would refuse this request's signature, or undefined when it is good. */
export function sigv4Problem(req: { method: string; url: URL; headers: Record<string, string | string[] | undefined>; body: Buffer }, expect: { service: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string }; nowMs: number }): string | undefined {
  const auth = String(req.headers.authorization ?? '');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return 'Missing Authentication Token';
  const [, keyId, day, region, service, signedHeaders, signature] = m;
  if (keyId !== expect.credentials.accessKeyId) return 'The security token included in the request is invalid.';
  if (service !== expect.service) return `Credential should be scoped to correct service: '${expect.service}'.`;
  if (region !== expect.region) return `Credential should be scoped to a valid region.`;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const at = amzDateMs(amzDate);
  if (Number.isNaN(at) || !amzDate.startsWith(day)) return 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP';
  if (Math.abs(at - expect.nowMs) > MAX_SKEW_MS) return `Signature expired: ${amzDate} is now earlier than the allowed skew of 5 minutes from the server's time.`;
  const names = signedHeaders.split(';');
  if (!names.includes('host')) return "'Host' must be a 'SignedHeader' in the AWS Authorization.";
  const query = [...req.url.searchParams].map(([k, v]) => [rfc3986(k), rfc3986(v)]).sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  const canonical = [
    req.method,
    req.url.pathname.split('/').map((s) => rfc3986(rfc3986(decodeURIComponent(s)))).join('/'),
    query.map(([k, v]) => `${k}=${v}`).join('&'),
    names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join(''),
    signedHeaders,
    String(req.headers['x-amz-content-sha256'] ?? hex(req.body)),
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${expect.credentials.secretAccessKey}`, day), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest('hex');
  return expected === signature ? undefined : 'The request signature we calculated does not match the signature you provided.';
}

export async function startQueryProxy(opts: ProxyOptions): Promise<QueryProxy> {
  const counts: QueryProxy['counts'] = { received: 0, refused: 0 };
  const refuse = (res: ServerResponse, status: number, message: string) => {
    counts.refused++;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ message }));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    counts.received++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://proxy');
    let path = url.pathname;
    if (opts.workspaces) {
      const m = /^\/workspaces\/([^/]+)(\/api\/v1\/query)$/.exec(path);
      if (!m) return refuse(res, 404, `no such path ${path}`);
      if (!opts.workspaces.includes(m[1])) return refuse(res, 404, `Workspace not found: ${m[1]}`);
      path = m[2];
    }
    if (path !== '/api/v1/query') return refuse(res, 404, `no such path ${path}`);
    if ('sigv4' in opts.auth) {
      const { service, region, credentials } = opts.auth.sigv4;
      const problem = sigv4Problem({ method: req.method ?? 'GET', url, headers: req.headers, body: Buffer.concat(chunks) }, { service, region, credentials, nowMs: (opts.auth.now ?? Date.now)() });
      if (problem) return refuse(res, 403, problem);
    } else if (req.headers.authorization !== `Bearer ${opts.auth.bearerToken}`) {
      return refuse(res, 401, 'Unauthorized');
    }
    counts.lastForwarded = url.searchParams;
    const upstream = await fetch(`${opts.upstream.replace(/\/$/, '')}${path}${url.search}`);
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await upstream.arrayBuffer()));
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `upstream: ${errorText(e)}` }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, counts, close: () => closeServer(server) };
}
