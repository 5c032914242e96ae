/**
 * Device profile alarm rules over REST and MQTT: bad rules are refused at save with the JSON path of what
 * is wrong (and the profile stays as it was); good rules, as ThingsBoard's UI saves them, come back as they
 * went in; and with the default root chain (device profile node first) telemetry over MQTT raises an alarm
 * that propagates to the asset holding the device, then clears it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  alarm,
  complex,
  duration,
  numeric,
  numericPredicate,
  profileWithAlarms,
  repeating,
  rule,
} from '../../fixtures/alarm-rules.ts';
import { closeAll, connect, publishOk } from '../transport/mqtt/mqtt-kit.ts';
import { expectTbError, okJson, useSharedPlatform, type ApiPlatform } from './api-kit.ts';

interface ProfileJson {
  id: { id: string };
  name: string;
  profileData: { alarms: Record<string, unknown>[] | null };
}

interface AlarmJson {
  type: string;
  severity: string;
  status: string;
  originator: { id: string };
  details: unknown;
}

const HOT = alarm(
  'High Temperature',
  {
    CRITICAL: rule([numeric('temperature', 'GREATER', 30)], undefined, { alarmDetails: 'At ${temperature}' }),
  },
  rule([numeric('temperature', 'LESS', 25)]),
  { propagate: true, propagateRelationTypes: ['Contains'] },
);

describe('device profile alarm rules over REST', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  afterEach(closeAll);

  const saveProfile = (body: unknown) => p.http('/api/deviceProfile', { method: 'POST', token, json: body });

  it('refuses bad rules with the JSON path of what is wrong, and keeps the saved profile', async () => {
    p = platform();
    token = await p.login();
    const saved = await okJson<ProfileJson>(saveProfile(profileWithAlarms('Guarded', [HOT])));
    const update = (alarms: unknown[]) => ({ ...profileWithAlarms('Guarded', alarms), id: saved.id });

    const bigger = structuredClone(HOT) as {
      createRules: { CRITICAL: { condition: { condition: { predicate: { operation: string } }[] } } };
    };
    bigger.createRules.CRITICAL.condition.condition[0]!.predicate.operation = 'BIGGER';
    await expectTbError(
      await saveProfile(update([bigger])),
      400,
      31,
      'profileData.alarms[0].createRules.CRITICAL.condition.condition[0].predicate.operation: "BIGGER" is not a NUMERIC operation: one of EQUAL, NOT_EQUAL, GREATER, LESS, GREATER_OR_EQUAL, LESS_OR_EQUAL',
    );

    const cases: [unknown, string][] = [
      [
        alarm('A', { MAJOR: rule([numeric('t', 'GREATER', 1)], { type: 'SOMETIMES' }) }),
        'profileData.alarms[0].createRules.MAJOR.condition.spec.type: "SOMETIMES" is not one of SIMPLE, DURATION, REPEATING',
      ],
      [
        alarm('A', {
          MAJOR: rule([numeric('t', 'GREATER', 1)], { type: 'DURATION', predicate: { defaultValue: 5 } }),
        }),
        'profileData.alarms[0].createRules.MAJOR.condition.spec.unit: is required',
      ],
      [
        alarm('A', { MAJOR: rule([numeric('t', 'GREATER', 1)], repeating(0)) }),
        'profileData.alarms[0].createRules.MAJOR.condition.spec.predicate.defaultValue: must be a whole number of events, at least 1',
      ],
      [
        alarm('A', { FATAL: rule([numeric('t', 'GREATER', 1)]) }),
        'profileData.alarms[0].createRules.FATAL: is not a severity',
      ],
      [
        alarm('A', {
          MAJOR: rule([
            complex('t', 'OR', [numericPredicate('LESS', 1), { type: 'NUMERIC', operation: 'LESS' }]),
          ]),
        }),
        'profileData.alarms[0].createRules.MAJOR.condition.condition[0].predicate.predicates[1].value: is required',
      ],
      [
        alarm(
          'A',
          { MAJOR: rule([numeric('t', 'GREATER', 1)]) },
          rule([numeric('t', 'LESS', 'thirty' as never)]),
        ),
        'profileData.alarms[0].clearRule.condition.condition[0].predicate.value.defaultValue: must be a number',
      ],
      [
        alarm('A', {
          MAJOR: rule([numeric('t', 'GREATER', 1)], undefined, {
            schedule: {
              type: 'SPECIFIC_TIME',
              timezone: 'Mars/Olympus',
              daysOfWeek: [1],
              startsOn: 0,
              endsOn: 0,
            },
          }),
        }),
        'profileData.alarms[0].createRules.MAJOR.schedule.timezone: "Mars/Olympus" is not a time zone',
      ],
      [
        { ...HOT, createRules: {} },
        'profileData.alarms[0].createRules: must have a rule for at least one severity',
      ],
      [
        alarm('A', {
          MAJOR: rule([
            {
              key: { type: 'SERVER', key: 't' },
              valueType: 'NUMERIC',
              predicate: numericPredicate('LESS', 1),
            },
          ]),
        }),
        'profileData.alarms[0].createRules.MAJOR.condition.condition[0].key.type: "SERVER" is not one of TIME_SERIES, ATTRIBUTE, ENTITY_FIELD, CONSTANT',
      ],
    ];
    for (const [bad, message] of cases)
      await expectTbError(await saveProfile(update([bad])), 400, 31, message);
    await expectTbError(
      await saveProfile(update([HOT, { ...HOT, id: 'other' }])),
      400,
      31,
      'profileData.alarms[1].alarmType: Can\'t create device profile with the same alarm rule types: "High Temperature"!',
    );
    await expectTbError(
      await saveProfile(profileWithAlarms('Not saved', [{ ...HOT, createRules: 'CRITICAL' }])),
      400,
      31,
      'profileData.alarms[0].createRules: must be an object',
    );

    const now = await okJson<ProfileJson>(p.http(`/api/deviceProfile/${saved.id.id}`, { token }));
    expect(now.profileData.alarms).toEqual([HOT]);
    const names = await okJson<{ data: { name: string }[] }>(
      p.http('/api/deviceProfiles?pageSize=100&page=0', { token }),
    );
    expect(names.data.map((n) => n.name)).not.toContain('Not saved');
  });

  it("keeps rules as ThingsBoard's UI saves them, and gives an alarm without an id one", async () => {
    p = platform();
    token = await p.login();
    const full = alarm(
      'Everything',
      {
        CRITICAL: rule(
          [
            numeric('temperature', 'GREATER', 40, {
              dynamic: { sourceType: 'CURRENT_CUSTOMER', sourceAttribute: 'max', inherit: true },
            }),
          ],
          duration(5, 'MINUTES'),
          {
            alarmDetails: 'Hot: ${temperature}',
            schedule: {
              type: 'CUSTOM',
              timezone: 'Europe/Kyiv',
              items: [{ enabled: true, dayOfWeek: 1, startsOn: 3_600_000, endsOn: 7_200_000 }],
              dynamicValue: null,
            },
          },
        ),
        WARNING: rule([numeric('temperature', 'GREATER', 30)], repeating(3)),
      },
      rule([numeric('temperature', 'LESS', 20)]),
      { propagateToOwner: true, propagateToTenant: true },
    );
    const { id: _id, ...withoutId } = full;
    const saved = await okJson<ProfileJson>(
      saveProfile(profileWithAlarms('Kept', [full, { ...withoutId, alarmType: 'No id' }])),
    );
    expect(saved.profileData.alarms![0]).toEqual(full);
    expect(saved.profileData.alarms![1]).toMatchObject({
      alarmType: 'No id',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('with the default root chain, telemetry over MQTT raises an alarm on the device and the room holding it, then clears it', async () => {
    p = platform();
    token = await p.login();
    const profile = await okJson<ProfileJson>(saveProfile(profileWithAlarms('Room sensors', [HOT])));
    const device = await okJson<{ id: { id: string } }>(
      p.http('/api/device?accessToken=room-sensor-1', {
        method: 'POST',
        token,
        json: { name: 'Room sensor 1', deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile.id.id } },
      }),
    );
    const room = await okJson<{ id: { id: string } }>(
      p.http('/api/asset', { method: 'POST', token, json: { name: 'Room 1', type: 'room' } }),
    );
    await okJson(
      p.http('/api/relation', {
        method: 'POST',
        token,
        json: {
          from: { entityType: 'ASSET', id: room.id.id },
          to: { entityType: 'DEVICE', id: device.id.id },
          type: 'Contains',
        },
      }),
    );
    const alarmsOf = async (type: string, id: string) =>
      (await okJson<{ data: AlarmJson[] }>(p.http(`/api/alarm/${type}/${id}?pageSize=10&page=0`, { token })))
        .data;

    const client = await connect(p.urls.mqtt, 'room-sensor-1', 5);
    await publishOk(client, 'v1/devices/me/telemetry', { temperature: 24 });
    expect(await alarmsOf('DEVICE', device.id.id)).toEqual([]);
    // The PUBACK comes after the node raised the alarm: it is there at once.
    await publishOk(client, 'v1/devices/me/telemetry', { temperature: 33 });
    expect(await alarmsOf('DEVICE', device.id.id)).toMatchObject([
      { type: 'High Temperature', severity: 'CRITICAL', status: 'ACTIVE_UNACK', details: { data: 'At 33' } },
    ]);
    expect(await alarmsOf('ASSET', room.id.id)).toMatchObject([
      { type: 'High Temperature', originator: { id: device.id.id } },
    ]);
    // and the telemetry went on through the chain to Save Timeseries
    const latest = await okJson<Record<string, { value: string }[]>>(
      p.http(`/api/plugins/telemetry/DEVICE/${device.id.id}/values/timeseries?keys=temperature`, { token }),
    );
    expect(latest.temperature![0]!.value).toBe('33');

    await publishOk(client, 'v1/devices/me/telemetry', { temperature: 22 });
    expect(await alarmsOf('DEVICE', device.id.id)).toMatchObject([
      { type: 'High Temperature', status: 'CLEARED_UNACK' },
    ]);
  });
});
