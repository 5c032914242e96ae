import { Type } from 'typebox';
import { Uuid } from '../../../shared/schemas/common.ts';
import { DeviceTransportStats, TransportLimits } from '../../../shared/schemas/transport-limits.ts';
import type { Services } from '../../platform/services.ts';
import type { TransportLimiter } from '../../transport/rate-limiter.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api } from '../route-types.ts';

const tags = ['Sandboard'];

/** The tenant's transport rate limits (Settings page) and what they refused of each device. */
export function registerTransportLimitsRoutes(
  app: Api,
  { services, limiter }: { services: Services; limiter: TransportLimiter },
): void {
  app.get(
    '/api/sandboard/transportLimits',
    {
      schema: {
        tags,
        summary:
          "The tenant's transport rate limits, as ThingsBoard's tenant profile names them (empty = unlimited)",
        response: { 200: TransportLimits, ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return services.transportLimits.get();
    },
  );
  app.post(
    '/api/sandboard/transportLimits',
    {
      schema: {
        tags,
        summary: 'Set the transport rate limits; MQTT and the device HTTP API enforce them at once',
        body: TransportLimits,
        response: { 200: TransportLimits, ...authErrors },
      },
    },
    async (request) => services.transportLimits.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/sandboard/device/:deviceId/transportStats',
    {
      schema: {
        tags,
        summary: "A device's messages the rate limits refused since start",
        params: Type.Object({ deviceId: Uuid }),
        response: { 200: DeviceTransportStats, ...authErrors },
      },
    },
    async (request) => {
      services.devices.accessibleRow(request.params.deviceId, principalOf(request));
      return limiter.statsOf(request.params.deviceId);
    },
  );
}
