import { parseProvisionRequest, type ProvisionResponse } from '../platform/provisioning.ts';
import { newMsg } from '../platform/tb-msg.ts';
import type { TransportCore } from './device-messages.ts';

/**
 * A provision request from either transport: the answer as ThingsBoard gives it, and the rule engine
 * told (ENTITY_CREATED, PROVISION_SUCCESS / PROVISION_FAILURE). Throws ProvisionPayloadError for a body
 * that is not a provision request.
 */
export async function provisionDevice(
  core: TransportCore,
  body: unknown,
  clientAddress: string,
): Promise<ProvisionResponse> {
  const request = parseProvisionRequest(body);
  const { response, events } = await core.services.provisioning.provision(request, clientAddress);
  for (const e of events) {
    core.engine.submit(
      newMsg(e.type, { entityType: 'DEVICE', id: e.device.id }, e.data, {
        deviceName: e.device.name,
        deviceType: e.device.type,
      }),
    );
  }
  return response;
}
