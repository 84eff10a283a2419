/**
 * The contract is consistent in itself: one route per `METHOD path` and one operationId each,
 * every `:name` of a path declared in its params (and nothing else there), and every route
 * answering the error body for the statuses any route can answer. The server's OpenAPI test
 * checks the contract against the router and real answers.
 */
import { describe, expect, it } from 'vitest';
import { EVERY_ROUTE_STATUSES } from './error-responses.js';
import { HTTP_ROUTES } from './routes.js';
import { stateRoutes } from './state-routes.js';
import type { RouteContract } from './route-contract.js';

const TOOL_INPUT = { properties: { path: { type: 'string' } }, required: ['path'] };
const ROUTES: readonly RouteContract[] = [...HTTP_ROUTES, ...stateRoutes({ readState: TOOL_INPUT, patchState: TOOL_INPUT })];

describe('the route contracts', () => {
  it('name each route and operation once', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.url}`);
    const ids = ROUTES.map((r) => r.schema.operationId);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('declare exactly the path parameters of their paths, each required', () => {
    for (const route of ROUTES) {
      const inPath = [...route.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]).sort();
      const params = route.schema.params as { properties?: object; required?: string[] } | undefined;
      expect(Object.keys(params?.properties ?? {}).sort(), `${route.method} ${route.url}`).toEqual(inPath);
      expect([...(params?.required ?? [])].sort(), `${route.method} ${route.url}`).toEqual(inPath);
    }
  });

  it('answer the error body for 403, 408, 429, 431 and 500 on every route, and say what each status means', () => {
    expect([...EVERY_ROUTE_STATUSES]).toEqual([403, 408, 429, 431, 500]);
    for (const route of ROUTES) {
      for (const status of EVERY_ROUTE_STATUSES) {
        const response = route.schema.response[status] as { description?: string; properties?: object } | undefined;
        expect(response?.properties, `${route.method} ${route.url} ${status}`).toHaveProperty('error');
        expect(response?.description, `${route.method} ${route.url} ${status}`).toBeTruthy();
      }
    }
  });

  it("wrap a tool input with the selection it needs, without the tool schema's dialect", () => {
    const dialect = { ...TOOL_INPUT, $schema: 'https://json-schema.org/draft/2020-12/schema' };
    const [read] = stateRoutes({ readState: dialect, patchState: TOOL_INPUT });
    expect(read.schema.body).toMatchObject({ required: ['path', 'selection'], properties: { path: { type: 'string' }, selection: { required: ['mode'] } } });
    expect(read.schema.body).not.toHaveProperty('$schema');
  });
});
