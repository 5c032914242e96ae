import { Type } from 'typebox';
import {
  ClientConnectRequest,
  ClientConnection,
  ClientPublishRequest,
  ClientSentMessage,
  ClientState,
  RpcRule,
} from '../../../shared/schemas/mqtt-client.ts';
import { TemplateError } from '../../../shared/payload-template.ts';
import { CsvSyntaxError } from '../../../shared/csv.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { badRequestParams, forbidden, notFound } from '../../platform/errors.ts';
import type { Services } from '../../platform/services.ts';
import { ClientInputError, type ConnectOptions } from '../../mqtt-client/client-connection.ts';
import type { MqttClientManager } from '../../mqtt-client/client-manager.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api } from '../route-types.ts';

const tags = ['Sandboard MQTT client'];
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** What a device's credentials give an MQTT client: client id, user name, password. */
function credentialsOf(
  services: Services,
  deviceId: string,
  principal: Principal,
): Pick<ConnectOptions, 'clientId' | 'username' | 'password'> {
  const c = services.devices.getCredentials(deviceId, principal);
  if (c.credentialsType === 'ACCESS_TOKEN') return { clientId: '', username: c.credentialsId };
  if (c.credentialsType === 'MQTT_BASIC') {
    const v = JSON.parse(c.credentialsValue ?? '{}') as {
      clientId?: string;
      userName?: string;
      password?: string;
    };
    return {
      clientId: v.clientId ?? '',
      ...(v.userName ? { username: v.userName } : {}),
      ...(v.password ? { password: v.password } : {}),
    };
  }
  throw badRequestParams(`The in-app client cannot connect with ${c.credentialsType} credentials`);
}

/** Input errors of the client (a bad template, a closed connection) as 400 with their message. */
async function clientCall<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ClientInputError || err instanceof TemplateError || err instanceof CsvSyntaxError)
      throw badRequestParams(err.message);
    throw err;
  }
}

/**
 * The in-app MQTT client: connections run in the core process (real sockets), as a device or gateway
 * (credentials filled in) or, for the tenant administrator, with any credentials to any broker.
 */
