// Where the package's shipped files (examples/) are: found from this module's own
// location, which is lib/demo/ when run from the sources and dist/ once bundled.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'serverless-hpa';

/** The nearest folder above `from` whose package.json is this package's; throws when there is none. */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) throw new Error(`no ${PACKAGE_NAME} package.json above ${from}`);
  }
}

