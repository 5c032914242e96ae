import { Type } from 'typebox';
import { EpochMs } from '../../../shared/limits.ts';
import { Uuid } from '../../../shared/schemas/common.ts';
import {
  ATTRIBUTE_SCOPES,
  AttributeData,
  AttributeScope,
  TelemetryBody,
  TimeseriesData,
  TimeseriesQuery,
} from '../../../shared/schemas/telemetry.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { newMsg } from '../../platform/tb-msg.ts';
import { parseAttributes, parseTelemetry } from '../../platform/telemetry-payload.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import type { Access } from '../../platform/entity-directory.ts';
import type { TelemetryTarget } from '../../platform/telemetry.ts';
import type { MsgType } from '../../../shared/rule-engine.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const EntityParams = Type.Object({ entityType: Type.String(), entityId: Uuid });
const ScopeParams = Type.Object({ entityType: Type.String(), entityId: Uuid, scope: AttributeScope });
/** ThingsBoard's first attribute paths, without the entity type: /api/plugins/telemetry/{deviceId}/{scope}. */
const LEGACY = '/api/plugins/telemetry/:deviceId/:scope';
const LegacyParams = Type.Object({ deviceId: Uuid, scope: AttributeScope });
const KeysQuery = Type.Object({ keys: Type.Optional(Type.String({ description: 'Comma-separated keys' })) });

/** An entity whose attributes and time series a request reads or writes. */
type Target = TelemetryTarget & { entityType: string; name: string; type: string | null };

function splitKeys(keys: string | undefined): string[] | undefined {
  if (keys === undefined) return undefined;
  const list = keys
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  return list.length ? list : undefined;
}

