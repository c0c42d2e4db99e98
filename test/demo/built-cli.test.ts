// The built `shpa` (bin/shpa.js running dist/shpa.js) runs the demo from any folder:
// its examples and uPlot are found from the package, not from the bundle or the working directory.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../lib/cli/build.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'shpa.js');

describe('the built shpa demo', () => {
  let dir: string;

  beforeAll(async () => {
    await buildCli();
    dir = mkdtempSync(join(tmpdir(), 'shpa-demo-cli-'));
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs from another working directory and writes its report', async () => {
    // four cycles; in requests per second, read relative to its median
    writeFileSync(join(dir, 'tiny.csv'), 'timestamp,rps\n2026-03-03T12:00:00Z,100\n2026-03-03T12:01:00Z,400\n2026-03-03T12:02:00Z,100\n2026-03-03T12:03:00Z,100\n');
    const out = join(dir, 'new', 'report-dir');
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [BIN, 'demo', '--duration', '0', '--trace', 'tiny.csv', '--out', out],
        { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, CI: 'true' }, timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(run.stderr).not.toMatch(/error/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('horizontalpodautoscaler.autoscaling/web created');
    expect(run.stdout).toMatch(/^4 cycles$/m);
    expect(run.stdout).toContain(`report: ${join(out, 'report.html')}`);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    // uPlot's CSS inlined (the report's own code does not name this class)
    expect(html).toContain('.u-legend');
    expect(existsSync(join(out, 'decisions.jsonl'))).toBe(true);
  }, 90_000);
});
