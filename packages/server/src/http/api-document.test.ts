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
import { ERROR_FACTS, ErrorCode } from '@stateflow/core';
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

/** The part of a response schema this test reads: the error body's code enum, or a union of bodies. */
interface ResponseSchema {
  required?: string[];
  properties?: { error?: { properties?: { code?: { enum?: string[] } } }; jsonrpc?: object };
  anyOf?: ResponseSchema[];
}

interface Operation {
  operationId?: string;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> };
  security?: unknown[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: ResponseSchema }> }>;
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

/** The codes core's error facts answer with `status`, in their order. */
function codesOf(status: number): string[] {
  return Object.values(ErrorCode).filter((code) => ERROR_FACTS[code].httpStatus === status);
}

/** The Stateflow error body of a response schema (the member of a union with /mcp's JSON-RPC error). */
function stateflowBody(schema: ResponseSchema | undefined): ResponseSchema | undefined {
  if (schema?.anyOf !== undefined) return schema.anyOf.find((member) => member.properties?.error?.properties?.code !== undefined);
  return schema?.properties?.jsonrpc === undefined ? schema : undefined;
}

describe('the error statuses of each route, against the error facts', () => {
  /** Statuses Node's parser, the loopback guard, the key rate and a failure answer on any route. */
  const EVERY_ROUTE = ['403', '408', '429', '431', '500'];

  it('document only statuses of error codes, each naming exactly the codes the facts give it', () => {
    const statuses = new Set(Object.values(ERROR_FACTS).map((f) => String(f.httpStatus)));
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses).filter(([s]) => Number(s) >= 400)) {
          const name = `${method.toUpperCase()} ${path} ${status}`;
          const body = stateflowBody(response.content?.['application/json']?.schema);
          // /mcp's 405 and 406 are the MCP SDK's JSON-RPC answers, not Stateflow errors.
          if (body === undefined) {
            expect(`${path} ${status}`, name).toMatch(/^\/mcp 40[56]$/);
            continue;
          }
          expect(statuses.has(status), `${name}: no error code has this status`).toBe(true);
          expect(body.properties?.error?.properties?.code?.enum, name).toEqual(codesOf(Number(status)));
          for (const code of codesOf(Number(status))) expect(response.description, name).toContain(code);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('document on every route what any request can meet, and on each what its request can get wrong', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        const statuses = new Set(Object.keys(operation.responses));
        const needs = [...EVERY_ROUTE];
        if (TAKES_A_BODY.has(name)) needs.push('400', '413', '415');
        if ((operation.parameters ?? []).some((p) => p.in === 'query' || p.in === 'path')) needs.push('400');
        if (operation.security === undefined || operation.security.length > 0) needs.push('401');
        for (const status of new Set(needs)) if (!statuses.has(status)) missing.push(`${name} ${status}`);
      }
    }
    expect(missing).toEqual([]);
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

  /**
   * Send a failing request and check that it answers `code` with the status of its facts, a
   * status the route documents with that code among its codes.
   */
  async function failure(method: 'GET' | 'POST', path: string, pattern: string, code: ErrorCode, init: RequestInit = {}): Promise<void> {
    const response = await fetch(`${server.url}${path}`, { method, ...init });
    const answer = (await response.json()) as { error?: { code: string } };
    expect(answer.error?.code, `${method} ${path}: ${JSON.stringify(answer)}`).toBe(code);
    expect(response.status, `${method} ${path}: the facts' status of ${code}`).toBe(ERROR_FACTS[code].httpStatus);
    const documented = doc.paths[pattern]?.[method.toLowerCase()]?.responses[String(response.status)];
    expect(stateflowBody(documented?.content?.['application/json']?.schema)?.properties?.error?.properties?.code?.enum, `${method} ${pattern} ${response.status}`).toContain(code);
  }

  const json = (body: unknown): RequestInit => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('a failure of each class answers the status of its code, documented on its route', async () => {
    await store.publish({ changes: { 'cwd:/r': { lazy: { list: [1, 2] } } } });
    await store.publish({ changes: { 'cwd:/r': { lazy: { list: [1, 2, 3] } } } });
    await store.publish({ changes: { 'cwd:/r': { lazy: { list: [1] } } } });
    await store.compact('cwd:/r', { keepRevisions: 1 });
    await store.publish({ changes: { 'cwd:/s1': { a: 1 }, 'cwd:/s2': { b: 1 } } });
    const selection = { cwd: '/r', mode: 'active' };
    await failure('GET', '/v1/store/head?stream=a%01b', '/v1/store/head', 'STREAM_INVALID');
    await failure('GET', '/v1/@a/b/models/%ZZ', '/v1/{author}/{ladder}/models/{model}', 'INPUT_INVALID');
    await failure('POST', '/v1/state/read', '/v1/state/read', 'PATH_SYNTAX', json({ path: 'lazy..list', selection }));
    await failure('POST', '/v1/state/read', '/v1/state/read', 'PATH_NOT_FOUND', json({ path: 'lazy.absent', selection }));
    await failure('POST', '/v1/state/read', '/v1/state/read', 'INDEX_OUT_OF_RANGE', json({ path: 'lazy.list[5]', selection }));
    await failure('GET', '/v1/store/state?stream=cwd:/r&rev=9', '/v1/store/state', 'REVISION_NOT_FOUND');
    await failure('GET', '/v1/store/state?stream=cwd:/r&rev=1', '/v1/store/state', 'HISTORY_NOT_RETAINED');
    await failure('POST', '/v1/store/publish', '/v1/store/publish', 'CONFLICT', json({ changes: { 'cwd:/r': { a: 1 } }, expected: { 'cwd:/r': 1 } }));
    await failure('POST', '/v1/store/merge', '/v1/store/merge', 'MERGE_UNRELATED', json({ from: 'cwd:/s1', into: 'cwd:/s2' }));
    await failure('POST', '/v1/store/publish', '/v1/store/publish', 'MEDIA_TYPE_UNSUPPORTED', { headers: { 'content-type': 'text/plain' }, body: '{}' });
    await failure('POST', '/v1/store/publish', '/v1/store/publish', 'BODY_TOO_LARGE', json({ changes: { 'cwd:/r': { a: 'x'.repeat(1024 * 1024) } } }));
  });
});
