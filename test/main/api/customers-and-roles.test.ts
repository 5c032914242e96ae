import { describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  NULL_UUID,
  createCustomer,
  createDevice,
  decodeJwt,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type DeviceJson,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';

interface UserJson {
  id: EntityRef;
  customerId: EntityRef;
  email: string;
  authority: string;
  firstName: string | null;
}

describe('customers, users and what a customer user may see', () => {
  const platform = useSharedPlatform();

  it('lets a tenant admin create a customer and a customer user who then logs in', async () => {
    const p = platform();
    const admin = await p.login();
    const customer = await okJson<{ id: EntityRef; title: string; name: string; email: string | null }>(
      p.http('/api/customer', {
        method: 'POST',
        token: admin,
        json: { title: 'Acme Ltd', email: 'ops@acme.test' },
      }),
    );
    expect(customer).toMatchObject({
      id: { entityType: 'CUSTOMER' },
      title: 'Acme Ltd',
      name: 'Acme Ltd',
      email: 'ops@acme.test',
    });
    const duplicate = await p.http('/api/customer', {
      method: 'POST',
      token: admin,
      json: { title: 'Acme Ltd' },
    });
    await expectTbError(duplicate, 400, 30, 'Acme Ltd');

    const user = await okJson<UserJson>(
      p.http('/api/user', {
        method: 'POST',
        token: admin,
        json: {
          email: 'alice@acme.test',
          authority: 'CUSTOMER_USER',
          customerId: { entityType: 'CUSTOMER', id: customer.id.id },
          firstName: 'Alice',
          password: 'alice-secret',
        },
      }),
    );
    expect(user).toMatchObject({
      id: { entityType: 'USER' },
      email: 'alice@acme.test',
      authority: 'CUSTOMER_USER',
      customerId: { entityType: 'CUSTOMER', id: customer.id.id },
      firstName: 'Alice',
    });
    expect(JSON.stringify(user)).not.toContain('alice-secret');

    const aliceToken = await p.login('alice@acme.test', 'alice-secret');
    expect(decodeJwt(aliceToken).payload).toMatchObject({
      sub: 'alice@acme.test',
      userId: user.id.id,
      scopes: ['CUSTOMER_USER'],
      customerId: customer.id.id,
    });
    const users = await okJson<PageJson<UserJson>>(
      p.http(`/api/customer/${customer.id.id}/users?pageSize=10&page=0`, { token: admin }),
    );
    expect(users.data.map((u) => u.email)).toEqual(['alice@acme.test']);
    // Alice may read her own customer, not the list of all customers
    expect((await p.http(`/api/customer/${customer.id.id}`, { token: aliceToken })).status).toBe(200);
    await expectTbError(await p.http('/api/customers?pageSize=10&page=0', { token: aliceToken }), 403, 20);
    await expectTbError(
      await p.http('/api/user', {
        method: 'POST',
        token: aliceToken,
        json: { email: 'mallory@acme.test', authority: 'TENANT_ADMIN', password: 'mallory-secret' },
      }),
      403,
      20,
    );
  });

  it('refuses a customer user without a customer, and a duplicate email', async () => {
    const p = platform();
    const admin = await p.login();
    await expectTbError(
      await p.http('/api/user', {
        method: 'POST',
        token: admin,
        json: { email: 'orphan@example.com', authority: 'CUSTOMER_USER', password: 'orphan-secret' },
      }),
      400,
      30,
      'customerId',
    );
    await expectTbError(
      await p.http('/api/user', {
        method: 'POST',
        token: admin,
        json: { email: CUSTOMER.username, authority: 'TENANT_ADMIN' },
      }),
      400,
      30,
      CUSTOMER.username,
    );
    await expectTbError(
      await p.http('/api/user', {
        method: 'POST',
        token: admin,
        json: { email: 'not-an-email', authority: 'TENANT_ADMIN' },
      }),
      400,
      30,
      'email',
    );
  });

  it("shows a customer user only its customer's devices", async () => {
    const p = platform();
    const admin = await p.login();
    const customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    const ownCustomerId = (await okJson<UserJson>(p.http('/api/auth/user', { token: customerToken })))
      .customerId.id;
    const otherCustomerId = await createCustomer(p, admin, 'Other customer');

    const mine = await createDevice(p, admin, { name: 'roles-mine' });
    const theirs = await createDevice(p, admin, { name: 'roles-theirs' });
    const tenants = await createDevice(p, admin, { name: 'roles-tenant-only' });
    const assigned = await okJson<DeviceJson>(
      p.http(`/api/customer/${ownCustomerId}/device/${mine.id.id}`, { method: 'POST', token: admin }),
    );
    expect(assigned.customerId).toEqual({ entityType: 'CUSTOMER', id: ownCustomerId });
    await okJson(
      p.http(`/api/customer/${otherCustomerId}/device/${theirs.id.id}`, { method: 'POST', token: admin }),
    );

    const visible = await okJson<PageJson<DeviceJson>>(
      p.http(`/api/customer/${ownCustomerId}/devices?pageSize=50&page=0`, { token: customerToken }),
    );
    expect(visible.data.map((d) => d.name)).toEqual(['roles-mine']);
    expect(visible.totalElements).toBe(1);
    const got = await okJson<DeviceJson>(p.http(`/api/device/${mine.id.id}`, { token: customerToken }));
    expect(got.name).toBe('roles-mine');
    const telemetryOfMine = await p.http(`/api/plugins/telemetry/DEVICE/${mine.id.id}/values/timeseries`, {
      token: customerToken,
    });
    expect(telemetryOfMine.status).toBe(200);
    await telemetryOfMine.body?.cancel();

    for (const id of [theirs.id.id, tenants.id.id]) {
      await expectTbError(await p.http(`/api/device/${id}`, { token: customerToken }), 403, 20);
      await expectTbError(await p.http(`/api/device/${id}/credentials`, { token: customerToken }), 403, 20);
      await expectTbError(
        await p.http(`/api/plugins/telemetry/DEVICE/${id}/values/timeseries`, { token: customerToken }),
        403,
        20,
      );
    }
    await expectTbError(
      await p.http(`/api/customer/${otherCustomerId}/devices?pageSize=10&page=0`, { token: customerToken }),
      403,
      20,
    );
    await expectTbError(
      await p.http('/api/tenant/devices?pageSize=10&page=0', { token: customerToken }),
      403,
      20,
      "You don't have permission",
    );
    await expectTbError(
      await p.http(`/api/tenant/devices?deviceName=roles-mine`, { token: customerToken }),
      403,
      20,
    );
    await expectTbError(
      await p.http('/api/device', { method: 'POST', token: customerToken, json: { name: 'sneaky' } }),
      403,
      20,
    );
    await expectTbError(
      await p.http(`/api/device/${mine.id.id}`, { method: 'DELETE', token: customerToken }),
      403,
      20,
    );
    await expectTbError(
      await p.http(`/api/customer/${ownCustomerId}/device/${theirs.id.id}`, {
        method: 'POST',
        token: customerToken,
      }),
      403,
      20,
    );
    await expectTbError(
      await p.http(`/api/device/${mine.id.id}/credentials`, {
        method: 'POST',
        token: customerToken,
        json: { credentialsId: 'stolen-token' },
      }),
      403,
      20,
    );
    // as in ThingsBoard, a customer user may write attributes and telemetry of its own devices only
    await okEmpty(
      p.http(`/api/plugins/telemetry/DEVICE/${mine.id.id}/SHARED_SCOPE`, {
        method: 'POST',
        token: customerToken,
        json: { setpoint: 21 },
      }),
    );
    for (const path of ['SERVER_SCOPE', 'timeseries/ANY']) {
      await expectTbError(
        await p.http(`/api/plugins/telemetry/DEVICE/${theirs.id.id}/${path}`, {
          method: 'POST',
          token: customerToken,
          json: { hacked: true },
        }),
        403,
        20,
      );
    }
    const theirAttributes = await okJson<unknown[]>(
      p.http(`/api/plugins/telemetry/DEVICE/${theirs.id.id}/values/attributes`, { token: admin }),
    );
    expect(theirAttributes).toEqual([]);
    // nothing of the refused writes happened
    const names = (
      await okJson<PageJson<DeviceJson>>(p.http('/api/tenant/devices?pageSize=100&page=0', { token: admin }))
    ).data.map((d) => d.name);
    expect(names).not.toContain('sneaky');
    expect(names).toContain('roles-mine');
  });

  it('assigning a device makes it visible to the customer user, unassigning hides it again', async () => {
    const p = platform();
    const admin = await p.login();
    const customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    const customerId = (await okJson<UserJson>(p.http('/api/auth/user', { token: customerToken }))).customerId
      .id;
    const device = await createDevice(p, admin, { name: 'assign-me' });
    await expectTbError(await p.http(`/api/device/${device.id.id}`, { token: customerToken }), 403, 20);

    await okJson(
      p.http(`/api/customer/${customerId}/device/${device.id.id}`, { method: 'POST', token: admin }),
    );
    const page = await okJson<PageJson<DeviceJson>>(
      p.http(`/api/customer/${customerId}/devices?pageSize=50&page=0&textSearch=assign-me`, {
        token: customerToken,
      }),
    );
    expect(page.data.map((d) => d.id.id)).toEqual([device.id.id]);
    expect((await p.http(`/api/device/${device.id.id}`, { token: customerToken })).status).toBe(200);

    const unassigned = await okJson<DeviceJson>(
      p.http(`/api/customer/device/${device.id.id}`, { method: 'DELETE', token: admin }),
    );
    expect(unassigned.customerId.id).toBe(NULL_UUID);
    await expectTbError(await p.http(`/api/device/${device.id.id}`, { token: customerToken }), 403, 20);

    await expectTbError(
      await p.http(`/api/customer/${customerId}/device/${crypto.randomUUID()}`, {
        method: 'POST',
        token: admin,
      }),
      404,
      32,
    );
    await expectTbError(
      await p.http(`/api/customer/${crypto.randomUUID()}/device/${device.id.id}`, {
        method: 'POST',
        token: admin,
      }),
      404,
      32,
    );
  });

  it('deleting a customer deletes its users: their tokens and API keys stop working, devices go back', async () => {
    const p = platform();
    const admin = await p.login();
    const customerId = await createCustomer(p, admin, 'Short-lived customer');
    await okJson(
      p.http('/api/user', {
        method: 'POST',
        token: admin,
        json: {
          email: 'bob@short.test',
          authority: 'CUSTOMER_USER',
          customerId: { id: customerId },
          password: 'bob-secret',
        },
      }),
    );
    const bob = await p.login('bob@short.test', 'bob-secret');
    const key = await okJson<{ value: string }>(
      p.http('/api/apiKey', { method: 'POST', token: bob, json: { description: 'bob key' } }),
    );
    const device = await createDevice(p, admin, {
      name: 'short-lived-device',
      customerId: { id: customerId },
    });
    expect(device.customerId.id).toBe(customerId);
    expect((await p.http(`/api/device/${device.id.id}`, { token: bob })).status).toBe(200);

    await okEmpty(p.http(`/api/customer/${customerId}`, { method: 'DELETE', token: admin }));

    await expectTbError(await p.http('/api/auth/user', { token: bob }), 401, 10);
    await expectTbError(await p.http('/api/auth/user', { apiKey: key.value }), 401, 10);
    await expectTbError(
      await p.http('/api/auth/login', {
        method: 'POST',
        json: { username: 'bob@short.test', password: 'bob-secret' },
      }),
      401,
      10,
    );
    await expectTbError(await p.http(`/api/customer/${customerId}`, { token: admin }), 404, 32);
    const back = await okJson<DeviceJson>(p.http(`/api/device/${device.id.id}`, { token: admin }));
    expect(back.customerId.id).toBe(NULL_UUID);
  });

  it('deleting a user ends its sessions and keys', async () => {
    const p = platform();
    const admin = await p.login();
    const carol = await okJson<UserJson>(
      p.http('/api/user', {
        method: 'POST',
        token: admin,
        json: { email: 'carol@example.com', authority: 'TENANT_ADMIN', password: 'carol-secret' },
      }),
    );
    const token = await p.login('carol@example.com', 'carol-secret');
    const key = await okJson<{ value: string }>(
      p.http('/api/apiKey', { method: 'POST', token, json: { description: 'carol key' } }),
    );
    // both credentials answered just before, so whatever the server remembers of them is warm
    expect((await p.http('/api/auth/user', { token })).status).toBe(200);
    expect((await p.http('/api/auth/user', { apiKey: key.value })).status).toBe(200);
    await okEmpty(p.http(`/api/user/${carol.id.id}`, { method: 'DELETE', token: admin }));
    await expectTbError(await p.http('/api/auth/user', { token }), 401, 10);
    await expectTbError(await p.http('/api/auth/user', { apiKey: key.value }), 401, 10);
    await expectTbError(await p.http(`/api/user/${carol.id.id}`, { token: admin }), 404, 32);
  });
});
