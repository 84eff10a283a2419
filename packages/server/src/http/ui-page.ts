/**
 * The history page at `/ui/`: the static files `@stateflow/ui` builds, served same-origin behind
 * the server's loopback guard (the page's API calls carry the token or API key themselves; the
 * files hold no data). A strict Content-Security-Policy keeps the page to its own origin: no CDN,
 * no inline script, no request anywhere but this server.
 *
 * The files are the server's only `public` routes besides the server proof (`access-gate.ts`):
 * the browser loads them before the page can send a credential. `@fastify/static` sends them
 * (`send`: no path outside the assets directory, `..` refused), through routes declared here.
 * They are not API: the OpenAPI document leaves them out (`hide`).
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { StateflowError } from '@stateflow/core';
import { uiAssetsDir, uiBuilt } from '@stateflow/ui';
import { PUBLIC_ROUTE } from './access-gate.js';

/** Path prefix of the page. */
export const UI_PREFIX = '/ui/';

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The page's routes: anyone's, and not in the OpenAPI document. */
const PAGE_ROUTE = { config: PUBLIC_ROUTE, schema: { hide: true } } as const;

/** Register `/ui/` (and the redirect from `/ui`). Without a built page, `/ui/` answers 404 saying how to build it. */
export async function registerUiPage(app: FastifyInstance): Promise<void> {
  app.get('/ui', PAGE_ROUTE, async (_request, reply) => reply.redirect(UI_PREFIX));
  if (!uiBuilt()) {
    app.get(`${UI_PREFIX}*`, PAGE_ROUTE, async (request) => {
      throw new StateflowError('NOT_FOUND', 'The history page is not built: run `npm run build` in the repository (it builds packages/ui)', {
        route: request.url.split('?')[0] ?? UI_PREFIX,
      });
    });
    return;
  }
  // serve: false — the plugin only decorates reply.sendFile; the route below is ours, declared.
  await app.register(fastifyStatic, {
    root: uiAssetsDir,
    serve: false,
    cacheControl: false,
    setHeaders(res, file) {
      res.setHeader('content-security-policy', CSP);
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
      // Hashed asset names never change content; index.html must be revalidated.
      res.setHeader('cache-control', file.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    },
  });
  app.route<{ Params: { '*': string } }>({
    method: ['GET', 'HEAD'],
    url: `${UI_PREFIX}*`,
    ...PAGE_ROUTE,
    handler: async (request, reply) => reply.sendFile(request.params['*'] === '' ? 'index.html' : request.params['*']),
  });
}
