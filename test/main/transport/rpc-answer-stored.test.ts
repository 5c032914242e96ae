import { describe, expect, it } from 'vitest';
import { killServe, rpcStatusOf, serveDevice, type RpcJson } from '../../helpers/serve-rpc.ts';
import {
  FREE_PORTS,
  serveLogin,
  serveRest,
  startServe,
  type ServeProcess,
} from '../../helpers/serve-process.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { expectTbError, okJson, withLoginPair } from '../api/api-kit.ts';
import { closeAll, connect, Inbox, publishOk, subscribeOk } from './mqtt/mqtt-kit.ts';

const RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(\d+)$/;

const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/**
 * A device's answer to a persistent RPC is on disk before its PUBACK (MQTT) or 200 (HTTP): killed right
 * after, the server restarts with the RPC SUCCESSFUL, and never sends it to the device again.
 */
describe('an acknowledged RPC answer', () => {
  it('is SUCCESSFUL after kill -9 and never sent again (MQTT and HTTP)', { timeout: 90_000 }, async () => {
    const dataDir = tempDir();
    const first = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    const token = await serveLogin(first);
    const device = (name: string) => serveDevice(first, token, name);
    const persistent = (serve: ServeProcess, t: string, deviceId: string, method: string) =>
      serveRest<{ rpcId: string }>(serve, `/api/rpc/twoway/${deviceId}`, {
        method: 'POST',
        token: t,
        body: JSON.stringify({ persistent: true, method, params: {}, timeout: 120_000 }),
      });
    const mqttId = await device('answer-mqtt');
    const httpId = await device('answer-http');

    // over HTTP: the device takes the request with a long poll and answers it
    const httpRpc = await persistent(first, token, httpId, 'read');
    const polled = await fetch(`${first.urls.http}/api/v1/answer-http-token/rpc?timeout=10000`);
    const httpRequest = (await polled.json()) as { id: number; method: string };
    expect(httpRequest.method).toBe('read');
    await rpcStatusOf(first, token, httpRpc.rpcId, 'DELIVERED');
    const answered = await fetch(`${first.urls.http}/api/v1/answer-http-token/rpc/${httpRequest.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ over: 'http' }),
    });
    expect(answered.status).toBe(200);

    // over MQTT: killed right after the answer's PUBACK
    const client = await connect(first.urls.mqtt, 'answer-mqtt-token', 4);
    const inbox = new Inbox(client);
    await subscribeOk(client, 'v1/devices/me/rpc/request/+');
    const mqttRpc = await persistent(first, token, mqttId, 'measure');
    const request = await inbox.take(RPC_REQUEST);
    await rpcStatusOf(first, token, mqttRpc.rpcId, 'DELIVERED');
    await publishOk(client, request.topic.replace('request', 'response'), { over: 'mqtt' });
    await killServe(first);
    await closeAll();

    const second = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    const token2 = await serveLogin(second);
    for (const [rpcId, over] of [
      [mqttRpc.rpcId, 'mqtt'],
      [httpRpc.rpcId, 'http'],
    ] as const)
      expect(
        await serveRest<RpcJson>(second, `/api/rpc/persistent/${rpcId}`, { token: token2 }),
      ).toMatchObject({
        status: 'SUCCESSFUL',
        response: { over },
      });

    // never sent again: the first request each device gets after the restart is a new one
    const again = await connect(second.urls.mqtt, 'answer-mqtt-token', 4);
    const againInbox = new Inbox(again);
    await subscribeOk(again, 'v1/devices/me/rpc/request/+');
    await persistent(second, token2, mqttId, 'next');
    expect((await againInbox.take(RPC_REQUEST)).json).toMatchObject({ method: 'next' });
    expect(againInbox.all).toHaveLength(1);
    const poll = fetch(`${second.urls.http}/api/v1/answer-http-token/rpc?timeout=10000`);
    await persistent(second, token2, httpId, 'next');
    expect(await (await poll).json()).toMatchObject({ method: 'next' });
    await closeAll();
    await killServe(second);
  });
});

describe('a too-deep RPC answer over HTTP', () => {
  it('gets 400, as MQTT refuses it, and the RPC waits on for a good answer', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const device = await okJson<{ id: { id: string } }>(
      p.http('/api/device?accessToken=deep-answer', { method: 'POST', token, json: { name: 'deep-answer' } }),
    );
    const { rpcId } = await okJson<{ rpcId: string }>(
      p.http(`/api/rpc/twoway/${device.id.id}`, {
        method: 'POST',
        token,
        json: { persistent: true, method: 'read', params: {}, timeout: 60_000 },
      }),
    );
    const request = await okJson<{ id: number }>(p.http('/api/v1/deep-answer/rpc?timeout=10000'));
    const answer = (body: string) =>
      p.http(`/api/v1/deep-answer/rpc/${request.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    await expectTbError(await answer(deep(5_000)), 400, 31, 'nested deeper');
    const status = async () =>
      (await okJson<RpcJson>(p.http(`/api/rpc/persistent/${rpcId}`, { token }))).status;
    expect(await status()).toBe('DELIVERED');
    expect((await answer('{"ok":true}')).status).toBe(200);
    expect(await okJson<RpcJson>(p.http(`/api/rpc/persistent/${rpcId}`, { token }))).toMatchObject({
      status: 'SUCCESSFUL',
      response: { ok: true },
    });
  });
});

describe("a long poll's timeout", () => {
  it('is plain decimal digits: anything else gets 400 at once', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    await okJson(
      p.http('/api/device?accessToken=poll-timeout', { method: 'POST', token, json: { name: 'pt' } }),
    );
    for (const timeout of ['0x10', '1e3', '-1', '+5', '%2010', '1.5', '99999999999999999999'])
      for (const path of ['attributes/updates', 'rpc'])
        await expectTbError(
          await p.http(`/api/v1/poll-timeout/${path}?timeout=${timeout}`),
          400,
          31,
          "'timeout' must be",
        );
  });
});
