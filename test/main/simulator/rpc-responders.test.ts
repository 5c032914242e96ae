import { describe, expect, it } from 'vitest';
import type { RpcRule } from '../../../shared/schemas/simulation.ts';
import { findRpcRule, respond } from '../../../main/simulator/rpc-responders.ts';

describe('RPC responders', () => {
  const rules: RpcRule[] = [
    { method: 'getState', responder: { kind: 'echo' } },
    { method: 'set', responder: { kind: 'fixed', reply: { ok: true } } },
    { method: '*', responder: { kind: 'error', error: 'Unsupported method' } },
    { method: 'late', responder: { kind: 'echo' } },
  ];

  it('matches the exact method first, then the first "*"', () => {
    expect(findRpcRule(rules, 'set')?.responder.kind).toBe('fixed');
    expect(findRpcRule(rules, 'late')?.responder.kind).toBe('echo');
    expect(findRpcRule(rules, 'other')?.responder.kind).toBe('error');
    expect(findRpcRule(rules.slice(0, 2), 'other')).toBeUndefined();
  });

  it('echo answers the params, fixed its reply, error {"error"}', async () => {
    const request = { method: 'm', params: { a: 1, b: [2] } };
    expect(await respond({ kind: 'echo' }, request)).toEqual({ a: 1, b: [2] });
    expect(await respond({ kind: 'echo' }, { method: 'm', params: undefined })).toEqual({});
    expect(await respond({ kind: 'fixed', reply: 'done' }, request)).toBe('done');
    expect(await respond({ kind: 'error', error: 'Device busy' }, request)).toEqual({ error: 'Device busy' });
  });

  it('delay answers after its time with its reply, else the params', async () => {
    const started = performance.now();
    expect(
      await respond({ kind: 'delay', ms: 60, reply: { late: true } }, { method: 'm', params: 1 }),
    ).toEqual({
      late: true,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(await respond({ kind: 'delay', ms: 1 }, { method: 'm', params: { x: 1 } })).toEqual({ x: 1 });
  });

  it('a delayed answer is dropped when the gateway stops', async () => {
    const abort = new AbortController();
    const pending = respond({ kind: 'delay', ms: 60_000 }, { method: 'm', params: {} }, abort.signal);
    abort.abort();
    await expect(pending).rejects.toThrow(/abort/i);
  });
});
