// What Electron's utility process runs: the platform core's `serve` command (compiled to
// dist/core/main/cli.js), plus a way for the main process to stop it gracefully on every OS (Windows
// has no SIGTERM): the CORE_STOP_MESSAGE message triggers the same shutdown as SIGTERM.
// Plain Node: this file does not import Electron; `process.parentPort` is what the utility process adds.
import type { CORE_STOP_MESSAGE } from './ipc-contract.ts';

const STOP: typeof CORE_STOP_MESSAGE = 'sandboard:stop';

// Heard from the first line: before `serve` listens for SIGTERM (while the core's modules load) nothing
// is open or locked yet, so the process just ends; a quit during start-up never leaves it running.
process.parentPort?.on('message', (event) => {
  const data = event.data as { type?: unknown } | null;
  if (data?.type !== STOP) return;
  if (process.listenerCount('SIGTERM') > 0) process.emit('SIGTERM', 'SIGTERM');
  else process.exit(0);
});

// The arguments start at 'serve' whatever precedes them in this process's argv.
const serve = process.argv.indexOf('serve');
const argv = serve >= 0 ? process.argv.slice(serve) : ['serve'];
const cliUrl = new URL('../core/main/cli.js', import.meta.url).href;
const { main } = (await import(cliUrl)) as { main(args: string[]): Promise<void> };
await main(argv);
