import { describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { newMsg } from '../../../main/platform/tb-msg.ts';
import { nodeHarness, telemetryMsg } from './node-kit.ts';

const relationsOf = (out: { relation: string }[]) => out.map((o) => o.relation);

describe('filter nodes', () => {
  it('message type filter: True for the configured types, False for others', async () => {
    const h = await nodeHarness(NODE_TYPES.msgTypeFilter, { messageTypes: ['POST_TELEMETRY_REQUEST'] });
    const d = await h.device('f1');
    expect(relationsOf((await h.run(telemetryMsg(d, { t: 1 }))).out)).toEqual(['True']);
    const attrs = newMsg('POST_ATTRIBUTES_REQUEST', { entityType: 'DEVICE', id: d }, { a: 1 });
    expect(relationsOf((await h.run(attrs)).out)).toEqual(['False']);
  });

  it('message type switch: ThingsBoard relation names, custom types to Other', async () => {
    const h = await nodeHarness(NODE_TYPES.msgTypeSwitch, {}, ['Post telemetry', 'Entity Assigned', 'Other']);
    const d = await h.device('f2');
    const o = { entityType: 'DEVICE', id: d };
    expect(relationsOf((await h.run(telemetryMsg(d, { t: 1 }))).out)).toEqual(['Post telemetry']);
    expect(relationsOf((await h.run(newMsg('ENTITY_ASSIGNED', o, {}))).out)).toEqual(['Entity Assigned']);
    expect(relationsOf((await h.run(newMsg('MY_CUSTOM_TYPE', o, {}))).out)).toEqual(['Other']);
  });

  it('entity type filter and switch: by the originator type, with ThingsBoard names', async () => {
    const filter = await nodeHarness(NODE_TYPES.originatorTypeFilter, {
      originatorTypes: ['ASSET', 'DEVICE'],
    });
    const d = await filter.device('f3');
    expect(relationsOf((await filter.run(telemetryMsg(d, {}))).out)).toEqual(['True']);
    const tenant = newMsg(
      'POST_TELEMETRY_REQUEST',
      { entityType: 'TENANT', id: filter.services.ctx.tenantId },
      {},
    );
    expect(relationsOf((await filter.run(tenant)).out)).toEqual(['False']);

    const sw = await nodeHarness(NODE_TYPES.originatorTypeSwitch, {}, ['Device', 'Entity View', 'Tenant']);
    expect(relationsOf((await sw.run(newMsg('X', { entityType: 'ENTITY_VIEW', id: 'v' }, {}))).out)).toEqual([
      'Entity View',
    ]);
    expect(relationsOf((await sw.run(newMsg('X', { entityType: 'TENANT', id: 't' }, {}))).out)).toEqual([
      'Tenant',
    ]);
  });

  it('check fields presence: all keys or at least one, data and metadata; Failure for non-object data', async () => {
    const all = await nodeHarness(NODE_TYPES.checkMessage, {
      messageNames: ['temperature'],
      metadataNames: ['deviceName'],
      checkAllKeys: true,
    });
    const d = await all.device('f4');
    expect(
      relationsOf((await all.run(telemetryMsg(d, { temperature: 1 }, { deviceName: 'x' }))).out),
    ).toEqual(['True']);
    expect(relationsOf((await all.run(telemetryMsg(d, { temperature: 1 }))).out)).toEqual(['False']);
    const failed = await all.run(telemetryMsg(d, [1, 2], { deviceName: 'x' }));
    expect(relationsOf(failed.out)).toEqual(['Failure']);
    expect(failed.errors[0]).toMatch(/not a JSON object/);

    const any = await nodeHarness(NODE_TYPES.checkMessage, {
      messageNames: ['temperature', 'humidity'],
      metadataNames: [],
      checkAllKeys: false,
    });
    expect(relationsOf((await any.run(telemetryMsg(d, { humidity: 3 }))).out)).toEqual(['True']);
    expect(relationsOf((await any.run(telemetryMsg(d, { pressure: 3 }))).out)).toEqual(['False']);
  });

  it('check relation presence: reads the relations table, to one entity or any, in the direction', async () => {
    const h = await nodeHarness(NODE_TYPES.checkRelation, {
      direction: 'FROM',
      relationType: 'Contains',
      checkForSingleEntity: false,
    });
    const building = await h.device('building');
    const sensor = await h.device('sensor');
    await h.db.write((w) =>
      w.run(
        "INSERT INTO relations (from_id, from_type, to_id, to_type, type, type_group) VALUES (?, 'DEVICE', ?, 'DEVICE', 'Contains', 'COMMON')",
        [building, sensor],
      ),
    );
    expect(relationsOf((await h.run(telemetryMsg(building, {}))).out)).toEqual(['True']);
    expect(relationsOf((await h.run(telemetryMsg(sensor, {}))).out)).toEqual(['False']);

    const to = await nodeHarness(NODE_TYPES.checkRelation, {
      direction: 'TO',
      relationType: 'Contains',
      checkForSingleEntity: true,
      entityType: 'DEVICE',
      entityId: building,
    });
    await to.db.write((w) =>
      w.run(
        "INSERT INTO relations (from_id, from_type, to_id, to_type, type, type_group) VALUES (?, 'DEVICE', ?, 'DEVICE', 'Contains', 'COMMON')",
        [building, sensor],
      ),
    );
    expect(relationsOf((await to.run(telemetryMsg(sensor, {}))).out)).toEqual(['True']);
    expect(relationsOf((await to.run(telemetryMsg(building, {}))).out)).toEqual(['False']);
  });

  it('check relation presence without the entity it should check: every message fails, naming why', async () => {
    const h = await nodeHarness(NODE_TYPES.checkRelation, { direction: 'FROM', checkForSingleEntity: true });
    const d = await h.device('f5');
    const { out, errors } = await h.run(telemetryMsg(d, {}));
    expect(relationsOf(out)).toEqual(['Failure']);
    expect(errors[0]).toMatch(/failed to initialize: Entity should be specified!/);
    expect(h.engine.node('node-under-test')!.problem).toMatch(/Entity should be specified/);
  });
});
