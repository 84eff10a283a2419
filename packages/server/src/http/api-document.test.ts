/**
 * The OpenAPI document against the router itself: every route the server registered (its
 * `onRoute` list, `server.routes`) is documented with its method, and every documented operation
 * is a registered route — a route added without documentation, or a documented path without a
 * route, fails here. Each operation has an operationId, a success response with content, error
 * responses carrying the error body, and its request body when the route takes one; every route
 * of the contract is served. Then real answers of the store API, the history views and the
 * server routes are checked against the response schemas the document shows.
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_ROUTES } from '@stateflow/http-contract';
import { openMemoryStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { startServer } from './start-server.js';
import type { ServerHandle } from './start-server.js';

/** Routes the document leaves out, and why: the page's static files are not API. */
const NOT_DOCUMENTED = ['GET /ui', 'GET /ui/*', 'HEAD /ui/*'];

/** The operations whose contract has a request body. */
const TAKES_A_BODY = new Set(
  [...HTTP_ROUTES.filter((route) => 'body' in route.schema), { method: 'POST', url: '/v1/state/read' }, { method: 'POST', url: '/v1/state/patch' }].map(
    (route) => `${route.method} ${openApiPath(route.url)}`,
  ),
);

interface Operation {
  operationId?: string;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: object }> }>;
}
type Document = { openapi: string; servers: Array<{ url: string }>; paths: Record<string, Record<string, Operation>> };

let store: Store;
let server: ServerHandle;
let doc: Document;

beforeAll(async () => {
  store = await openMemoryStore();
  await store.publish({ changes: { 'cwd:/p': { lazy: { plan: 'draft' } }, global: { tactics: { next: 'read' } } }, id: 'first', meta: { by: 'test' } });
  await store.publish({ changes: { 'cwd:/p': { lazy: { plan: 'final' } } } });
  server = await startServer({ store, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
});

afterAll(async () => {
  await server.close();
  await store.close();
});

/** `/v1/store/transitions/:seq` → `/v1/store/transitions/{seq}`. */
function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z]+)/g, '{$1}');
}

