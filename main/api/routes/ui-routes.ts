import { statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

const here = dirname(fileURLToPath(import.meta.url));

/** The built React app (npm run build:ui). */
export const DEFAULT_UI_ROOT = resolve(here, '..', '..', '..', 'renderer', 'dist');

/** The UI's Content-Security-Policy: nothing but this origin ('self' covers its own WebSocket) and the embedded explorer. */
export const UI_CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
  "frame-src 'self'; frame-ancestors 'self'; object-src 'none'; base-uri 'self'; form-action 'self'";

/** Paths that never fall back to the app: the API, the explorer and the OpenAPI document. */
const SAFE_FILE = /^\/[\w.\-/]+$/;

const NOT_UI = /^\/(api|swagger-ui|v3)(\/|$)|^\/swagger-ui\.html$/;

const NOT_BUILT_HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Sandboard</title></head>
  <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
    <h1>Sandboard is running, but its UI is not built</h1>
    <p>Run <code>npm run build:ui</code> in the project folder, then reload this page.</p>
    <p>The REST API answers under <code>/api</code>; the API explorer is at <a href="/swagger-ui/">/swagger-ui/</a>.</p>
  </body>
</html>
`;

function notFound(reply: FastifyReply): FastifyReply {
  reply.callNotFound();
  return reply;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the React app at `/`: files from renderer/dist, and index.html for every other path that is not
 * the API's (the app routes with the History API). Without a build, `/` says how to make one.
 */
export async function registerUiRoutes(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const root = options.root ?? DEFAULT_UI_ROOT;
  // serve: false: only reply.sendFile, given the root on each call (the build may appear after start)
  await app.register(fastifyStatic, { serve: false });
  const uiRoute = { config: { public: true }, schema: { hide: true } };
  const serve = async (request: { url: string }, reply: FastifyReply): Promise<FastifyReply> => {
    const path = request.url.split('?')[0] ?? '/';
    if (NOT_UI.test(path)) return notFound(reply);
    // Vite's output has plain names: anything else is an app route, never a file.
    const relative = SAFE_FILE.test(path) && !path.includes('..') ? path.slice(1) : '';
    const file = resolve(root, relative);
    if (relative && file.startsWith(root + sep) && isFile(file)) {
      const hashed = relative.startsWith('assets/');
      reply.header('content-security-policy', UI_CSP);
      reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      return reply.sendFile(relative, root, { cacheControl: false });
    }
    // A missing file with an extension (an old asset, a typo) is a 404, not the app.
    if (/\.[a-z0-9]+$/i.test(path) && !path.endsWith('.html')) return notFound(reply);
    reply.header('content-security-policy', UI_CSP);
    if (!isFile(join(root, 'index.html'))) {
      return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT_HTML);
    }
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html', root, { cacheControl: false });
  };
  app.get('/', uiRoute, serve);
  app.get('/*', uiRoute, serve);
}
