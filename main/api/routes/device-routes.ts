import { Type } from 'typebox';
import { OptionalPageQuery, PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import {
  BulkImportRequest,
  BulkImportResult,
  Device,
  DeviceCredentials,
  DeviceInfo,
  DeviceProfileInfo,
  DeviceSearchQuery,
  EntityInfo,
  EntitySubtype,
  SaveDeviceWithCredentialsRequest,
  DeviceProfile,
  SaveDeviceCredentialsRequest,
  SaveDeviceProfileRequest,
  SaveDeviceRequest,
} from '../../../shared/schemas/entities.ts';
import { requireCustomerAccess, requireTenantAdmin } from '../../platform/auth/principal.ts';
import { DEVICE_INFO_SORT } from '../../platform/device-queries.ts';
import { requestedCredentials } from '../../platform/devices.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, requirePage, type Api, type RouteDeps } from '../route-types.ts';

const DEVICE_SORT = ['createdTime', 'name', 'type', 'label', 'deviceProfileName'] as const;

/** ThingsBoard's device info filter: type wins over deviceProfileId; active is the device's 'active' attribute. */
export const DeviceInfoQuery = Type.Intersect([
  PageQuery(DEVICE_INFO_SORT),
  Type.Object({
    type: Type.Optional(Type.String({ maxLength: 255 })),
    deviceProfileId: Type.Optional(Uuid),
    active: Type.Optional(Type.Boolean()),
  }),
]);

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
          ...OptionalPageQuery(DEVICE_SORT).properties,
          deviceName: Type.Optional(Type.String({ minLength: 1 })),
          type: Type.Optional(Type.String()),
        }),
        response: { 200: Type.Union([PageData(Device), Device]), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      requireTenantAdmin(p);
      const q = request.query;
      if (q.deviceName !== undefined) return services.devices.getByName(q.deviceName, p);
      return services.devices.page({ ...q, ...requirePage(q) }, { type: q.type });
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

  app.get(
    '/api/device/info/:id',
    {
      schema: {
        tags,
        summary: 'A device with its customer title, profile name and activity',
        params: IdParams,
        response: { 200: DeviceInfo, ...authErrors },
      },
    },
    async (request) => services.deviceQueries.info(request.params.id, principalOf(request)),
  );
  app.get(
    '/api/tenant/deviceInfos',
    {
      schema: {
        tags,
        summary: "The tenant's devices with customer titles, profile names and activity, a page at a time",
        querystring: DeviceInfoQuery,
        response: { 200: PageData(DeviceInfo), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return services.deviceQueries.infoPage(request.query, request.query);
    },
  );
  app.get(
    '/api/customer/:customerId/deviceInfos',
    {
      schema: {
        tags,
        summary: "A customer's devices with customer titles, profile names and activity",
        params: Type.Object({ customerId: Uuid }),
        querystring: DeviceInfoQuery,
        response: { 200: PageData(DeviceInfo), ...authErrors },
      },
    },
    async (request) => {
      services.customers.get(request.params.customerId, principalOf(request));
      return services.deviceQueries.infoPage(request.query, {
        ...request.query,
        customerId: request.params.customerId,
      });
    },
  );
  app.get(
    '/api/devices',
    {
      schema: {
        tags,
        summary: 'Devices by id (repeated or comma-separated deviceIds); ids not visible to you are left out',
        querystring: Type.Object({ deviceIds: Type.Array(Uuid, { minItems: 1, maxItems: 1000 }) }),
        response: { 200: Type.Array(Device), ...authErrors },
      },
    },
    async (request) => services.deviceQueries.byIds(request.query.deviceIds, principalOf(request)),
  );
  app.post(
    '/api/devices',
    {
      schema: {
        tags,
        summary: 'Devices related to an entity (DeviceSearchQuery), of the given device types',
        body: DeviceSearchQuery,
        response: { 200: Type.Array(Device), ...authErrors },
      },
    },
    async (request) => services.deviceQueries.search(request.body, principalOf(request)),
  );
  app.get(
    '/api/device/types',
    {
      schema: {
        tags,
        summary: 'The device types (profile names) in use',
        response: { 200: Type.Array(EntitySubtype), ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return services.deviceQueries.types();
    },
  );
  app.get(
    '/api/devices/count/:otaPackageType/:deviceProfileId',
    {
      schema: {
        tags,
        summary: 'Devices of a profile without an OTA package of the type assigned to them',
        params: Type.Object({
          otaPackageType: Type.String({ description: 'FIRMWARE or SOFTWARE' }),
          deviceProfileId: Uuid,
        }),
        response: { 200: Type.Integer(), ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return services.deviceQueries.countWithoutOtaPackage(
        request.params.otaPackageType,
        request.params.deviceProfileId,
      );
    },
  );
  app.post(
    '/api/device-with-credentials',
    {
      schema: {
        tags,
        summary: 'Create or update a device together with its credentials (ACCESS_TOKEN or MQTT_BASIC)',
        body: SaveDeviceWithCredentialsRequest,
        response: { 200: Device, ...authErrors },
      },
    },
    async (request) => {
      const { device, credentials } = request.body;
      return services.devices.save(device, principalOf(request), requestedCredentials(credentials));
    },
  );
  app.post(
    '/api/device/bulk_import',
    {
      schema: {
        tags,
        summary: 'Create or update devices from CSV (one device a line), with attributes and telemetry',
        body: BulkImportRequest,
        response: { 200: BulkImportResult, ...authErrors },
      },
    },
    async (request) => services.bulkImport.run(request.body, principalOf(request)),
  );
  app.post(
    '/api/customer/public/device/:id',
    {
      schema: {
        tags,
        summary: 'Make a device public: assign it to the public customer',
        params: IdParams,
        response: { 200: Device, ...authErrors },
      },
    },
    async (request) => services.devices.assignToPublicCustomer(request.params.id, principalOf(request)),
  );
  app.post(
    '/api/tenant/:tenantId/device/:id',
    {
      schema: {
        tags,
        summary:
          'Assign a device to a tenant (Sandboard has one: the device loses its customer and relations)',
        params: Type.Object({ tenantId: Uuid, id: Uuid }),
        response: { 200: Device, ...authErrors },
      },
    },
    async (request) =>
      services.devices.assignToTenant(request.params.tenantId, request.params.id, principalOf(request)),
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
        querystring: Type.Object({
          inlineImages: Type.Optional(
            Type.Boolean({ description: 'accepted; Sandboard keeps no profile images' }),
          ),
        }),
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
        summary: 'The default device profile (its info: id, name, type, transport)',
        response: { 200: DeviceProfileInfo, ...authErrors },
      },
    },
    async () => services.profiles.defaultInfo(),
  );
  app.get(
    '/api/deviceProfileInfo/:id',
    {
      schema: {
        tags: profileTags,
        summary: "A device profile's info",
        params: IdParams,
        response: { 200: DeviceProfileInfo, ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return services.profiles.info(request.params.id);
    },
  );
  app.get(
    '/api/deviceProfileInfos',
    {
      schema: {
        tags: profileTags,
        summary:
          'Device profile infos a page at a time (optionally of one transportType), or by deviceProfileIds',
        querystring: Type.Object({
          ...OptionalPageQuery(['createdTime', 'name', 'type', 'transportType']).properties,
          deviceProfileIds: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })),
          transportType: Type.Optional(Type.String({ maxLength: 32 })),
        }),
        response: {
          200: Type.Union([PageData(DeviceProfileInfo), Type.Array(DeviceProfileInfo)]),
          ...authErrors,
        },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const q = request.query;
      if (q.deviceProfileIds) {
        requireTenantAdmin(p);
        return services.profiles.infosByIds(q.deviceProfileIds);
      }
      const page = requirePage(q);
      return services.profiles.infoPage({ ...q, ...page }, q.transportType);
    },
  );
  app.get(
    '/api/deviceProfile/names',
    {
      schema: {
        tags: profileTags,
        summary: 'Device profile names (activeOnly: those some device uses)',
        querystring: Type.Object({ activeOnly: Type.Optional(Type.Boolean({ default: false })) }),
        response: { 200: Type.Array(EntityInfo), ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return services.profiles.names(request.query.activeOnly ?? false);
    },
  );
  for (const kind of ['attributes', 'timeseries'] as const) {
    app.get(
      `/api/deviceProfile/devices/keys/${kind}`,
      {
        schema: {
          tags: profileTags,
          summary: `The ${kind === 'attributes' ? 'attribute' : 'time series'} keys of the devices of a profile (of every device without deviceProfileId)`,
          querystring: Type.Object({ deviceProfileId: Type.Optional(Uuid) }),
          response: { 200: Type.Array(Type.String()), ...authErrors },
        },
      },
      async (request) => {
        requireTenantAdmin(principalOf(request));
        return services.profiles.deviceKeys(kind, request.query.deviceProfileId);
      },
    );
  }
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
