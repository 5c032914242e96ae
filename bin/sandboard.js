#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=1048576 node --max-semi-space-size=16 --min-semi-space-size=16
// (the platform core's launch settings, as scripts/start-plan.ts's CORE_NODE_FLAGS and CORE_ENV say why)
// Sandboard's command line. The core is TypeScript run by Node 24's built-in type stripping.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(`sandboard needs Node.js 24 or newer (this is ${process.version}).\n`);
  process.exit(1);
}
// V8's code cache for our modules and dependencies: later starts skip most of the compiling.
const { enableCompileCache, registerHooks } = await import('node:module');
enableCompileCache?.();
// typebox, yaml and semver from bundles (scripts/dep-bundle.js), when built for the installed versions
const { depBundleMap } = await import('../scripts/dep-bundle.js');
const { fileURLToPath } = await import('node:url');
const bundled = depBundleMap(fileURLToPath(new URL('..', import.meta.url)));
if (bundled && registerHooks) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      const url = bundled[resolved.url];
      return url ? { ...resolved, url } : resolved;
    },
  });
}
const { main } = await import('../main/cli.ts');
await main(process.argv.slice(2));
