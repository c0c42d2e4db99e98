// Headless Chromium for report tests: Debian's package, installed with apt when missing and possible.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export type ChromiumAvailability = { path: string } | { skip: string };

/** The browser path, or why there is none (the caller skips with that message). Run once, by test/global-setup.ts. */
export function ensureChromium(): ChromiumAvailability {
  if (existsSync(CHROMIUM)) return { path: CHROMIUM };
  if (process.getuid?.() !== 0) return { skip: `${CHROMIUM} is missing and installing it needs root (apt-get install chromium)` };
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { stdio: 'ignore', timeout: 300_000, env });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'ignore', timeout: 900_000, env });
  } catch (e) {
    return { skip: `${CHROMIUM} is missing and apt-get install chromium failed: ${(e as Error).message.split('\n')[0]}` };
  }
  return existsSync(CHROMIUM) ? { path: CHROMIUM } : { skip: `apt-get installed chromium but ${CHROMIUM} is still missing` };
}
