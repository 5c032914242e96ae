import type { FastifyInstance } from 'fastify';
import { jsonTooDeep, tooDeepMessage } from '../../shared/limits.ts';
import { ErrorCode, PlatformError } from '../platform/errors.ts';

const UTF8 = /^(utf-?8|us-ascii)$/i;

/**
 * JSON request bodies, checked before any route sees them: UTF-8 only (a UTF-16 body is refused with 415,
 * not read as mojibake), nesting at most MAX_JSON_DEPTH deep (else 400 naming where), and, as ThingsBoard's
 * clients need, an empty body where the route takes none.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset && !UTF8.test(charset)) {
      done(
        new PlatformError(
          415,
          ErrorCode.BAD_REQUEST_PARAMS,
          `Unsupported charset '${charset}': send JSON as UTF-8 (application/json; charset=utf-8)`,
        ),
        undefined,
      );
      return;
    }
    const text = (body as Buffer).toString('utf8');
    if (text === '') {
      if (!request.routeOptions.schema?.body) done(null, undefined);
      // a body ThingsBoard declares optional (@RequestBody(required = false)) reads as null when empty
      else if ((request.routeOptions.config as { optionalBody?: boolean }).optionalBody) done(null, null);
      else
        done(
          Object.assign(new Error("Body cannot be empty when content-type is set to 'application/json'"), {
            code: 'FST_ERR_CTP_EMPTY_JSON_BODY',
            statusCode: 400,
          }),
          undefined,
        );
      return;
    }
    jsonParser(request, text, (err, value) => {
      if (err) return done(err, undefined);
      const deep = jsonTooDeep(value);
      if (deep) done(new PlatformError(400, ErrorCode.BAD_REQUEST_PARAMS, tooDeepMessage(deep)), undefined);
      else done(null, value);
    });
  });
}
