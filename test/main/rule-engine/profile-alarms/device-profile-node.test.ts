/**
 * The device profile node over the platform's real services and store: each spec type (SIMPLE, DURATION,
 * REPEATING), severities, the clear rule, alarm details, predicates, dynamic thresholds, schedules, the
 * relations it sends alarms on, profile changes without a restart, propagation, and its persisted progress.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { ProfileAlarmEvaluator } from '../../../../main/rule-engine/profile-alarms/evaluator.ts';
import type { AlarmInfo } from '../../../../shared/schemas/alarms.ts';
import { newMsg } from '../../../../main/platform/tb-msg.ts';
import {
  alarm,
  boolean,
  complex,
  duration,
  numeric,
  numericPredicate,
  profileWithAlarms,
  repeating,
  rule,
  string,
} from '../../../fixtures/alarm-rules.ts';
import { TB } from '../chain-kit.ts';
import { nodeHarness, telemetryMsg, type NodeHarness } from '../node-kit.ts';

const RELATIONS = [
  'Success',
  'Failure',
  'Alarm Created',
  'Alarm Updated',
  'Alarm Severity Updated',
  'Alarm Cleared',
];
const CONFIG = { persistAlarmRulesState: false, fetchAlarmRulesStateOnStart: false };

interface Setup {
  h: NodeHarness;
  deviceId: string;
  profileId: string;
  /** sends telemetry at ts (default: now, later than the last); resolves with the relations the message itself left on */
  send(values: Record<string, unknown>, ts?: number): Promise<string[]>;
  active(type: string): AlarmInfo | undefined;
  alarmsOf(type: string): AlarmInfo[];
  /** waits until n alarm messages came out; returns their relations */
  alarmRelations(n: number): Promise<string[]>;
}

async function setup(alarms: unknown[]): Promise<Setup> {
  const h = await nodeHarness(TB.deviceProfile, CONFIG, RELATIONS);
  const profile = await h.services.profiles.save(profileWithAlarms('Thermometers', alarms) as never, h.admin);
  const device = await h.services.devices.save(
    { name: 'Thermometer 1', deviceProfileId: { id: profile.id.id } },
    h.admin,
  );
  const deviceId = device.id.id;
  const originator = { entityType: 'DEVICE', id: deviceId };
  // Each message at its own time (the same value at the same time is no update, as in ThingsBoard).
  let lastTs = 0;
  const alarmOutputs = () => h.outputs.filter((o) => o.relation.startsWith('Alarm'));
  return {
    h,
    deviceId,
    profileId: profile.id.id,
    async send(values, at) {
      const ts = at ?? Math.max(Date.now(), lastTs + 1);
      lastTs = ts;
      const { errors, out } = await h.run(telemetryMsg(deviceId, values, { ts: String(ts) }));
      expect(errors).toEqual([]);
      return out.filter((o) => !o.relation.startsWith('Alarm')).map((o) => o.relation);
    },
    active: (type) => h.services.alarms.findActive(originator, type),
    alarmsOf: (type) =>
      h.services.alarms
        .rows({ originator } as never, 100)
        .filter((r) => r.type === type)
        .map((r) => h.services.alarms.infoOf(r)),
    async alarmRelations(n) {
      while (alarmOutputs().length < n) await h.recorded(h.outputs.length + 1);
      return alarmOutputs().map((o) => o.relation);
    },
  };
}

const hotAbove30ClearBelow25 = () =>
  alarm(
    'Hot',
    { CRITICAL: rule([numeric('temperature', 'GREATER', 30)]) },
    rule([numeric('temperature', 'LESS', 25)]),
  );

