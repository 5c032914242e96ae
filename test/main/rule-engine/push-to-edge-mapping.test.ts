import { describe, expect, it } from 'vitest';
import { MSG_TYPES, type MsgType } from '../../../shared/rule-engine.ts';
import {
  pushToEdgeNode,
  toEdgeEvent,
  validatePushToEdgeConfiguration,
} from '../../../main/rule-engine/nodes/push-to-edge-node.ts';
import type { TbMsg } from '../../../main/platform/tb-msg.ts';

const MSG_TS = 1_700_000_000_123;
const ALARM_ID = '00000000-0000-4000-8000-0000000000a1';

function msg(type: MsgType, data: unknown, metadata: Record<string, string> = {}): TbMsg {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    ts: MSG_TS,
    type,
    originator: { entityType: 'DEVICE', id: '00000000-0000-4000-8000-00000000000d' },
    data,
    metadata,
  };
}

/** The message types the spec lists as accepted by the push to edge node, ThingsBoard 4.x's alarm types, and relation changes. */
const SUPPORTED: MsgType[] = [
  'POST_TELEMETRY_REQUEST',
  'POST_ATTRIBUTES_REQUEST',
  'ATTRIBUTES_UPDATED',
  'ATTRIBUTES_DELETED',
  'TIMESERIES_UPDATED',
  'ALARM',
  'ALARM_ACK',
  'ALARM_CLEAR',
  'ALARM_CREATED',
  'ALARM_UPDATED',
  'ALARM_SEVERITY_UPDATED',
  'RELATION_ADD_OR_UPDATE',
  'RELATION_DELETED',
  'CONNECT_EVENT',
  'DISCONNECT_EVENT',
  'ACTIVITY_EVENT',
  'INACTIVITY_EVENT',
  'TO_SERVER_RPC_REQUEST',
];

