import { describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { newMsg } from '../../../main/platform/tb-msg.ts';
import { nodeHarness, telemetryMsg } from './node-kit.ts';

const relationsOf = (out: { relation: string }[]) => out.map((o) => o.relation);

describe('action nodes', () => {
  it('delay: the message is done at once; a copy (new id, same trace) goes on Success after the period', async () => {
    const h = await nodeHarness(NODE_TYPES.delay, { periodInSeconds: 0, maxPendingMsgs: 10 });
    const d = await h.device('a1');
    const msg = telemetryMsg(d, { v: 1 });
    const { out, errors } = await h.run(msg);
    expect(out).toEqual([]);
    expect(errors).toEqual([]);
    const [later] = await h.recorded(1);
    expect(later!.relation).toBe('Success');
    expect(later!.msg.data).toEqual({ v: 1 });
    expect(later!.msg.id).not.toBe(msg.id);
    expect(later!.msg.traceId).toBe(msg.id);
  });

  it('delay: pending messages are bounded; a bad period pattern fails', async () => {
    const h = await nodeHarness(NODE_TYPES.delay, { periodInSeconds: 60, maxPendingMsgs: 1 });
    const d = await h.device('a2');
    expect((await h.run(telemetryMsg(d, { n: 1 }))).out).toEqual([]);
    const second = await h.run(telemetryMsg(d, { n: 2 }));
    expect(relationsOf(second.out)).toEqual(['Failure']);
    expect(second.errors[0]).toMatch(/Max limit of pending messages reached!/);
    h.engine.removeChain('chain-under-test');
    const pattern = await nodeHarness(NODE_TYPES.delay, {
      useMetadataPeriodInSecondsPatterns: true,
      periodInSecondsPattern: '${delay}',
      maxPendingMsgs: 5,
    });
    expect((await pattern.run(telemetryMsg(d, {}, { delay: 'soon' }))).errors[0]).toMatch(
      /Can't parse period in seconds/,
    );
  });

  it('message count: counts what it receives and sends the count from the tenant every interval', async () => {
    const h = await nodeHarness(NODE_TYPES.msgCount, { interval: 1, telemetryPrefix: 'messageCount' });
    const d = await h.device('a3');
    for (let i = 0; i < 3; i++) expect((await h.run(telemetryMsg(d, { i }))).out).toEqual([]);
    const [tick] = await h.recorded(1);
    h.engine.removeChain('chain-under-test');
    expect(tick!.relation).toBe('Success');
    expect(tick!.msg.type).toBe('POST_TELEMETRY_REQUEST');
    expect(tick!.msg.originator).toEqual({ entityType: 'TENANT', id: h.services.ctx.tenantId });
    expect(tick!.msg.data).toEqual({ messageCount_sandboard: 3 });
  });

  it('assign to customer: by title pattern, creating it when asked; unknown title fails', async () => {
    const h = await nodeHarness(NODE_TYPES.assignToCustomer, {
      customerNamePattern: '${customer}',
      createCustomerIfNotExists: true,
    });
    const d = await h.device('a4');
    const r = await h.run(telemetryMsg(d, {}, { customer: 'Created By Chain' }));
    expect(relationsOf(r.out)).toEqual(['Success']);
    const customerId = h.services.devices.findRow(d)!.customer_id;
    expect(h.db.get('SELECT title FROM customers WHERE id = ?', [customerId])).toEqual({
      title: 'Created By Chain',
    });

    const strict = await nodeHarness(NODE_TYPES.assignToCustomer, { customerNamePattern: 'Nobody' });
    const d2 = await strict.device('a4b');
    const failed = await strict.run(telemetryMsg(d2, {}));
    expect(failed.errors[0]).toMatch(/Customer with title 'Nobody' doesn't exist!/);
    const tenant = await strict.run(
      newMsg('X', { entityType: 'TENANT', id: strict.services.ctx.tenantId }, {}),
    );
    expect(tenant.errors[0]).toMatch(/Unsupported originator type 'TENANT'/);
  });

  it('assign to customer: an asset too', async () => {
    const h = await nodeHarness(NODE_TYPES.assignToCustomer, {
      customerNamePattern: 'Asset owner',
      createCustomerIfNotExists: true,
    });
    const asset = (await h.services.assets.save({ name: 'Pump house' }, h.admin)).id.id;
    expect(relationsOf((await h.run(newMsg('X', { entityType: 'ASSET', id: asset }, {}))).out)).toEqual([
      'Success',
    ]);
    expect(h.services.assets.findRow(asset)!.customer_id).toEqual(
      h.db.get<{ id: string }>("SELECT id FROM customers WHERE title = 'Asset owner'")!.id,
    );
  });

  it('unassign from customer: the originator goes back to the tenant', async () => {
    const h = await nodeHarness(NODE_TYPES.unassignFromCustomer, {});
    const d = await h.device('a5');
    const c = (await h.services.customers.save({ title: 'Leaving' }, h.admin)).id.id;
    await h.services.devices.assignToCustomer(d, c, h.admin);
    expect(relationsOf((await h.run(telemetryMsg(d, {}))).out)).toEqual(['Success']);
    expect(h.services.devices.findRow(d)!.customer_id).toBeNull();
    const missing = await h.run(telemetryMsg('00000000-0000-4000-8000-000000000000', {}));
    expect(relationsOf(missing.out)).toEqual(['Failure']);
  });

  it('delete attributes: keys by pattern in the scope (metadata wins); Success once durable', async () => {
    const h = await nodeHarness(NODE_TYPES.deleteAttributes, {
      scope: 'SERVER_SCOPE',
      keys: ['old', '${k}'],
    });
    const d = await h.device('a6');
    await h.services.telemetry.saveAttributes(d, 'SERVER_SCOPE', { old: 1, other: 2, keep: 3 });
    await h.services.telemetry.saveAttributes(d, 'SHARED_SCOPE', { old: 1 });
    expect(relationsOf((await h.run(telemetryMsg(d, {}, { k: 'other' }))).out)).toEqual(['Success']);
    expect(h.services.telemetry.attributes(d, ['SERVER_SCOPE']).map((a) => a.key)).toEqual(['keep']);
    await h.run(telemetryMsg(d, {}, { scope: 'SHARED_SCOPE' }));
    expect(h.services.telemetry.attributes(d, ['SHARED_SCOPE'])).toEqual([]);
    const bad = await h.run(telemetryMsg(d, {}, { scope: 'NOWHERE' }));
    expect(bad.errors[0]).toMatch(/AttributeScope\.NOWHERE/);
  });

  it('math: functions of body, metadata, attribute, time series and constant arguments', async () => {
    const add = await nodeHarness(NODE_TYPES.math, {
      operation: 'ADD',
      arguments: [
        { name: 'a', type: 'MESSAGE_BODY', key: 'temperature' },
        { name: 'b', type: 'ATTRIBUTE', key: 'offset', attributeScope: 'SERVER_SCOPE' },
      ],
      result: { type: 'MESSAGE_METADATA', key: 'corrected', resultValuePrecision: 1 },
    });
    const d = await add.device('a7');
    await add.services.telemetry.saveAttributes(d, 'SERVER_SCOPE', { offset: 0.55 });
    expect((await add.run(telemetryMsg(d, { temperature: 20 }))).out[0]!.msg.metadata.corrected).toBe('20.6');

    const custom = await nodeHarness(NODE_TYPES.math, {
      operation: 'CUSTOM',
      customFunction: '(x - 32) / 1.8',
      arguments: [{ name: 'x', type: 'MESSAGE_BODY', key: 'temperature' }],
      result: { type: 'MESSAGE_BODY', key: 'temperatureCelsius', resultValuePrecision: 2 },
    });
    const d2 = await custom.device('a7b');
    expect((await custom.run(telemetryMsg(d2, { temperature: 100 }))).out[0]!.msg.data).toEqual({
      temperature: 100,
      temperatureCelsius: 37.78,
    });

    const toTs = await nodeHarness(NODE_TYPES.math, {
      operation: 'SQRT',
      arguments: [{ name: 'x', type: 'CONSTANT', key: '16' }],
      result: { type: 'TIME_SERIES', key: 'root', resultValuePrecision: 0, addToBody: true },
    });
    const d3 = await toTs.device('a7c');
    const r = await toTs.run(telemetryMsg(d3, { a: 1 }));
    expect(r.out[0]!.msg.data).toEqual({ a: 1, root: 4 });
    const row = toTs.services.devices.findRow(d3)!;
    expect(toTs.services.telemetry.timeseries(row, { keys: ['root'], strict: true }).root![0]!.value).toBe(4);
  });

  it('math: missing arguments use their default or fail; a formula that divides by zero fails', async () => {
    const h = await nodeHarness(NODE_TYPES.math, {
      operation: 'CUSTOM',
      customFunction: 'a / b',
      arguments: [
        { name: 'a', type: 'MESSAGE_BODY', key: 'a' },
        { name: 'b', type: 'MESSAGE_METADATA', key: 'b', defaultValue: 4 },
      ],
      result: { type: 'MESSAGE_BODY', key: 'q', resultValuePrecision: 2 },
    });
    const d = await h.device('a8');
    expect((await h.run(telemetryMsg(d, { a: 10 }))).out[0]!.msg.data).toEqual({ a: 10, q: 2.5 });
    expect((await h.run(telemetryMsg(d, { a: 1 }, { b: '0' }))).errors[0]).toMatch(/Division by zero!/);
    expect((await h.run(telemetryMsg(d, {}))).errors[0]).toMatch(/Message body has no 'a'!/);
    const tooMany = await nodeHarness(NODE_TYPES.math, {
      operation: 'SIN',
      arguments: [],
      result: { type: 'MESSAGE_BODY', key: 'x' },
    });
    expect((await tooMany.run(telemetryMsg(d, {}))).errors[0]).toMatch(
      /Args count: 0 does not match operation: SIN/,
    );
  });

  it('save time series: server time when asked; deduplicate keeps the first of an interval', async () => {
    const h = await nodeHarness(NODE_TYPES.saveTimeseries, {
      processingSettings: { type: 'DEDUPLICATE', deduplicationIntervalSecs: 60 },
    });
    const d = await h.device('a9');
    await h.run(telemetryMsg(d, { v: 1 }, { ts: '60000' }));
    await h.run(telemetryMsg(d, { v: 2 }, { ts: '60001' }));
    await h.run(telemetryMsg(d, { v: 3 }, { ts: '120000' }));
    const row = h.services.devices.findRow(d)!;
    const points = h.services.telemetry.timeseries(row, {
      keys: ['v'],
      startTs: 0,
      endTs: 200_000,
      strict: true,
    }).v!;
    expect(points.map((p) => p.value).sort()).toEqual([1, 3]);
    const attrs = await h.run(newMsg('POST_ATTRIBUTES_REQUEST', { entityType: 'DEVICE', id: d }, { a: 1 }));
    expect(attrs.errors[0]).toMatch(/Unsupported message type POST_ATTRIBUTES_REQUEST/);
  });

  it("save time series: an asset's time series too; an originator that does not exist fails", async () => {
    const h = await nodeHarness(NODE_TYPES.saveTimeseries, {});
    const asset = (await h.services.assets.save({ name: 'Boiler room' }, h.admin)).id.id;
    const msg = newMsg(
      'POST_TELEMETRY_REQUEST',
      { entityType: 'ASSET', id: asset },
      { load: 0.7 },
      { ts: '5000' },
    );
    expect(relationsOf((await h.run(msg)).out)).toEqual(['Success']);
    const num = h.services.directory.telemetryNum('ASSET', asset);
    expect(
      h.services.telemetry.timeseries(
        { id: asset, num, entityType: 'ASSET' },
        { keys: ['load'], strict: true },
      ).load![0],
    ).toEqual({
      ts: 5000,
      value: 0.7,
    });
    const ghost = newMsg(
      'POST_TELEMETRY_REQUEST',
      { entityType: 'ASSET', id: '00000000-0000-4000-8000-000000000000' },
      { x: 1 },
    );
    expect((await h.run(ghost)).errors[0]).toMatch(/ASSET .* not found/);
  });

  it("save attributes: any originator's attributes (a customer's too)", async () => {
    const h = await nodeHarness(NODE_TYPES.saveAttributes, { scope: 'SERVER_SCOPE' });
    const c = (await h.services.customers.save({ title: 'Attr' }, h.admin)).id.id;
    const r = await h.run(newMsg('POST_ATTRIBUTES_REQUEST', { entityType: 'CUSTOMER', id: c }, { limit: 7 }));
    expect(relationsOf(r.out)).toEqual(['Success']);
    expect(h.services.telemetry.attributes(c, ['SERVER_SCOPE'])[0]).toMatchObject({ key: 'limit', value: 7 });
    const bad = await h.run(newMsg('POST_ATTRIBUTES_REQUEST', { entityType: 'CUSTOMER', id: c }, [1]));
    expect(relationsOf(bad.out)).toEqual(['Failure']);
  });

  it('rpc call reply: answers the session named in the metadata; a closed session or no request id fails', async () => {
    const h = await nodeHarness(NODE_TYPES.rpcCallReply, {});
    const d = await h.device('a10');
    const answers: [number, unknown][] = [];
    const close = h.services.rpc.openClientSession('session-1', (id, body) => {
      answers.push([id, body]);
      return true;
    });
    const request = (meta: Record<string, string>) =>
      newMsg('TO_SERVER_RPC_REQUEST', { entityType: 'DEVICE', id: d }, { time: 1 }, meta);
    const ok = await h.run(request({ serviceId: 'sandboard', sessionId: 'session-1', requestId: '7' }));
    expect(relationsOf(ok.out)).toEqual(['Success']);
    expect(answers).toEqual([[7, { time: 1 }]]);
    close();
    const closed = await h.run(request({ serviceId: 'sandboard', sessionId: 'session-1', requestId: '8' }));
    expect(closed.errors[0]).toMatch(/session-1 is closed/);
    const noId = await h.run(request({ serviceId: 'sandboard', sessionId: 'session-1' }));
    expect(noId.errors[0]).toMatch(/Request id is not present in the metadata!/);
  });

  it('device profile node passes messages on (alarm rules are not evaluated yet); push to cloud fails here', async () => {
    const h = await nodeHarness(NODE_TYPES.deviceProfile, {});
    const d = await h.device('a11');
    const msg = telemetryMsg(d, { t: 1 });
    const r = await h.run(msg);
    expect(r.out).toEqual([{ relation: 'Success', msg }]);
    const cloud = await nodeHarness(NODE_TYPES.pushToCloud, { scope: 'SERVER_SCOPE' });
    expect((await cloud.run(telemetryMsg(d, {}))).errors[0]).toMatch(/runs on an edge/);
  });
});
