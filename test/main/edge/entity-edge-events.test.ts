import { beforeAll, describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import {
  createDevice,
  okEmpty,
  okJson,
  useSharedPlatform,
  type ApiPlatform,
  type EntityRef,
} from '../api/api-kit.ts';
import { createAsset, raiseAlarm, relate, unique } from '../api/entity-kit.ts';
import {
  assignDevice,
  chainMetadata,
  createEdge,
  EdgeClient,
  rootChainId,
  type EdgeCredentials,
} from '../../fixtures/edge-test-kit.ts';

/**
 * Alarms, assets and relations reach an edge the way ThingsBoard's users wire it: a push to edge node in
 * the root chain, fed by REST (alarm actions, asset telemetry, relation changes), read by the edge over
 * the HTTP edge API.
 */
describe('alarms, assets and relations through push to edge', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let edge: EdgeCredentials;
  let client: EdgeClient;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    const rootId = await rootChainId(p.http, token);
    const root = await chainMetadata(p.http, token, rootId);
    // Every message straight into push to edge (what it does not support goes to Failure, unconnected).
    await okJson(
      p.http('/api/ruleChain/metadata', {
        method: 'POST',
        token,
        json: {
          ruleChainId: root.ruleChainId,
          firstNodeIndex: 0,
          nodes: [
            { type: NODE_TYPES.pushToEdge, name: 'Push to edge', configuration: { scope: 'SERVER_SCOPE' } },
          ],
          connections: [],
        },
      }),
    );
    edge = await createEdge(p.http, token, unique('Edge'));
    client = new EdgeClient(p.urls.http, edge);
  });

  it('sends a device’s alarm as ALARM events: ADDED, UPDATED, ALARM_ACK, ALARM_CLEAR, with the alarm as body', async () => {
    const device = (await createDevice(p, token, { name: unique('Pump') })).id;
    await assignDevice(p.http, token, edge.id, device.id);
    const alarm = await raiseAlarm(p, token, device, { type: 'Pressure', severity: 'MAJOR' });
    await raiseAlarm(p, token, device, { type: 'Pressure', severity: 'CRITICAL' });
    await okJson(p.http(`/api/alarm/${alarm.id.id}/ack`, { method: 'POST', token }));
    await okJson(p.http(`/api/alarm/${alarm.id.id}/clear`, { method: 'POST', token }));
    const events = await client.take(4);
    expect(events.map((e) => [e.type, e.action, e.entityId])).toEqual([
      ['ALARM', 'ADDED', alarm.id.id],
      ['ALARM', 'UPDATED', alarm.id.id],
      ['ALARM', 'ALARM_ACK', alarm.id.id],
      ['ALARM', 'ALARM_CLEAR', alarm.id.id],
    ]);
    expect(events.map((e) => (e.body as { status: string; severity: string }).status)).toEqual([
      'ACTIVE_UNACK',
      'ACTIVE_UNACK',
      'ACTIVE_ACK',
      'CLEARED_ACK',
    ]);
    expect((events[1]!.body as { severity: string }).severity).toBe('CRITICAL');
  });

  it('sends an asset assigned to the edge: its telemetry, attributes and alarms; not those of others', async () => {
    const asset = (await createAsset(p, token, { name: unique('Line') })).id;
    const other = (await createAsset(p, token, { name: unique('Elsewhere') })).id;
    await okJson(p.http(`/api/edge/${edge.id}/asset/${asset.id}`, { method: 'POST', token }));
    for (const a of [other, asset]) {
      await okEmpty(
        p.http(`/api/plugins/telemetry/ASSET/${a.id}/timeseries/ANY`, {
          method: 'POST',
          token,
          json: { ts: 5_000, values: { throughput: 42 } },
        }),
      );
    }
    await okEmpty(
      p.http(`/api/plugins/telemetry/ASSET/${asset.id}/attributes/SERVER_SCOPE`, {
        method: 'POST',
        token,
        json: { shift: 'night' },
      }),
    );
    const alarm = await raiseAlarm(p, token, asset, { type: 'Stopped' });
    await raiseAlarm(p, token, other, { type: 'Stopped' });
    const events = await client.take(3);
    expect(events.map((e) => [e.type, e.action, e.entityId])).toEqual([
      ['ASSET', 'TIMESERIES_UPDATED', asset.id],
      ['ASSET', 'ATTRIBUTES_UPDATED', asset.id],
      ['ALARM', 'ADDED', alarm.id.id],
    ]);
    expect(events[0]!.body).toEqual({ data: { throughput: 42 }, ts: 5_000 });
    expect(events[1]!.body).toEqual({
      kv: { shift: 'night' },
      ts: expect.any(Number),
      scope: 'SERVER_SCOPE',
    });
    expect((await client.pull(10, 0)).events).toEqual([]);
  });

  it('sends relation changes of an entity on the edge as RELATION events', async () => {
    const room = (await createAsset(p, token, { name: unique('Room') })).id;
    const lamp: EntityRef = (await createDevice(p, token, { name: unique('Lamp') })).id;
    await okJson(p.http(`/api/edge/${edge.id}/asset/${room.id}`, { method: 'POST', token }));
    await relate(p, token, room, lamp);
    await okEmpty(
      p.http(
        `/api/relation?fromId=${room.id}&fromType=ASSET&toId=${lamp.id}&toType=DEVICE&relationType=Contains`,
        { method: 'DELETE', token },
      ),
    );
    const events = await client.take(2);
    expect(events.map((e) => [e.type, e.action, e.entityId])).toEqual([
      ['RELATION', 'RELATION_ADD_OR_UPDATE', room.id],
      ['RELATION', 'RELATION_DELETED', room.id],
    ]);
    expect(events[0]!.body).toMatchObject({ from: room, to: lamp, type: 'Contains', typeGroup: 'COMMON' });
  });
});
