/** Examples of a device script's hooks, inserted from the scenario editor (device-script.ts runs them). */
export const HOOK_EXAMPLES = [
  {
    hook: 'onTick',
    label: 'onTick: publish each period',
    code: `// Each period: return the telemetry to publish (nothing: publish nothing this time).
// ctx.state is kept per device; ctx.random() is seeded by the scenario and the device.
function onTick(ctx) {
  ctx.state.level ??= 50 + ctx.random() * 10;
  ctx.state.level += (ctx.random() - 0.5) * 2;
  return { level: Math.round(ctx.state.level * 10) / 10, uptimeS: Math.round(ctx.elapsedMs / 1000) };
}`,
  },
  {
    hook: 'onRpc',
    label: 'onRpc: answer a server-side RPC',
    code: `// A server-side RPC to the device: the return value is the reply
// (return nothing to leave it to the gateway's RPC rules).
function onRpc(method, params, ctx) {
  if (method === 'getState') return { state: ctx.state, device: ctx.device.name };
  if (method === 'setLevel') {
    ctx.state.level = Number(params.value);
    ctx.publish({ level: ctx.state.level });
    return { ok: true };
  }
  return { error: 'Unknown method: ' + method };
}`,
  },
  {
    hook: 'onAttributes',
    label: 'onAttributes: follow shared attributes',
    code: `// A shared attribute update: \`shared\` holds the keys that changed, ctx.shared all known so far.
function onAttributes(shared, ctx) {
  if (typeof shared.setpoint === 'number') ctx.state.setpoint = shared.setpoint;
  ctx.publishAttributes({ appliedAt: ctx.now });
}`,
  },
] as const;
