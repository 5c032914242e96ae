import { DEFAULT_ARG_NAMES } from '../script/rule-script.ts';
import { compileProgram } from '../script/script-program.ts';
import { sharedScriptSandbox } from '../script/script-sandbox.ts';

const ATTEMPTS = 5;

/**
 * Starts the script sandbox's workers before the first case. A worker's start (loading QuickJS) counts
 * against the first script's time limit, and on a loaded CI machine a cold start exceeds it: the first
 * case's script would fail on time, not on what it does.
 */
export async function warmScriptSandbox(): Promise<void> {
  const sandbox = sharedScriptSandbox();
  const script = sandbox.load('JS', compileProgram('JS', 'return true;', DEFAULT_ARG_NAMES));
  try {
    for (let i = 0; i < ATTEMPTS; i++) {
      try {
        await sandbox.invoke(script, {}, {}, 'WARM_UP');
        return;
      } catch {
        // the worker was restarted before it answered: try the new one
      }
    }
  } finally {
    sandbox.release(script);
  }
}
