import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DeviceRow } from '../../platform/devices.ts';
import { ErrorCode, PlatformError, unauthorized } from '../../platform/errors.ts';
import { parseJson } from '../../platform/paging.ts';
import { ProvisionPayloadError } from '../../platform/provisioning.ts';
import type { RpcRequest } from '../../platform/rpc.ts';
import { parseAttributes, parseTelemetry } from '../../platform/telemetry-payload.ts';
import {
  attributeAnswer,
  clientRpcRequest,
  keyList,
  consumeLimit,
  isSessionLimitsRequest,
  ownScope,
  postAttributes,
  postTelemetry,
  sessionLimits,
  type TransportCore,
} from '../device-messages.ts';
import { chunkOf, devicePackage } from '../ota-chunks.ts';
import { provisionDevice } from '../provisioning.ts';
import { RateLimitedError, ReasonCode, TransportError } from '../transport-error.ts';
import { LongPolls } from './long-polls.ts';
import { DeviceHttpTapEvents, type DeviceHttpTap } from './device-http-tap.ts';
import { jsonTooDeep, tooDeepMessage } from '../../../shared/limits.ts';

export interface DeviceHttpOptions {
  /** a long poll's (and a client-side RPC's) wait when the request names none: HTTP_REQUEST_TIMEOUT */
  defaultTimeoutMs: number;
  /** where answered calls are told (a recording listens) */
  tap?: DeviceHttpTap;
}

/** ThingsBoard's transport.http.max_request_timeout. */
const MAX_TIMEOUT_MS = 300_000;
/** Long polls waiting at once, all devices together. */
const MAX_WAITING = 1_000;

type Query = { timeout?: string; clientKeys?: string; sharedKeys?: string };
/** Every device route's path and query (requestId: POST rpc/{requestId} only). */
type Route = { Params: { token: string; requestId?: string }; Querystring: Query };

const httpError = (status: number, errorCode: number, message: string) =>
  new PlatformError(status, errorCode, message);
const requestTimeout = () =>
  httpError(408, ErrorCode.GENERAL, 'Request timeout: nothing arrived within the timeout');

/** An optional integer query parameter (Spring's int with defaultValue "0"): 400 when it is not one. */
function intParam(q: Record<string, string | undefined>, name: string): number {
  const text = q[name];
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,10}$/.test(text))
    throw httpError(
      400,
      ErrorCode.BAD_REQUEST_PARAMS,
      `Failed to convert '${name}' with value '${text.slice(0, 40)}' to int`,
    );
  return Number(text);
}

/** A refused device message as an HTTP answer: 429 for a rate limit, 400 for a bad payload, 507 for a full store. */
function asHttpError(err: unknown): unknown {
  if (err instanceof RateLimitedError) return httpError(429, ErrorCode.TOO_MANY_REQUESTS, err.message);
  if (err instanceof TransportError) {
    if (err.reasonCode === ReasonCode.PAYLOAD_FORMAT_INVALID)
      return httpError(400, ErrorCode.BAD_REQUEST_PARAMS, err.message);
    // the store is full (rate limits are answered above)
    if (err.reasonCode === ReasonCode.QUOTA_EXCEEDED) return httpError(507, ErrorCode.GENERAL, err.message);
    return httpError(500, ErrorCode.GENERAL, err.message);
  }
  return err;
}

function jsonBody(body: unknown): unknown {
  const text = typeof body === 'string' ? body : '';
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw httpError(400, ErrorCode.BAD_REQUEST_PARAMS, `Invalid JSON: ${(err as Error).message}`);
  }
  const deep = jsonTooDeep(value);
  if (deep) throw httpError(400, ErrorCode.BAD_REQUEST_PARAMS, tooDeepMessage(deep));
  return value;
}

/**
 * A long poll's timeout: plain decimal digits (a Java long, as ThingsBoard reads it), 0 for the default,
 * capped at transport.http.max_request_timeout. "0x10", "1e3", " 5" or "-1" are refused with 400.
 */
