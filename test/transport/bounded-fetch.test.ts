// The HTTP fetch every tenant-named request goes through (lib/transport/bounded-fetch.ts): what
// it refuses before connecting, what it reads, and the cap sized to the worker's memory. The
// attacks through the whole sync are in test/security/metric-sources.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerCapForMemory, fetchBounded, HttpFetchError } from '../../lib/transport/bounded-fetch.js';

let server: Server;
let url: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.headers.host} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: unknown) => (e instanceof HttpFetchError ? `${e.reason}: ${e.message}` : `other: ${String(e)}`),
  );

describe('fetchBounded', () => {
  it('reads a granted loopback server, sending the host name it was given, connected to the address checked', async () => {
    const port = new URL(url).port;
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const a = await fetchBounded(new URL(`http://prom.test:${port}/api/v1/query?query=up`), { allowPrivate: true, resolve });
    expect(a).toEqual({ status: 200, body: '{"ok":true}' });
    expect(seen.at(-1)).toBe(`prom.test:${port} /api/v1/query?query=up`);
  });

  it.each([
    ['loopback without a grant', () => fetchBounded(new URL(url)), /^address: refused http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback or private address/],
    ['an IPv6 metadata literal', () => fetchBounded(new URL('http://[fd00:ec2::254]/')), /^address: refused http:\/\/\[fd00:ec2::254\]: fd00:ec2::254, the EC2 instance metadata endpoint$/],
    ['a non-http scheme', () => fetchBounded(new URL('ftp://127.0.0.1/')), /^address: refused ftp: URL: only http and https$/],
    ['credentials in the URL', () => fetchBounded(new URL('http://u:p@127.0.0.1/'), { allowPrivate: true }), /^address: refused http:\/\/127\.0\.0\.1: a URL with credentials$/],
    ['a name that does not resolve', () => fetchBounded(new URL('http://nowhere.test/'), { resolve: async () => Promise.reject(Object.assign(new Error('x'), { code: 'ENOTFOUND' })) }), /^unreachable: cannot resolve http:\/\/nowhere\.test \(ENOTFOUND\)$/],
    ['the runtime API named', () => fetchBounded(new URL(url), { allowPrivate: true, refusedEndpoints: [new URL(url).host] }), /is the Lambda runtime API$/],
  ])('refuses %s before connecting', async (_what, send, reason) => {
    const before = seen.length;
    expect(await refusal(send())).toMatch(reason);
    expect(seen.length).toBe(before);
  });

  it.each([
    [128, 1],
    [512, 4],
    [1769, 13],
    [10_240, 16],
  ])('caps answers at %i MB of memory to %i MiB', (memory, mib) => {
    expect(answerCapForMemory(memory)).toBe(mib * 1024 * 1024);
  });
});
