import { describe, expect, it } from 'vitest';
import { killServe, rpcStatusOf, serveDevice, type RpcJson } from '../../../helpers/serve-rpc.ts';
import { FREE_PORTS, serveLogin, serveRest, startServe } from '../../../helpers/serve-process.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';
import { waitUntilPast } from '../../api/api-kit.ts';
import { closeAll, connect, Inbox, publishOk, subscribeOk } from './mqtt-kit.ts';

const RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(\d+)$/;

describe('persistent RPC across kill -9', () => {
  it(
    'keeps what it acknowledged: a queued request is delivered after the restart, a delivered one still takes its answer',
    { timeout: 90_000 },
    async () => {
      const dataDir = tempDir();
      const first = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
      const token = await serveLogin(first);
      const device = (name: string) => serveDevice(first, token, name);
      const [queuedId, deliveredId, expiringId] = [
        await device('crash-queued'),
        await device('crash-delivered'),
        await device('crash-expiring'),
      ];
      const persistent = (deviceId: string, body: Record<string, unknown>) =>
        serveRest<{ rpcId: string }>(first, `/api/rpc/twoway/${deviceId}`, {
          method: 'POST',
          token,
          body: JSON.stringify({ persistent: true, ...body }),
        });

      // one the device took (PUBACK: DELIVERED) but had not answered when the server died
      const deliveredClient = await connect(first.urls.mqtt, 'crash-delivered-token', 4);
      const deliveredInbox = new Inbox(deliveredClient);
      await subscribeOk(deliveredClient, 'v1/devices/me/rpc/request/+');
      const delivered = await persistent(deliveredId, {
        method: 'measure',
        params: { n: 1 },
        timeout: 120_000,
      });
      const deliveredRequest = await deliveredInbox.take(RPC_REQUEST);
      await rpcStatusOf(first, token, delivered.rpcId, 'DELIVERED');
      // one that expires while the server is down
      const expiresAt = Date.now() + 1_000;
      const expiring = await persistent(expiringId, { method: 'soon', expirationTime: expiresAt });
      // and one for a device that is offline: killed right after its 200
      const queued = await persistent(queuedId, {
        method: 'setTarget',
        params: { target: 21 },
        timeout: 120_000,
      });
      await killServe(first);
      await closeAll();
      await waitUntilPast(expiresAt);

      const second = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
      const token2 = await serveLogin(second);
      expect(
        (await serveRest<RpcJson>(second, `/api/rpc/persistent/${queued.rpcId}`, { token: token2 })).status,
      ).toBe('QUEUED');
      expect(
        (await serveRest<RpcJson>(second, `/api/rpc/persistent/${expiring.rpcId}`, { token: token2 })).status,
      ).toBe('EXPIRED');

      // the offline device connects and gets its request; its answer completes it
      const client = await connect(second.urls.mqtt, 'crash-queued-token', 5);
      const inbox = new Inbox(client);
      await subscribeOk(client, 'v1/devices/me/rpc/request/+');
      const request = await inbox.take(RPC_REQUEST);
      expect(request.json).toEqual({ method: 'setTarget', params: { target: 21 } });
      await publishOk(client, request.topic.replace('request', 'response'), { ok: true });
      expect(await rpcStatusOf(second, token2, queued.rpcId, 'SUCCESSFUL')).toMatchObject({
        response: { ok: true },
      });

      // the delivered one is not sent again, and its answer (to the id it got before) still counts
      const again = await connect(second.urls.mqtt, 'crash-delivered-token', 4);
      await publishOk(again, deliveredRequest.topic.replace('request', 'response'), { value: 9 });
      expect(await rpcStatusOf(second, token2, delivered.rpcId, 'SUCCESSFUL')).toMatchObject({
        response: { value: 9 },
      });
      await closeAll();
      await killServe(second);
    },
  );
});
