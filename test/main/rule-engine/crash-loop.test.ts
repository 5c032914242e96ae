import { once } from 'node:events';
import { readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  serveLogin,
  serveRest,
  startServe,
  FREE_PORTS,
  type ServeProcess,
} from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { closeAll, connect, publishOk } from '../transport/mqtt/mqtt-kit.ts';
import { chainFile, type MetadataJson } from './chain-kit.ts';
import { generatorNode, serveNodeFailures as failures } from './serve-chain-kit.ts';
const MARKER = 'rule-nodes-running.json';

/** A generator script that breaks every rule of the old sandbox protocol, at load and in its result. */
const POISON = [
  "return {msg: {n: 1}, metadata: {}, msgType: 'POST_TELEMETRY_REQUEST', loop: (function () { var o = {}; o.o = o; return o; })()};",
  '}',
  "JSON.stringify = function () { return '}{'; };",
  'JSON.parse = function () { return null; };',
  "Array.prototype.join = function () { return ']'; };",
  'function __after() {',
].join('\n');

interface NodeStatus {
  id: string;
  name: string;
  running: boolean;
  problem: string | null;
}

async function importGenerator(serve: ServeProcess, token: string, name: string, script: string) {
  const file = chainFile(name, [generatorNode(name, script)], []);
  const chain = await serveRest<{ ruleChain: { id: { id: string } }; metadata: MetadataJson }>(
    serve,
    '/api/sandboard/ruleChain/import',
    { method: 'POST', token, body: JSON.stringify(file) },
  );
  return { chainId: chain.ruleChain.id.id, nodeId: chain.metadata.nodes[0]!.id.id };
}

const nodeStatus = async (serve: ServeProcess, token: string, chainId: string) =>
  (await serveRest<NodeStatus[]>(serve, `/api/sandboard/ruleChain/${chainId}/nodeStatus`, { token }))[0]!;

/** Resolves once `check` passes, looking again after each debug event the node may have made. */
async function eventually<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function kill9(serve: ServeProcess): Promise<void> {
  serve.child.kill('SIGKILL');
  if (serve.child.exitCode === null && serve.child.signalCode === null) await once(serve.child, 'exit');
}

/** A device's telemetry is acknowledged: the transports answer. */
async function acknowledges(serve: ServeProcess): Promise<void> {
  const client = await connect(serve.urls.mqtt, 'tok-crash-loop-probe', 4);
  await publishOk(client, 'v1/devices/me/telemetry', { alive: 1 });
  await closeAll();
}

describe('no crash loop', () => {
  it('a poisoned generator chain survives kill -9 and restart: the server stays up, the node fails with a message', async () => {
    const dataDir = tempDir();
    const args = ['--data-dir', dataDir, ...FREE_PORTS];
    let serve = await startServe(args);
    let token = await serveLogin(serve);
    await serveRest(serve, '/api/device?accessToken=tok-crash-loop-probe', {
      method: 'POST',
      token,
      body: JSON.stringify({ name: 'crash-loop-probe' }),
    });
    const { nodeId } = await importGenerator(serve, token, 'Poisoned generator', POISON);
    for (let cycle = 0; cycle < 2; cycle++) {
      // killed at once, or once its generator has run (sometimes while it runs)
      if (cycle % 2 === 1)
        await eventually(async () => ((await failures(serve, token, nodeId)).length ? 1 : undefined));
      await kill9(serve);
      serve = await startServe(args);
      token = await serveLogin(serve);
      await acknowledges(serve);
    }
    const errors = await eventually(async () => {
      const list = await failures(serve, token, nodeId);
      return list.length > 0 ? list : undefined;
    });
    expect(errors[0]).toMatch(/^Script result is cyclic: it contains itself|^Suspended: the server stopped/);
    await acknowledges(serve);
    expect(serve.child.exitCode).toBeNull();
  }, 240_000);

  it('a node whose script was running when the process was killed is suspended at the next start, until its chain is saved', async () => {
    const dataDir = tempDir();
    const args = ['--data-dir', dataDir, ...FREE_PORTS];
    let serve = await startServe(args);
    let token = await serveLogin(serve);
    // the first run of a node in a process is marked durably before it starts: kill while it is marked
    const marked = new Promise<void>((resolve) => {
      const watcher = watch(dataDir, () => {
        try {
          const state = JSON.parse(readFileSync(join(dataDir, MARKER), 'utf8')) as {
            running: Record<string, unknown>;
          };
          if (Object.keys(state.running).length > 0) {
            watcher.close();
            resolve();
          }
        } catch {
          // written meanwhile: the next event reads it
        }
      });
    });
    const { chainId, nodeId } = await importGenerator(serve, token, 'Looping generator', 'while (true) {}');
    await marked;
    await kill9(serve);

    serve = await startServe(args);
    token = await serveLogin(serve);
    expect(serve.stderr()).toContain(
      `rule node 'Looping generator' (${nodeId}) was running its script when the server stopped: it is suspended until its rule chain is saved`,
    );
    const status = await nodeStatus(serve, token, chainId);
    expect(status.running).toBe(false);
    expect(status.problem).toMatch(/^Suspended: the server stopped while this node ran its script/);
    const errors = await eventually(async () => {
      const list = await failures(serve, token, nodeId);
      return list.length > 0 ? list : undefined;
    });
    expect(errors[0]).toBe(status.problem);

    // saving the chain runs it again (a person decided to)
    const md = await serveRest<MetadataJson>(serve, `/api/ruleChain/${chainId}/metadata`, { token });
    await serveRest(serve, '/api/ruleChain/metadata', { method: 'POST', token, body: JSON.stringify(md) });
    expect((await nodeStatus(serve, token, chainId)).problem).toBeNull();
  }, 120_000);
});
