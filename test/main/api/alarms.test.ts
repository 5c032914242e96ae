import { beforeAll, describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  NULL_UUID,
  createDevice,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type ApiPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';
import { createAsset, raiseAlarm, relate, unique, type AlarmInfoJson, type AlarmJson } from './entity-kit.ts';

describe('alarms over REST: ThingsBoard shapes, the state machine and errors', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let device: EntityRef;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    device = (await createDevice(p, token, { name: unique('Boiler'), label: 'Boiler room' })).id;
  });

  it('creates an alarm with every field of ThingsBoard’s Alarm, active and unacknowledged', async () => {
    const before = Date.now();
    const alarm = await raiseAlarm(p, token, device, {
      type: 'Overheat',
      severity: 'CRITICAL',
      details: { temperature: 97 },
    });
    expect(alarm).toEqual({
      id: { entityType: 'ALARM', id: expect.any(String) },
      createdTime: expect.any(Number),
      tenantId: { entityType: 'TENANT', id: expect.any(String) },
      customerId: null,
      name: 'Overheat',
      type: 'Overheat',
      originator: device,
      severity: 'CRITICAL',
      acknowledged: false,
      cleared: false,
      assigneeId: null,
      startTs: expect.any(Number),
      endTs: expect.any(Number),
      ackTs: 0,
      clearTs: 0,
      assignTs: 0,
      details: { temperature: 97 },
      propagate: false,
      propagateToOwner: false,
      propagateToTenant: false,
      propagateRelationTypes: [],
      status: 'ACTIVE_UNACK',
    });
    expect(alarm.startTs).toBeGreaterThanOrEqual(before);
    expect(alarm.endTs).toBe(alarm.startTs);
    expect(await okJson(p.http(`/api/alarm/${alarm.id.id}`, { token }))).toEqual(alarm);
    const info = await okJson<AlarmInfoJson>(p.http(`/api/alarm/info/${alarm.id.id}`, { token }));
    expect(info).toMatchObject({
      ...alarm,
      originatorLabel: 'Boiler room',
      originatorDisplayName: 'Boiler room',
    });
    expect(info.originatorName).toMatch(/^Boiler/);
    expect(info.assignee).toBeNull();
  });

  it('raising the same type again updates the active alarm: same id, later end, new severity', async () => {
    const first = await raiseAlarm(p, token, device, { type: 'Door open', severity: 'MINOR' });
    const again = await raiseAlarm(p, token, device, {
      type: 'Door open',
      severity: 'MAJOR',
      endTs: first.startTs + 5_000,
    });
    expect(again.id).toEqual(first.id);
    expect(again.severity).toBe('MAJOR');
    expect(again.startTs).toBe(first.startTs);
    expect(again.endTs).toBe(first.startTs + 5_000);
    expect(again.status).toBe('ACTIVE_UNACK');
  });

  it('ack then clear: ACTIVE_ACK, then CLEARED_ACK; each only once', async () => {
    const alarm = await raiseAlarm(p, token, device, { type: unique('Ack then clear') });
    const acked = await okJson<AlarmInfoJson>(
      p.http(`/api/alarm/${alarm.id.id}/ack`, { method: 'POST', token }),
    );
    expect(acked).toMatchObject({ status: 'ACTIVE_ACK', acknowledged: true, cleared: false });
    expect(acked.ackTs).toBeGreaterThanOrEqual(alarm.startTs);
    await expectTbError(
      await p.http(`/api/alarm/${alarm.id.id}/ack`, { method: 'POST', token }),
      400,
      31,
      'Alarm was already acknowledged!',
    );
    const cleared = await okJson<AlarmInfoJson>(
      p.http(`/api/alarm/${alarm.id.id}/clear`, { method: 'POST', token }),
    );
    expect(cleared).toMatchObject({
      status: 'CLEARED_ACK',
      acknowledged: true,
      cleared: true,
      ackTs: acked.ackTs,
    });
    expect(cleared.clearTs).toBeGreaterThanOrEqual(acked.ackTs);
    await expectTbError(
      await p.http(`/api/alarm/${alarm.id.id}/clear`, { method: 'POST', token }),
      400,
      31,
      'Alarm was already cleared!',
    );
  });

  it('clear then ack: CLEARED_UNACK, then CLEARED_ACK', async () => {
    const alarm = await raiseAlarm(p, token, device, { type: unique('Clear then ack') });
    const cleared = await okJson<AlarmInfoJson>(
      p.http(`/api/alarm/${alarm.id.id}/clear`, { method: 'POST', token }),
    );
    expect(cleared.status).toBe('CLEARED_UNACK');
    const acked = await okJson<AlarmInfoJson>(
      p.http(`/api/alarm/${alarm.id.id}/ack`, { method: 'POST', token }),
    );
    expect(acked).toMatchObject({ status: 'CLEARED_ACK', clearTs: cleared.clearTs });
  });

  it('a raise after a clear creates a new alarm; the cleared one stays as it was', async () => {
    const type = unique('Re-raise');
    const first = await raiseAlarm(p, token, device, { type });
    await okJson(p.http(`/api/alarm/${first.id.id}/clear`, { method: 'POST', token }));
    const second = await raiseAlarm(p, token, device, { type, severity: 'WARNING' });
    expect(second.id.id).not.toBe(first.id.id);
    expect(second.status).toBe('ACTIVE_UNACK');
    expect((await okJson<AlarmJson>(p.http(`/api/alarm/${first.id.id}`, { token }))).status).toBe(
      'CLEARED_UNACK',
    );
    const page = await okJson<PageJson<AlarmInfoJson>>(
      p.http(`/api/alarm/DEVICE/${device.id}?pageSize=50&page=0&textSearch=${encodeURIComponent(type)}`, {
        token,
      }),
    );
    expect(page.data.map((a) => a.id.id).sort()).toEqual([first.id.id, second.id.id].sort());
  });

  it('updates an alarm by id: severity and details change, type and originator do not', async () => {
    const alarm = await raiseAlarm(p, token, device, { type: unique('By id') });
    const updated = await okJson<AlarmJson>(
      p.http('/api/alarm', {
        method: 'POST',
        token,
        json: { ...alarm, type: 'ignored', severity: 'INDETERMINATE', details: { note: 'checked' } },
      }),
    );
    expect(updated).toMatchObject({
      id: alarm.id,
      type: alarm.type,
      severity: 'INDETERMINATE',
      details: { note: 'checked' },
    });
    const missing = { ...alarm, id: { entityType: 'ALARM', id: crypto.randomUUID() } };
    await expectTbError(await p.http('/api/alarm', { method: 'POST', token, json: missing }), 404, 32);
  });

  it('acknowledged / cleared in the body of a save ack and clear the alarm', async () => {
    const alarm = await raiseAlarm(p, token, device, {
      type: unique('Body flags'),
      acknowledged: true,
      cleared: true,
    });
    expect(alarm.status).toBe('CLEARED_ACK');
  });

  it('refuses bad input with ThingsBoard errors', async () => {
    const post = (json: unknown) => p.http('/api/alarm', { method: 'POST', token, json });
    await expectTbError(
      await post({ type: 'x', severity: 'SEVERE', originator: device }),
      400,
      30,
      'severity',
    );
    await expectTbError(await post({ severity: 'MAJOR', originator: device }), 400, 30, 'type');
    await expectTbError(await post({ type: 'x', severity: 'MAJOR' }), 400, 30, 'originator');
    await expectTbError(
      await post({
        type: 'x',
        severity: 'MAJOR',
        originator: { entityType: 'DEVICE', id: crypto.randomUUID() },
      }),
      404,
      32,
      'Device with id',
    );
    await expectTbError(
      await post({
        type: 'x',
        severity: 'MAJOR',
        originator: { entityType: 'GADGET', id: crypto.randomUUID() },
      }),
      400,
      31,
      "'GADGET'",
    );
    await expectTbError(
      await post({ type: 'x', severity: 'MAJOR', originator: device, startTs: 2_000, endTs: 1_000 }),
      400,
      31,
      'start ts',
    );
    await expectTbError(
      await post({ type: 'x', severity: 'MAJOR', originator: device, details: { blob: 'x'.repeat(70_000) } }),
      400,
      31,
      'details',
    );
    await expectTbError(await p.http('/api/alarm/not-a-uuid', { token }), 400, 31);
    await expectTbError(
      await p.http(`/api/alarm/${crypto.randomUUID()}`, { token }),
      404,
      32,
      'Alarm with id',
    );
    await expectTbError(
      await p.http(
        `/api/alarm/DEVICE/${device.id}?pageSize=10&page=0&status=ACTIVE_ACK&searchStatus=ACTIVE`,
        { token },
      ),
      400,
      31,
      "Both parameters 'searchStatus' and 'status'",
    );
    await expectTbError(
      await p.http(`/api/alarm/DEVICE/${device.id}?page=0`, { token }),
      400,
      31,
      'pageSize',
    );
    await expectTbError(
      await p.http(`/api/v2/alarms?pageSize=10&page=0&statusList=ACTIVE,SLEEPING`, { token }),
      400,
      31,
      'SLEEPING',
    );
  });

  it('lists by search status, status, severity lists, types and a time window', async () => {
    const d = (await createDevice(p, token, { name: unique('Listed') })).id;
    const a = await raiseAlarm(p, token, d, { type: 'A', severity: 'CRITICAL' });
    const b = await raiseAlarm(p, token, d, { type: 'B', severity: 'WARNING' });
    const c = await raiseAlarm(p, token, d, { type: 'C', severity: 'MINOR' });
    await okJson(p.http(`/api/alarm/${b.id.id}/ack`, { method: 'POST', token }));
    await okJson(p.http(`/api/alarm/${c.id.id}/clear`, { method: 'POST', token }));
    const types = async (query: string, base = `/api/alarm/DEVICE/${d.id}`) =>
      (await okJson<PageJson<AlarmInfoJson>>(p.http(`${base}?pageSize=50&page=0&${query}`, { token }))).data
        .map((x) => x.type)
        .sort();
    expect(await types('')).toEqual(['A', 'B', 'C']);
    expect(await types('searchStatus=ACTIVE')).toEqual(['A', 'B']);
    expect(await types('searchStatus=CLEARED')).toEqual(['C']);
    expect(await types('searchStatus=ACK')).toEqual(['B']);
    expect(await types('searchStatus=UNACK')).toEqual(['A', 'C']);
    expect(await types('status=ACTIVE_UNACK')).toEqual(['A']);
    expect(await types('status=CLEARED_UNACK')).toEqual(['C']);
    expect(await types(`startTime=${c.createdTime}`)).toEqual(['C']);
    expect(await types(`endTime=${a.createdTime}`)).toEqual(['A']);
    expect(await types('textSearch=critical')).toEqual(['A']);
    const v2 = `/api/v2/alarm/DEVICE/${d.id}`;
    expect(await types('statusList=ACTIVE,UNACK', v2)).toEqual(['A']);
    expect(await types('severityList=WARNING,MINOR', v2)).toEqual(['B', 'C']);
    expect(await types('typeList=A,C', v2)).toEqual(['A', 'C']);
    const bySeverity = await okJson<PageJson<AlarmInfoJson>>(
      p.http(`/api/alarm/DEVICE/${d.id}?pageSize=2&page=0&sortProperty=severity&sortOrder=DESC`, { token }),
    );
    expect(bySeverity).toMatchObject({ totalElements: 3, totalPages: 2, hasNext: true });
    expect(bySeverity.data.map((x) => x.severity)).toEqual(['CRITICAL', 'MINOR']);
    expect(
      await okJson(p.http(`/api/alarm/highestSeverity/DEVICE/${d.id}?searchStatus=ACTIVE`, { token })),
    ).toBe('CRITICAL');
    expect(
      await okJson(p.http(`/api/alarm/highestSeverity/DEVICE/${d.id}?status=CLEARED_UNACK`, { token })),
    ).toBe('MINOR');
    const none = await p.http(`/api/alarm/highestSeverity/DEVICE/${d.id}?status=CLEARED_ACK`, { token });
    expect(none.status).toBe(200);
    expect(await none.text()).toBe('');
    const all = await okJson<PageJson<AlarmInfoJson>>(p.http('/api/alarms?pageSize=1000&page=0', { token }));
    expect(all.data.map((x) => x.id.id)).toEqual(expect.arrayContaining([a.id.id, b.id.id, c.id.id]));
    const alarmTypes = await okJson<PageJson<{ entityType: string; type: string }>>(
      p.http('/api/alarm/types?pageSize=100&page=0', { token }),
    );
    expect(alarmTypes.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ entityType: 'ALARM', type: 'A' })]),
    );
  });

  it('assigns and unassigns, and deletes (true, then 404)', async () => {
    const user = await okJson<{ id: EntityRef }>(p.http('/api/auth/user', { token }));
    const alarm = await raiseAlarm(p, token, device, { type: unique('Assign') });
    const assigned = await okJson<AlarmInfoJson>(
      p.http(`/api/alarm/${alarm.id.id}/assign/${user.id.id}`, { method: 'POST', token }),
    );
    expect(assigned.assigneeId).toEqual({ entityType: 'USER', id: user.id.id });
    expect(assigned.assignee).toMatchObject({ email: 'tenant@thingsboard.org' });
    await expectTbError(
      await p.http(`/api/alarm/${alarm.id.id}/assign/${user.id.id}`, { method: 'POST', token }),
      400,
      31,
      'already assigned',
    );
    await expectTbError(
      await p.http(`/api/alarm/${alarm.id.id}/assign/${crypto.randomUUID()}`, { method: 'POST', token }),
      404,
      32,
      'User with id',
    );
    const mine = await okJson<PageJson<AlarmInfoJson>>(
      p.http(`/api/alarms?pageSize=100&page=0&assigneeId=${user.id.id}`, { token }),
    );
    expect(mine.data.map((a) => a.id.id)).toContain(alarm.id.id);
    const unassigned = await okJson<AlarmInfoJson>(
      p.http(`/api/alarm/${alarm.id.id}/assign`, { method: 'DELETE', token }),
    );
    expect(unassigned).toMatchObject({ assigneeId: null, assignee: null });
    await expectTbError(
      await p.http(`/api/alarm/${alarm.id.id}/assign`, { method: 'DELETE', token }),
      400,
      31,
    );
    expect(await okJson(p.http(`/api/alarm/${alarm.id.id}`, { method: 'DELETE', token }))).toBe(true);
    await expectTbError(await p.http(`/api/alarm/${alarm.id.id}`, { token }), 404, 32);
  });
});

