// Local servers an attacker in one namespace would aim the worker at: each counts what reached it
// and answers with text that must never come back through status, events or logs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Text each server puts in its answers; none of it may appear anywhere we write. */
export const SECRETS = ['hunter2-db-password', 'AKIAIOSFODNN7EXAMPLE', 'sk-live-51Habcdef', 'tenant-b-value-4242', 'internal-admin-users'];

export interface Attacker {
  url: string;
  port: number;
  /** Requests received, by path. */
  requests: string[];
  /** Body bytes written (the large answer). */
  sent: number;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 (port 0: any) answering with `handle`. */
export async function startAttacker(handle: (req: IncomingMessage, res: ServerResponse, self: Attacker) => void, port = 0): Promise<Attacker> {
  const self: Attacker = { url: '', port: 0, requests: [], sent: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    self.requests.push(req.url ?? '');
    handle(req, res, self);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  self.port = (server.address() as AddressInfo).port;
  self.url = `http://127.0.0.1:${self.port}`;
  self.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return self;
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** Poses as the EC2 instance metadata endpoint: hands out credentials to whoever asks. */
export const metadataPoser = () =>
  startAttacker((_req, res) => json(res, 200, { Code: 'Success', AccessKeyId: SECRETS[1], SecretAccessKey: SECRETS[0], Token: SECRETS[2] }));

/** Another tenant's Prometheus: a valid answer carrying that tenant's value. */
export const otherTenantPrometheus = () =>
  startAttacker((_req, res) => json(res, 200, { status: 'success', data: { resultType: 'vector', result: [{ metric: { secret: SECRETS[3] }, value: [0, '4242'] }] } }));

/** An allowed-looking server that redirects every query to `to`. */
export const redirector = (to: () => string) =>
  startAttacker((req, res) => res.writeHead(302, { location: `${to()}${req.url ?? ''}` }).end(`moved to ${to()} ${SECRETS[4]}`));

/**
 * 300 MB of answer, written 64 KiB at a time as the socket drains (never held in memory); with
 * `declare`, a Content-Length says so up front, else it is chunked.
 */
export const hugeAnswer = (declare: boolean) =>
  startAttacker((_req, res, self) => {
    const total = 300 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(total) } : {}) });
    res.write('{"status":"success","data":{"resultType":"vector","result":[],"pad":"');
    const pump = () => {
      while (self.sent < total) {
        self.sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end('"}}');
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  });

/** Echoes secrets in every shape a client might copy: an error envelope, warnings, labels, a plain body. */
export const secretEcho = (shape: 'error' | 'plain' | 'warnings' | 'labels') =>
  startAttacker((req, res) => {
    const said = `db=postgres://admin:${SECRETS[0]}@db.internal Authorization: Bearer ${SECRETS[2]} key ${SECRETS[1]} ${req.headers.authorization ?? ''}`;
    if (shape === 'error') json(res, 500, { status: 'error', errorType: `internal ${SECRETS[4]}`, error: said, message: said });
    else if (shape === 'plain') res.writeHead(200, { 'content-type': 'text/plain' }).end(said);
    else if (shape === 'warnings') json(res, 200, { status: 'success', warnings: [said], data: { resultType: 'vector', result: [{ metric: {}, value: [0, '1'] }] } });
    else json(res, 200, { status: 'success', data: { resultType: 'vector', result: [{ metric: { leak: said }, value: [0, 'NaN'] }] } });
  });
