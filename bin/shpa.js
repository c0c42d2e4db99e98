#!/usr/bin/env node
// Runs the bundled CLI (npm run build writes dist/shpa.js).
// The SDK's notice about future Node versions is not the user's business mid-command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { main } = await import('../dist/shpa.js');
await main(process.argv);
