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
import type { DeviceRow } from '../../platform/devices.ts';
import { parseAttributes, parseTelemetry } from '../../platform/telemetry-payload.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const EntityParams = Type.Object({ entityType: Type.String(), entityId: Uuid });
const ScopeParams = Type.Object({ entityType: Type.String(), entityId: Uuid, scope: AttributeScope });
const KeysQuery = Type.Object({ keys: Type.Optional(Type.String({ description: 'Comma-separated keys' })) });

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

  function device(request: {
    params: { entityType: string; entityId: string };
    principal: Principal | null;
  }): DeviceRow {
    if (request.params.entityType !== 'DEVICE') {
      throw invalidArgument(
        `Unsupported entity type '${request.params.entityType}': Sandboard keeps telemetry of DEVICE entities`,
      );
    }
    return services.devices.accessibleRow(request.params.entityId, principalOf(request));
  }

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
    async (request) => services.telemetry.timeseriesKeys(device(request)),
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
      ...new Set(services.telemetry.attributes(device(request).id, ATTRIBUTE_SCOPES).map((a) => a.key)),
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
      services.telemetry.attributes(device(request).id, [request.params.scope]).map((a) => a.key),
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
      if (q.startTs !== undefined && q.endTs !== undefined && q.startTs > q.endTs) {
        throw invalidArgument("Invalid query: 'startTs' must not be after 'endTs'");
      }
      return services.telemetry.timeseries(device(request), {
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
        .attributes(device(request).id, ATTRIBUTE_SCOPES, splitKeys(request.query.keys))
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
        .attributes(device(request).id, [request.params.scope], splitKeys(request.query.keys))
        .map(({ key, value, lastUpdateTs }) => ({ key, value, lastUpdateTs })),
  );

  const saveAttributes = async (request: {
    params: { entityType: string; entityId: string; scope: AttributeScope };
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
    const target = device(request);
    await services.telemetry.saveAttributes(target.id, request.params.scope, parsed.value);
    ruleChains.engine.submit(
      newMsg('ATTRIBUTES_UPDATED', { entityType: 'DEVICE', id: target.id }, parsed.value, {
        scope: request.params.scope,
        deviceName: target.name,
        deviceType: target.type,
      }),
    );
  };
  const attributesBody = Type.Record(Type.String(), Type.Unknown(), { description: '{"key": value, ...}' });
  for (const path of [`${base}/attributes/:scope`, `${base}/:scope`]) {
    app.post(
      path,
      {
        schema: {
          tags,
          summary: 'Save SERVER_SCOPE or SHARED_SCOPE attributes',
          params: ScopeParams,
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
  app.post(
    `${base}/timeseries/:scope`,
    {
      schema: {
        tags,
        summary: 'Save time series ({"k":v}, {"ts":ms,"values":{...}} or an array)',
        params: Type.Object({ entityType: Type.String(), entityId: Uuid, scope: Type.String() }),
        body: TelemetryBody,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      const parsed = parseTelemetry(request.body, services.ctx.now());
      if (!parsed.ok) throw invalidArgument(parsed.error);
      const target = device(request);
      await services.telemetry.saveTimeseries(target, parsed.value);
      for (const entry of parsed.value) {
        ruleChains.engine.submit(
          newMsg('TIMESERIES_UPDATED', { entityType: 'DEVICE', id: target.id }, entry.values, {
            ts: String(entry.ts),
            deviceName: target.name,
            deviceType: target.type,
          }),
        );
      }
      return reply.code(200).send(undefined);
    },
  );
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
      await services.telemetry.deleteTimeseries(device(request), keys, range);
      return reply.code(200).send(undefined);
    },
  );
  app.delete(
    `${base}/:scope`,
    {
      schema: {
        tags,
        summary: 'Delete attributes of a scope',
        params: ScopeParams,
        querystring: Type.Object({ keys: Type.String({ minLength: 1 }) }),
        response: emptyOk,
      },
    },
    async (request, reply) => {
      const target = device(request);
      const keys = splitKeys(request.query.keys) ?? [];
      await services.telemetry.deleteAttributes(target.id, request.params.scope, keys);
      ruleChains.engine.submit(
        newMsg(
          'ATTRIBUTES_DELETED',
          { entityType: 'DEVICE', id: target.id },
          { attributes: keys },
          {
            scope: request.params.scope,
            deviceName: target.name,
            deviceType: target.type,
          },
        ),
      );
      return reply.code(200).send(undefined);
    },
  );
}