/** Every documented operation as `METHOD /pattern` (fastify's spelling). */
function documented(): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{([A-Za-z]+)\}/g, ':$1')}`));
}

describe('the OpenAPI document at /openapi.json', () => {
  it('is OpenAPI 3.1 with this server under servers', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: server.url }]);
  });

  it('documents every registered route but the page files, and nothing else', () => {
    const served = server.routes.map((r) => `${r.method} ${r.url}`);
    expect(served.filter((route) => !NOT_DOCUMENTED.includes(route)).sort()).toEqual(documented().sort());
    for (const route of NOT_DOCUMENTED) expect(served, route).toContain(route);
  });

  it('serves every route of the contract', () => {
    const served = new Set(server.routes.map((r) => `${r.method} ${r.url}`));
    for (const route of HTTP_ROUTES) expect(served.has(`${route.method} ${route.url}`), `${route.method} ${route.url}`).toBe(true);
    expect(served.has('POST /v1/state/read') && served.has('POST /v1/state/patch')).toBe(true);
  });

  it('gives each operation a unique operationId, a success with content, error bodies, and the request body it takes', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        expect(operation.operationId, name).toBeDefined();
        expect(ids.has(operation.operationId ?? ''), `${name}: operationId ${operation.operationId} is taken`).toBe(false);
        ids.add(operation.operationId ?? '');
        const statuses = Object.keys(operation.responses);
        const success = statuses.filter((s) => s.startsWith('2'));
        // GET and DELETE /mcp only ever answer 405: that is their documented answer.
        const answers = success.length > 0 ? success : statuses.filter((s) => s === '405');
        expect(answers.length, `${name} documents an answer`).toBeGreaterThan(0);
        expect(operation.responses[answers[0] ?? '']?.content, `${name} answers with content`).toBeDefined();
        for (const status of ['401', '403', '500'].filter((s) => !(path === '/v1/server/proof' && s === '401'))) {
          expect(operation.responses[status]?.content?.['application/json']?.schema, `${name} ${status}`).toMatchObject({ required: ['error'] });
        }
        if (TAKES_A_BODY.has(`${method.toUpperCase()} ${path}`)) expect(operation.requestBody?.content?.['application/json']?.schema, `${name} request body`).toBeDefined();
      }
    }
  });
});

describe('answers match the response schemas of the document', () => {
  // Formats (date-time) are documentation: the shapes are what is checked.
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });

  /** Call `path` and check its JSON answer against the documented schema of `status`. */
  async function check(method: 'get' | 'post' | 'delete', path: string, pattern: string, body?: object, status = 200): Promise<void> {
    const response = await fetch(`${server.url}${path}`, {
      method: method.toUpperCase(),
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    expect(response.status, `${method} ${path}`).toBe(status);
    const schema = doc.paths[pattern]?.[method]?.responses[String(status)]?.content?.['application/json']?.schema;
    expect(schema, `${method} ${pattern} ${status}`).toBeDefined();
    const validate = ajv.compile(schema ?? {});
    const answer: unknown = await response.json();
    expect(validate(answer) ? [] : validate.errors, `${method} ${path}`).toEqual([]);
  }

  it('the store API', async () => {
    await check('get', '/v1/server', '/v1/server');
    await check('get', '/v1/store/streams', '/v1/store/streams');
    await check('get', '/v1/store/head?stream=cwd:/p', '/v1/store/head');
    await check('get', '/v1/store/state?stream=cwd:/p', '/v1/store/state');
    await check('get', '/v1/store/state?stream=cwd:/p&rev=1', '/v1/store/state');
    await check('get', '/v1/store/patch?stream=cwd:/p&rev=2', '/v1/store/patch');
    await check('get', '/v1/store/revision-seq?stream=cwd:/p&rev=2', '/v1/store/revision-seq');
    await check('get', '/v1/store/diff?stream=cwd:/p&from=0&to=2', '/v1/store/diff');
    await check('post', '/v1/store/view', '/v1/store/view', { streams: ['cwd:/p', 'global'] });
    await check('post', '/v1/store/states-at', '/v1/store/states-at', { streams: ['cwd:/p'], seq: 1 });
    await check('post', '/v1/store/effective-at', '/v1/store/effective-at', { streams: ['global', 'cwd:/p'], seq: 2 });
    await check('get', '/v1/store/transitions?limit=1', '/v1/store/transitions');
    await check('get', '/v1/store/transitions/1', '/v1/store/transitions/{seq}');
    await check('post', '/v1/store/publish', '/v1/store/publish', { changes: { 'cwd:/q': { a: 1 } } });
    await check('post', '/v1/store/publish', '/v1/store/publish', { changes: { 'cwd:/p': { lazy: { plan: 'draft' } } }, id: 'first' });
    await check('post', '/v1/store/publish-many', '/v1/store/publish-many', { inputs: [{ changes: { 'cwd:/q': { b: 2 } } }] });
    await check('post', '/v1/store/fork', '/v1/store/fork', { from: 'cwd:/p', to: 'cwd:/fork' });
    await check('post', '/v1/store/merge', '/v1/store/merge', { from: 'cwd:/fork', into: 'cwd:/p', dryRun: true });
    await check('post', '/v1/store/revert', '/v1/store/revert', { stream: 'cwd:/q', rev: 1 });
    await check('post', '/v1/store/compact', '/v1/store/compact', { stream: 'cwd:/q', keepRevisions: 2 });
    await check('post', '/v1/store/audit', '/v1/store/audit', {});
  });

  it('the history views', async () => {
    await check('get', '/v1/history/streams', '/v1/history/streams');
    await check('get', '/v1/history/histogram?buckets=4', '/v1/history/histogram');
    await check('get', '/v1/history/node?stream=cwd:/p&pointer=/lazy', '/v1/history/node');
    await check('get', '/v1/history/effective-node?global=1&cwd=/p', '/v1/history/effective-node');
    await check('get', '/v1/history/revisions?stream=cwd:/p', '/v1/history/revisions');
    await check('get', '/v1/history/path-history?stream=cwd:/p&pointer=/lazy/plan', '/v1/history/path-history');
    await check('get', '/v1/history/diff?stream=cwd:/p&a=1&b=2', '/v1/history/diff');
    await check('get', '/v1/history/diff?global=1&cwd=/p&a=1&b=2', '/v1/history/diff');
    await check('get', '/v1/history/search?stream=cwd:/p&text=draft', '/v1/history/search');
    await check('get', '/v1/history/search?key=plan&value=%22final%22', '/v1/history/search');
    await check('get', '/v1/history/blame?stream=cwd:/p&pointer=/lazy', '/v1/history/blame');
    await check('get', '/v1/history/lineage?stream=cwd:/p', '/v1/history/lineage');
  });

  it('the audit job', async () => {
    await check('get', '/v1/history/audit-job', '/v1/history/audit-job');
    await check('post', '/v1/history/audit-job', '/v1/history/audit-job', {});
    await check('delete', '/v1/history/audit-job', '/v1/history/audit-job');
    await expect.poll(async () => ((await (await fetch(`${server.url}/v1/history/audit-job`)).json()) as { job: { state: string } }).job.state).not.toBe('running');
    await check('get', '/v1/history/audit-job', '/v1/history/audit-job');
  });

  it('the error body of a failure', async () => {
    await check('get', '/v1/store/head', '/v1/store/head', undefined, 400);
    await check('get', '/v1/store/transitions/999', '/v1/store/transitions/{seq}', undefined, 404);
    await check('post', '/v1/state/read', '/v1/state/read', { path: 'cwd' }, 400);
  });
});
