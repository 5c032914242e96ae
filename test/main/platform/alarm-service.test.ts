/**
 * The alarm service's face for rule nodes (the device profile node raises and clears alarms through it):
 * createOrUpdateActive and clearActive say what changed, so a node can emit Created / Updated /
 * Severity Updated / Cleared; changes made without a user make no rule engine message of their own.
 */
import { describe, expect, it } from 'vitest';
import type { AlarmEvent } from '../../../main/platform/events.ts';
import { subscribeEntityMessages } from '../../../main/rule-engine/entity-messages.ts';
import type { TbMsg } from '../../../main/platform/tb-msg.ts';
import { openEdgeServices } from '../../fixtures/edge-test-kit.ts';

describe('AlarmService for rule nodes', () => {
  it('raises, updates, changes severity and clears the active alarm of a type, and says which', async () => {
    const { services, admin } = await openEdgeServices();
    const device = await services.devices.save({ name: 'Freezer' }, admin);
    const originator = { entityType: 'DEVICE', id: device.id.id };
    const events: AlarmEvent[] = [];
    services.ctx.events.on('alarm', (e) => events.push(e));
    const messages: TbMsg[] = [];
    const stop = subscribeEntityMessages(
      services.ctx.events,
      () => undefined,
      (m) => messages.push(m),
    );

    const created = await services.alarms.createOrUpdateActive({
      originator,
      type: 'Too warm',
      severity: 'MAJOR',
      details: { temperature: -10 },
      propagation: { propagateToTenant: true },
      startTs: 1_000,
      endTs: 1_000,
    });
    expect(created.kind).toBe('CREATED');
    expect(created.alarm).toMatchObject({
      type: 'Too warm',
      status: 'ACTIVE_UNACK',
      originatorName: 'Freezer',
    });
    expect(created.propagatedTo).toEqual([originator, { entityType: 'TENANT', id: services.ctx.tenantId }]);
    expect(created.old).toBeNull();

    const same = await services.alarms.createOrUpdateActive({
      originator,
      type: 'Too warm',
      severity: 'MAJOR',
      details: { temperature: -10 },
      endTs: 1_000,
    });
    expect(same.kind).toBeNull();
    expect(same.alarm.id).toEqual(created.alarm.id);

    const updated = await services.alarms.createOrUpdateActive({
      originator,
      type: 'Too warm',
      severity: 'MAJOR',
      details: { temperature: -8 },
      endTs: 2_000,
    });
    expect(updated).toMatchObject({ kind: 'UPDATED', alarm: { startTs: 1_000, endTs: 2_000 } });
    expect(updated.old?.details).toEqual({ temperature: -10 });

    const worse = await services.alarms.createOrUpdateActive({
      originator,
      type: 'Too warm',
      severity: 'CRITICAL',
    });
    expect(worse.kind).toBe('SEVERITY_UPDATED');
    expect(worse.old?.severity).toBe('MAJOR');

    const cleared = await services.alarms.clearActive(originator, 'Too warm', {
      details: { temperature: -18 },
    });
    expect(cleared).toMatchObject({
      kind: 'CLEAR',
      alarm: { status: 'CLEARED_UNACK', details: { temperature: -18 } },
    });
    expect(await services.alarms.clearActive(originator, 'Too warm')).toBeNull();
    expect(services.alarms.findActive(originator, 'Too warm')).toBeUndefined();

    const next = await services.alarms.createOrUpdateActive({
      originator,
      type: 'Too warm',
      severity: 'MINOR',
    });
    expect(next.kind).toBe('CREATED');
    expect(next.alarm.id.id).not.toBe(created.alarm.id.id);

    expect(events.map((e) => [e.kind, e.actor])).toEqual([
      ['CREATED', null],
      ['UPDATED', null],
      ['SEVERITY_UPDATED', null],
      ['CLEAR', null],
      ['CREATED', null],
    ]);
    // the node emits its own messages: nothing went to the rule engine from these changes
    expect(messages).toEqual([]);

    // a user's change does become a message, ThingsBoard's ALARM_ACK with the user in the metadata
    await services.alarms.ack(next.alarm.id.id, admin);
    expect(messages.map((m) => [m.type, m.originator, m.metadata.userId, m.metadata.entityType])).toEqual([
      ['ALARM_ACK', originator, admin.userId, 'ALARM'],
    ]);
    stop();
  });

  it('refuses an originator that does not exist and a type that is too long', async () => {
    const { services, admin } = await openEdgeServices();
    await expect(
      services.alarms.createOrUpdateActive({
        originator: { entityType: 'ASSET', id: crypto.randomUUID() },
        type: 'x',
        severity: 'MINOR',
      }),
    ).rejects.toMatchObject({ status: 404, message: expect.stringContaining('Asset with id') });
    const d = await services.devices.save({ name: 'Long' }, admin);
    await expect(
      services.alarms.createOrUpdateActive({
        originator: { entityType: 'DEVICE', id: d.id.id },
        type: 'x'.repeat(256),
        severity: 'MINOR',
      }),
    ).rejects.toMatchObject({ status: 400, errorCode: 31 });
  });
});
