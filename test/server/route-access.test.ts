/**
 * Deny by default, checked against the router itself (server README "Users and keys"): every
 * route the server registered (collected by its fastify `onRoute` hook, `server.routes`) is
 * called in every request-target form — origin-form, percent-encoded, a `//` prefix (fastify's
 * `inject`), absolute-form (a raw socket: `inject` and `fetch` rewrite it) — with every kind of
 * credential: none, a wrong key, another user's key, the server token.
 *
 * The expectations come from the table below, written here and not read from the routes'
 * declarations: a route declared `public` by mistake, a route the table does not know, or one
 * it names that is gone, fails this test. A short allowlist is public; everything else answers
 * 401 without a credential.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverProof } from '@stateflow/client';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { ask, http, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';
import { rawRequest } from './raw-http.js';

type Access = 'public' | 'user' | 'owner';

const NONCE = randomBytes(32).toString('hex');

/**
 * Every route, who may call it, and (where the pattern alone would not do) the request to send.
 * Public: the page's static files (the browser loads them before the page can send a
 * credential) and the server proof (a client asks for it before it sends its token).
 */
const ROUTES: Record<string, { access: Access; target?: string }> = {
  'GET /ui': { access: 'public' },
  'GET /ui/*': { access: 'public', target: '/ui/index.html' },
  'HEAD /ui/*': { access: 'public', target: '/ui/index.html' },
  'GET /v1/server/proof': { access: 'public', target: `/v1/server/proof?nonce=${NONCE}` },
  'GET /openapi.json': { access: 'user' },
  'GET /v1/server': { access: 'user' },
  'POST /v1/:author/:ladder/sessions': { access: 'user' },
  'GET /v1/:author/:ladder/sessions': { access: 'user' },
  'GET /v1/:author/:ladder/sessions/:id': { access: 'user' },
  'POST /v1/:author/:ladder/sessions/:id/close': { access: 'user' },
  'POST /v1/:author/:ladder/sessions/:id/pause': { access: 'user' },
  'POST /v1/:author/:ladder/sessions/:id/resume': { access: 'user' },
  'GET /v1/:author/:ladder/sessions/:id/slates': { access: 'user' },
  'GET /v1/:author/:ladder/sessions/:id/slates/history': { access: 'user' },
  'POST /v1/:author/:ladder/chat/completions': { access: 'user' },
  'GET /v1/:author/:ladder/models': { access: 'user' },
  'GET /v1/:author/:ladder/models/:model': { access: 'user' },
  'POST /v1/state/read': { access: 'user' },
  'POST /v1/state/patch': { access: 'user' },
  'GET /v1/store/streams': { access: 'user' },
  'GET /v1/store/head': { access: 'user' },
  'GET /v1/store/state': { access: 'user' },
  'GET /v1/store/patch': { access: 'user' },
  'GET /v1/store/revision-seq': { access: 'user' },
  'GET /v1/store/diff': { access: 'user' },
  'POST /v1/store/view': { access: 'user' },
  'POST /v1/store/states-at': { access: 'user' },
  'POST /v1/store/effective-at': { access: 'user' },
  'GET /v1/store/transitions': { access: 'user' },
  'GET /v1/store/transitions/:seq': { access: 'user' },
  'POST /v1/store/publish': { access: 'user' },
  'POST /v1/store/publish-many': { access: 'user' },
  'POST /v1/store/fork': { access: 'user' },
  'POST /v1/store/merge': { access: 'user' },
  'POST /v1/store/undo': { access: 'user' },
  'POST /v1/store/revert': { access: 'user' },
  'POST /v1/store/compact': { access: 'user' },
  'POST /v1/store/append': { access: 'owner' },
  'POST /v1/store/append-many': { access: 'owner' },
  'POST /v1/store/audit': { access: 'owner' },
  // A retention policy and a run act on every stream of a family: the owner's.
  'GET /v1/store/retention': { access: 'owner' },
  'POST /v1/store/retention/set': { access: 'owner' },
  'POST /v1/store/retention/remove': { access: 'owner' },
  'POST /v1/store/retain': { access: 'owner' },
  // A position beyond the log answers at once instead of holding a stream open.
  'GET /v1/watch': { access: 'user', target: '/v1/watch?from=999999999' },
  'POST /mcp': { access: 'user', target: '/mcp?global=1' },
  'GET /mcp': { access: 'user' },
  'DELETE /mcp': { access: 'user' },
  // The whole store's figures: the store's owner only (401 without credentials, 403 for a key).
  'GET /metrics': { access: 'owner' },
  'GET /v1/history/streams': { access: 'user' },
  'GET /v1/history/histogram': { access: 'user' },
  'GET /v1/history/node': { access: 'user' },
  'GET /v1/history/effective-node': { access: 'user' },
  'GET /v1/history/revisions': { access: 'user' },
  'GET /v1/history/path-history': { access: 'user' },
  'GET /v1/history/diff': { access: 'user' },
  'GET /v1/history/slates': { access: 'user' },
  'GET /v1/history/search': { access: 'user', target: '/v1/history/search?text=alice-secret-7f3a' },
  'GET /v1/history/blame': { access: 'user', target: '/v1/history/blame?stream=global' },
  'GET /v1/history/lineage': { access: 'user', target: '/v1/history/lineage?stream=global' },
  'GET /v1/history/langgraph-steps': { access: 'user', target: '/v1/history/langgraph-steps?stream=langgraph:t' },
  'POST /v1/history/audit-job': { access: 'owner' },
  'GET /v1/history/audit-job': { access: 'owner' },
  'DELETE /v1/history/audit-job': { access: 'owner' },
  'GET /v1/history/audit-job/events': { access: 'owner' },
};

