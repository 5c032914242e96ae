import { Type } from 'typebox';
import { PageNumber, PageSize } from '../../../shared/limits.ts';
import { PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import {
  Device,
  DeviceCredentials,
  DeviceProfile,
  SaveDeviceCredentialsRequest,
  SaveDeviceProfileRequest,
  SaveDeviceRequest,
} from '../../../shared/schemas/entities.ts';
import { requireCustomerAccess, requireTenantAdmin } from '../../platform/auth/principal.ts';
import { badRequestParams } from '../../platform/errors.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const DEVICE_SORT = ['createdTime', 'name', 'type', 'label', 'deviceProfileName'] as const;

export function registerDeviceRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['Devices'];
  const IdParams = Type.Object({ id: Uuid });
  app.post(
    '/api/device',
    {
      schema: {
        tags,
        summary: 'Create or update a device; accessToken sets its token (else one is generated)',
        body: SaveDeviceRequest,
        querystring: Type.Object({
          accessToken: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^\\S+$' })),
        }),
        response: { 200: Device, ...authErrors },
      },
    },
    async (request) => services.devices.save(request.body, principalOf(request), request.query.accessToken),
  );
  app.get(
    '/api/device/:id',
    { schema: { tags, summary: 'A device', params: IdParams, response: { 200: Device, ...authErrors } } },
    async (request) => services.devices.get(request.params.id, principalOf(request)),
  );
  app.delete(
    '/api/device/:id',
    {
      schema: {
        tags,
        summary: 'Delete a device with its credentials, attributes and telemetry',
        params: IdParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await services.devices.delete(request.params.id, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/tenant/devices',
    {
      schema: {
        tags,
        summary: "The tenant's devices a page at a time, or one device by deviceName",
        querystring: Type.Object({
          deviceName: Type.Optional(Type.String({ minLength: 1 })),
          type: Type.Optional(Type.String()),
          pageSize: Type.Optional(PageSize()),
          page: Type.Optional(PageNumber()),
          textSearch: Type.Optional(Type.String({ maxLength: 255 })),
          sortProperty: Type.Optional(Type.Union(DEVICE_SORT.map((s) => Type.Literal(s)))),
          sortOrder: Type.Optional(Type.Union([Type.Literal('ASC'), Type.Literal('DESC')])),
        }),
        response: { 200: Type.Union([PageData(Device), Device]), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      requireTenantAdmin(p);
      const q = request.query;
      if (q.deviceName !== undefined) return services.devices.getByName(q.deviceName, p);
      if (q.pageSize === undefined)
        throw badRequestParams("Required request parameter 'pageSize' is not present");
      if (q.page === undefined) throw badRequestParams("Required request parameter 'page' is not present");
      return services.devices.page({ ...q, pageSize: q.pageSize, page: q.page }, { type: q.type });
    },
  );
  app.get(
    '/api/customer/:customerId/devices',
    {
      schema: {
        tags,
        summary: "A customer's devices",
        params: Type.Object({ customerId: Uuid }),
        querystring: Type.Intersect([
          PageQuery(DEVICE_SORT),
          Type.Object({ type: Type.Optional(Type.String()) }),
        ]),
        response: { 200: PageData(Device), ...authErrors },
      },
    },
    async (request) => {
      requireCustomerAccess(principalOf(request), request.params.customerId);
      return services.devices.page(request.query, {
        customerId: request.params.customerId,
        type: request.query.type,
      });
    },
  );
  app.post(
    '/api/customer/:customerId/device/:id',
    {
      schema: {
        tags,
        summary: 'Assign a device to a customer',
        params: Type.Object({ customerId: Uuid, id: Uuid }),
        response: { 200: Device, ...authErrors },
      },
    },
    async (request) =>
      services.devices.assignToCustomer(request.params.id, request.params.customerId, principalOf(request)),
  );
  app.delete(
    '/api/customer/device/:id',
    {
      schema: {
        tags,
        summary: 'Unassign a device from its customer',
        params: IdParams,
        response: { 200: Device, ...authErrors },
      },
    },
    async (request) => services.devices.assignToCustomer(request.params.id, null, principalOf(request)),
  );
  app.get(
    '/api/device/:id/credentials',
    {
      schema: {
        tags,
        summary: "A device's credentials (access token)",
        params: IdParams,
        response: { 200: DeviceCredentials, ...authErrors },
      },
    },
    async (request) => services.devices.getCredentials(request.params.id, principalOf(request)),
  );
  app.post(
    '/api/device/:id/credentials',
    {
      schema: {
        tags,
        summary: "Change a device's access token",
        params: IdParams,
        body: SaveDeviceCredentialsRequest,
        response: { 200: DeviceCredentials, ...authErrors },
      },
    },
    async (request) =>
      services.devices.saveCredentials(request.params.id, request.body, principalOf(request)),
  );
  app.post(
    '/api/device/credentials',
    {
      schema: {
        tags,
        summary: "Change a device's access token (ThingsBoard's form: deviceId in the body)",
        body: Type.Intersect([
          SaveDeviceCredentialsRequest,
          Type.Object({ deviceId: Type.Object({ id: Uuid }) }),
        ]),
        response: { 200: DeviceCredentials, ...authErrors },
      },
    },
    async (request) =>
      services.devices.saveCredentials(request.body.deviceId.id, request.body, principalOf(request)),
  );

  const profileTags = ['Device profiles'];
  app.post(
    '/api/deviceProfile',
    {
      schema: {
        tags: profileTags,
        summary: 'Create or update a device profile',
        body: SaveDeviceProfileRequest,
        response: { 200: DeviceProfile, ...authErrors },
      },
    },
    async (request) => services.profiles.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/deviceProfile/:id',
    {
      schema: {
        tags: profileTags,
        summary: 'A device profile',
        params: IdParams,
        response: { 200: DeviceProfile, ...authErrors },
      },
    },
    async (request) => services.profiles.get(request.params.id),
  );
  app.delete(
    '/api/deviceProfile/:id',
    {
      schema: {
        tags: profileTags,
        summary: 'Delete a device profile no device uses',
        params: IdParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await services.profiles.delete(request.params.id, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    '/api/deviceProfile/:id/default',
    {
      schema: {
        tags: profileTags,
        summary: 'Make a profile the default',
        params: IdParams,
        response: { 200: DeviceProfile, ...authErrors },
      },
    },
    async (request) => services.profiles.setDefault(request.params.id, principalOf(request)),
  );
  app.get(
    '/api/deviceProfileInfo/default',
    {
      schema: {
        tags: profileTags,
        summary: 'The default device profile',
        response: { 200: DeviceProfile, ...authErrors },
      },
    },
    async () => services.profiles.getDefault(),
  );
  app.get(
    '/api/deviceProfiles',
    {
      schema: {
        tags: profileTags,
        summary: 'Device profiles, a page at a time',
        querystring: PageQuery(['createdTime', 'name', 'type', 'transportType']),
        response: { 200: PageData(DeviceProfile), ...authErrors },
      },
    },
    async (request) => services.profiles.page(request.query),
  );
}
