import type { Client } from 'aedes';
import {
  PROVISION_FAILURE,
  ProvisionPayloadError,
  ProvisionThrottledError,
} from '../../platform/provisioning.ts';
import type { TransportCore } from '../device-messages.ts';
import { provisionDevice } from '../provisioning.ts';
import { parseJsonPayload, ReasonCode, TransportError } from '../transport-error.ts';
import { writeJson } from './session-registry.ts';

/** The client's network address (aedes keeps the socket as its connection). */
const addressOf = (client: Client): string =>
  (client.conn as { remoteAddress?: string } | undefined)?.remoteAddress ?? '';

export const PROVISION_REQUEST_TOPIC = '/provision/request';
export const PROVISION_RESPONSE_TOPIC = '/provision/response';

/** ThingsBoard opens a provisioning-only session for the user name or the client id "provision". */
export function isProvisionConnect(clientId: string | undefined, username: string | undefined): boolean {
  return username === 'provision' || clientId === 'provision';
}

/**
 * A publish of a provisioning session: a request on /provision/request is answered on
 * /provision/response (NOT_FOUND and FAILURE too, in the answer's status); anything else is refused.
 */
export async function handleProvisionPublish(
  core: TransportCore,
  client: Client,
  topic: string,
  payload: Buffer,
): Promise<void> {
  if (topic !== PROVISION_REQUEST_TOPIC)
    throw new TransportError(
      ReasonCode.TOPIC_NAME_INVALID,
      `A provisioning session publishes only to ${PROVISION_REQUEST_TOPIC}`,
    );
  const body = parseJsonPayload(payload);
  let response;
  try {
    response = await provisionDevice(core, body, addressOf(client));
  } catch (err) {
    if (err instanceof ProvisionPayloadError)
      throw new TransportError(ReasonCode.IMPLEMENTATION_SPECIFIC_ERROR, err.message);
    // throttled: ThingsBoard's answer to a request it does not fulfil
    if (err instanceof ProvisionThrottledError) response = PROVISION_FAILURE;
    else throw err;
  }
  writeJson(client, PROVISION_RESPONSE_TOPIC, response);
}
