// What the cost tests share: `shpa` run as a user runs it, and one line of an estimate.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { CostEstimate } from '../../lib/cost/estimate.js';

const root = join(import.meta.dirname, '..', '..');

export function shpa(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(root, 'lib', 'cli', 'main.ts'), ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

export const line = (e: CostEstimate, item: string) => {
  const l = e.lines.find((x) => x.item.startsWith(item));
  if (!l) throw new Error(`no line ${item}`);
  return l;
};
