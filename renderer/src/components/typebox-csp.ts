/**
 * TypeBox validates fastest with code it generates (`new Function`), which the app's Content-Security-
 * Policy refuses (no 'unsafe-eval'): its first probe would be blocked and logged as a CSP violation.
 * Imported before any validation runs, this answers the probe without evaluating anything and turns
 * generated code off, so TypeBox validates dynamically (same results, no violation).
 */
import { Environment, Settings } from 'typebox/system';

function validateWithoutCodeGeneration(): void {
  Settings.Set({ useAcceleration: false });
  const original = globalThis.Function;
  globalThis.Function = function refused() {
    throw new EvalError('code generation is off under the app’s Content-Security-Policy');
  } as unknown as FunctionConstructor;
  try {
    Environment.CanEvaluate(); // remembers "no"
  } finally {
    globalThis.Function = original;
  }
}

validateWithoutCodeGeneration();