describe('alarm assignees', () => {
  const platform = useSharedPlatform();

  it('unassigns the alarms of a user who is deleted', async () => {
    const p = platform();
    const token = await p.login();
    const user = await okJson<{ id: EntityRef }>(
      p.http('/api/user', {
        method: 'POST',
        token,
        json: { email: 'oncall@example.test', authority: 'TENANT_ADMIN', password: 'secret-1' },
      }),
    );
    const device = (await createDevice(p, token, { name: unique('Assigned') })).id;
    const alarm = await raiseAlarm(p, token, device, { assigneeId: user.id });
    expect(alarm.assigneeId).toEqual(user.id);
    await okEmpty(p.http(`/api/user/${user.id.id}`, { method: 'DELETE', token }));
    const after = await okJson<AlarmJson>(p.http(`/api/alarm/${alarm.id.id}`, { token }));
    expect(after.assigneeId).toBeNull();
    expect(after.assignTs).toBeGreaterThanOrEqual(alarm.assignTs);
  });
});

describe('alarm propagation along relations', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
  });

  const shownOn = async (entity: EntityRef) =>
    (
      await okJson<PageJson<AlarmInfoJson>>(
        p.http(`/api/alarm/${entity.entityType}/${entity.id}?pageSize=100&page=0`, { token }),
      )
    ).data.map((a) => a.id.id);

  it('shows an alarm on the entities two levels up, only with propagate, only over the named relation types', async () => {
    const building = (await createAsset(p, token, { name: unique('Building'), type: 'building' })).id;
    const floor = (await createAsset(p, token, { name: unique('Floor'), type: 'floor' })).id;
    const sensor = (await createDevice(p, token, { name: unique('Sensor') })).id;
    const owner = (await createAsset(p, token, { name: unique('Owner') })).id;
    await relate(p, token, building, floor);
    await relate(p, token, floor, sensor);
    await relate(p, token, owner, sensor, 'Manages');

    const quiet = await raiseAlarm(p, token, sensor, { type: 'Quiet' });
    const loud = await raiseAlarm(p, token, sensor, { type: 'Loud', propagate: true });
    const contains = await raiseAlarm(p, token, sensor, {
      type: 'Contained',
      propagate: true,
      propagateRelationTypes: ['Contains'],
    });
    expect(loud.propagate).toBe(true);
    expect(await shownOn(sensor)).toEqual(expect.arrayContaining([quiet.id.id, loud.id.id, contains.id.id]));
    expect((await shownOn(building)).sort()).toEqual([loud.id.id, contains.id.id].sort());
    expect((await shownOn(floor)).sort()).toEqual([loud.id.id, contains.id.id].sort());
    expect(await shownOn(owner)).toEqual([loud.id.id]);
    expect(await okJson(p.http(`/api/alarm/highestSeverity/ASSET/${building.id}`, { token }))).toBe('MAJOR');

    // raised again with propagate: the quiet alarm now shows upward too
    await raiseAlarm(p, token, sensor, { type: 'Quiet', propagate: true });
    expect(await shownOn(building)).toContain(quiet.id.id);
  });

  it('ends on a relation cycle and shows the alarm once on each entity of it', async () => {
    const a = (await createAsset(p, token, { name: unique('Cycle A') })).id;
    const b = (await createAsset(p, token, { name: unique('Cycle B') })).id;
    const d = (await createDevice(p, token, { name: unique('Cycle device') })).id;
    await relate(p, token, a, b);
    await relate(p, token, b, a);
    await relate(p, token, b, d);
    await relate(p, token, d, a);
    const alarm = await raiseAlarm(p, token, d, { type: 'Loop', propagate: true });
    expect(await shownOn(a)).toEqual([alarm.id.id]);
    expect(await shownOn(b)).toEqual([alarm.id.id]);
    expect(await shownOn(d)).toEqual([alarm.id.id]);
  });

  it('propagates to the owner and to the tenant when asked', async () => {
    const d = (await createDevice(p, token, { name: unique('Owned') })).id;
    const user = await okJson<{ tenantId: EntityRef }>(p.http('/api/auth/user', { token }));
    const alarm = await raiseAlarm(p, token, d, { type: 'To tenant', propagateToTenant: true });
    expect(await shownOn(user.tenantId)).toContain(alarm.id.id);
  });
});

