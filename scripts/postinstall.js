#!/usr/bin/env node
// npm install's last step (after patch-package): gives npm's scripts a Node.js 24 when the one running
// npm is older (scripts/node-runtime.js), then fetches Electron's binary for the desktop app where it can
// (scripts/electron-setup.ts). Plain JavaScript: it runs on whatever Node runs npm.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  installNodeRuntime,
  NODE_RUNTIME_PACKAGES,
  nodeMajor,
  REQUIRED_NODE_MAJOR,
  runtimeLink,
} from './node-runtime.js';

const root = fileURLToPath(new URL('..', import.meta.url));

let node = process.execPath;
if (nodeMajor() < REQUIRED_NODE_MAJOR) {
  const pkg = NODE_RUNTIME_PACKAGES[`${process.platform}-${process.arch}`];
  process.stderr.write(
    `sandboard: npm runs on Node.js ${process.version}; getting Node.js ${pkg?.version ?? REQUIRED_NODE_MAJOR} ` +
      `(${pkg?.name ?? 'none for this platform'}) for npm's scripts into node_modules/.bin\n`,
  );
  try {
    const version = installNodeRuntime(root);
    node = runtimeLink(root);
    process.stderr.write(
      `sandboard: npm start, npm test and the other npm scripts run on Node.js v${version} ` +
        `(npm's EBADENGINE warnings are about ${process.version}, the Node that runs npm itself)\n`,
    );
  } catch (err) {
    process.stderr.write(
      `sandboard: could not get Node.js ${REQUIRED_NODE_MAJOR}: ${err instanceof Error ? err.message : String(err)}\n` +
        `sandboard: install Node.js ${REQUIRED_NODE_MAJOR} (https://nodejs.org/, or \`nvm install ${REQUIRED_NODE_MAJOR}\`), ` +
        'then run `npm install` again.\n',
    );
    process.exit(1);
  }
}

// Bundles of typebox, yaml and semver for faster starts of bin/sandboard.js (never fails the install: it only saves time).
spawnSync(node, [join(root, 'scripts', 'dep-bundle.js')], { cwd: root, stdio: 'inherit' });

// Electron's step never fails the install: without its binary, npm start runs Sandboard headless.
spawnSync(node, [join(root, 'scripts', 'electron-setup.ts')], { cwd: root, stdio: 'inherit' });
