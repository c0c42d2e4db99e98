// A real Prometheus server (Debian's `prometheus` package, 2.42) for tests and `npm run local`:
// started on a free port with a throwaway TSDB, scraping the given targets every second.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalPrometheus {
  /** Base URL of its HTTP API (…/api/v1/query). */
  url: string;
  stop(): Promise<void>;
}

/** The prometheus binary on PATH (or $PROMETHEUS_BIN), or undefined when there is none. */
export function findPrometheus(): string | undefined {
  for (const bin of [process.env.PROMETHEUS_BIN, 'prometheus', '/usr/bin/prometheus'].filter((b): b is string => !!b)) {
    const r = spawnSync(bin, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    if (r.status === 0) return bin;
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts Prometheus scraping `targets` (host:port serving /metrics); resolves once it is ready. */
export async function startPrometheus(opts: { binary: string; targets: string[]; scrapeIntervalSeconds?: number; readyTimeoutMs?: number }): Promise<LocalPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'shpa-prometheus-'));
  const interval = `${opts.scrapeIntervalSeconds ?? 1}s`;
  const config = [
    'global:',
    `  scrape_interval: ${interval}`,
    `  evaluation_interval: ${interval}`,
    'scrape_configs:',
    '  - job_name: workloads',
    '    static_configs:',
    `      - targets: [${opts.targets.map((t) => `'${t}'`).join(', ')}]`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    opts.binary,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) return { url, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`prometheus did not become ready on ${url}: ${output.trim() || 'no output'}`);
}
