import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const here = dirname(fileURLToPath(import.meta.url));
const swaggerDist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'self'";

/** The OpenAPI document and the Swagger UI, served from the npm package (no CDN). */
export async function registerExplorerRoutes(app: FastifyInstance): Promise<void> {
  const indexHtml = readFileSync(join(here, '..', 'explorer', 'index.html'), 'utf8');
  const initJs = readFileSync(join(here, '..', 'explorer', 'sandboard-explorer.js'), 'utf8');
  app.get('/v3/api-docs', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  app.get('/swagger-ui.html', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/swagger-ui/'),
  );
  app.get('/swagger-ui', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/swagger-ui/'),
  );
  app.get('/swagger-ui/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-security-policy', CSP).type('text/html; charset=utf-8').send(indexHtml),
  );
  app.get(
    '/swagger-ui/sandboard-explorer.js',
    { config: { public: true }, schema: { hide: true } },
    async (_request, reply) => reply.type('application/javascript; charset=utf-8').send(initJs),
  );
  // @fastify/static takes no route config: mark its asset routes public as they are added.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/swagger-ui/')) route.config = { ...route.config, public: true };
  });
  await app.register(fastifyStatic, {
    root: swaggerDist,
    prefix: '/swagger-ui/',
    index: false,
    decorateReply: false,
    allowedPath: (path) => /^\/?(swagger-ui[\w.-]*\.(js|css)|favicon-\d+x\d+\.png)$/.test(path),
    setHeaders: (res) => res.setHeader('content-security-policy', CSP),
  });
}