describe('push to edge: message to edge event mapping', () => {
  it('maps telemetry (posted and updated) to TIMESERIES_UPDATED with the data and the metadata ts', () => {
    for (const type of ['POST_TELEMETRY_REQUEST', 'TIMESERIES_UPDATED'] as const) {
      const data = { temperature: 21.5, active: true, mode: 'auto' };
      expect(toEdgeEvent(msg(type, data, { ts: '1600000000000', deviceName: 'A' }), 'SERVER_SCOPE')).toEqual({
        action: 'TIMESERIES_UPDATED',
        body: { data, ts: 1_600_000_000_000 },
      });
    }
  });

  it('uses the message time when the metadata has no usable ts', () => {
    const data = { t: 1 };
    expect(toEdgeEvent(msg('POST_TELEMETRY_REQUEST', data), 'SERVER_SCOPE')!.body).toEqual({
      data,
      ts: MSG_TS,
    });
    expect(toEdgeEvent(msg('POST_TELEMETRY_REQUEST', data, { ts: 'soon' }), 'SERVER_SCOPE')!.body).toEqual({
      data,
      ts: MSG_TS,
    });
  });

  it('maps ATTRIBUTES_UPDATED with the metadata scope, else the configured one', () => {
    const kv = { firmware: '1.2', interval: 5 };
    expect(
      toEdgeEvent(msg('ATTRIBUTES_UPDATED', kv, { scope: 'SHARED_SCOPE', ts: '42' }), 'SERVER_SCOPE'),
    ).toEqual({ action: 'ATTRIBUTES_UPDATED', body: { kv, ts: 42, scope: 'SHARED_SCOPE' } });
    expect(toEdgeEvent(msg('ATTRIBUTES_UPDATED', kv), 'CLIENT_SCOPE')).toEqual({
      action: 'ATTRIBUTES_UPDATED',
      body: { kv, ts: MSG_TS, scope: 'CLIENT_SCOPE' },
    });
    // An empty metadata scope does not override the configuration.
    expect(toEdgeEvent(msg('ATTRIBUTES_UPDATED', kv, { scope: '' }), 'SHARED_SCOPE')!.body).toEqual({
      kv,
      ts: MSG_TS,
      scope: 'SHARED_SCOPE',
    });
  });

  it('maps POST_ATTRIBUTES_REQUEST to POST_ATTRIBUTES marked isPostAttributes', () => {
    const kv = { serial: 'SN-1' };
    expect(toEdgeEvent(msg('POST_ATTRIBUTES_REQUEST', kv), 'CLIENT_SCOPE')).toEqual({
      action: 'POST_ATTRIBUTES',
      body: { kv, ts: MSG_TS, scope: 'CLIENT_SCOPE', isPostAttributes: true },
    });
    expect(
      toEdgeEvent(msg('POST_ATTRIBUTES_REQUEST', kv, { scope: 'SERVER_SCOPE' }), 'CLIENT_SCOPE')!.body,
    ).toEqual({ kv, ts: MSG_TS, scope: 'SERVER_SCOPE', isPostAttributes: true });
  });

  it('maps ATTRIBUTES_DELETED to the deleted keys and the scope', () => {
    expect(
      toEdgeEvent(
        msg('ATTRIBUTES_DELETED', { attributes: ['a', 'b'] }, { scope: 'SHARED_SCOPE' }),
        'SERVER_SCOPE',
      ),
    ).toEqual({ action: 'ATTRIBUTES_DELETED', body: { keys: ['a', 'b'], scope: 'SHARED_SCOPE' } });
    expect(toEdgeEvent(msg('ATTRIBUTES_DELETED', { keys: ['c'] }), 'SERVER_SCOPE')!.body).toEqual({
      keys: ['c'],
      scope: 'SERVER_SCOPE',
    });
    expect(toEdgeEvent(msg('ATTRIBUTES_DELETED', null), 'SERVER_SCOPE')!.body).toEqual({
      keys: [],
      scope: 'SERVER_SCOPE',
    });
  });

  it.each(['CONNECT_EVENT', 'DISCONNECT_EVENT', 'ACTIVITY_EVENT', 'INACTIVITY_EVENT'] as const)(
    'maps %s to TIMESERIES_UPDATED without a metadata scope, ATTRIBUTES_UPDATED with one',
    (type) => {
      const data = { active: type !== 'INACTIVITY_EVENT', lastActivityTime: 1_690_000_000_000 };
      expect(toEdgeEvent(msg(type, data, { deviceName: 'A' }), 'SHARED_SCOPE')).toEqual({
        action: 'TIMESERIES_UPDATED',
        body: { data, ts: MSG_TS },
      });
      expect(toEdgeEvent(msg(type, data, { scope: 'SERVER_SCOPE', ts: '7' }), 'SHARED_SCOPE')).toEqual({
        action: 'ATTRIBUTES_UPDATED',
        body: { kv: data, ts: 7, scope: 'SERVER_SCOPE' },
      });
    },
  );

  it('maps ALARM (and ALARM_CREATED / UPDATED / SEVERITY_UPDATED) to ADDED, ALARM_CLEAR or UPDATED of the alarm', () => {
    const alarm = {
      id: { entityType: 'ALARM', id: ALARM_ID },
      type: 'High Temperature',
      severity: 'CRITICAL',
    };
    const map = (metadata: Record<string, string>, type: MsgType = 'ALARM') =>
      toEdgeEvent(msg(type, alarm, metadata), 'SERVER_SCOPE');
    const event = (action: string) => ({ action, body: alarm, type: 'ALARM', entityId: ALARM_ID });
    expect(map({ isNewAlarm: 'true' })).toEqual(event('ADDED'));
    expect(map({ isClearedAlarm: 'true' })).toEqual(event('ALARM_CLEAR'));
    expect(map({ isNewAlarm: 'false', isClearedAlarm: 'false' })).toEqual(event('UPDATED'));
    expect(map({})).toEqual(event('UPDATED'));
    expect(map({ isNewAlarm: 'true' }, 'ALARM_CREATED')).toEqual(event('ADDED'));
    expect(map({ isExistingAlarm: 'true' }, 'ALARM_UPDATED')).toEqual(event('UPDATED'));
    expect(map({ isSeverityUpdated: 'true' }, 'ALARM_SEVERITY_UPDATED')).toEqual(event('UPDATED'));
    // an alarm fed by hand without an id: the originator's id stands in
    expect(toEdgeEvent(msg('ALARM', { type: 'x' }, { isNewAlarm: 'true' }), 'SERVER_SCOPE')).toMatchObject({
      type: 'ALARM',
      entityId: '00000000-0000-4000-8000-00000000000d',
    });
  });

  it('maps ALARM_ACK and ALARM_CLEAR to actions of the same name with the alarm as body', () => {
    const alarm = { id: { entityType: 'ALARM', id: ALARM_ID }, type: 'Door open', status: 'ACTIVE_ACK' };
    for (const type of ['ALARM_ACK', 'ALARM_CLEAR'] as const) {
      expect(toEdgeEvent(msg(type, alarm), 'SERVER_SCOPE')).toEqual({
        action: type,
        body: alarm,
        type: 'ALARM',
        entityId: ALARM_ID,
      });
    }
  });

  it('maps relation changes to RELATION events (Sandboard’s own: ThingsBoard syncs them outside the rule engine)', () => {
    const relation = {
      from: { entityType: 'ASSET', id: 'a' },
      to: { entityType: 'DEVICE', id: 'd' },
      type: 'Contains',
    };
    for (const type of ['RELATION_ADD_OR_UPDATE', 'RELATION_DELETED'] as const) {
      expect(toEdgeEvent(msg(type, relation), 'SERVER_SCOPE')).toEqual({
        action: type,
        body: relation,
        type: 'RELATION',
      });
    }
  });

  it('keeps TO_SERVER_RPC_REQUEST as an RPC event with the request id (ThingsBoard throws here)', () => {
    const data = { method: 'getTime', params: {} };
    expect(
      toEdgeEvent(msg('TO_SERVER_RPC_REQUEST', data, { requestId: '17', ts: '99' }), 'SERVER_SCOPE'),
    ).toEqual({
      action: 'RPC_CALL',
      body: { data, requestId: '17', ts: 99 },
    });
    expect(toEdgeEvent(msg('TO_SERVER_RPC_REQUEST', data), 'SERVER_SCOPE')!.body).toEqual({
      data,
      requestId: null,
      ts: MSG_TS,
    });
  });

  it('accepts exactly those message types and refuses the others', () => {
    for (const type of MSG_TYPES) {
      const event = toEdgeEvent(msg(type, { k: 1 }), 'SERVER_SCOPE');
      if (SUPPORTED.includes(type)) expect(event, type).not.toBeNull();
      else expect(event, type).toBeNull();
    }
  });
});

