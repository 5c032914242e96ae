import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ErrorCode, PlatformError } from '../platform/errors.ts';

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

/** Every error a client sees is ThingsBoard's {status, message, errorCode, timestamp}. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
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
    }
    if (error instanceof SyntaxError || error.statusCode === 400) {
      return sendError(reply, 400, ErrorCode.BAD_REQUEST_PARAMS, `Invalid request: ${error.message}`);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, error.statusCode, ErrorCode.GENERAL, error.message);
    }
    request.log.error({ err: error }, 'request failed');
    return sendError(reply, 500, ErrorCode.GENERAL, 'Internal server error');
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      404,
      ErrorCode.ITEM_NOT_FOUND,
      `No such endpoint: ${request.method} ${request.url.split('?')[0]}`,
    ),
  );
}
