import { setTimeout as delay } from 'node:timers/promises';
import type { Responder, RpcRule } from '../../shared/schemas/simulation.ts';

/** The rule for a method: the first with that exact method, else the first '*'; undefined: no answer. */
export function findRpcRule(rules: RpcRule[], method: string): RpcRule | undefined {
  return rules.find((r) => r.method === method) ?? rules.find((r) => r.method === '*');
}

/**
 * The data a responder answers a request with: echo gives the params back, fixed its reply, delay its
 * reply (or the params) after ms, error {"error": message}. Rejects with an AbortError when signal aborts.
 */
export async function respond(
  responder: Responder,
  request: { method: string; params: unknown },
  signal?: AbortSignal,
): Promise<unknown> {
  switch (responder.kind) {
    case 'echo':
      return request.params ?? {};
    case 'fixed':
      return responder.reply;
    case 'delay':
      await delay(responder.ms, undefined, { signal });
      return responder.reply !== undefined ? responder.reply : (request.params ?? {});
    case 'error':
      return { error: responder.error };
  }
}
