import { describe, expect, it } from 'vitest';
import {
  createDevice,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type DeviceJson,
  type PageJson,
} from './api-kit.ts';

type Series = Record<string, { ts: number; value: unknown }[]>;

/** Request parameters as Spring (ThingsBoard) reads them, on routes of several resources. */
describe('Spring-compatible request parameters', () => {
  const platform = useSharedPlatform();

  async function setup() {
    const p = platform();
    const token = await p.login();
    return { p, token };
  }

  it("reads booleans in any case and Spring's other words for them (the Python client sends True)", async () => {
    const { p, token } = await setup();
    const device = await createDevice(p, token, { name: 'spring-bool' });
    const url = `/api/plugins/telemetry/DEVICE/${device.id.id}`;
    await okEmpty(p.http(`${url}/timeseries/ANY`, { method: 'POST', token, json: { t: 21.5, on: true } }));
    for (const yes of ['True', 'TRUE', 'true', 'yes', 'On', '1', ' true ']) {
      const typed = await okJson<Series>(
        p.http(`${url}/values/timeseries?useStrictDataTypes=${encodeURIComponent(yes)}`, { token }),
      );
      expect(typed.t![0]!.value, yes).toBe(21.5);
      expect(typed.on![0]!.value, yes).toBe(true);
    }
    for (const no of ['False', 'FALSE', 'no', 'off', '0']) {
      const text = await okJson<Series>(
        p.http(`${url}/values/timeseries?useStrictDataTypes=${no}`, { token }),
      );
      expect(text.t![0]!.value, no).toBe('21.5');
    }
    // an empty value is no value: the default applies
    expect(
      (await okJson<Series>(p.http(`${url}/values/timeseries?useStrictDataTypes=`, { token }))).t![0]!.value,
    ).toBe('21.5');
    await expectTbError(
      await p.http(`${url}/values/timeseries?useStrictDataTypes=maybe`, { token }),
      400,
      31,
      'useStrictDataTypes',
    );

    // path variables too: PUT /api/apiKey/{id}/enabled/{enabled}
    const key = await okJson<{ id: { id: string } }>(
      p.http('/api/apiKey', { method: 'POST', token, json: { description: 'spring' } }),
    );
    const disabled = await okJson<{ enabled: boolean }>(
      p.http(`/api/apiKey/${key.id.id}/enabled/False`, { method: 'PUT', token }),
    );
    expect(disabled.enabled).toBe(false);
    expect(
      (
        await okJson<{ enabled: boolean }>(
          p.http(`/api/apiKey/${key.id.id}/enabled/TRUE`, { method: 'PUT', token }),
        )
      ).enabled,
    ).toBe(true);
    // a boolean in a delete: deleteAllDataForKeys=YES
    await okEmpty(
      p.http(`${url}/timeseries/delete?keys=on&deleteAllDataForKeys=YES`, { method: 'DELETE', token }),
    );
    expect(await okJson(p.http(`${url}/keys/timeseries`, { token }))).toEqual(['t']);
  });

  it('reads numbers with spaces, sort orders in any case, and ignores parameters it does not know', async () => {
    const { p, token } = await setup();
    for (const name of ['spring-sort-b', 'spring-sort-a', 'spring-sort-c'])
      await createDevice(p, token, { name });
    const page = await okJson<PageJson<DeviceJson>>(
      p.http(
        '/api/tenant/devices?pageSize=%202%20&page=0&textSearch=spring-sort&sortProperty=name&sortOrder=desc&foo=bar&_=1',
        { token },
      ),
    );
    expect(page.data.map((d) => d.name)).toEqual(['spring-sort-c', 'spring-sort-b']);
    expect(page).toMatchObject({ totalElements: 3, totalPages: 2, hasNext: true });
    const customers = await okJson<PageJson<unknown>>(
      p.http('/api/customers?pageSize=10&page=0&sortProperty=title&sortOrder=Asc&unknownFlag=true', {
        token,
      }),
    );
    expect(customers.totalElements).toBeGreaterThan(0);
    await expectTbError(
      await p.http('/api/tenant/devices?pageSize=ten&page=0', { token }),
      400,
      31,
      'pageSize',
    );
    await expectTbError(await p.http('/api/tenant/devices?pageSize=&page=0', { token }), 400, 31, 'pageSize');
  });

  it('takes lists repeated or comma-separated, and joins a repeated single value with commas', async () => {
    const { p, token } = await setup();
    const [a, b, c] = [
      await createDevice(p, token, { name: 'spring-list-a' }),
      await createDevice(p, token, { name: 'spring-list-b' }),
      await createDevice(p, token, { name: 'spring-list-c' }),
    ];
    const names = (list: DeviceJson[]) => list.map((d) => d.name).sort();
    expect(
      names(await okJson<DeviceJson[]>(p.http(`/api/devices?deviceIds=${a.id.id},${b.id.id}`, { token }))),
    ).toEqual(['spring-list-a', 'spring-list-b']);
    expect(
      names(
        await okJson<DeviceJson[]>(
          p.http(`/api/devices?deviceIds=${a.id.id}&deviceIds=${c.id.id}, ${b.id.id}`, { token }),
        ),
      ),
    ).toEqual(['spring-list-a', 'spring-list-b', 'spring-list-c']);
    await expectTbError(await p.http('/api/devices?deviceIds=not-a-uuid', { token }), 400, 31, 'deviceIds');

    // keys=a&keys=b is keys=a,b (ThingsBoard's keys parameter is one comma-separated string)
    const url = `/api/plugins/telemetry/DEVICE/${a.id.id}`;
    await okEmpty(p.http(`${url}/SERVER_SCOPE`, { method: 'POST', token, json: { x: 1, y: 2, z: 3 } }));
    const attrs = await okJson<{ key: string }[]>(
      p.http(`${url}/values/attributes/SERVER_SCOPE?keys=x&keys=z`, { token }),
    );
    expect(attrs.map((x) => x.key)).toEqual(['x', 'z']);
  });
});