describe('alarms: a tenant administrator and a customer user', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let admin: string;
  let customer: string;
  let customerId: string;
  let own: EntityRef;
  let tenants: EntityRef;

  beforeAll(async () => {
    p = platform();
    admin = await p.login();
    customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    customerId = (await okJson<{ customerId: EntityRef }>(p.http('/api/auth/user', { token: customer })))
      .customerId.id;
    own = (
      await createDevice(p, admin, {
        name: unique('Customer device'),
        customerId: { entityType: 'CUSTOMER', id: customerId },
      })
    ).id;
    tenants = (await createDevice(p, admin, { name: unique('Tenant device') })).id;
  });

  it('gives the customer its own device’s alarms (customerId set from the originator) and none of the tenant’s', async () => {
    const ownAlarm = await raiseAlarm(p, admin, own, { type: 'Own' });
    expect(ownAlarm.customerId).toEqual({ entityType: 'CUSTOMER', id: customerId });
    const tenantAlarm = await raiseAlarm(p, admin, tenants, { type: 'Tenant only' });
    expect(tenantAlarm.customerId).toBeNull();

    expect((await okJson<AlarmJson>(p.http(`/api/alarm/${ownAlarm.id.id}`, { token: customer }))).id).toEqual(
      ownAlarm.id,
    );
    await expectTbError(await p.http(`/api/alarm/${tenantAlarm.id.id}`, { token: customer }), 403, 20);
    await expectTbError(
      await p.http(`/api/alarm/${tenantAlarm.id.id}/ack`, { method: 'POST', token: customer }),
      403,
      20,
    );
    await expectTbError(
      await p.http(`/api/alarm/DEVICE/${tenants.id}?pageSize=10&page=0`, { token: customer }),
      403,
      20,
    );
    await expectTbError(await raiseAlarmResponse(p, customer, tenants), 403, 20);

    const listed = await okJson<PageJson<AlarmInfoJson>>(
      p.http('/api/alarms?pageSize=100&page=0', { token: customer }),
    );
    expect(listed.data.map((a) => a.id.id)).toContain(ownAlarm.id.id);
    expect(listed.data.every((a) => a.customerId?.id === customerId)).toBe(true);
    const v2 = await okJson<PageJson<AlarmInfoJson>>(
      p.http('/api/v2/alarms?pageSize=100&page=0', { token: customer }),
    );
    expect(v2.data.map((a) => a.id.id)).not.toContain(tenantAlarm.id.id);

    const acked = await okJson<AlarmInfoJson>(
      p.http(`/api/alarm/${ownAlarm.id.id}/ack`, { method: 'POST', token: customer }),
    );
    expect(acked.status).toBe('ACTIVE_ACK');
    const created = await raiseAlarm(p, customer, own, { type: 'Raised by the customer' });
    expect(created.customerId).toEqual({ entityType: 'CUSTOMER', id: customerId });
  });

  it('refuses a customerId the originator does not belong to', async () => {
    await expectTbError(
      await raiseAlarmResponse(p, admin, tenants, { customerId: { entityType: 'CUSTOMER', id: customerId } }),
      400,
      31,
      'Originator is not assigned to customer',
    );
    const ok = await raiseAlarm(p, admin, tenants, {
      type: 'Null customer',
      customerId: { entityType: 'CUSTOMER', id: NULL_UUID },
    });
    expect(ok.customerId).toBeNull();
  });
});

function raiseAlarmResponse(
  p: ApiPlatform,
  token: string,
  originator: EntityRef,
  body: Record<string, unknown> = {},
): Promise<Response> {
  return p.http('/api/alarm', {
    method: 'POST',
    token,
    json: { type: 'Refused', severity: 'MAJOR', originator, ...body },
  });
}
