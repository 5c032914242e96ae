import { beforeAll, describe, expect, it } from 'vitest';
import { okJson, useSharedPlatform, type PageJson } from './api-kit.ts';

const COUNT = 6_000;
const names = Array.from({ length: COUNT }, (_, i) => `Sensor ${i}`);
const typeOf = (i: number) => (i % 2 ? 'odd' : 'even');

interface InfoJson {
  name: string;
  type: string;
  createdTime: number;
}

/** The names a case-insensitive substring search must find, in name order (as SQLite's BINARY order). */
const expected = (text: string, filter: (i: number) => boolean = () => true) =>
  names
    .filter((n, i) => filter(i) && n.toLowerCase().includes(text.toLowerCase()))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('device list and search over a fleet of a few thousand devices', () => {
  const platform = useSharedPlatform();
  let token = '';

  beforeAll(async () => {
    const p = platform();
    token = await p.login();
    const result = await okJson<{ created: number }>(
      p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: {
          file: names.map((n, i) => `${n},${typeOf(i)}`).join('\n'),
          mapping: {
            columns: [{ type: 'NAME' }, { type: 'TYPE' }],
            delimiter: ',',
            header: false,
            update: false,
          },
        },
      }),
    );
    expect(result.created).toBe(COUNT);
  }, 120_000);

  const page = (path: string) => okJson<PageJson<InfoJson>>(platform().http(path, { token }));

  it('finds a few matches among thousands, counted and paged in name order', async () => {
    const want = expected('Sensor 12');
    expect(want).toHaveLength(111);
    const first = await page(
      '/api/tenant/deviceInfos?pageSize=50&page=0&textSearch=Sensor%2012&sortProperty=name&sortOrder=ASC',
    );
    const last = await page(
      '/api/tenant/deviceInfos?pageSize=50&page=2&textSearch=Sensor%2012&sortProperty=name&sortOrder=ASC',
    );
    expect(first.totalElements).toBe(111);
    expect(first.totalPages).toBe(3);
    expect(first.hasNext).toBe(true);
    expect(first.data.map((d) => d.name)).toEqual(want.slice(0, 50));
    expect(last.data.map((d) => d.name)).toEqual(want.slice(100));
    expect(last.hasNext).toBe(false);
  });

  it('finds matches regardless of case, newest first by default', async () => {
    const res = await page('/api/tenant/deviceInfos?pageSize=20&page=0&textSearch=sENSOR%20599');
    expect(res.totalElements).toBe(expected('Sensor 599').length);
    expect(new Set(res.data.map((d) => d.name))).toEqual(new Set(expected('Sensor 599')));
    const times = res.data.map((d) => d.createdTime);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('pages a search that matches every device', async () => {
    const res = await page(
      '/api/tenant/deviceInfos?pageSize=10&page=3&textSearch=sensor&sortProperty=name&sortOrder=DESC',
    );
    expect(res.totalElements).toBe(COUNT);
    expect(res.data.map((d) => d.name)).toEqual(expected('sensor').reverse().slice(30, 40));
  });

  it('combines the search with a type filter, on both device lists', async () => {
    const want = expected('Sensor 34', (i) => typeOf(i) === 'odd');
    const infos = await page(
      '/api/tenant/deviceInfos?pageSize=100&page=0&type=odd&textSearch=Sensor%2034&sortProperty=name&sortOrder=ASC',
    );
    const devices = await page(
      '/api/tenant/devices?pageSize=100&page=0&type=odd&textSearch=Sensor%2034&sortProperty=name&sortOrder=ASC',
    );
    for (const res of [infos, devices]) {
      expect(res.totalElements).toBe(want.length);
      expect(res.data.map((d) => d.name)).toEqual(want);
      expect(res.data.every((d) => d.type === 'odd')).toBe(true);
    }
  });

  it('answers an empty page when nothing matches, and counts the whole fleet without a search', async () => {
    const none = await page('/api/tenant/deviceInfos?pageSize=10&page=0&textSearch=Actuator');
    expect(none).toEqual({ data: [], totalPages: 0, totalElements: 0, hasNext: false });
    const all = await page('/api/tenant/deviceInfos?pageSize=5&page=0');
    expect(all.totalElements).toBe(COUNT);
    const times = all.data.map((d) => d.createdTime);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});