export function registerMqttClientRoutes(
  app: Api,
  {
    services,
    manager,
    brokerUrl,
  }: { services: Services; manager: MqttClientManager; brokerUrl: () => string | undefined },
): void {
  const connection = (principal: Principal, id: string) => {
    const c = manager.get(principal.userId, id);
    if (!c) throw notFound(`MQTT client connection [${id}] is not found`);
    return c;
  };
  app.get(
    '/api/sandboard/mqtt/clients',
    {
      schema: {
        tags,
        summary: "The user's client connections",
        response: { 200: Type.Array(ClientConnection), ...authErrors },
      },
    },
    async (request) => manager.list(principalOf(request).userId).map((c) => c.info()),
  );
  app.post(
    '/api/sandboard/mqtt/clients',
    {
      schema: {
        tags,
        summary: 'Connect: as a device (deviceId) or with the credentials given',
        body: ClientConnectRequest,
        response: { 200: ClientConnection, ...authErrors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const body = request.body;
      const device = body.deviceId ? services.devices.accessibleRow(body.deviceId, principal) : undefined;
      if (!device && principal.authority !== 'TENANT_ADMIN')
        throw badRequestParams('A customer user connects as one of its devices: give deviceId');
      if (body.url && principal.authority !== 'TENANT_ADMIN') throw forbidden();
      const url = body.url ?? brokerUrl();
      if (!url) throw badRequestParams('The embedded broker is not listening');
      const fromDevice = device ? credentialsOf(services, device.id, principal) : { clientId: '' };
      const clientId =
        body.clientId || fromDevice.clientId || `sandboard-client-${Math.random().toString(16).slice(2, 10)}`;
      const username = body.username ?? fromDevice.username;
      const password = body.password ?? fromDevice.password;
      const c = await clientCall(() =>
        manager.connect(principal.userId, {
          url,
          clientId,
          ...(username !== undefined ? { username } : {}),
          ...(password !== undefined ? { password } : {}),
          protocolVersion: body.protocolVersion ?? 4,
          label: body.label ?? device?.name ?? clientId,
          deviceId: device?.id ?? null,
          deviceType: device?.type ?? null,
        }),
      );
      return c.info();
    },
  );
  app.delete(
    '/api/sandboard/mqtt/clients/:id',
    { schema: { tags, summary: 'Disconnect and forget a connection', params: IdParams, response: emptyOk } },
    async (request) => {
      if (!(await manager.close(principalOf(request).userId, request.params.id)))
        throw notFound(`MQTT client connection [${request.params.id}] is not found`);
      return '';
    },
  );
  app.get(
    '/api/sandboard/mqtt/clients/:id',
    {
      schema: {
        tags,
        summary: 'A connection with what it sent (and the answers), received, repeats and RPC rules',
        params: IdParams,
        response: { 200: ClientState, ...authErrors },
      },
    },
    async (request) => connection(principalOf(request), request.params.id).snapshot(),
  );
  app.post(
    '/api/sandboard/mqtt/clients/:id/publish',
    {
      schema: {
        tags,
        summary: 'Publish (the payload template filled in); with everyMs, repeat until stopped',
        params: IdParams,
        body: ClientPublishRequest,
        response: {
          200: Type.Union([ClientSentMessage, Type.Object({ repeatId: Type.String() })]),
          ...authErrors,
        },
      },
    },
    async (request) => {
      const c = connection(principalOf(request), request.params.id);
      const body = request.body;
      if (body.everyMs !== undefined) {
        const everyMs = body.everyMs;
        return clientCall(() => ({ repeatId: c.repeat({ ...body, everyMs }) }));
      }
      return clientCall(() => c.publish(body));
    },
  );
  app.delete(
    '/api/sandboard/mqtt/clients/:id/repeats/:repeatId',
    {
      schema: {
        tags,
        summary: 'Stop a repeating publish',
        params: Type.Object({ id: Type.String({ maxLength: 64 }), repeatId: Type.String({ maxLength: 64 }) }),
        response: emptyOk,
      },
    },
    async (request) => {
      connection(principalOf(request), request.params.id).stopRepeat(request.params.repeatId);
      return '';
    },
  );
  const SubscribeBody = Type.Object({
    topic: Type.String({ minLength: 1, maxLength: 1024 }),
    qos: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)])),
  });
  app.post(
    '/api/sandboard/mqtt/clients/:id/subscribe',
    {
      schema: {
        tags,
        summary: 'Subscribe to a filter; the SUBACK code (0-2 granted QoS, 0x80+ refused)',
        params: IdParams,
        body: SubscribeBody,
        response: { 200: Type.Object({ granted: Type.Integer() }), ...authErrors },
      },
    },
    async (request) => {
      const c = connection(principalOf(request), request.params.id);
      return { granted: await clientCall(() => c.subscribe(request.body.topic, request.body.qos ?? 1)) };
    },
  );
  app.post(
    '/api/sandboard/mqtt/clients/:id/unsubscribe',
    {
      schema: {
        tags,
        summary: 'Unsubscribe a filter',
        params: IdParams,
        body: SubscribeBody,
        response: emptyOk,
      },
    },
    async (request) => {
      const c = connection(principalOf(request), request.params.id);
      await clientCall(() => c.unsubscribe(request.body.topic));
      return '';
    },
  );
  app.post(
    '/api/sandboard/mqtt/clients/:id/rpcRules',
    {
      schema: {
        tags,
        summary: 'Answer RPC requests by rule: method X gets this JSON on v1/devices/me/rpc/response/{id}',
        params: IdParams,
        body: Type.Array(RpcRule, { maxItems: 50 }),
        response: emptyOk,
      },
    },
    async (request) => {
      const c = connection(principalOf(request), request.params.id);
      await clientCall(() => c.setRpcRules(request.body));
      return '';
    },
  );
}