const KEYS = { 'key-alice': 'alice', 'key-bob': 'bob' };
/** What alice stored; no answer to anyone else may contain it. */
const SECRET = 'alice-secret-7f3a';
const SECRET_NAME = 'alice-private-name-91c2';

type Credential = 'none' | 'wrong key' | "another user's key" | 'token';
const CREDENTIALS: Credential[] = ['none', 'wrong key', "another user's key", 'token'];

let dirs: Dirs;
let upstream: FakeUpstream;
let server: ServerHandle;
let port: number;
let aliceSession: string;

function headersOf(credential: Credential): Record<string, string> {
  switch (credential) {
    case 'none':
      return {};
    case 'wrong key':
      return { authorization: 'Bearer key-mallory' };
    case "another user's key":
      return { authorization: 'Bearer key-bob' };
    case 'token':
      return { 'x-stateflow-token': server.token };
  }
}

/** The request target of `route` (`METHOD /pattern`): its sample, or its pattern with alice's resources filled in. */
function targetOf(route: string): string {
  const pattern = route.slice(route.indexOf(' ') + 1);
  return (
    ROUTES[route]?.target ??
    pattern
      .replace(':author', 'alice')
      .replace(':ladder', 'researcher')
      .replace(':id', aliceSession)
      .replace(':seq', '1')
      .replace(':model', '@alice/researcher')
  );
}

/** The target with its first path character percent-encoded (`/v1/…` → `/%761/…`): the same route. */
function percentEncoded(target: string): string {
  return `/%${target.charCodeAt(1).toString(16).toUpperCase()}${target.slice(2)}`;
}

/** The error code of an answer body (`undefined` for a body that has none, as a HEAD answer). */
function codeOf(body: string): string | undefined {
  return body === '' ? undefined : (JSON.parse(body) as { error?: { code?: string } }).error?.code;
}

async function inject(method: string, url: string, credential: Credential): Promise<{ status: number; body: string }> {
  const withBody = method === 'POST';
  const answer = await server.app.inject({
    method: method as 'GET',
    url,
    headers: { ...headersOf(credential), ...(withBody ? { 'content-type': 'application/json' } : {}) },
    ...(withBody ? { payload: '{}' } : {}),
  });
  return { status: answer.statusCode, body: answer.body };
}

/** The table's expectation for an answer to a route in origin-form (or percent-encoded). */
function expectAdmitted(access: Access, credential: Credential, answer: { status: number; body: string }, what: string): void {
  if (credential !== 'token') {
    expect(answer.body, `${what}: nothing of alice's reaches another caller`).not.toContain(SECRET);
    expect(answer.body, what).not.toContain(SECRET_NAME);
  }
  if (access === 'public') {
    expect(answer.status, what).toBeLessThan(400);
    return;
  }
  if (credential === 'none' || credential === 'wrong key') {
    expect([answer.status, codeOf(answer.body)], what).toEqual([401, 'UNAUTHORIZED']);
    return;
  }
  if (access === 'owner' && credential === "another user's key") {
    expect([answer.status, codeOf(answer.body)], what).toEqual([403, 'FORBIDDEN']);
    return;
  }
  expect([401, 403], what).not.toContain(answer.status);
}

beforeAll(async () => {
  dirs = await makeDirs();
  upstream = await startCountingUpstream();
  server = await startServer({ dir: path.join(dirs.root, 'keyed'), ladders: dirs.ladders, port: 0, keys: KEYS, env: upstreamEnv(upstream), sweepIntervalMs: 0, onWarning: () => undefined });
  port = Number(new URL(server.url).port);
  const created = await http(`${server.url}/v1/alice/researcher/sessions`, { key: 'key-alice', body: { name: SECRET_NAME } });
  aliceSession = created.body.id;
  const call = await http(`${server.url}/v1/alice/researcher/chat/completions`, { key: 'key-alice', body: ask(SECRET), headers: { 'x-session-id': aliceSession } });
  expect(call.status).toBe(200);
  const patch = await http(`${server.url}/v1/state/patch`, { key: 'key-alice', body: { selection: { session: aliceSession, mode: 'active' }, patch: { lazy: { note: SECRET } } } });
  expect(patch.status).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await dirs?.cleanup();
});