describe('device profile node: alarm rules', () => {
  it('SIMPLE: creates at the highest severity that holds, updates, raises severity, never lowers it, and clears', async () => {
    const s = await setup([
      alarm(
        'High Temperature',
        {
          CRITICAL: rule([numeric('temperature', 'GREATER', 30)], undefined, {
            alarmDetails: 'Temperature is ${temperature} °C',
          }),
          MAJOR: rule([numeric('temperature', 'GREATER', 25)]),
        },
        rule([numeric('temperature', 'LESS_OR_EQUAL', 22)], undefined, {
          alarmDetails: 'Back to ${temperature}',
        }),
      ),
    ]);
    expect(await s.send({ temperature: 20 })).toEqual(['Success']);
    expect(s.active('High Temperature')).toBeUndefined();

    expect(await s.send({ temperature: 27 })).toEqual(['Success']);
    expect(await s.alarmRelations(1)).toEqual(['Alarm Created']);
    expect(s.active('High Temperature')).toMatchObject({ severity: 'MAJOR', details: {} });

    await s.send({ temperature: 35.5 });
    expect(await s.alarmRelations(2)).toEqual(['Alarm Created', 'Alarm Severity Updated']);
    expect(s.active('High Temperature')).toMatchObject({
      severity: 'CRITICAL',
      details: { data: 'Temperature is 35.5 °C' },
    });

    // The MAJOR rule holds again: ThingsBoard does not lower an active alarm's severity.
    await s.send({ temperature: 26 });
    await s.send({ temperature: 31 });
    expect(await s.alarmRelations(3)).toEqual(['Alarm Created', 'Alarm Severity Updated', 'Alarm Updated']);
    expect(s.active('High Temperature')!.severity).toBe('CRITICAL');

    await s.send({ temperature: 21 });
    const relations = await s.alarmRelations(4);
    expect(relations.at(-1)).toBe('Alarm Cleared');
    expect(s.active('High Temperature')).toBeUndefined();
    const [cleared] = s.alarmsOf('High Temperature');
    expect(cleared).toMatchObject({ status: 'CLEARED_UNACK', details: { data: 'Back to 21' } });

    // What came out on the alarm relations: ALARM messages of the device, with ThingsBoard's flags.
    const created = s.h.outputs.find((o) => o.relation === 'Alarm Created')!.msg;
    expect(created).toMatchObject({
      type: 'ALARM',
      originator: { entityType: 'DEVICE', id: s.deviceId },
      metadata: { isNewAlarm: 'true', ts: expect.any(String) },
      data: { type: 'High Temperature', severity: 'MAJOR' },
    });
    const severity = s.h.outputs.find((o) => o.relation === 'Alarm Severity Updated')!.msg;
    expect(severity.metadata).toMatchObject({ isExistingAlarm: 'true', isSeverityUpdated: 'true' });
    expect(s.h.outputs.find((o) => o.relation === 'Alarm Cleared')!.msg.metadata.isClearedAlarm).toBe('true');
  });

  it('SIMPLE: a message without the key the rule reads changes nothing', async () => {
    const s = await setup([alarm('Hot', { WARNING: rule([numeric('temperature', 'GREATER', 30)]) })]);
    await s.send({ temperature: 40 });
    await s.alarmRelations(1);
    await s.send({ humidity: 10 });
    expect(s.h.outputs.filter((o) => o.relation.startsWith('Alarm')).map((o) => o.relation)).toEqual([
      'Alarm Created',
    ]);
  });

  it("a device's messages sent at once are judged in their order, each after the previous one's alarm write", async () => {
    const s = await setup([hotAbove30ClearBelow25()]);
    const t0 = Date.now();
    const values = [40, 20, 41, 21, 42];
    const sent = values.map((temperature, i) =>
      s.h.run(telemetryMsg(s.deviceId, { temperature, humidity: 50 + i }, { ts: String(t0 + i) })),
    );
    for (const { errors } of await Promise.all(sent)) expect(errors).toEqual([]);
    expect(await s.alarmRelations(5)).toEqual([
      'Alarm Created',
      'Alarm Cleared',
      'Alarm Created',
      'Alarm Cleared',
      'Alarm Created',
    ]);
    expect(
      s
        .alarmsOf('Hot')
        .map((a) => a.status)
        .sort(),
    ).toEqual(['ACTIVE_UNACK', 'CLEARED_UNACK', 'CLEARED_UNACK']);
  });

  it('a message with several timestamps is judged oldest first', async () => {
    const s = await setup([hotAbove30ClearBelow25()]);
    const t0 = Date.now();
    const { errors } = await s.h.run(
      telemetryMsg(s.deviceId, [
        { ts: t0 + 2, values: { temperature: 20 } },
        { ts: t0 + 1, values: { temperature: 35, humidity: 3 } },
      ]),
    );
    expect(errors).toEqual([]);
    expect(await s.alarmRelations(2)).toEqual(['Alarm Created', 'Alarm Cleared']);
    expect(s.active('Hot')).toBeUndefined();
  });

  it('DURATION: raises once the condition held longer than the duration, by the data timestamps; a break starts over', async () => {
    const s = await setup([
      alarm(
        'Overheat',
        { CRITICAL: rule([numeric('temperature', 'GREATER', 50)], duration(10, 'SECONDS')) },
        rule([numeric('temperature', 'LESS', 40)]),
      ),
    ]);
    const t0 = Date.now() - 60_000;
    await s.send({ temperature: 60 }, t0);
    await s.send({ temperature: 61 }, t0 + 6_000);
    await s.send({ temperature: 30 }, t0 + 8_000); // a break
    await s.send({ temperature: 62 }, t0 + 9_000);
    await s.send({ temperature: 63 }, t0 + 18_000);
    expect(s.active('Overheat')).toBeUndefined();
    await s.send({ temperature: 64 }, t0 + 19_500);
    expect(await s.alarmRelations(1)).toEqual(['Alarm Created']);
    const created = s.h.outputs.find((o) => o.relation === 'Alarm Created')!.msg;
    expect(created.metadata.alarmConditionDuration).toBe('10500');
    // a new alarm starts at the data's time
    expect(s.active('Overheat')!.startTs).toBe(t0 + 19_500);
    await s.send({ temperature: 35 }, t0 + 20_000);
    expect((await s.alarmRelations(2)).at(-1)).toBe('Alarm Cleared');
  });

  it('REPEATING: raises after the required number of messages in a row', async () => {
    const s = await setup([
      alarm(
        'Door open',
        { MINOR: rule([boolean('open', 'EQUAL', true)], repeating(3)) },
        rule([boolean('open', 'EQUAL', false)]),
      ),
    ]);
    await s.send({ open: true });
    await s.send({ open: true });
    await s.send({ open: false });
    await s.send({ open: true });
    await s.send({ open: true });
    expect(s.active('Door open')).toBeUndefined();
    await s.send({ open: true });
    expect(await s.alarmRelations(1)).toEqual(['Alarm Created']);
    expect(s.h.outputs.find((o) => o.relation === 'Alarm Created')!.msg.metadata.alarmConditionRepeats).toBe(
      '3',
    );
  });

  it('predicates: STRING with ignoreCase and IN, COMPLEX AND / OR, a CONSTANT key and an entity field', async () => {
    const s = await setup([
      alarm('Bad state', {
        CRITICAL: rule([string('state', 'IN', 'FAULT, "ERROR"', { ignoreCase: true })]),
      }),
      alarm('Out of band', {
        WARNING: rule([
          complex('level', 'OR', [numericPredicate('LESS', 10), numericPredicate('GREATER', 90)]),
          string('name', 'STARTS_WITH', 'Thermo', { keyType: 'ENTITY_FIELD' }),
        ]),
      }),
      alarm('In band', {
        WARNING: rule([
          complex('level', 'AND', [
            numericPredicate('GREATER_OR_EQUAL', 40),
            numericPredicate('LESS_OR_EQUAL', 60),
          ]),
        ]),
      }),
      alarm('Maintenance mode', {
        // a constant compared with the device's attribute: holds when the attribute "mode" is "service"
        INDETERMINATE: rule([
          string('constant', 'EQUAL', '', {
            keyType: 'CONSTANT',
            constant: 'service',
            dynamic: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'mode' },
          }),
        ]),
      }),
    ]);
    await s.send({ state: 'ok', level: 50 });
    expect(s.active('Bad state')).toBeUndefined();
    expect(s.active('Out of band')).toBeUndefined();
    expect(s.active('In band')).toMatchObject({ severity: 'WARNING' });
    await s.send({ state: 'fault', level: 95 });
    expect(s.active('Bad state')).toMatchObject({ severity: 'CRITICAL' });
    expect(s.active('Out of band')).toMatchObject({ severity: 'WARNING' });
    expect(s.active('Maintenance mode')).toBeUndefined();
    const { errors } = await s.h.run(
      newMsg('POST_ATTRIBUTES_REQUEST', { entityType: 'DEVICE', id: s.deviceId }, { mode: 'service' }),
    );
    expect(errors).toEqual([]);
    expect(s.active('Maintenance mode')).toMatchObject({ severity: 'INDETERMINATE' });
  });

  it("dynamic thresholds: the device's attribute, else (inherit) its customer's, else the tenant's", async () => {
    const dynamic = (inherit: boolean) => ({
      sourceType: 'CURRENT_DEVICE',
      sourceAttribute: 'maxTemp',
      inherit,
    });
    const s = await setup([
      alarm('Too hot', { MAJOR: rule([numeric('temperature', 'GREATER', 100, { dynamic: dynamic(true) })]) }),
      alarm('Too hot (own only)', {
        MAJOR: rule([numeric('temperature', 'GREATER', 100, { dynamic: dynamic(false) })]),
      }),
    ]);
    const { services, admin } = s.h;
    await s.send({ temperature: 50 });
    expect(s.active('Too hot')).toBeUndefined();

    await services.telemetry.saveAttributes(services.ctx.tenantId, 'SERVER_SCOPE', { maxTemp: 45 }, 'TENANT');
    await s.send({ temperature: 50 });
    expect(s.active('Too hot')).toBeDefined();
    expect(s.active('Too hot (own only)')).toBeUndefined();

    // The device's own threshold, sent as a server attribute (ATTRIBUTES_UPDATED), wins.
    await services.telemetry.saveAttributes(s.deviceId, 'SERVER_SCOPE', { maxTemp: 70 });
    await s.h.run(
      newMsg(
        'ATTRIBUTES_UPDATED',
        { entityType: 'DEVICE', id: s.deviceId },
        { maxTemp: 70 },
        { scope: 'SERVER_SCOPE' },
      ),
    );
    await services.alarms.clearActive({ entityType: 'DEVICE', id: s.deviceId }, 'Too hot');
    await s.send({ temperature: 60 });
    expect(s.active('Too hot')).toBeUndefined();
    await s.send({ temperature: 75 });
    expect(s.active('Too hot (own only)')).toBeDefined();

    // a customer's threshold, with the device's gone
    const customer = await services.customers.save({ title: 'Acme' } as never, admin);
    await services.devices.assignToCustomer(s.deviceId, customer.id.id, admin);
    await services.telemetry.saveAttributes(customer.id.id, 'SERVER_SCOPE', { maxTemp: 20 }, 'CUSTOMER');
    await services.telemetry.deleteAttributes(s.deviceId, 'SERVER_SCOPE', ['maxTemp']);
    await s.h.run(
      newMsg(
        'ATTRIBUTES_DELETED',
        { entityType: 'DEVICE', id: s.deviceId },
        { attributes: ['maxTemp'] },
        { scope: 'SERVER_SCOPE' },
      ),
    );
    await services.alarms.clearActive({ entityType: 'DEVICE', id: s.deviceId }, 'Too hot');
    await s.send({ temperature: 25 });
    expect(s.active('Too hot')).toBeDefined();
  });

  it('a DURATION whose time comes from an attribute', async () => {
    const s = await setup([
      alarm('Slow', {
        MAJOR: rule(
          [numeric('temperature', 'GREATER', 50)],
          duration(1, 'HOURS', { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'holdSeconds' }),
        ),
      }),
    ]);
    await s.h.services.telemetry.saveAttributes(s.deviceId, 'SERVER_SCOPE', { holdSeconds: 5 });
    // duration(1 HOURS) with an attribute of 5: 5 hours; the unit stays the spec's
    const t0 = Date.now() - 10 * 3_600_000;
    await s.send({ temperature: 60 }, t0);
    await s.send({ temperature: 60 }, t0 + 4 * 3_600_000);
    expect(s.active('Slow')).toBeUndefined();
    await s.send({ temperature: 60 }, t0 + 5 * 3_600_000 + 1);
    expect(s.active('Slow')).toBeDefined();
  });

  it('a schedule: a rule outside its days and hours does not raise', async () => {
    const now = Date.now();
    const today = ((new Date(now).getUTCDay() + 6) % 7) + 1; // 1 Monday ... 7 Sunday
    const otherDays = [1, 2, 3, 4, 5, 6, 7].filter((d) => d !== today);
    const s = await setup([
      alarm('Never today', {
        MAJOR: rule([numeric('temperature', 'GREATER', 0)], undefined, {
          schedule: { type: 'SPECIFIC_TIME', timezone: 'UTC', daysOfWeek: otherDays, startsOn: 0, endsOn: 0 },
        }),
      }),
      alarm('Today all day', {
        MAJOR: rule([numeric('temperature', 'GREATER', 0)], undefined, {
          schedule: {
            type: 'CUSTOM',
            timezone: 'UTC',
            items: [1, 2, 3, 4, 5, 6, 7].map((d) => ({
              enabled: d === today,
              dayOfWeek: d,
              startsOn: 0,
              endsOn: 0,
            })),
          },
        }),
      }),
    ]);
    await s.send({ temperature: 5 }, now);
    expect(s.active('Never today')).toBeUndefined();
    expect(s.active('Today all day')).toBeDefined();
  });

  it('a saved profile applies to the next message, with no restart', async () => {
    const s = await setup([alarm('Hot', { MAJOR: rule([numeric('temperature', 'GREATER', 30)]) })]);
    await s.send({ temperature: 25 });
    expect(s.active('Hot')).toBeUndefined();
    const profile = s.h.services.profiles.get(s.profileId);
    await s.h.services.profiles.save(
      {
        ...profileWithAlarms('Thermometers', [
          alarm('Hot', { MAJOR: rule([numeric('temperature', 'GREATER', 20)]) }),
        ]),
        id: { id: s.profileId },
        name: profile.name,
      } as never,
      s.h.admin,
    );
    await s.send({ temperature: 25 });
    expect(s.active('Hot')).toBeDefined();
  });

  it('a user clearing the alarm (ALARM_CLEAR) lets the rule raise a new one', async () => {
    const s = await setup([
      alarm('Hot', { MAJOR: rule([numeric('temperature', 'GREATER', 30)], repeating(2)) }),
    ]);
    await s.send({ temperature: 40 });
    await s.send({ temperature: 40 });
    const first = s.active('Hot')!;
    const cleared = await s.h.services.alarms.clear(first.id.id, s.h.admin);
    await s.h.run(newMsg('ALARM_CLEAR', { entityType: 'DEVICE', id: s.deviceId }, cleared.alarm));
    await s.send({ temperature: 40 });
    expect(s.active('Hot')).toBeUndefined(); // the repeats start over
    await s.send({ temperature: 40 });
    expect(s.active('Hot')!.id.id).not.toBe(first.id.id);
  });

  it('propagation: the alarm a rule raises shows on the asset that contains the device', async () => {
    const s = await setup([
      alarm('Hot', { MAJOR: rule([numeric('temperature', 'GREATER', 30)]) }, null, {
        propagate: true,
        propagateRelationTypes: ['Contains'],
      }),
    ]);
    const { services, admin } = s.h;
    const room = await services.assets.save({ name: 'Room 101', type: 'room' } as never, admin);
    await services.relations.save(
      {
        from: { entityType: 'ASSET', id: room.id.id },
        to: { entityType: 'DEVICE', id: s.deviceId },
        type: 'Contains',
      } as never,
      admin,
    );
    await s.send({ temperature: 40 });
    const onRoom = services.alarms.page(
      { pageSize: 10, page: 0 } as never,
      {
        entity: { entityType: 'ASSET', id: room.id.id },
      } as never,
    );
    expect(onRoom.data.map((a) => [a.type, a.originator.id, a.propagate])).toEqual([
      ['Hot', s.deviceId, true],
    ]);
  });

  it('messages of devices whose profile has no rules, and of other entities, pass with Success', async () => {
    const s = await setup([alarm('Hot', { MAJOR: rule([numeric('temperature', 'GREATER', 30)]) })]);
    const plain = await s.h.services.devices.save({ name: 'Plain' }, s.h.admin);
    expect(
      (await s.h.run(telemetryMsg(plain.id.id, { temperature: 99 }))).out.map((o) => o.relation),
    ).toEqual(['Success']);
    expect(
      (
        await s.h.run(newMsg('POST_TELEMETRY_REQUEST', { entityType: 'ASSET', id: s.deviceId }, { t: 1 }))
      ).out.map((o) => o.relation),
    ).toEqual(['Success']);
  });

  it("persists the rules' progress: a node built again (a restart) continues a DURATION", async () => {
    const s = await setup([
      alarm('Overheat', { CRITICAL: rule([numeric('temperature', 'GREATER', 50)], duration(10)) }),
    ]);
    const t0 = Date.now() - 60_000;
    await s.send({ temperature: 60 }, t0);
    const row = s.h.db.get<{ state_data: string }>(
      "SELECT state_data FROM rule_node_states WHERE rule_node_id = 'node-under-test' AND entity_id = ?",
      [s.deviceId],
    );
    expect(JSON.parse(row!.state_data)).toEqual({
      alarmStates: {
        overheat: {
          createRuleStates: { CRITICAL: { lastEventTs: t0, duration: 0, eventCount: 0 } },
          clearRuleState: null,
        },
      },
    });
    // The chain loaded again: a new node instance, nothing in memory.
    const chain = {
      firstNodeIndex: 0,
      nodes: [
        {
          id: { entityType: 'RULE_NODE' as const, id: 'node-under-test' },
          type: TB.deviceProfile,
          name: 'Again',
          configuration: CONFIG,
        },
      ],
      connections: [],
    };
    s.h.engine.loadChain('chain-under-test', 'Chain under test', chain);
    await s.h.engine.process(telemetryMsg(s.deviceId, { temperature: 61 }, { ts: String(t0 + 11_000) }));
    expect(s.active('Overheat')).toBeDefined();
  });

  it('the periodic check raises a DURATION alarm when the time passes with no new message', async () => {
    const s = await setup([
      alarm('Overheat', { CRITICAL: rule([numeric('temperature', 'GREATER', 50)], duration(10)) }),
    ]);
    let created: (relation: string) => void = () => undefined;
    const emitted = new Promise<string>((resolve) => (created = resolve));
    const evaluator = new ProfileAlarmEvaluator(
      { services: s.h.services, edgeQueue: s.h.edgeQueue, log: () => undefined },
      'periodic-node',
      (_msg, relation) => created(relation),
      { harvestIntervalMs: 20 },
    );
    onTestFinished(() => evaluator.destroy());
    // held since 20 s ago, one reading: only the clock can make it 10 s
    await evaluator.process(
      telemetryMsg(s.deviceId, { temperature: 60 }, { ts: String(Date.now() - 20_000) }),
    );
    expect(s.active('Overheat')).toBeUndefined();
    evaluator.start();
    expect(await emitted).toBe('Alarm Created');
    expect(s.active('Overheat')).toMatchObject({ severity: 'CRITICAL' });
  });
});
