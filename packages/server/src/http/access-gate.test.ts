/**
 * The start-up half of deny by default: a route that declares no access (or an unknown one) is
 * refused when it is registered, so an app with one does not start.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { checkDeclaredAccess } from './access-gate.js';
import type { ServedRoute } from './access-gate.js';

async function ready(register: (app: ReturnType<typeof Fastify>) => void): Promise<ServedRoute[]> {
  const routes: ServedRoute[] = [];
  const app = Fastify({ exposeHeadRoutes: false });
  app.addHook('onRoute', (route) => void routes.push(...checkDeclaredAccess(route)));
  register(app);
  try {
    await app.ready();
    return routes;
  } finally {
    await app.close();
  }
}

describe('checkDeclaredAccess', () => {
  it('collects every declared route, one entry per method', async () => {
    const routes = await ready((app) => {
      app.get('/a', { config: { access: 'public' } }, async () => 'a');
      app.route({ method: ['GET', 'HEAD'], url: '/b/*', config: { access: 'owner' }, handler: async () => 'b' });
      void app.register(async (scope) => void scope.post('/c', { config: { access: 'user' } }, async () => 'c'));
    });
    expect(routes).toEqual([
      { method: 'GET', url: '/a', access: 'public' },
      { method: 'GET', url: '/b/*', access: 'owner' },
      { method: 'HEAD', url: '/b/*', access: 'owner' },
      { method: 'POST', url: '/c', access: 'user' },
    ]);
  });

  it.each([
    ['no config', {}],
    ['no access', { config: {} }],
    ['an unknown access', { config: { access: 'everyone' } }],
  ])('refuses a route with %s: the app does not start (INTERNAL)', async (_what, options) => {
    await expect(ready((app) => void app.register(async (scope) => void scope.get('/undeclared', options as object, async () => 'x')))).rejects.toMatchObject({
      code: 'INTERNAL',
      details: { operation: 'route-declaration' },
    });
  });
});
