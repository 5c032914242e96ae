/**
 * The REST connector's calls (/api/sandboard/restConnectors), typed with the server's own TypeBox shapes
 * and sent through the one API client's request helper (its session, refresh and error handling).
 */
import type {
  ConnectorTarget,
  ConvertersInfo,
  OutgoingLogEntry,
  RequestLogEntry,
  RestConfigValidation,
  RestConnectorDetails,
  RestConnectorSummary,
  RestEndpointInfo,
  SaveRestConnectorRequest,
  TestRequest,
  TestResponse,
} from '../../../shared/schemas/rest-connector.ts';
import type { ApiClient } from './client.ts';

export type {
  ConnectorTarget,
  ConvertersInfo,
  OutgoingLogEntry,
  RequestLogEntry,
  RestConfigValidation,
  RestConnectorDetails,
  RestConnectorSummary,
  RestEndpointInfo,
  SaveRestConnectorRequest,
  TestRequest,
  TestResponse,
};

const BASE = '/api/sandboard/restConnectors';
const at = (id: string, rest = '') => `${BASE}/${encodeURIComponent(id)}${rest}`;

/** The JSON Schema of rest.json (both formats), for the editor's completion. */
export function restConfigSchema(client: ApiClient): Promise<unknown> {
  return client.request('GET', `${BASE}/schema`);
}

/** The gateway's default rest.json: the template of a new connector. */
export function restConfigTemplate(client: ApiClient): Promise<unknown> {
  return client.request('GET', `${BASE}/template`);
}

/** Errors and warnings of a rest.json, each with its JSON path. */
export function validateRestConfig(client: ApiClient, config: unknown): Promise<RestConfigValidation> {
  return client.request('POST', `${BASE}/validate`, { body: { config } });
}

/** The custom converter modules of the data directory, and where that folder is. */
export function converterModules(client: ApiClient): Promise<ConvertersInfo> {
  return client.request('GET', `${BASE}/converters`);
}

export function restConnectors(client: ApiClient): Promise<RestConnectorSummary[]> {
  return client.request('GET', BASE);
}

export function restConnector(client: ApiClient, id: string): Promise<RestConnectorDetails> {
  return client.request('GET', at(id));
}

/** A 400 lists the bad JSON paths of rest.json; a 409 a taken name. */
export function createRestConnector(
  client: ApiClient,
  body: SaveRestConnectorRequest,
): Promise<RestConnectorDetails> {
  return client.request('POST', BASE, { body });
}

/** Replaces a connector; a running one restarts with the new rest.json. */
export function updateRestConnector(
  client: ApiClient,
  id: string,
  body: SaveRestConnectorRequest,
): Promise<RestConnectorDetails> {
  return client.request('PUT', at(id), { body });
}

export function deleteRestConnector(client: ApiClient, id: string): Promise<void> {
  return client.request('DELETE', at(id));
}

/** Starts (no body, no content type); a 502 says why it did not start. */
export function startRestConnector(client: ApiClient, id: string): Promise<RestConnectorSummary> {
  return client.request('POST', at(id, '/start'));
}

export function stopRestConnector(client: ApiClient, id: string): Promise<RestConnectorSummary> {
  return client.request('POST', at(id, '/stop'));
}

/** Makes a self-signed certificate and key and switches the connector to HTTPS. */
export function selfSignedCertificate(client: ApiClient, id: string): Promise<RestConnectorDetails> {
  return client.request('POST', at(id, '/selfSignedCertificate'));
}

/** Every endpoint and method, with a ready-made curl command. */
export function restEndpoints(client: ApiClient, id: string): Promise<RestEndpointInfo[]> {
  return client.request('GET', at(id, '/endpoints'));
}

/** The latest requests the connector answered, newest first. */
export function restRequestLog(client: ApiClient, id: string, limit = 100): Promise<RequestLogEntry[]> {
  return client.request('GET', at(id, '/requests'), { query: { limit } });
}

/** The latest outgoing calls (attribute updates, RPC) with their tries, newest first. */
export function restOutgoingLog(client: ApiClient, id: string, limit = 100): Promise<OutgoingLogEntry[]> {
  return client.request('GET', at(id, '/outgoing'), { query: { limit } });
}

/** Sends a request (JSON, text or multipart) to a running connector's endpoint. */
export function testRestConnector(client: ApiClient, id: string, body: TestRequest): Promise<TestResponse> {
  return client.request('POST', at(id, '/test'), { body });
}
