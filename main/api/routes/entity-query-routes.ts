import { Type } from 'typebox';
import { PageData } from '../../../shared/schemas/common.ts';
import {
  AlarmCountQuery,
  AlarmData,
  AlarmDataQuery,
  AvailableEntityKeys,
  EntityCountQuery,
  EntityData,
  EntityDataQuery,
  FindKeysQuery,
} from '../../../shared/schemas/entity-query.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api, type RouteDeps } from '../route-types.ts';

/** ThingsBoard's EntityQueryController (the EDQS system endpoints aside: Sandboard has no EDQS). */
export function registerEntityQueryRoutes(app: Api, { services }: RouteDeps): void {
  const query = services.entityQuery;
  const tags = ['Entity query'];
  app.post(
    '/api/entitiesQuery/find',
    {
      schema: {
        tags,
        summary: 'Entities of a filter with their fields and latest values, sorted and paged',
        body: EntityDataQuery,
        response: { 200: PageData(EntityData), ...authErrors },
      },
    },
    async (request) => query.find(request.body, principalOf(request)),
  );
  app.post(
    '/api/entitiesQuery/count',
    {
      schema: {
        tags,
        summary: 'How many entities a filter (and its key filters) selects',
        body: EntityCountQuery,
        response: { 200: Type.Integer(), ...authErrors },
      },
    },
    async (request) => query.count(request.body, principalOf(request)),
  );
  app.post(
    '/api/entitiesQuery/find/keys',
    {
      schema: {
        tags,
        summary: 'The time series and attribute keys of the entities a query finds (at most 100)',
        body: EntityDataQuery,
        querystring: FindKeysQuery,
        response: { 200: AvailableEntityKeys, ...authErrors },
      },
    },
    async (request) =>
      query.findKeys(
        request.body,
        {
          timeseries: request.query.timeseries,
          attributes: request.query.attributes,
          scope: request.query.scope,
        },
        principalOf(request),
      ),
  );
  app.post(
    '/api/alarmsQuery/find',
    {
      schema: {
        tags,
        summary: 'Alarms of the entities of a filter, with entity fields and latest values',
        body: AlarmDataQuery,
        response: { 200: PageData(AlarmData), ...authErrors },
      },
    },
    async (request) => query.findAlarms(request.body, principalOf(request)),
  );
  app.post(
    '/api/alarmsQuery/count',
    {
      schema: {
        tags,
        summary: 'How many alarms an alarm query selects',
        body: AlarmCountQuery,
        response: { 200: Type.Integer(), ...authErrors },
      },
    },
    async (request) => query.countAlarms(request.body, principalOf(request)),
  );
  app.get(
    '/api/edqs/enabled',
    {
      schema: {
        tags,
        summary: "Whether ThingsBoard's entity data query service (EDQS) answers queries: never in Sandboard",
        response: { 200: Type.Boolean(), ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return false;
    },
  );
}
