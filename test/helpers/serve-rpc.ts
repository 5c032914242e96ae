import { once } from 'node:events';
import { serveRest, type ServeProcess } from './serve-process.ts';

export interface RpcJson {
  status: string;
  response: unknown;
}

export async function killServe(serve: ServeProcess): Promise<void> {
  serve.child.kill('SIGKILL');
  await once(serve.child, 'exit');
}

/** Creates a device whose access token is `${name}-token`; returns its id. */
export async function serveDevice(serve: ServeProcess, token: string, name: string): Promise<string> {
  const device = await serveRest<{ id: { id: string } }>(serve, `/api/device?accessToken=${name}-token`, {
    method: 'POST',
    token,
    body: JSON.stringify({ name }),
  });
  return device.id.id;
}

/**
 * The server is another process: nothing tells a test when it stored a status, so this asks over REST
 * until the persistent RPC has it (or fails after a deadline).
 */
export async function rpcStatusOf(
  serve: ServeProcess,
  token: string,
  rpcId: string,
  wanted: string,
): Promise<RpcJson> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rpc = await serveRest<RpcJson>(serve, `/api/rpc/persistent/${rpcId}`, { token });
    if (rpc.status === wanted) return rpc;
    if (Date.now() > deadline) throw new Error(`${rpcId} is ${rpc.status}, not ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
