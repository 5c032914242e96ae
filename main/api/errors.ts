import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, PlatformError } from '../platform/errors.ts';

// node:http imported as an ES module builds its namespace, and that loads Node's fetch (undici): tens of ms of every start
const { STATUS_CODES } = process.getBuiltinModule('node:http');

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

export function sendError(
  reply: FastifyReply,
  status: number,
  errorCode: number,
  message: string,
): FastifyReply {
  return reply
    .code(status)
    .type('application/json')
    .send({ status, message, errorCode, timestamp: Date.now() });
}

/** Names the field a validation error is about: body.name, query.pageSize, ... */
function describeValidation(context: string, errors: AjvError[]): string {
  const e = errors[0] ?? {};
  const path = (e.instancePath ?? '').replace(/^\//, '').split('/').filter(Boolean);
  if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string')
    path.push(e.params.missingProperty);
  if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
    path.push(e.params.additionalProperty);
    return `Invalid ${context}: '${[context, ...path].join('.')}' is not allowed`;
  }
  const field = [context, ...path].join('.');
  if (e.keyword === 'required') return `Invalid ${context}: '${field}' is required`;
  return `Invalid ${context}: '${field}' ${e.message ?? 'is invalid'}`;
}

/** The error JSON of any error a route, a hook, a body parser or Fastify itself raised. */
function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof PlatformError) {
    for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
    return sendError(reply, error.status, error.errorCode, error.message);
  }
  if (error.validation) {
    const context = error.validationContext ?? 'request';
    const code = context === 'body' ? ErrorCode.INVALID_ARGUMENTS : ErrorCode.BAD_REQUEST_PARAMS;
    return sendError(reply, 400, code, describeValidation(context, error.validation as AjvError[]));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendError(reply, 400, ErrorCode.BAD_REQUEST_PARAMS, `Invalid JSON body: ${error.message}`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendError(reply, 413, ErrorCode.BAD_REQUEST_PARAMS, 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendError(
        reply,
        415,
        ErrorCode.BAD_REQUEST_PARAMS,
        `Unsupported Content-Type '${request.headers['content-type'] ?? ''}': send application/json`,
      );
    case 'FST_ERR_BAD_URL':
      return sendError(reply, 400, ErrorCode.BAD_REQUEST_PARAMS, `Invalid URL: ${error.message}`);
    case 'FST_ERR_HANDLER_TIMEOUT':
      return sendError(reply, 503, ErrorCode.GENERAL, error.message);
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return sendError(reply, 400, ErrorCode.BAD_REQUEST_PARAMS, `Invalid request: ${error.message}`);
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return sendError(reply, error.statusCode, ErrorCode.GENERAL, error.message);
  }
  request.log.error({ err: error, reqId: request.id }, 'request failed');
  return sendError(reply, 500, ErrorCode.GENERAL, 'Internal server error');
}

/**
 * Errors Node's HTTP parser meets before Fastify has a request (a header over 16 KiB, a malformed request
 * line, a request that took too long to arrive): ThingsBoard error JSON too, with Connection: close, and
 * the socket ended after the answer is written (not reset under it), so a client reads the answer and
 * knows to open a new connection.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request header fields are too large (at most 16 KiB in all)']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive']
        : [400, `Malformed HTTP request (${err.code ?? 'parse error'})`];
  const body = JSON.stringify({
    status,
    message,
    errorCode: ErrorCode.BAD_REQUEST_PARAMS,
    timestamp: Date.now(),
  });
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  } else socket.destroy();
}

/** Fastify options that route Fastify's and Node's own errors to ThingsBoard error JSON. */
export function errorServerOptions() {
  return {
    frameworkErrors: answerError,
    clientErrorHandler: answerClientError,
    // a missing Host reaches the host check (400 with error JSON) instead of Node's empty 400
    http: { requireHostHeader: false },
    // a request (headers and body) must arrive within this; else 408
    requestTimeout: 60_000,
  };
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** The router's limit on one path parameter; a longer one is 414. */
export const MAX_PARAM_LENGTH = 200;

/** A route of its own serves this path with this method (the UI's catch-all GET does not count). */
function servesExactly(app: FastifyInstance, method: string, path: string): boolean {
  const route = app.findRoute({ method: method as 'GET', url: path });
  return route !== null && !('*' in (route.params ?? {}));
}

/** Every error a client sees is ThingsBoard's {status, message, errorCode, timestamp}. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    if (path.split('/').some((segment) => segment.length > MAX_PARAM_LENGTH))
      return sendError(
        reply,
        414,
        ErrorCode.BAD_REQUEST_PARAMS,
        `A path segment is longer than ${MAX_PARAM_LENGTH} characters`,
      );
    // as Spring does: a path that exists with other methods is 405 with Allow, not 404
    const allowed = path.startsWith('/api/')
      ? METHODS.filter((method) => method !== request.method && servesExactly(app, method, path))
      : [];
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, 405, ErrorCode.GENERAL, `Request method '${request.method}' is not supported`);
    }
    return sendError(reply, 404, ErrorCode.ITEM_NOT_FOUND, `No such endpoint: ${request.method} ${path}`);
  });
}
