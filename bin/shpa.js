#!/usr/bin/env node
// Runs the bundled CLI (npm run build writes dist/shpa.js).
const { main } = await import('../dist/shpa.js');
await main(process.argv);
