// The demo's output folder, checked and created before anything runs, so a bad one
// fails at once. No recursive mkdir: on /proc, Node 20's recursive mkdir never returns.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { errorText } from '../shared/error-text.js';

const PROBLEMS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'cannot be created there',
  ENOSPC: 'no space left on the device',
};

function problem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return PROBLEMS[code] ?? errorText(e);
}

function isDirectory(path: string): boolean | undefined {
  try {
    return statSync(path).isDirectory();
  } catch (e) {
    if (['ENOENT', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw e;
  }
}

/** Makes `dir` (and missing parents, one level at a time) and returns its absolute path; throws "<dir>: <problem>". */
export function prepareOutDir(dir: string): string {
  const full = resolve(dir);
  try {
    const missing: string[] = [];
    let existing = full;
    while (isDirectory(existing) === undefined && dirname(existing) !== existing) {
      missing.unshift(existing);
      existing = dirname(existing);
    }
    if (isDirectory(existing) === false) throw new Error(existing === full ? 'is a file, not a directory' : `${existing} is a file, not a directory`);
    accessSync(existing, constants.W_OK | constants.X_OK);
    for (const d of missing) mkdirSync(d);
    accessSync(full, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw new Error(`${dir}: ${'code' in (e as object) ? problem(e) : errorText(e)}`);
  }
  return full;
}