describe('every route, every target form, every credential', () => {
  it('the router serves exactly the routes of the table (a new route must be added to it, with its access)', () => {
    const served = server.routes.map((r) => `${r.method} ${r.url}`).sort();
    expect(served).toEqual(Object.keys(ROUTES).sort());
    expect(new Set(served).size).toBe(served.length);
  });

  it('origin-form and a percent-encoded path: public routes answer anyone, the rest 401 without a valid credential, owner routes 403 for a key', async () => {
    for (const route of Object.keys(ROUTES)) {
      const method = route.slice(0, route.indexOf(' '));
      const access = ROUTES[route]?.access ?? 'owner';
      for (const target of [targetOf(route), percentEncoded(targetOf(route))]) {
        for (const credential of CREDENTIALS) {
          expectAdmitted(access, credential, await inject(method, target, credential), `${method} ${target} with ${credential}`);
        }
      }
    }
  });

  it('the proof answers with the HMAC of the nonce under the token, and of the nonce and pid, and nothing else', async () => {
    const answer = await inject('GET', `/v1/server/proof?nonce=${NONCE}`, 'none');
    expect(JSON.parse(answer.body)).toEqual({ proof: serverProof(server.token, NONCE), pidProof: serverProof(server.token, NONCE, process.pid) });
  });

  it('a // prefix is no route: 401 without a credential, 404 with one', async () => {
    for (const route of Object.keys(ROUTES)) {
      const method = route.slice(0, route.indexOf(' '));
      const target = `/${targetOf(route)}`;
      for (const credential of CREDENTIALS) {
        const answer = await inject(method, target, credential);
        const [status, code] = credential === 'none' || credential === 'wrong key' ? [401, 'UNAUTHORIZED'] : [404, 'NOT_FOUND'];
        expect([answer.status, codeOf(answer.body)], `${method} ${target} with ${credential}`).toEqual([status, method === 'HEAD' ? undefined : code]);
      }
    }
  });

  it('absolute-form (raw socket): 400 INPUT_INVALID for every route and credential, before anything runs', async () => {
    const before = server.store.lastSeq();
    for (const route of Object.keys(ROUTES)) {
      const method = route.slice(0, route.indexOf(' '));
      const target = `http://127.0.0.1:${port}${targetOf(route)}`;
      for (const credential of CREDENTIALS) {
        const answer = await rawRequest(port, method, target, headersOf(credential), method === 'POST' ? '{}' : '');
        expect(answer.status, `${method} ${target} with ${credential}`).toBe(400);
        if (method !== 'HEAD') expect(JSON.parse(answer.body).error, `${method} ${target}`).toMatchObject({ code: 'INPUT_INVALID', details: { field: 'request-target', reason: 'not-origin-form' } });
      }
    }
    expect(server.store.lastSeq()).toBe(before);
  });

  it('//, .., %2e, # and * forms (raw socket, no credential) never reach a route other than the one the gate checked', async () => {
    const targets = [
      '//v1/store/streams',
      '/v1//store/streams',
      '/x/../v1/store/streams',
      '/ui/../v1/store/streams',
      '/ui/%2e%2e/v1/store/streams',
      '/ui/%2E%2E%2Fv1%2Fstore%2Fstreams',
      '/ui/..%2f..%2fv1/store/streams',
      '/%2e%2e/v1/store/streams',
      '/v1/store/streams#fragment',
      '/ui/index.html#/../../v1/store/streams',
      '/V1/store/streams',
      '*',
      'v1/store/streams',
    ];
    for (const target of targets) {
      for (const method of ['GET', 'HEAD', 'POST', 'OPTIONS']) {
        const answer = await rawRequest(port, method, target, {}, method === 'POST' ? '{}' : '');
        expect([400, 401, 403, 404], `${method} ${target}`).toContain(answer.status);
        expect(answer.body, `${method} ${target}`).not.toContain('lastSeq');
        expect(answer.body, `${method} ${target}`).not.toContain(SECRET);
      }
    }
  });
});

describe('a server without keys that requires its token', () => {
  let guarded: ServerHandle;
  beforeAll(async () => {
    guarded = await startServer({ dir: path.join(dirs.root, 'guarded'), ladders: dirs.ladders, port: 0, requireToken: true, sweepIntervalMs: 0, onWarning: () => undefined });
  });
  afterAll(() => guarded?.close());

  it('answers every non-public route 401 without the token or with a wrong one, and admits the token', async () => {
    expect(guarded.routes.map((r) => `${r.method} ${r.url}`).sort()).toEqual(Object.keys(ROUTES).sort());
    for (const route of Object.keys(ROUTES)) {
      const method = route.slice(0, route.indexOf(' ')) as 'GET';
      const url = targetOf(route);
      for (const headers of [{}, { 'x-stateflow-token': 'f'.repeat(64) }, { authorization: `Bearer ${guarded.token.slice(1)}` }, { 'x-stateflow-token': guarded.token }]) {
        const answer = await guarded.app.inject({ method, url, headers: { ...headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) }, ...(method === 'POST' ? { payload: '{}' } : {}) });
        const what = `${method} ${url} with ${JSON.stringify(headers)}`;
        const admitted = ROUTES[route]?.access === 'public' || headers['x-stateflow-token'] === guarded.token;
        if (admitted) expect([401, 403], what).not.toContain(answer.statusCode);
        else expect([answer.statusCode, answer.json().error?.code], what).toEqual([401, 'UNAUTHORIZED']);
      }
    }
  });
});
