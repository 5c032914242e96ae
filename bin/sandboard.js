#!/usr/bin/env node
// Sandboard's command line. The core is TypeScript run by Node 24's built-in type stripping.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(`sandboard needs Node.js 24 or newer (this is ${process.version}).\n`);
  process.exit(1);
}
// V8's code cache for our modules and dependencies: later starts skip most of the compiling.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
const { main } = await import('../main/cli.ts');
await main(process.argv.slice(2));
