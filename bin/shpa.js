#!/usr/bin/env node
// Runs the bundled CLI (npm run build writes dist/shpa.js).
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/shpa.js', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('error: shpa is not built: run "npm run build" (or "npm run shpa -- ARGS" to run the sources)\n');
  process.exit(1);
}
const { main } = await import(bundle.href);
await main(process.argv);
