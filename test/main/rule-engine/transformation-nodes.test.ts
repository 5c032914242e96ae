import { describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { nodeHarness, telemetryMsg } from './node-kit.ts';

const relationsOf = (out: { relation: string }[]) => out.map((o) => o.relation);

describe('transformation nodes', () => {
  it('change originator: customer, tenant, related entity, entity by name pattern', async () => {
    const toCustomer = await nodeHarness(NODE_TYPES.changeOriginator, { originatorSource: 'CUSTOMER' });
    const d = await toCustomer.device('t1');
    const unassigned = await toCustomer.run(telemetryMsg(d, {}));
    expect(relationsOf(unassigned.out)).toEqual(['Failure']);
    expect(unassigned.errors[0]).toMatch(/Failed to find new originator!/);
    const customer = (await toCustomer.services.customers.save({ title: 'C1' }, toCustomer.admin)).id.id;
    await toCustomer.services.devices.assignToCustomer(d, customer, toCustomer.admin);
    expect((await toCustomer.run(telemetryMsg(d, { a: 1 }))).out[0]!.msg.originator).toEqual({
      entityType: 'CUSTOMER',
      id: customer,
    });

    const toTenant = await nodeHarness(NODE_TYPES.changeOriginator, { originatorSource: 'TENANT' });
    const d2 = await toTenant.device('t2');
    expect((await toTenant.run(telemetryMsg(d2, {}))).out[0]!.msg.originator).toEqual({
      entityType: 'TENANT',
      id: toTenant.services.ctx.tenantId,
    });

    const byName = await nodeHarness(NODE_TYPES.changeOriginator, {
      originatorSource: 'ENTITY',
      entityType: 'DEVICE',
      entityNamePattern: '${target}',
    });
    const target = await byName.device('t3-target');
    const d3 = await byName.device('t3');
    const r = await byName.run(telemetryMsg(d3, { v: 1 }, { target: 't3-target' }));
    expect(r.out[0]!.msg.originator).toEqual({ entityType: 'DEVICE', id: target });
    expect(r.out[0]!.msg.data).toEqual({ v: 1 });
    const missing = await byName.run(telemetryMsg(d3, {}, { target: 'nobody' }));
    expect(missing.errors[0]).toMatch(/Failed to find device with name 'nobody'!/);

    const related = await nodeHarness(NODE_TYPES.changeOriginator, {
      originatorSource: 'RELATED',
      relationsQuery: {
        direction: 'FROM',
        maxLevel: 2,
        filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
      },
    });
    const [a, b] = [await related.device('t4-a'), await related.device('t4-b')];
    await related.db.write((w) =>
      w.run(
        "INSERT INTO relations (from_id, from_type, to_id, to_type, type, type_group) VALUES (?, 'DEVICE', ?, 'DEVICE', 'Contains', 'COMMON')",
        [a, b],
      ),
    );
    expect((await related.run(telemetryMsg(a, {}))).out[0]!.msg.originator.id).toBe(b);
  });

  it('copy key-value pairs: regular expressions over data keys into metadata, and back', async () => {
    const toMeta = await nodeHarness(NODE_TYPES.copyKeys, { copyFrom: 'DATA', keys: ['temp.*', 'mode'] });
    const d = await toMeta.device('t5');
    const r = await toMeta.run(telemetryMsg(d, { temperature: 21, tempMax: 30, mode: 'eco', obj: { a: 1 } }));
    expect(r.out[0]!.msg.metadata).toMatchObject({ temperature: '21', tempMax: '30', mode: 'eco' });
    expect(r.out[0]!.msg.metadata.obj).toBeUndefined();

    const toData = await nodeHarness(NODE_TYPES.copyKeys, { copyFrom: 'METADATA', keys: ['deviceName'] });
    const r2 = await toData.run(telemetryMsg(d, { t: 1 }, { deviceName: 'x', other: 'y' }));
    expect(r2.out[0]!.msg.data).toEqual({ t: 1, deviceName: 'x' });
    const bad = await nodeHarness(NODE_TYPES.copyKeys, { copyFrom: 'DATA', keys: ['(unclosed'] });
    expect((await bad.run(telemetryMsg(d, {}))).errors[0]).toMatch(/not a valid regular expression/);
  });

  it('rename keys: in data or metadata; keys not there are ignored; no mapping: not started', async () => {
    const h = await nodeHarness(NODE_TYPES.renameKeys, {
      renameIn: 'DATA',
      renameKeysMapping: { temperatureCelsius: 'temperature', absent: 'x' },
    });
    const d = await h.device('t6');
    expect((await h.run(telemetryMsg(d, { temperatureCelsius: 21, h: 1 }))).out[0]!.msg.data).toEqual({
      h: 1,
      temperature: 21,
    });
    const meta = await nodeHarness(NODE_TYPES.renameKeys, {
      renameIn: 'METADATA',
      renameKeysMapping: { deviceName: 'name' },
    });
    expect((await meta.run(telemetryMsg(d, {}, { deviceName: 'n' }))).out[0]!.msg.metadata).toEqual({
      name: 'n',
    });
    const none = await nodeHarness(NODE_TYPES.renameKeys, { renameIn: 'DATA', renameKeysMapping: {} });
    expect((await none.run(telemetryMsg(d, {}))).errors[0]).toMatch(
      /At least one mapping entry should be specified!/,
    );
  });

  it('delete key-value pairs: matching keys go; the rest stays', async () => {
    const h = await nodeHarness(NODE_TYPES.deleteKeys, { deleteFrom: 'DATA', keys: ['secret.*'] });
    const d = await h.device('t7');
    expect((await h.run(telemetryMsg(d, { secretA: 1, secretB: 2, keep: 3 }))).out[0]!.msg.data).toEqual({
      keep: 3,
    });
    const meta = await nodeHarness(NODE_TYPES.deleteKeys, { deleteFrom: 'METADATA', keys: ['ts'] });
    expect((await meta.run(telemetryMsg(d, {}, { ts: '1', deviceName: 'n' }))).out[0]!.msg.metadata).toEqual({
      deviceName: 'n',
    });
  });

  it('json path: definite paths give the value, indefinite ones a list; a missing path fails', async () => {
    const h = await nodeHarness(NODE_TYPES.jsonPath, { jsonPath: '$.sensors[?(@.t > 20)].id' });
    const d = await h.device('t8');
    const data = {
      sensors: [
        { id: 'a', t: 19 },
        { id: 'b', t: 25 },
        { id: 'c', t: 30 },
      ],
      meta: { site: 'x' },
    };
    expect((await h.run(telemetryMsg(d, data))).out[0]!.msg.data).toEqual(['b', 'c']);
    const definite = await nodeHarness(NODE_TYPES.jsonPath, { jsonPath: '$.meta.site' });
    expect((await definite.run(telemetryMsg(d, data))).out[0]!.msg.data).toBe('x');
    const missing = await definite.run(telemetryMsg(d, { other: 1 }));
    expect(relationsOf(missing.out)).toEqual(['Failure']);
    expect(missing.errors[0]).toMatch(/No results for path: \$\.meta\.site/);
    const whole = await nodeHarness(NODE_TYPES.jsonPath, { jsonPath: '$' });
    expect((await whole.run(telemetryMsg(d, data))).out[0]!.msg.data).toEqual(data);
  });

  it('split array msg: one message per element, each with its own id and the array message as trace', async () => {
    const h = await nodeHarness(NODE_TYPES.splitArray, {});
    const d = await h.device('t9');
    const msg = telemetryMsg(d, [{ a: 1 }, { a: 2 }, { a: 3 }], { ts: '7' });
    const r = await h.run(msg);
    expect(r.out.map((o) => o.msg.data)).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(new Set(r.out.map((o) => o.msg.id)).size).toBe(3);
    expect(
      r.out.every((o) => o.msg.id !== msg.id && o.msg.traceId === msg.id && o.msg.parentId === msg.id),
    ).toBe(true);
    expect(r.out.every((o) => o.msg.metadata.ts === '7')).toBe(true);
    expect((await h.run(telemetryMsg(d, []))).out).toEqual([]);
    const single = await h.run(telemetryMsg(d, [5]));
    expect(single.out.map((o) => o.msg.data)).toEqual([5]);
    const notArray = await h.run(telemetryMsg(d, { a: 1 }));
    expect(notArray.errors[0]).toMatch(/Msg data is not a JSON Array!/);
  });
});