export function registerTelemetryRoutes(app: Api, { services, ruleChains }: RouteDeps): void {
  const tags = ['Telemetry'];
  const base = '/api/plugins/telemetry/:entityType/:entityId';

  /**
   * The entity a request names, if the principal may read (or change) it, with its time series number:
   * a device, an asset, or any other entity type the platform keeps (400 for an unknown type).
   */
  function target(
    request: {
      params: { entityType?: string; entityId?: string; deviceId?: string };
      principal: Principal | null;
    },
    access: Access = 'read',
  ): Target {
    // ThingsBoard's legacy paths name a device alone: /api/plugins/telemetry/{deviceId}/{scope}
    const { entityType = 'DEVICE', entityId = request.params.deviceId! } = request.params;
    const actor = principalOf(request);
    if (entityType === 'DEVICE') {
      const row = services.devices.accessibleRow(entityId, actor);
      return { entityType, id: row.id, num: row.num, name: row.name, type: row.type };
    }
    const entity = services.directory.require({ entityType, id: entityId }, actor, access);
    return {
      entityType,
      id: entity.id,
      num: services.directory.telemetryNum(entityType, entity.id),
      name: entity.name,
      type: entity.type,
    };
  }

  /** A message of the rule engine about an entity (devices also carry deviceName and deviceType). */
  const submit = (type: MsgType, t: Target, data: unknown, metadata: Record<string, string>) =>
    ruleChains.engine.submit(
      newMsg(type, { entityType: t.entityType, id: t.id }, data, {
        ...metadata,
        ...(t.entityType === 'DEVICE'
          ? { deviceName: t.name, deviceType: t.type ?? '' }
          : { entityName: t.name, entityType: t.entityType }),
      }),
    );

  app.get(
    `${base}/keys/timeseries`,
    {
      schema: {
        tags,
        summary: 'Time series keys of an entity',
        params: EntityParams,
        response: { 200: Type.Array(Type.String()), ...authErrors },
      },
    },
    async (request) => services.telemetry.timeseriesKeys(target(request)),
  );
  app.get(
    `${base}/keys/attributes`,
    {
      schema: {
        tags,
        summary: 'Attribute keys of every scope',
        params: EntityParams,
        response: { 200: Type.Array(Type.String()), ...authErrors },
      },
    },
    async (request) => [
      ...new Set(services.telemetry.attributes(target(request).id, ATTRIBUTE_SCOPES).map((a) => a.key)),
    ],
  );
  app.get(
    `${base}/keys/attributes/:scope`,
    {
      schema: {
        tags,
        summary: 'Attribute keys of one scope',
        params: ScopeParams,
        response: { 200: Type.Array(Type.String()), ...authErrors },
      },
    },
    async (request) =>
      services.telemetry.attributes(target(request).id, [request.params.scope]).map((a) => a.key),
  );
  app.get(
    `${base}/values/timeseries`,
    {
      schema: {
        tags,
        summary: 'Latest values, or history with startTs/endTs (optionally aggregated by interval)',
        params: EntityParams,
        querystring: TimeseriesQuery,
        response: { 200: TimeseriesData, ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.intervalType && q.intervalType !== 'MILLISECONDS' && q.agg && q.agg !== 'NONE')
        throw invalidArgument(
          `intervalType ${q.intervalType} is not supported: Sandboard aggregates by fixed intervals (MILLISECONDS)`,
        );
      if (q.startTs !== undefined && q.endTs !== undefined && q.startTs > q.endTs) {
        throw invalidArgument("Invalid query: 'startTs' must not be after 'endTs'");
      }
      return services.telemetry.timeseries(target(request), {
        keys: splitKeys(q.keys),
        startTs: q.startTs,
        endTs: q.endTs,
        interval: q.interval,
        limit: q.limit,
        agg: q.agg as 'NONE' | undefined,
        orderBy: q.orderBy,
        strict: q.useStrictDataTypes ?? false,
      });
    },
  );
  app.get(
    `${base}/values/attributes`,
    {
      schema: {
        tags,
        summary: 'Attributes of every scope',
        params: EntityParams,
        querystring: KeysQuery,
        response: { 200: Type.Array(AttributeData), ...authErrors },
      },
    },
    async (request) =>
      services.telemetry
        .attributes(target(request).id, ATTRIBUTE_SCOPES, splitKeys(request.query.keys))
        .map(({ key, value, lastUpdateTs }) => ({ key, value, lastUpdateTs })),
  );
  app.get(
    `${base}/values/attributes/:scope`,
    {
      schema: {
        tags,
        summary: 'Attributes of one scope',
        params: ScopeParams,
        querystring: KeysQuery,
        response: { 200: Type.Array(AttributeData), ...authErrors },
      },
    },
    async (request) =>
      services.telemetry
        .attributes(target(request).id, [request.params.scope], splitKeys(request.query.keys))
        .map(({ key, value, lastUpdateTs }) => ({ key, value, lastUpdateTs })),
  );

  const saveAttributes = async (request: {
    params: { entityType?: string; entityId?: string; deviceId?: string; scope: AttributeScope };
    body: unknown;
    principal: Principal | null;
  }) => {
    if (request.params.scope === 'CLIENT_SCOPE') {
      throw invalidArgument(
        'Invalid attribute scope: CLIENT_SCOPE attributes are written by the device itself',
      );
    }
    const parsed = parseAttributes(request.body);
    if (!parsed.ok) throw invalidArgument(parsed.error);
    const entity = target(request, 'write');
    await services.telemetry.saveAttributes(entity.id, request.params.scope, parsed.value, entity.entityType);
    submit('ATTRIBUTES_UPDATED', entity, parsed.value, { scope: request.params.scope });
  };
  const attributesBody = Type.Record(Type.String(), Type.Unknown(), { description: '{"key": value, ...}' });
  for (const path of [`${base}/attributes/:scope`, `${base}/:scope`, LEGACY]) {
    app.post(
      path,
      {
        schema: {
          tags,
          summary:
            path === LEGACY
              ? "Save SERVER_SCOPE or SHARED_SCOPE attributes of a device (ThingsBoard's legacy path)"
              : 'Save SERVER_SCOPE or SHARED_SCOPE attributes',
          params: path === LEGACY ? LegacyParams : ScopeParams,
          body: attributesBody,
          response: emptyOk,
        },
      },
      async (request, reply) => {
        await saveAttributes(request);
        return reply.code(200).send(undefined);
      },
    );
  }
  for (const path of [`${base}/timeseries/:scope`, `${base}/timeseries/:scope/:ttl`]) {
    const withTtl = path.endsWith(':ttl');
    app.post(
      path,
      {
        schema: {
          tags,
          summary: withTtl
            ? 'Save time series with a TTL (accepted and unused, as ThingsBoard on SQL: the retention setting applies)'
            : 'Save time series ({"k":v}, {"ts":ms,"values":{...}} or an array)',
          params: Type.Object({
            entityType: Type.String(),
            entityId: Uuid,
            scope: Type.String(),
            ...(withTtl ? { ttl: Type.Integer({ minimum: 0, description: 'seconds' }) } : {}),
          }),
          body: TelemetryBody,
          response: emptyOk,
        },
      },
      async (request, reply) => {
        const parsed = parseTelemetry(request.body, services.ctx.now());
        if (!parsed.ok) throw invalidArgument(parsed.error);
        const entity = target(request, 'write');
        await services.telemetry.saveTimeseries(entity, parsed.value);
        for (const entry of parsed.value)
          submit('TIMESERIES_UPDATED', entity, entry.values, { ts: String(entry.ts) });
        return reply.code(200).send(undefined);
      },
    );
  }
  app.delete(
    `${base}/timeseries/delete`,
    {
      schema: {
        tags,
        summary: 'Delete time series history of keys',
        params: EntityParams,
        querystring: Type.Object({
          keys: Type.String({ minLength: 1 }),
          deleteAllDataForKeys: Type.Optional(Type.Boolean()),
          startTs: Type.Optional(EpochMs()),
          endTs: Type.Optional(EpochMs()),
          deleteLatest: Type.Optional(
            Type.Boolean({
              default: true,
              description: 'also delete the latest value when it is in the range',
            }),
          ),
          rewriteLatestIfDeleted: Type.Optional(
            Type.Boolean({
              default: false,
              description: 'replace a deleted latest value by the newest one left',
            }),
          ),
        }),
        response: emptyOk,
      },
    },
    async (request, reply) => {
      const q = request.query;
      const keys = splitKeys(q.keys) ?? [];
      let range: { startTs: number; endTs: number } | 'all';
      if (q.deleteAllDataForKeys) range = 'all';
      else if (q.startTs !== undefined && q.endTs !== undefined)
        range = { startTs: q.startTs, endTs: q.endTs };
      else throw invalidArgument("Give 'startTs' and 'endTs', or 'deleteAllDataForKeys=true'");
      await services.telemetry.deleteTimeseries(target(request, 'write'), keys, range, {
        deleteLatest: q.deleteLatest ?? true,
        rewriteLatest: q.rewriteLatestIfDeleted ?? false,
      });
      return reply.code(200).send(undefined);
    },
  );
  for (const path of [`${base}/:scope`, LEGACY])
    app.delete(
      path,
      {
        schema: {
          tags,
          summary:
            path === LEGACY
              ? "Delete attributes of a scope of a device (ThingsBoard's legacy path)"
              : 'Delete attributes of a scope',
          params: path === LEGACY ? LegacyParams : ScopeParams,
          querystring: Type.Object({ keys: Type.String({ minLength: 1 }) }),
          response: emptyOk,
        },
      },
      async (request, reply) => {
        const entity = target(request, 'write');
        const keys = splitKeys(request.query.keys) ?? [];
        await services.telemetry.deleteAttributes(entity.id, request.params.scope, keys, entity.entityType);
        submit('ATTRIBUTES_DELETED', entity, { attributes: keys }, { scope: request.params.scope });
        return reply.code(200).send(undefined);
      },
    );
}
