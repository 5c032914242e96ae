import { Badge } from '@mantine/core';
import type { RestEndpointInfo } from '../../api/rest-connector-api.ts';

type ConnectorState = 'stopped' | 'starting' | 'running' | 'failed';

const STATE_COLORS: Record<ConnectorState, string> = {
  running: 'teal',
  starting: 'yellow',
  stopped: 'gray',
  failed: 'red',
};

export function ConnectorStateBadge({ state, testId }: { state: ConnectorState; testId?: string }) {
  return (
    <Badge variant="light" color={STATE_COLORS[state]} data-testid={testId} data-state={state}>
      {state}
    </Badge>
  );
}

const METHOD_COLORS: Record<string, string> = {
  GET: 'blue',
  POST: 'teal',
  PUT: 'orange',
  PATCH: 'grape',
  DELETE: 'red',
};

export function MethodBadge({ method }: { method: string }) {
  return (
    <Badge variant="outline" color={METHOD_COLORS[method.toUpperCase()] ?? 'gray'} radius="sm" w={64}>
      {method}
    </Badge>
  );
}

export function statusColor(status: number | null): string {
  if (status === null) return 'red';
  if (status < 300) return 'teal';
  if (status < 400) return 'blue';
  if (status < 500) return 'orange';
  return 'red';
}

export function StatusBadge({ status }: { status: number | null }) {
  return (
    <Badge variant="light" color={statusColor(status)} radius="sm" data-testid="http-status">
      {status ?? 'no answer'}
    </Badge>
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rest.json section an endpoint comes from (either format). */
function sectionOf(
  config: unknown,
  endpoint: Pick<RestEndpointInfo, 'kind' | 'index'>,
): Record<string, unknown> {
  if (!isRecord(config)) return {};
  if (endpoint.kind === 'mapping') {
    const list = Array.isArray(config.mapping) ? config.mapping : [];
    const entry: unknown = list[endpoint.index];
    return isRecord(entry) ? entry : {};
  }
  const requests = isRecord(config.requestsMapping) ? config.requestsMapping : config;
  const list = Array.isArray(requests.attributeRequests) ? requests.attributeRequests : [];
  const entry: unknown = list[endpoint.index];
  return isRecord(entry) ? entry : {};
}

/** The basic credentials an endpoint expects (the gateway's defaults when the file leaves them out). */
export function endpointCredentials(
  config: unknown,
  endpoint: Pick<RestEndpointInfo, 'kind' | 'index' | 'security'>,
): { username: string; password: string } | null {
  if (endpoint.security !== 'basic') return null;
  const security = sectionOf(config, endpoint).security;
  const s = isRecord(security) ? security : {};
  return {
    username: typeof s.username === 'string' ? s.username : 'username',
    password: typeof s.password === 'string' ? s.password : 'password',
  };
}

/** The port in a rest.json (either format), as a string. */
export function configPort(config: unknown): string {
  if (!isRecord(config)) return '';
  const server = isRecord(config.server) ? config.server : config;
  const port = server.port;
  return typeof port === 'number' || typeof port === 'string' ? String(port) : '';
}

/** A copy of a rest.json with another host and port (in the format it is written in). */
export function withServer(config: unknown, host: string, port: string): unknown {
  if (!isRecord(config)) return config;
  const legacy = !isRecord(config.server) && ('host' in config || 'port' in config);
  if (legacy) return { ...config, host, port };
  const server = isRecord(config.server) ? config.server : {};
  return { ...config, server: { ...server, host, port } };
}

export const pretty = (v: unknown) => JSON.stringify(v, null, 2);
