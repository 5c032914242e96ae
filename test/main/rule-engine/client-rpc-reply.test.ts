import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';
import {
  closeAll,
  connect,
  Inbox,
  newDevice,
  publishOk,
  subscribeOk,
  VERSIONS,
  versionName,
  type Api,
} from '../transport/mqtt/mqtt-kit.ts';
import {
  chainApi,
  chainFile,
  failuresRecorded,
  fileNode,
  nodeFailures,
  nodeIdByName,
  TB,
  type MetadataJson,
} from './chain-kit.ts';

describe('client-side RPC answered by the RPC Call Reply node', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let counter = 0;
  let metadata: MetadataJson;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    const api = chainApi(p, token);
    // RPC Request from Device -> json path $.params -> rpc call reply
    const chain = await api.importFile(
      chainFile(
        'Answers RPC',
        [
          fileNode(TB.switch, 'Switch', { version: 0 }),
          fileNode(TB.jsonPath, 'Params', { jsonPath: '$.params' }),
          failuresRecorded(fileNode(TB.rpcReply, 'Reply', { requestIdMetaDataAttribute: 'requestId' })),
        ],
        [
          { fromIndex: 0, toIndex: 1, type: 'RPC Request from Device' },
          { fromIndex: 1, toIndex: 2, type: 'Success' },
        ],
      ),
    );
    await api.setRoot(chain.ruleChain.id.id);
    metadata = chain.metadata;
  });
  afterEach(() => closeAll());
  const ctx = (): Api => ({ p, token });

  it.each(VERSIONS.map((v) => [versionName(v), v] as const))(
    '%s: the device gets the answer on v1/devices/me/rpc/response/{id}',
    async (_name, version) => {
      const device = await newDevice(ctx(), `rpc-reply-${++counter}`);
      const client = await connect(p.urls.mqtt, device.accessToken, version);
      const inbox = new Inbox(client);
      await subscribeOk(client, 'v1/devices/me/rpc/response/+');
      await publishOk(client, 'v1/devices/me/rpc/request/42', {
        method: 'getTime',
        params: { zone: 'UTC', n: 1 },
      });
      const answer = await inbox.take('v1/devices/me/rpc/response/42');
      expect(answer.json).toEqual({ zone: 'UTC', n: 1 });
    },
  );

  it('answers on the session that asked, not on another session of the same device', async () => {
    const device = await newDevice(ctx(), `rpc-reply-${++counter}`);
    const asking = await connect(p.urls.mqtt, device.accessToken, 5);
    const other = await connect(p.urls.mqtt, device.accessToken, 5);
    const askingInbox = new Inbox(asking);
    const otherInbox = new Inbox(other);
    await subscribeOk(asking, 'v1/devices/me/rpc/response/+');
    await subscribeOk(other, 'v1/devices/me/rpc/response/+');
    await publishOk(asking, 'v1/devices/me/rpc/request/1', { method: 'm', params: 'only-mine' });
    expect((await askingInbox.take('v1/devices/me/rpc/response/1')).json).toBe('only-mine');
    // A request of the other session, answered after the first: the first answer never reached it.
    await publishOk(other, 'v1/devices/me/rpc/request/2', { method: 'm', params: 'theirs' });
    const theirs = await otherInbox.take('v1/devices/me/rpc/response/2');
    expect(otherInbox.before(theirs)).toEqual([]);
  });

  it('over the HTTP device API: POST /api/v1/{token}/rpc is answered with the reply', async () => {
    const device = await newDevice(ctx(), `rpc-reply-${++counter}`);
    const res = await p.http(`/api/v1/${device.accessToken}/rpc`, {
      method: 'POST',
      json: { method: 'getTime', params: { zone: 'CET' } },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ zone: 'CET' });
  });

  it('a device not subscribed to responses: the reply node fails in the rule engine, the request is acknowledged', async () => {
    const device = await newDevice(ctx(), `rpc-reply-${++counter}`);
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    // As in ThingsBoard, the device is not told of a node's failure: its debug events are.
    await publishOk(client, 'v1/devices/me/rpc/request/3', { method: 'm', params: {} });
    expect(await nodeFailures(p, token, nodeIdByName(metadata, 'Reply'), device.id.id)).toEqual([
      expect.stringMatching(/The device session .* is closed or not subscribed to RPC responses/),
    ]);
  });
});
