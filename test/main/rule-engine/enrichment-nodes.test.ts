import { describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { newMsg } from '../../../main/platform/tb-msg.ts';
import { nodeHarness, telemetryMsg, type NodeHarness } from './node-kit.ts';

const relationsOf = (out: { relation: string }[]) => out.map((o) => o.relation);

async function withHistory(h: NodeHarness, deviceId: string, points: [number, Record<string, unknown>][]) {
  const row = h.services.devices.findRow(deviceId)!;
  await h.services.telemetry.saveTimeseries(
    row,
    points.map(([ts, values]) => ({ ts, values })),
  );
}

describe('enrichment nodes', () => {
  it('originator attributes: prefixed attributes and latest time series into metadata or data', async () => {
    const h = await nodeHarness(NODE_TYPES.originatorAttributes, {
      clientAttributeNames: ['fw'],
      sharedAttributeNames: ['${wanted}'],
      serverAttributeNames: ['limit'],
      latestTsKeyNames: ['temperature'],
      tellFailureIfAbsent: true,
      fetchTo: 'METADATA',
    });
    const d = await h.device('e1');
    await h.services.telemetry.saveAttributes(d, 'CLIENT_SCOPE', { fw: '1.2' });
    await h.services.telemetry.saveAttributes(d, 'SHARED_SCOPE', { mode: 'eco' });
    await h.services.telemetry.saveAttributes(d, 'SERVER_SCOPE', { limit: 30 });
    await withHistory(h, d, [[1000, { temperature: 21.5 }]]);
    const { out, errors } = await h.run(telemetryMsg(d, { x: 1 }, { wanted: 'mode' }));
    expect(errors).toEqual([]);
    expect(out[0]!.relation).toBe('Success');
    expect(out[0]!.msg.metadata).toMatchObject({
      cs_fw: '1.2',
      shared_mode: 'eco',
      ss_limit: '30',
      temperature: '21.5',
    });

    const toData = await nodeHarness(NODE_TYPES.originatorAttributes, {
      serverAttributeNames: ['limit'],
      fetchTo: 'DATA',
      tellFailureIfAbsent: false,
    });
    const d2 = await toData.device('e1b');
    await toData.services.telemetry.saveAttributes(d2, 'SERVER_SCOPE', { limit: 30 });
    const r = await toData.run(telemetryMsg(d2, { x: 1 }));
    expect(r.out[0]!.msg.data).toEqual({ x: 1, ss_limit: 30 });
  });

  it('originator attributes: Failure naming the keys that are not there (the found ones still added)', async () => {
    const h = await nodeHarness(NODE_TYPES.originatorAttributes, {
      serverAttributeNames: ['limit', 'missing'],
      fetchTo: 'METADATA',
    });
    const d = await h.device('e2');
    await h.services.telemetry.saveAttributes(d, 'SERVER_SCOPE', { limit: 5 });
    const { out, errors } = await h.run(telemetryMsg(d, {}));
    expect(relationsOf(out)).toEqual(['Failure']);
    expect(out[0]!.msg.metadata.ss_limit).toBe('5');
    expect(errors[0]).toMatch(/not present in the DB.*\[SERVER_SCOPE\]:\[missing\]/s);
  });

  it('originator telemetry: first, last and all values of an interval from metadata patterns', async () => {
    const first = await nodeHarness(NODE_TYPES.originatorTelemetry, {
      latestTsKeyNames: ['temperature'],
      fetchMode: 'FIRST',
      useMetadataIntervalPatterns: true,
      startIntervalPattern: '${from}',
      endIntervalPattern: '${to}',
    });
    const d = await first.device('e3');
    await withHistory(first, d, [
      [1000, { temperature: 20 }],
      [2000, { temperature: 21 }],
      [3000, { temperature: 22 }],
    ]);
    const meta = { from: '500', to: '2500' };
    const r1 = await first.run(telemetryMsg(d, {}, meta));
    expect(r1.out[0]!.msg.metadata.temperature).toBe('"20"');

    const all = await nodeHarness(NODE_TYPES.originatorTelemetry, {
      latestTsKeyNames: ['temperature'],
      fetchMode: 'ALL',
      orderBy: 'DESC',
      aggregation: 'NONE',
      limit: 10,
      useMetadataIntervalPatterns: true,
      startIntervalPattern: '${from}',
      endIntervalPattern: '${to}',
    });
    const d2 = await all.device('e3b');
    await withHistory(all, d2, [
      [1000, { temperature: 20 }],
      [2000, { temperature: 21 }],
    ]);
    const r2 = await all.run(telemetryMsg(d2, {}, { from: '0', to: '5000' }));
    expect(JSON.parse(r2.out[0]!.msg.metadata.temperature!)).toEqual([
      { ts: 2000, value: 21 },
      { ts: 1000, value: 20 },
    ]);
  });

  it('originator telemetry: a pattern that names nothing fails; no keys: the node does not start', async () => {
    const h = await nodeHarness(NODE_TYPES.originatorTelemetry, {
      latestTsKeyNames: ['t'],
      fetchMode: 'LAST',
      useMetadataIntervalPatterns: true,
      startIntervalPattern: '${from}',
      endIntervalPattern: '${to}',
    });
    const d = await h.device('e4');
    const r = await h.run(telemetryMsg(d, {}, { to: '1' }));
    expect(relationsOf(r.out)).toEqual(['Failure']);
    expect(r.errors[0]).toMatch(/Message value: 'from' is undefined/);
    const empty = await nodeHarness(NODE_TYPES.originatorTelemetry, {
      latestTsKeyNames: [],
      fetchMode: 'FIRST',
    });
    expect((await empty.run(telemetryMsg(d, {}))).errors[0]).toMatch(/Telemetry should be specified!/);
  });

  it('originator fields: entity fields by path into metadata; an unknown originator fails', async () => {
    const h = await nodeHarness(NODE_TYPES.originatorFields, {
      dataMapping: { name: 'originatorName', type: 'originatorType', 'additionalInfo.gateway': 'gw' },
      fetchTo: 'METADATA',
      ignoreNullStrings: true,
    });
    const d = await h.device('e5');
    const r = await h.run(telemetryMsg(d, {}));
    expect(r.out[0]!.msg.metadata).toMatchObject({ originatorName: 'e5', originatorType: 'default' });
    expect(r.out[0]!.msg.metadata.gw).toBeUndefined();
    const gone = await h.run(telemetryMsg('00000000-0000-4000-8000-000000000000', {}));
    expect(relationsOf(gone.out)).toEqual(['Failure']);
    expect(gone.errors[0]).toMatch(/Entity not found!/);
  });

  it("customer attributes: the originator's customer's server attributes; unassigned fails", async () => {
    const h = await nodeHarness(NODE_TYPES.customerAttributes, {
      dataMapping: { alarmThreshold: 'threshold' },
      dataToFetch: 'ATTRIBUTES',
      fetchTo: 'METADATA',
    });
    const customer = (await h.services.customers.save({ title: 'Acme' }, h.admin)).id.id;
    await h.services.telemetry.saveAttributes(customer, 'SERVER_SCOPE', { alarmThreshold: 42 });
    const d = await h.device('e6');
    const none = await h.run(telemetryMsg(d, {}));
    expect(relationsOf(none.out)).toEqual(['Failure']);
    expect(none.errors[0]).toMatch(/Originator is not assigned to any customer/);
    await h.services.devices.assignToCustomer(d, customer, h.admin);
    const r = await h.run(telemetryMsg(d, {}));
    expect(r.out[0]!.msg.metadata.threshold).toBe('42');
  });

  it("tenant attributes: the tenant's server attributes into data", async () => {
    const h = await nodeHarness(NODE_TYPES.tenantAttributes, {
      dataMapping: { region: 'tenantRegion' },
      dataToFetch: 'ATTRIBUTES',
      fetchTo: 'DATA',
    });
    await h.services.telemetry.saveAttributes(h.services.ctx.tenantId, 'SERVER_SCOPE', { region: 'EU' });
    const d = await h.device('e7');
    const r = await h.run(telemetryMsg(d, { t: 1 }));
    expect(r.out[0]!.msg.data).toEqual({ t: 1, tenantRegion: 'EU' });
    const bad = await h.run(telemetryMsg(d, 'not an object'));
    expect(bad.errors[0]).toMatch(/Message body is not an object!/);
  });

  it('related entity data: the first entity found by the relations query; none found fails', async () => {
    const h = await nodeHarness(NODE_TYPES.relatedEntityData, {
      relationsQuery: {
        direction: 'TO',
        maxLevel: 1,
        filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
      },
      dataMapping: { serialNumber: 'sn', name: 'parentName' },
      dataToFetch: 'ATTRIBUTES',
      fetchTo: 'METADATA',
    });
    const parent = await h.device('e8-parent');
    const child = await h.device('e8-child');
    await h.services.telemetry.saveAttributes(parent, 'SERVER_SCOPE', { serialNumber: 'SN-1' });
    const none = await h.run(telemetryMsg(child, {}));
    expect(none.errors[0]).toMatch(/Failed to find related entity/);
    await h.db.write((w) =>
      w.run(
        "INSERT INTO relations (from_id, from_type, to_id, to_type, type, type_group) VALUES (?, 'DEVICE', ?, 'DEVICE', 'Contains', 'COMMON')",
        [parent, child],
      ),
    );
    const r = await h.run(telemetryMsg(child, {}));
    expect(r.out[0]!.msg.metadata.sn).toBe('SN-1');

    const fields = await nodeHarness(NODE_TYPES.relatedEntityData, {
      relationsQuery: { direction: 'TO', maxLevel: 1, filters: [] },
      dataMapping: { name: 'parentName' },
      dataToFetch: 'FIELDS',
      fetchTo: 'METADATA',
    });
    const p2 = await fields.device('e8-p2');
    const c2 = await fields.device('e8-c2');
    await fields.db.write((w) =>
      w.run(
        "INSERT INTO relations (from_id, from_type, to_id, to_type, type, type_group) VALUES (?, 'DEVICE', ?, 'DEVICE', 'Manages', 'COMMON')",
        [p2, c2],
      ),
    );
    expect((await fields.run(telemetryMsg(c2, {}))).out[0]!.msg.metadata.parentName).toBe('e8-p2');
  });

  it('calculate delta: difference to the previous reading and the period; Other for other messages', async () => {
    const h = await nodeHarness(NODE_TYPES.calculateDelta, {
      inputValueKey: 'pulseCounter',
      outputValueKey: 'delta',
      useCache: true,
      addPeriodBetweenMsgs: true,
      periodValueKey: 'periodInMs',
      round: 2,
      tellFailureIfDeltaIsNegative: true,
    });
    const d = await h.device('e9');
    await withHistory(h, d, [[1000, { pulseCounter: 100 }]]);
    const r1 = await h.run(telemetryMsg(d, { pulseCounter: 112.456 }, { ts: '4000' }));
    expect(r1.out[0]!.msg.data).toEqual({ pulseCounter: 112.456, delta: 12.46, periodInMs: 3000 });
    const r2 = await h.run(telemetryMsg(d, { pulseCounter: 113 }, { ts: '5000' }));
    expect(r2.out[0]!.msg.data).toMatchObject({ delta: 0.54, periodInMs: 1000 });
    const other = await h.run(telemetryMsg(d, { temperature: 1 }));
    expect(relationsOf(other.out)).toEqual(['Other']);
    const attrs = await h.run(
      newMsg('POST_ATTRIBUTES_REQUEST', { entityType: 'DEVICE', id: d }, { pulseCounter: 1 }),
    );
    expect(relationsOf(attrs.out)).toEqual(['Other']);
    const negative = await h.run(telemetryMsg(d, { pulseCounter: 50 }, { ts: '6000' }));
    expect(relationsOf(negative.out)).toEqual(['Failure']);
    expect(negative.errors[0]).toMatch(/Delta value is negative!/);
  });
});