describe('push to edge: configuration', () => {
  it('accepts each attribute scope, and is what the node palette offers by default', () => {
    for (const scope of ['SERVER_SCOPE', 'CLIENT_SCOPE', 'SHARED_SCOPE']) {
      expect(validatePushToEdgeConfiguration({ scope })).toBeNull();
    }
    expect(pushToEdgeNode.defaultConfiguration).toEqual({ scope: 'SERVER_SCOPE' });
    expect(pushToEdgeNode.validate(pushToEdgeNode.defaultConfiguration)).toBeNull();
    expect(pushToEdgeNode.relations).toEqual(['Success', 'Failure']);
  });

  it('names the field of a missing scope, a wrong scope and an extra property', () => {
    expect(validatePushToEdgeConfiguration({})).toMatch(/'scope' is required/);
    expect(validatePushToEdgeConfiguration({ scope: 'TENANT_SCOPE' })).toMatch(
      /'scope' must be one of SERVER_SCOPE, CLIENT_SCOPE, SHARED_SCOPE/,
    );
    expect(validatePushToEdgeConfiguration({ scope: 1 })).toMatch(/'scope' must be one of/);
    expect(validatePushToEdgeConfiguration({ scope: 'SERVER_SCOPE', edgeId: 'x' })).toMatch(
      /'edgeId' is not allowed/,
    );
  });
});
