// One GET to a URL a tenant named, for PromQL and any later HTTP metric source: the host is
// resolved here and every address checked (lib/api/endpoint-address.ts) before the socket opens,
// and the socket connects to the address checked (no window for DNS rebinding); redirects are
// refused, not followed; the answer is read as a stream and dropped once past a size cap. Every
// failure is an HttpFetchError saying in our words what happened, never what the server said.
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress, neverAddressProblem } from '#api';

/** What fits the worker's memory: 8 queries in flight at 4 MiB each, parsed, stay far below 512 MB. */
export const DEFAULT_MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The answer cap for a worker of `memoryMb`: 1/128 of it (4 MiB at 512 MB), between 1 and 16 MiB. */
export function answerCapForMemory(memoryMb: number): number {
  return Math.min(16, Math.max(1, Math.floor(memoryMb / 128))) * 1024 * 1024;
}

/** A host name's addresses, as dns.lookup({ all: true }) gives them; tests inject their own. */
export type ResolveHost = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface BoundedFetchOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Bytes of body read before the answer is dropped; default DEFAULT_MAX_ANSWER_BYTES. */
  maxBytes?: number;
  /** Default: the system resolver (dns.lookup). */
  resolve?: ResolveHost;
  /** Whether loopback and private addresses may be reached (an origin granted by name); default false. */
  allowPrivate?: boolean;
  /** host:port endpoints never reached whatever is granted; default: the Lambda runtime API (AWS_LAMBDA_RUNTIME_API). */
  refusedEndpoints?: string[];
}

export type FetchFailure = 'address' | 'redirect' | 'too-large' | 'unreachable';

/** A refused or failed request; `message` is ours alone (origin, status, code), safe for status and events. */
export class HttpFetchError extends Error {
  override readonly name = 'HttpFetchError';
  constructor(
    message: string,
    readonly reason: FetchFailure,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface BoundedAnswer {
  status: number;
  body: string;
}

const systemResolve: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (e, addresses) => (e ? reject(e) : resolve(addresses))));

function defaultRefused(): string[] {
  const api = process.env.AWS_LAMBDA_RUNTIME_API;
  return api ? [api] : [];
}

function endpointKey(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/** The address to connect to, every resolved one checked; throws HttpFetchError('address') when refused. */
async function checkedAddress(url: URL, o: BoundedFetchOptions): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await (o.resolve ?? systemResolve)(host);
    } catch (e) {
      throw new HttpFetchError(`cannot resolve ${url.origin} (${(e as { code?: string }).code ?? 'lookup failed'})`, 'unreachable');
    }
    if (addresses.length === 0) throw new HttpFetchError(`cannot resolve ${url.origin} (no address)`, 'unreachable');
  }
  const via = isIP(host) ? '' : ` (${host} resolves to it)`;
  const refused = new Set((o.refusedEndpoints ?? defaultRefused()).map((e) => e.toLowerCase()));
  // One refused address refuses the name: a resolver answering two could hand out either later.
  for (const a of addresses) {
    const never = neverAddressProblem(a.address);
    if (never) throw new HttpFetchError(`refused ${url.origin}: ${never}${via}`, 'address');
    if (refused.has(endpointKey(a.address, port))) throw new HttpFetchError(`refused ${url.origin}: ${endpointKey(a.address, port)} is the Lambda runtime API${via}`, 'address');
    if (!o.allowPrivate && isPrivateAddress(a.address)) {
      throw new HttpFetchError(`refused ${url.origin}: ${a.address} is a loopback or private address${via}, which only an origin granted by name in param metricAccess may reach`, 'address');
    }
  }
  return addresses[0];
}

/** Reads the body up to maxBytes; rejects with HttpFetchError('too-large') past it, the socket destroyed. */
function readCapped(res: IncomingMessage, url: URL, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new HttpFetchError(`answer too large from ${url.origin} (over ${maxBytes} bytes)`, 'too-large', res.statusCode);
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.destroy();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (e) => reject(e));
    res.on('close', () => {
      if (!res.complete) reject(new HttpFetchError(`the answer from ${url.origin} was cut off`, 'unreachable', res.statusCode));
    });
  });
}

/** GET url: its status and body, or an HttpFetchError; an abort of `signal` rejects with the signal's reason. */
export async function fetchBounded(url: URL, o: BoundedFetchOptions = {}): Promise<BoundedAnswer> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HttpFetchError(`refused ${url.protocol} URL: only http and https`, 'address');
  if (url.username || url.password) throw new HttpFetchError(`refused ${url.origin}: a URL with credentials`, 'address');
  o.signal?.throwIfAborted();
  const target = await checkedAddress(url, o);
  o.signal?.throwIfAborted();
  // The socket goes to the address checked above, whatever the resolver would say now.
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(url, { method: 'GET', headers: { ...o.headers, 'accept-encoding': 'identity' }, lookup, signal: o.signal, agent: false }, resolve);
    req.on('error', (e: Error & { code?: string }) => {
      if (o.signal?.aborted) reject(o.signal.reason);
      else reject(new HttpFetchError(`cannot reach ${url.origin} (${e.code ?? 'connection failed'})`, 'unreachable'));
    });
    req.end();
  });
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400 && res.headers.location !== undefined) {
    res.destroy();
    throw new HttpFetchError(`redirect refused: ${url.origin} answered HTTP ${status} pointing elsewhere`, 'redirect', status);
  }
  try {
    return { status, body: await readCapped(res, url, o.maxBytes ?? DEFAULT_MAX_ANSWER_BYTES) };
  } catch (e) {
    if (o.signal?.aborted) throw o.signal.reason;
    throw e;
  }
}
