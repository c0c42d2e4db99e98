// kubectl against the local API server, for the end-to-end tests: the binary, whether it runs,
// and a runner from the repository's root (where examples/ is).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = join(import.meta.dirname, '..', '..');
export const KUBECTL = '/usr/bin/kubectl';
export const haveKubectl = await run(KUBECTL, ['version', '--client']).then(
  () => true,
  () => false,
);

/** kubectl with this kubeconfig, from the repository's root; its stdout. */
export async function kubectlWith(kubeconfig: string, ...args: string[]): Promise<string> {
  return (await run(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { cwd: ROOT })).stdout;
}
