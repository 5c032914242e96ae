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
} from './api-kit.ts';
import { createAsset, relate, unique, type RelationJson } from './entity-kit.ts';

const q = (key: Record<string, string>) => new URLSearchParams(key).toString();
const keyOf = (from: EntityRef, to: EntityRef, relationType = 'Contains') => ({
  fromId: from.id,
  fromType: from.entityType,
  toId: to.id,
  toType: to.entityType,
  relationType,
});

describe('relations over REST', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let building: EntityRef;
  let floor: EntityRef;
  let meter: EntityRef;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    building = (await createAsset(p, token, { name: unique('Building'), type: 'building' })).id;
    floor = (await createAsset(p, token, { name: unique('Floor'), type: 'floor' })).id;
    meter = (await createDevice(p, token, { name: unique('Meter') })).id;
  });

  it('saves, gets, lists from either end (with names) and deletes a relation', async () => {
    await okEmpty(
      p.http('/api/relation', {
        method: 'POST',
        token,
        json: { from: building, to: floor, type: 'Contains', additionalInfo: { level: 1 } },
      }),
    );
    const expected: RelationJson = {
      from: building,
      to: floor,
      type: 'Contains',
      typeGroup: 'COMMON',
      additionalInfo: { level: 1 },
    };
    expect(await okJson(p.http(`/api/relation?${q(keyOf(building, floor))}`, { token }))).toEqual(expected);
    expect(
      await okJson(p.http(`/api/relations?${q({ fromId: building.id, fromType: 'ASSET' })}`, { token })),
    ).toEqual([expected]);
    expect(
      await okJson(
        p.http(`/api/relations?${q({ toId: floor.id, toType: 'ASSET', relationType: 'Contains' })}`, {
          token,
        }),
      ),
    ).toEqual([expected]);
    expect(
      await okJson(
        p.http(`/api/relations?${q({ toId: floor.id, toType: 'ASSET', relationType: 'Manages' })}`, {
          token,
        }),
      ),
    ).toEqual([]);
    expect(
      await okJson(
        p.http(`/api/relations?${q({ fromId: building.id, fromType: 'ASSET', relationTypeGroup: 'EDGE' })}`, {
          token,
        }),
      ),
    ).toEqual([]);
    const info = await okJson<(RelationJson & { fromName: string | null; toName: string | null })[]>(
      p.http(`/api/relations/info?${q({ fromId: building.id, fromType: 'ASSET' })}`, { token }),
    );
    expect(info).toEqual([{ ...expected, fromName: null, toName: expect.stringMatching(/^Floor/) }]);
    expect(await okJson(p.http(`/api/relations/from/ASSET/${building.id}`, { token }))).toEqual([expected]);
    expect(await okJson(p.http(`/api/relations/to/ASSET/${floor.id}/Contains`, { token }))).toEqual([
      expected,
    ]);
    const v2 = await okJson(
      p.http('/api/v2/relation', {
        method: 'POST',
        token,
        json: { from: building, to: floor, type: 'Contains' },
      }),
    );
    expect(v2).toEqual({ ...expected, additionalInfo: null });

    await okEmpty(p.http(`/api/relation?${q(keyOf(building, floor))}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`/api/relation?${q(keyOf(building, floor))}`, { token }), 404, 32);
    await expectTbError(
      await p.http(`/api/relation?${q(keyOf(building, floor))}`, { method: 'DELETE', token }),
      404,
      32,
    );
  });

  it('refuses a relation to an entity that does not exist, an unknown type, and a malformed one', async () => {
    const post = (json: unknown) => p.http('/api/relation', { method: 'POST', token, json });
    await expectTbError(
      await post({ from: building, to: { entityType: 'DEVICE', id: crypto.randomUUID() }, type: 'Contains' }),
      404,
      32,
      'Device with id',
    );
    await expectTbError(
      await post({ from: building, to: { entityType: 'WIDGET', id: crypto.randomUUID() }, type: 'Contains' }),
      400,
      31,
      "'WIDGET'",
    );
    await expectTbError(await post({ from: building, to: floor }), 400, 30, 'type');
    await expectTbError(await post({ from: building, to: floor, type: '' }), 400, 30, 'type');
    await expectTbError(
      await post({ from: building, to: { id: floor.id }, type: 'x' }),
      400,
      30,
      'entityType',
    );
    await expectTbError(
      await p.http(`/api/relations?${q({ relationType: 'x' })}`, { token }),
      400,
      31,
      'fromId',
    );
  });

  it('follows a relations query level by level, with filters and the last level only', async () => {
    const root = (await createAsset(p, token, { name: unique('Root') })).id;
    const mid = (await createAsset(p, token, { name: unique('Mid') })).id;
    const leaf = (await createDevice(p, token, { name: unique('Leaf') })).id;
    await relate(p, token, root, mid);
    await relate(p, token, mid, leaf);
    await relate(p, token, leaf, root, 'Feeds'); // a cycle back to the root
    const query = (parameters: Record<string, unknown>, filters: unknown[] = []) =>
      okJson<RelationJson[]>(
        p.http('/api/relations', {
          method: 'POST',
          token,
          json: {
            parameters: { rootId: root.id, rootType: 'ASSET', direction: 'FROM', ...parameters },
            filters,
          },
        }),
      );
    const pairs = (list: RelationJson[]) => list.map((r) => `${r.from.id}>${r.to.id}`).sort();
    expect(pairs(await query({ maxLevel: 1 }))).toEqual([`${root.id}>${mid.id}`]);
    expect(pairs(await query({ maxLevel: 2 }))).toEqual(
      [`${mid.id}>${leaf.id}`, `${root.id}>${mid.id}`].sort(),
    );
    expect(pairs(await query({ maxLevel: 0 }))).toEqual(
      [`${root.id}>${mid.id}`, `${mid.id}>${leaf.id}`, `${leaf.id}>${root.id}`].sort(),
    );
    expect(pairs(await query({ maxLevel: 2, fetchLastLevelOnly: true }))).toEqual([`${mid.id}>${leaf.id}`]);
    expect(
      pairs(await query({ maxLevel: 5 }, [{ relationType: 'Contains', entityTypes: ['DEVICE'] }])),
    ).toEqual([`${mid.id}>${leaf.id}`]);
    const up = await okJson<(RelationJson & { fromName: string })[]>(
      p.http('/api/relations/info', {
        method: 'POST',
        token,
        json: {
          parameters: { rootId: leaf.id, rootType: 'DEVICE', direction: 'TO', maxLevel: 1 },
          filters: [],
        },
      }),
    );
    expect(up.map((r) => r.fromName)).toEqual([expect.stringMatching(/^Mid/)]);
  });

  it('deletes every COMMON relation of an entity', async () => {
    const hub = (await createAsset(p, token, { name: unique('Hub') })).id;
    await relate(p, token, hub, meter);
    await relate(p, token, building, hub);
    await okEmpty(
      p.http(`/api/relations?${q({ entityId: hub.id, entityType: 'ASSET' })}`, { method: 'DELETE', token }),
    );
    expect(
      await okJson(p.http(`/api/relations?${q({ fromId: hub.id, fromType: 'ASSET' })}`, { token })),
    ).toEqual([]);
    expect(await okJson(p.http(`/api/relations?${q({ toId: hub.id, toType: 'ASSET' })}`, { token }))).toEqual(
      [],
    );
  });

  it('lets a customer user relate its own entities, not the tenant’s, and lists only what it may read', async () => {
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<{ customerId: EntityRef }>(p.http('/api/auth/user', { token: customer }));
    const room = (await createAsset(p, token, { name: unique('Room'), customerId: me.customerId })).id;
    const lamp = (await createDevice(p, token, { name: unique('Lamp'), customerId: me.customerId })).id;
    await okEmpty(
      p.http('/api/relation', {
        method: 'POST',
        token: customer,
        json: { from: room, to: lamp, type: 'Contains' },
      }),
    );
    await expectTbError(
      await p.http('/api/relation', {
        method: 'POST',
        token: customer,
        json: { from: building, to: lamp, type: 'Contains' },
      }),
      403,
      20,
    );
    await relate(p, token, building, room); // the tenant relates its building to the customer's room
    const toRoom = await okJson<RelationJson[]>(
      p.http(`/api/relations?${q({ toId: room.id, toType: 'ASSET' })}`, { token: customer }),
    );
    expect(toRoom).toEqual([]);
    const fromRoom = await okJson<RelationJson[]>(
      p.http(`/api/relations?${q({ fromId: room.id, fromType: 'ASSET' })}`, { token: customer }),
    );
    expect(fromRoom.map((r) => r.to)).toEqual([lamp]);
    await expectTbError(
      await p.http(`/api/relations?${q({ fromId: building.id, fromType: 'ASSET' })}`, { token: customer }),
      403,
      20,
    );
  });
});
