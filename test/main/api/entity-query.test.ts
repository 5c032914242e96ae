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
import { createAsset, raiseAlarm, relate, unique } from './entity-kit.ts';

interface EntityDataJson {
  entityId: EntityRef;
  latest: Record<string, Record<string, { ts: number; value: string }>>;
  timeseries: Record<string, unknown>;
}
interface AlarmDataJson {
  id: EntityRef;
  type: string;
  entityId: EntityRef;
  latest: EntityDataJson['latest'];
}

const NAME = { type: 'ENTITY_FIELD', key: 'name' };

describe('entity data and alarm data queries', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let prefix: string;
  let site: EntityRef;
  const devices: EntityRef[] = [];

  const find = (body: unknown, t = token) =>
    okJson<PageJson<EntityDataJson>>(
      p.http('/api/entitiesQuery/find', { method: 'POST', token: t, json: body }),
    );
  const names = (page: PageJson<EntityDataJson>) => page.data.map((d) => d.latest.ENTITY_FIELD!.name!.value);

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    // letters only: the text search below looks for the digits of a temperature
    prefix = unique('Q')
      .replace(/\s/g, '')
      .replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!);
    site = (await createAsset(p, token, { name: `${prefix} site`, type: 'site' })).id;
    for (const [i, temperature] of [18, 22, 26].entries()) {
      const d = (
        await createDevice(p, token, {
          name: `${prefix} thermo ${i}`,
          type: `${prefix}-thermo`,
          label: `T${i}`,
        })
      ).id;
      devices.push(d);
      await okEmpty(
        p.http(`/api/plugins/telemetry/DEVICE/${d.id}/timeseries/ANY`, {
          method: 'POST',
          token,
          json: { ts: 1_000 + i, values: { temperature } },
        }),
      );
      await okEmpty(
        p.http(`/api/plugins/telemetry/DEVICE/${d.id}/attributes/SERVER_SCOPE`, {
          method: 'POST',
          token,
          json: { floor: i, active: i !== 1 },
        }),
      );
      await relate(p, token, site, d);
    }
  });

  it('finds by device type with entity fields and latest values, sorted by a time series and paged', async () => {
    const page = await find({
      entityFilter: { type: 'deviceType', deviceTypes: [`${prefix}-thermo`] },
      pageLink: {
        pageSize: 2,
        page: 0,
        sortOrder: { key: { type: 'TIME_SERIES', key: 'temperature' }, direction: 'DESC' },
      },
      entityFields: [NAME, { type: 'ENTITY_FIELD', key: 'label' }],
      latestValues: [
        { type: 'TIME_SERIES', key: 'temperature' },
        { type: 'SERVER_ATTRIBUTE', key: 'floor' },
        { type: 'ATTRIBUTE', key: 'missing' },
      ],
    });
    expect(page).toMatchObject({ totalElements: 3, totalPages: 2, hasNext: true });
    expect(page.data[0]).toEqual({
      entityId: devices[2],
      latest: {
        ENTITY_FIELD: {
          name: { ts: expect.any(Number), value: `${prefix} thermo 2` },
          label: { ts: expect.any(Number), value: 'T2' },
        },
        TIME_SERIES: { temperature: { ts: 1_002, value: '26' } },
        SERVER_ATTRIBUTE: { floor: { ts: expect.any(Number), value: '2' } },
        ATTRIBUTE: { missing: { ts: 0, value: '' } },
      },
      timeseries: {},
    });
    expect(names(page)).toEqual([`${prefix} thermo 2`, `${prefix} thermo 1`]);
  });

  it('selects by single entity, entity list, entity name, entity type and a relations query', async () => {
    const body = (entityFilter: unknown) => ({
      entityFilter,
      pageLink: { pageSize: 100, page: 0, sortOrder: { key: NAME, direction: 'ASC' } },
      entityFields: [NAME],
    });
    expect(names(await find(body({ type: 'singleEntity', singleEntity: devices[1] })))).toEqual([
      `${prefix} thermo 1`,
    ]);
    expect(
      names(
        await find(
          body({ type: 'entityList', entityType: 'DEVICE', entityList: [devices[0]!.id, devices[2]!.id] }),
        ),
      ),
    ).toEqual([`${prefix} thermo 0`, `${prefix} thermo 2`]);
    expect(
      names(
        await find(body({ type: 'entityName', entityType: 'DEVICE', entityNameFilter: `${prefix} thermo` })),
      ),
    ).toHaveLength(3);
    expect(
      names(await find(body({ type: 'entityName', entityType: 'ASSET', entityNameFilter: prefix }))),
    ).toEqual([`${prefix} site`]);
    const assets = await find(body({ type: 'entityType', entityType: 'ASSET' }));
    expect(names(assets)).toContain(`${prefix} site`);
    expect(
      names(await find(body({ type: 'assetType', assetType: 'site', assetNameFilter: prefix }))),
    ).toEqual([`${prefix} site`]);
    const related = await find(
      body({
        type: 'relationsQuery',
        rootEntity: site,
        direction: 'FROM',
        maxLevel: 1,
        filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
      }),
    );
    expect(names(related)).toEqual([0, 1, 2].map((i) => `${prefix} thermo ${i}`));
    const count = await okJson(
      p.http('/api/entitiesQuery/count', {
        method: 'POST',
        token,
        json: {
          entityFilter: {
            type: 'relationsQuery',
            rootEntity: site,
            direction: 'FROM',
            maxLevel: 1,
            filters: [],
          },
        },
      }),
    );
    expect(count).toBe(3);
  });

  it('applies key filters (numeric, string, boolean, complex) and the text search', async () => {
    const filter = { type: 'deviceType', deviceType: `${prefix}-thermo` };
    const run = (keyFilters: unknown[], textSearch?: string) =>
      find({
        entityFilter: filter,
        pageLink: { pageSize: 100, page: 0, textSearch, sortOrder: { key: NAME, direction: 'ASC' } },
        entityFields: [NAME],
        latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
        keyFilters,
      }).then(names);
    const temp = (operation: string, value: number) => ({
      key: { type: 'TIME_SERIES', key: 'temperature' },
      valueType: 'NUMERIC',
      predicate: { type: 'NUMERIC', operation, value: { defaultValue: value } },
    });
    expect(await run([temp('GREATER', 20)])).toEqual([`${prefix} thermo 1`, `${prefix} thermo 2`]);
    expect(await run([temp('GREATER', 20), temp('LESS', 25)])).toEqual([`${prefix} thermo 1`]);
    expect(
      await run([
        {
          key: { type: 'ATTRIBUTE', key: 'active' },
          valueType: 'BOOLEAN',
          predicate: { type: 'BOOLEAN', operation: 'EQUAL', value: { defaultValue: false } },
        },
      ]),
    ).toEqual([`${prefix} thermo 1`]);
    expect(
      await run([
        {
          key: { type: 'ENTITY_FIELD', key: 'label' },
          valueType: 'STRING',
          predicate: {
            type: 'COMPLEX',
            operation: 'OR',
            predicates: [
              { type: 'STRING', operation: 'EQUAL', value: { defaultValue: 't0' }, ignoreCase: true },
              { type: 'STRING', operation: 'ENDS_WITH', value: { defaultValue: '2' } },
            ],
          },
        },
      ]),
    ).toEqual([`${prefix} thermo 0`, `${prefix} thermo 2`]);
    expect(await run([], '22')).toEqual([`${prefix} thermo 1`]);
    await expectTbError(
      await p.http('/api/entitiesQuery/find', {
        method: 'POST',
        token,
        json: {
          entityFilter: filter,
          pageLink: { pageSize: 10, page: 0 },
          keyFilters: [{ ...temp('ABOUT', 1) }],
        },
      }),
      400,
      31,
      'keyFilters[0].predicate.operation',
    );
  });

  it('refuses filters it does not serve, and a missing page link', async () => {
    await expectTbError(
      await p.http('/api/entitiesQuery/find', {
        method: 'POST',
        token,
        json: { entityFilter: { type: 'apiUsageState' }, pageLink: { pageSize: 10, page: 0 } },
      }),
      400,
      30,
      'entityFilter.type',
    );
    await expectTbError(
      await p.http('/api/entitiesQuery/find', {
        method: 'POST',
        token,
        json: { entityFilter: { type: 'entityType', entityType: 'DEVICE' } },
      }),
      400,
      30,
      'pageLink',
    );
    await expectTbError(
      await p.http('/api/entitiesQuery/count', {
        method: 'POST',
        token,
        json: { entityFilter: { type: 'entityList' } },
      }),
      400,
      31,
      'entityType',
    );
  });

  it('finds the keys of the entities a query finds', async () => {
    const keys = await okJson(
      p.http('/api/entitiesQuery/find/keys?timeseries=true&attributes=true&scope=SERVER_SCOPE', {
        method: 'POST',
        token,
        json: {
          entityFilter: { type: 'deviceType', deviceType: `${prefix}-thermo` },
          pageLink: { pageSize: 1000, page: 0 },
        },
      }),
    );
    expect(keys).toEqual({
      entityTypes: ['DEVICE'],
      timeseries: ['temperature'],
      attribute: ['active', 'floor'],
    });
  });

  it('finds and counts alarms of the entities of a filter, propagated or not', async () => {
    const hot = await raiseAlarm(p, token, devices[2]!, {
      type: 'Hot',
      severity: 'CRITICAL',
      propagate: true,
    });
    await raiseAlarm(p, token, devices[0]!, { type: 'Cold', severity: 'MINOR' });
    const body = (
      pageLink: Record<string, unknown>,
      entityFilter: unknown = { type: 'deviceType', deviceType: `${prefix}-thermo` },
    ) => ({
      entityFilter,
      pageLink: { pageSize: 10, page: 0, ...pageLink },
      entityFields: [NAME],
      latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
    });
    const page = await okJson<PageJson<AlarmDataJson>>(
      p.http('/api/alarmsQuery/find', {
        method: 'POST',
        token,
        json: body({
          severityList: ['CRITICAL'],
          sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
        }),
      }),
    );
    expect(page.totalElements).toBe(1);
    expect(page.data[0]).toMatchObject({
      id: hot.id,
      type: 'Hot',
      entityId: devices[2],
      latest: {
        ENTITY_FIELD: { name: { value: `${prefix} thermo 2` } },
        TIME_SERIES: { temperature: { value: '26' } },
      },
    });
    const countOf = (json: unknown) =>
      okJson<number>(p.http('/api/alarmsQuery/count', { method: 'POST', token, json }));
    expect(await countOf({ entityFilter: { type: 'deviceType', deviceType: `${prefix}-thermo` } })).toBe(2);
    expect(await countOf({ entityFilter: { type: 'singleEntity', singleEntity: site } })).toBe(0);
    expect(
      await countOf({
        entityFilter: { type: 'singleEntity', singleEntity: site },
        searchPropagatedAlarms: true,
      }),
    ).toBe(1);
    const onSite = await okJson<PageJson<AlarmDataJson>>(
      p.http('/api/alarmsQuery/find', {
        method: 'POST',
        token,
        json: body(
          { searchPropagatedAlarms: true, statusList: ['ACTIVE'] },
          { type: 'singleEntity', singleEntity: site },
        ),
      }),
    );
    expect(onSite.data.map((a) => [a.type, a.entityId])).toEqual([['Hot', site]]);

    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const none = await okJson<PageJson<AlarmDataJson>>(
      p.http('/api/alarmsQuery/find', { method: 'POST', token: customer, json: body({}) }),
    );
    expect(none.totalElements).toBe(0);
    const customerFind = await find(
      {
        entityFilter: { type: 'deviceType', deviceType: `${prefix}-thermo` },
        pageLink: { pageSize: 10, page: 0 },
      },
      customer,
    );
    expect(customerFind.totalElements).toBe(0);
  });
});