function timeoutOf(query: Query, fallback: number): number {
  if (query.timeout === undefined || query.timeout === '') return fallback;
  if (typeof query.timeout !== 'string' || !/^\d{1,18}$/.test(query.timeout))
    throw httpError(
      400,
      ErrorCode.BAD_REQUEST_PARAMS,
      "'timeout' must be a non-negative decimal integer of milliseconds",
    );
  const n = Number(query.timeout);
  return n === 0 ? fallback : Math.min(n, MAX_TIMEOUT_MS);
}

/**
 * ThingsBoard's device HTTP API (DeviceApiController) under /api/v1: the access token in the path, no
 * login. Writes answer 200 once stored, through the same path into the rule engine as MQTT; long polls
 * answer 408 when nothing came in time.
 */
export async function registerDeviceHttpRoutes(
  app: FastifyInstance,
  core: TransportCore,
  options: DeviceHttpOptions,
): Promise<void> {
  const { services } = core;
  const attributeUpdates = new LongPolls<Record<string, unknown>>(MAX_WAITING);
  const rpcRequests = new LongPolls<RpcRequest>(MAX_WAITING);
  /** client-side RPC requests waiting for their answer */
  let clientRpcWaits = 0;

  const onAttributes = (e: { deviceId: string; scope: string; values: Record<string, unknown> }) => {
    if (e.scope === 'SHARED_SCOPE') attributeUpdates.deliverAll(e.deviceId, e.values);
  };
  const onDeleted = (e: { deviceId: string; scope: string; keys: string[] }) => {
    if (e.scope === 'SHARED_SCOPE') attributeUpdates.deliverAll(e.deviceId, { deleted: e.keys });
  };
  services.ctx.events.on('attributes', onAttributes);
  services.ctx.events.on('attributesDeleted', onDeleted);
  const detachRpc = services.rpc.addTransport({
    sendRpc: (deviceId, request) => rpcRequests.deliverOne(deviceId, request),
  });
  app.addHook('onClose', async () => {
    services.ctx.events.off('attributes', onAttributes);
    services.ctx.events.off('attributesDeleted', onDeleted);
    detachRpc();
    attributeUpdates.endAll();
    rpcRequests.endAll();
  });

  const deviceOf = (token: string): DeviceRow => {
    const device = services.devices.findRowByToken(token);
    if (!device) throw unauthorized('Invalid device access token');
    return device;
  };
  const scopeOf = (device: DeviceRow) => ownScope(device, parseJson(device.additional_info).gateway === true);

  /** Waits on a long poll; ends early (answering nothing) when the client goes away. */
  async function longPoll<T>(polls: LongPolls<T>, device: DeviceRow, timeoutMs: number, reply: FastifyReply) {
    if (polls.full())
      throw httpError(429, ErrorCode.TOO_MANY_REQUESTS, `Too many waiting requests (${MAX_WAITING})`);
    const result = await polls.wait(device.id, timeoutMs, (cancel) => reply.raw.once('close', cancel));
    if (result === 'timeout') throw requestTimeout();
    return result;
  }

  /** The device a tapped request is of (found once, on its way in). */
  const tapped = new WeakMap<FastifyRequest, DeviceRow>();
  const tapReceived = (tap: DeviceHttpTap, request: FastifyRequest) => {
    if (!tap.active) return;
    const token = (request.params as { token?: string } | undefined)?.token;
    const device = token ? services.devices.findRowByToken(token) : undefined;
    if (!device) return;
    tapped.set(request, device);
    // long polls (GETs) are not waited for: what comes while they wait is recorded before them
    if (request.method === 'POST')
      tap.events.emit(DeviceHttpTapEvents.received, { key: request, deviceId: device.id, ts: Date.now() });
  };
  const tapCall = (tap: DeviceHttpTap, request: FastifyRequest, reply: FastifyReply) => {
    const token = (request.params as { token?: string } | undefined)?.token;
    const device = tapped.get(request);
    if (!token || !device) return;
    const body = typeof request.body === 'string' && request.body !== '' ? request.body : undefined;
    const at = request.url.indexOf(`/${token}`);
    tap.events.emit(DeviceHttpTapEvents.call, {
      key: request,
      ts: Math.round(Date.now() - reply.elapsedTime),
      deviceId: device.id,
      deviceName: device.name,
      method: request.method,
      path:
        at < 0
          ? request.url
          : `${request.url.slice(0, at)}/{token}${request.url.slice(at + token.length + 1)}`,
      body,
      contentType: request.headers['content-type'],
      status: reply.statusCode,
    });
  };

  await app.register(
    async (api) => {
      // Devices post JSON with whatever content type their HTTP library sets (curl -d: form-urlencoded).
      api.removeAllContentTypeParsers();
      api.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
      const route = { config: { public: true }, schema: { hide: true } };
      const tap = options.tap;
      if (tap) {
        api.addHook('onRequest', async (request) => tapReceived(tap, request));
        api.addHook('onResponse', async (request, reply) => tapCall(tap, request, reply));
      }
      /** A route of one device, found by the token in its path (401 when none has it). */
      const on = (
        method: 'GET' | 'POST',
        url: string,
        handle: (device: DeviceRow, request: FastifyRequest<Route>, reply: FastifyReply) => Promise<unknown>,
      ) =>
        api.route<Route>({
          method,
          url,
          ...route,
          handler: async (request, reply) => {
            try {
              return await handle(deviceOf(request.params.token), request, reply);
            } catch (err) {
              throw asHttpError(err);
            }
          },
        });
      /** A message that is not telemetry: counted against the rate limits, and device activity. */
      const counted = (device: DeviceRow) => {
        consumeLimit(core, device, scopeOf(device));
        core.activity.touch(device);
      };

      on('POST', '/:token/telemetry', async (device, request, reply) => {
        const parsed = parseTelemetry(jsonBody(request.body), Date.now());
        if (!parsed.ok) throw httpError(400, ErrorCode.BAD_REQUEST_PARAMS, parsed.error);
        await postTelemetry(core, device, parsed.value, scopeOf(device));
        return reply.code(200).send();
      });

      on('POST', '/:token/attributes', async (device, request, reply) => {
        const parsed = parseAttributes(jsonBody(request.body));
        if (!parsed.ok) throw httpError(400, ErrorCode.BAD_REQUEST_PARAMS, parsed.error);
        await postAttributes(core, device, parsed.value, scopeOf(device));
        return reply.code(200).send();
      });

      on('GET', '/:token/attributes', async (device, request, reply) => {
        counted(device);
        const answer = attributeAnswer(
          core,
          device.id,
          keyList(request.query.clientKeys),
          keyList(request.query.sharedKeys),
        );
        return reply.code(200).send(answer);
      });

      on('GET', '/:token/attributes/updates', async (device, request, reply) => {
        const timeout = timeoutOf(request.query, options.defaultTimeoutMs);
        counted(device);
        return reply.code(200).send(await longPoll(attributeUpdates, device, timeout, reply));
      });

      // ThingsBoard's package download: the package the device was given, named by its title and version.
      for (const [path, type] of [
        ['firmware', 'FIRMWARE'],
        ['software', 'SOFTWARE'],
      ] as const)
        on('GET', `/:token/${path}`, async (device, request, reply) => {
          counted(device);
          const q = request.query as Record<string, string | undefined>;
          const size = intParam(q, 'size');
          const chunk = intParam(q, 'chunk');
          for (const name of ['title', 'version'])
            if (!q[name])
              throw httpError(
                400,
                ErrorCode.BAD_REQUEST_PARAMS,
                `Required request parameter '${name}' for method parameter type String is not present`,
              );
          const answer = await devicePackage(core, device, type);
          if (answer.status !== 'SUCCESS')
            throw httpError(
              404,
              ErrorCode.ITEM_NOT_FOUND,
              `No ${path} package to download (${answer.status})`,
            );
          if (answer.pkg.title !== q.title || answer.pkg.version !== q.version)
            throw httpError(
              400,
              ErrorCode.BAD_REQUEST_PARAMS,
              `The device's ${path} is ${answer.pkg.title} ${answer.pkg.version}, not ${q.title} ${q.version}`,
            );
          const name = (answer.pkg.file_name ?? 'package.bin').replace(/[^\w.\- ]/g, '_');
          return reply
            .code(200)
            .header('content-disposition', `attachment;filename=${name}`)
            .header('x-filename', name)
            .type(answer.pkg.content_type || 'application/octet-stream')
            .send(chunkOf(answer.data, size, chunk));
        });

      on('GET', '/:token/rpc', async (device, request, reply) => {
        const timeout = timeoutOf(request.query, options.defaultTimeoutMs);
        counted(device);
        const waiting = longPoll(rpcRequests, device, timeout, reply);
        // Calls that waited for a session are delivered now.
        services.rpc.deviceReady(device.id);
        const request_ = await waiting;
        return reply.code(200).send({ id: request_.id, method: request_.method, params: request_.params });
      });

      on('POST', '/:token/rpc/:requestId', async (device, request, reply) => {
        const requestId = Number(request.params.requestId);
        if (!Number.isInteger(requestId))
          throw httpError(400, ErrorCode.BAD_REQUEST_PARAMS, 'The request id in the path must be an integer');
        const text = typeof request.body === 'string' ? request.body : '';
        let answer: unknown = text;
        try {
          answer = text === '' ? null : (JSON.parse(text) as unknown);
        } catch {
          // A plain-text answer ("OK") is kept as it is.
        }
        // as MQTT refuses it (0x99): the RPC waits on for an answer it can store
        const deep = jsonTooDeep(answer);
        if (deep) throw httpError(400, ErrorCode.BAD_REQUEST_PARAMS, tooDeepMessage(deep));
        counted(device);
        await services.rpc.respond(device.id, requestId, answer);
        return reply.code(200).send();
      });

      on('POST', '/:token/rpc', async (device, request, reply) => {
        const body = jsonBody(request.body);
        if (
          typeof body !== 'object' ||
          body === null ||
          typeof (body as { method?: unknown }).method !== 'string'
        )
          throw httpError(
            400,
            ErrorCode.BAD_REQUEST_PARAMS,
            'A client RPC request is {"method":"..","params":{..}}',
          );
        const isGateway = parseJson(device.additional_info).gateway === true;
        if (isSessionLimitsRequest(body as { method: string })) {
          core.activity.touch(device);
          return reply.code(200).send(sessionLimits(core, isGateway));
        }
        // A session for this one request: an RPC Call Reply node in the chain answers it; without one,
        // ThingsBoard answers 408 once the wait is over. Bounded as long polls are.
        if (clientRpcWaits >= MAX_WAITING)
          throw httpError(429, ErrorCode.TOO_MANY_REQUESTS, `Too many waiting requests (${MAX_WAITING})`);
        clientRpcWaits++;
        const sessionId = randomUUID();
        let answered: { body: unknown } | null = null;
        let wake = () => undefined as void;
        const close = services.rpc.openClientSession(sessionId, (_requestId, answer) => {
          if (answered) return false;
          answered = { body: answer };
          wake();
          return true;
        });
        try {
          await clientRpcRequest(core, device, '0', body, scopeOf(device), sessionId);
          if (!answered)
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, options.defaultTimeoutMs);
              wake = () => (clearTimeout(timer), resolve());
              reply.raw.once('close', wake);
            });
        } finally {
          clientRpcWaits--;
          close();
        }
        const result = answered as { body: unknown } | null;
        if (!result) throw requestTimeout();
        return reply.code(200).send(result.body);
      });

      on('POST', '/:token/claim', async (device, request, reply) => {
        const text = typeof request.body === 'string' ? request.body.trim() : '';
        const body = text === '' ? {} : jsonBody(text);
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          throw httpError(
            400,
            ErrorCode.BAD_REQUEST_PARAMS,
            'A claim is a JSON object {"secretKey":"..","durationMs":N}',
          );
        counted(device);
        const claim = body as { secretKey?: unknown; durationMs?: unknown };
        await services.claims.allowClaim(device, claim.secretKey, claim.durationMs);
        return reply.code(200).send();
      });

      api.post('/provision', route, async (request, reply) => {
        try {
          return reply.code(200).send(await provisionDevice(core, jsonBody(request.body), request.ip));
        } catch (err) {
          if (err instanceof ProvisionPayloadError)
            throw httpError(400, ErrorCode.BAD_REQUEST_PARAMS, err.message);
          throw err;
        }
      });
    },
    { prefix: '/api/v1' },
  );
}
