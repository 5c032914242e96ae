import { beforeAll, describe, expect, it } from 'vitest';
import { chainApi, chainFile, fileNode, TB } from '../rule-engine/chain-kit.ts';
import { createDevice, CUSTOMER, expectTbError, useSharedPlatform, type ApiPlatform } from './api-kit.ts';

const TRANSFORM = 'org.thingsboard.rule.engine.transform.TbTransformMsgNode';
const REST_REPLY = 'org.thingsboard.rule.engine.rest.TbSendRestApiCallReplyNode';

describe("ThingsBoard's rule engine REST API (/api/rule-engine) and the rest call reply node", () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let deviceId: string;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    deviceId = (await createDevice(p, token, { name: 'rule-engine-call-target', type: 'default' })).id.id;
    // REST API request -> script (throws on "silent", which then goes nowhere) -> rest call reply
    const api = chainApi(p, token);
    const chain = await api.importFile(
      chainFile(
        'Answers REST calls',
        [
          fileNode(TB.switch, 'Switch', { version: 0 }),
          fileNode(TRANSFORM, 'Double', {
            scriptLang: 'JS',
            jsScript:
              "if (msg.silent) throw new Error('no answer');\n" +
              'return {msg: {doubled: msg.value * 2, type: msgType, uuid: metadata.requestUUID, ' +
              'service: metadata.serviceId, expires: Number(metadata.expirationTime)}, ' +
              'metadata: metadata, msgType: msgType};',
          }),
          fileNode(REST_REPLY, 'Reply', {}),
        ],
        [
          { fromIndex: 0, toIndex: 1, type: 'REST API request' },
          { fromIndex: 1, toIndex: 2, type: 'Success' },
        ],
      ),
    );
    await api.setRoot(chain.ruleChain.id.id);
  });

  const call = (path: string, body: string, contentType = 'application/json', as = token) =>
    p.http(path, { method: 'POST', token: as, body, headers: { 'content-type': contentType } });

  it('answers a call from the user with what the rest call reply node sends back', async () => {
    const before = Date.now();
    const res = await call('/api/rule-engine/', JSON.stringify({ value: 21 }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ doubled: 42, type: 'REST_API_REQUEST', service: expect.any(String) });
    expect(body.uuid).toMatch(/^[0-9a-f-]{36}$/);
    // the default timeout, 10 s, is in the message's expirationTime
    expect(body.expires as number).toBeGreaterThanOrEqual(before + 10_000);
  });

  it('takes an entity as originator, a text/plain body, a timeout and a queue', async () => {
    for (const path of [
      `/api/rule-engine/DEVICE/${deviceId}`,
      `/api/rule-engine/DEVICE/${deviceId}/5000`,
      `/api/rule-engine/DEVICE/${deviceId}/HighPriority/5000`,
    ]) {
      const res = await call(path, '{"value": 5}', 'text/plain');
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({ doubled: 10 });
    }
  });

  it('answers 408 when no reply comes within the timeout', async () => {
    const started = Date.now();
    const res = await call(`/api/rule-engine/DEVICE/${deviceId}/300`, '{"silent": true}');
    await expectTbError(res, 408, 2, 'No reply from the rule engine within 300 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('refuses bad bodies, unknown entities and entities the user may not change', async () => {
    await expectTbError(
      await call('/api/rule-engine/', '{not json', 'text/plain'),
      400,
      31,
      /Invalid request body/,
    );
    await expectTbError(
      await call('/api/rule-engine/DEVICE/00000000-0000-4000-8000-000000000001', '{}'),
      404,
      32,
    );
    await expectTbError(await call(`/api/rule-engine/WIDGET/${deviceId}`, '{}'), 400, 31);
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    await expectTbError(
      await call(`/api/rule-engine/DEVICE/${deviceId}`, '{}', 'application/json', customer),
      403,
      20,
    );
    const own = await call('/api/rule-engine/', '{"value": 1}', 'application/json', customer);
    expect(await own.json()).toMatchObject({ doubled: 2 });
  });
});
