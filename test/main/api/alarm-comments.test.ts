import { beforeAll, describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  createDevice,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type ApiPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';
import { raiseAlarm, unique } from './entity-kit.ts';

interface CommentJson {
  id: { entityType: string; id: string };
  createdTime: number;
  alarmId: EntityRef;
  userId: EntityRef | null;
  type: 'SYSTEM' | 'OTHER';
  comment: Record<string, unknown>;
  name: string;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
}

describe('alarm comments over REST: ThingsBoard’s AlarmCommentController', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let customer: string;
  let device: EntityRef;
  let userId: string;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    device = (await createDevice(p, token, { name: unique('Chiller') })).id;
    userId = (await okJson<{ id: EntityRef }>(p.http('/api/auth/user', { token }))).id.id;
  });

  const comments = (
    alarmId: string,
    t = token,
    query = 'pageSize=50&page=0&sortProperty=createdTime&sortOrder=ASC',
  ) => okJson<PageJson<CommentJson>>(p.http(`/api/alarm/${alarmId}/comment?${query}`, { token: t }));
  const post = (alarmId: string, json: unknown, t = token) =>
    p.http(`/api/alarm/${alarmId}/comment`, { method: 'POST', token: t, json });

  it('adds a comment in ThingsBoard’s shape and lists it with its author', async () => {
    const alarm = await raiseAlarm(p, token, device, { type: unique('Leak') });
    const saved = await okJson<CommentJson>(post(alarm.id.id, { comment: { text: 'Please take a look' } }));
    expect(saved).toEqual({
      id: { entityType: 'ALARM_COMMENT', id: expect.any(String) },
      createdTime: expect.any(Number),
      alarmId: alarm.id,
      userId: { entityType: 'USER', id: userId },
      type: 'OTHER',
      comment: { text: 'Please take a look' },
      name: '{"text":"Please take a look"}',
    });
    const page = await comments(alarm.id.id);
    expect(page.totalElements).toBe(1);
    expect(page.data[0]).toEqual({
      ...saved,
      firstName: null,
      lastName: null,
      email: 'tenant@thingsboard.org',
    });
  });

  it('writes system comments when a user acknowledges and clears, as ThingsBoard does', async () => {
    const alarm = await raiseAlarm(p, token, device, { type: unique('Overheat') });
    await okJson(p.http(`/api/alarm/${alarm.id.id}/ack`, { method: 'POST', token }));
    await okJson(p.http(`/api/alarm/${alarm.id.id}/clear`, { method: 'POST', token }));
    const page = await comments(alarm.id.id);
    expect(page.data.map((c) => [c.type, c.userId, c.comment])).toEqual([
      ['SYSTEM', null, { text: 'Alarm was acknowledged by user tenant@thingsboard.org', userId }],
      ['SYSTEM', null, { text: 'Alarm was cleared by user tenant@thingsboard.org', userId }],
    ]);
    // newest first without a sort
    expect((await comments(alarm.id.id, token, 'pageSize=1&page=0')).data[0]!.comment.text).toMatch(
      /cleared/,
    );
  });

  it('edits the user’s own comment (marked edited) and refuses another user’s', async () => {
    const own = await createDevice(p, token, {
      name: unique('Customer pump'),
      customerId: (await okJson<{ customerId: EntityRef }>(p.http('/api/auth/user', { token: customer })))
        .customerId,
    });
    const alarm = await raiseAlarm(p, token, own.id, { type: unique('Vibration') });
    const mine = await okJson<CommentJson>(post(alarm.id.id, { comment: { text: 'first' } }));
    const edited = await okJson<CommentJson>(post(alarm.id.id, { id: mine.id, comment: { text: 'second' } }));
    expect(edited.id).toEqual(mine.id);
    expect(edited.comment).toEqual({ text: 'second', edited: 'true', editedOn: expect.any(Number) });
    await expectTbError(
      await post(alarm.id.id, { id: mine.id, comment: { text: 'hijack' } }, customer),
      403,
      20,
    );
    // the customer may comment on its own customer's alarm
    expect((await okJson<CommentJson>(post(alarm.id.id, { comment: { text: 'seen' } }, customer))).type).toBe(
      'OTHER',
    );
  });

  it('turns a deleted comment into a system comment saying so; a system comment cannot be deleted', async () => {
    const alarm = await raiseAlarm(p, token, device, { type: unique('Pressure') });
    const c = await okJson<CommentJson>(post(alarm.id.id, { comment: { text: 'oops' } }));
    await okEmpty(p.http(`/api/alarm/${alarm.id.id}/comment/${c.id.id}`, { method: 'DELETE', token }));
    const [after] = (await comments(alarm.id.id)).data;
    expect(after).toMatchObject({
      id: c.id,
      type: 'SYSTEM',
      userId: null,
      comment: { text: 'User tenant@thingsboard.org deleted his comment' },
    });
    await expectTbError(
      await p.http(`/api/alarm/${alarm.id.id}/comment/${c.id.id}`, { method: 'DELETE', token }),
      400,
      31,
    );
  });

  it('answers bad input and other users’ alarms with ThingsBoard’s errors', async () => {
    const alarm = await raiseAlarm(p, token, device, { type: unique('Noise') });
    await expectTbError(await post(alarm.id.id, { text: 'no comment field' }), 400, 30);
    await expectTbError(await post(alarm.id.id, { comment: { text: 'x'.repeat(10_001) } }), 400, 31);
    await expectTbError(
      await post('6d3c7a3e-0000-4000-8000-000000000000', { comment: { text: 'x' } }),
      404,
      32,
    );
    await expectTbError(
      await post(alarm.id.id, { id: { id: '6d3c7a3e-0000-4000-8000-000000000001' }, comment: { text: 'x' } }),
      404,
      32,
    );
    // the tenant's own device: not the customer's alarm
    await expectTbError(await post(alarm.id.id, { comment: { text: 'x' } }, customer), 403, 20);
    await expectTbError(
      await p.http(`/api/alarm/${alarm.id.id}/comment?pageSize=10&page=0`, { token: customer }),
      403,
      20,
    );
    await expectTbError(await p.http(`/api/alarm/${alarm.id.id}/comment`, { token }), 400, 31);
  });

  it('deletes an alarm’s comments with the alarm', async () => {
    const alarm = await raiseAlarm(p, token, device, { type: unique('Gone') });
    await okJson(post(alarm.id.id, { comment: { text: 'bye' } }));
    await okJson(p.http(`/api/alarm/${alarm.id.id}`, { method: 'DELETE', token }));
    await expectTbError(
      await p.http(`/api/alarm/${alarm.id.id}/comment?pageSize=10&page=0`, { token }),
      404,
      32,
    );
  });
});
