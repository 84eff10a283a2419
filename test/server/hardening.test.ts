/**
 * The HTTP server under hostile or unusual requests, on a real server on a loopback port over
 * classic-level: concurrent state patches, DNS rebinding (Host/Origin) without keys, exact
 * OpenAI content shapes without type coercion, `__proto__`/`constructor` keys as data, fastify's
 * client errors in the documented error format, huge paths, selection rules, strict If-Match and
 * X-Session-Id.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT, startServer } from '@stateflow/server';
import { createRuntime } from '@stateflow/tools';
import { openStore } from '@stateflow/store-leveldb';
import type { ServerHandle } from '@stateflow/server';
import { stateflow } from '../cli/helpers.js';
import { startFakeUpstream } from './fake-upstream.js';
import type { FakeUpstream } from './fake-upstream.js';
import { ask, http, ladderClient, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';

/** A raw HTTP/1.1 request with exactly the given headers (fetch cannot set Host). */
function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers: init.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Every error body has exactly the documented shape. */
function expectErrorFormat(body: any, code: string): void {
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error)).toEqual(['code', 'type', 'message', 'details']);
  expect(body.error.code).toBe(code);
  expect(body.error.type).toBe('invalid_request_error');
  expect(typeof body.error.message).toBe('string');
  expect(typeof body.error.details).toBe('object');
}

const PROJ = '/work/proj';
const stateRead = (input: Record<string, unknown>) => ({ selection: { cwd: PROJ, mode: 'active' }, ...input });

describe('HTTP hardening (one local user, no keys)', () => {
  let dirs: Dirs;
  let upstream: FakeUpstream;
  let server: ServerHandle;
  let port: string;

  beforeAll(async () => {
    dirs = await makeDirs();
    // A key written through the CLI before the server holds the store.
    await mkdir(dirs.dir, { recursive: true });
    const cli = await stateflow(['--dir', dirs.dir, '--cwd', PROJ, 'patch', '{"tactics": {"__proto__": {"from": "cli"}, "keep": 1}}']);
    expect(cli.stderr).toBe('published transition 1 (cwd rev 1)\n');
    expect(cli.code).toBe(0);
    upstream = await startCountingUpstream();
    server = await startServer({ dir: dirs.dir, ladders: dirs.ladders, port: 0, env: upstreamEnv(upstream), sweepIntervalMs: 0, bodyLimit: 64 * 1024, onWarning: () => undefined });
    port = new URL(server.url).port;
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dirs?.cleanup();
  });

  describe('concurrent state patches', () => {
    it('40 concurrent POST /v1/state/patch on different keys all answer 200 and every key is present', async () => {
      const patches = Array.from({ length: 40 }, (_, i) =>
        http(`${server.url}/v1/state/patch`, { body: { selection: { cwd: '/work/concurrent', mode: 'active' }, patch: { tactics: { [`k${i}`]: i } } } }),
      );
      const answers = await Promise.all(patches);
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 40 }, () => 200));
      const read = await http(`${server.url}/v1/state/read`, { body: { selection: { cwd: '/work/concurrent', mode: 'active' }, path: 'tactics' } });
      expect(read.body).toEqual({ value: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])) });
      expect((await server.store.head('cwd:/work/concurrent')).rev).toBe(40);
    });

    it('and on one session selection, across scopes', async () => {
      const patches = Array.from({ length: 40 }, (_, i) =>
        http(`${server.url}/v1/state/patch`, {
          body: { selection: { cwd: '/work/c2', session: 'agent-1', mode: 'active' }, patch: { [i % 2 === 0 ? 'cwd' : 'session']: { lazy: { [`k${i}`]: i } } } },
        }),
      );
      expect((await Promise.all(patches)).filter((a) => a.status !== 200)).toEqual([]);
      expect(Object.keys((await server.store.state('cwd:/work/c2')).lazy as object)).toHaveLength(20);
      expect(Object.keys((await server.store.state('session:agent-1')).lazy as object)).toHaveLength(20);
    });
  });

  describe('DNS rebinding: Host and Origin without keys', () => {
    it.each(['localhost', '127.0.0.1', '[::1]', 'LOCALHOST', '127.0.0.2'])('accepts Host %s with the port', async (host) => {
      const answer = await raw(`${server.url}/openapi.json`, { headers: { host: `${host}:${port}` } });
      expect(answer.status).toBe(200);
      expect(answer.body.openapi).toMatch(/^3\.1/);
    });

    it('accepts a loopback Host without a port', async () => {
      expect((await raw(`${server.url}/openapi.json`, { headers: { host: 'localhost' } })).status).toBe(200);
    });

    it.each(['evil.example', 'evil.example:7411', 'localhost.evil.example', '127.0.0.1.nip.io', '10.0.0.1', '0.0.0.0', '[::ffff:127.0.0.1]'])(
      'refuses Host %s with 403 FORBIDDEN in the documented format',
      async (host) => {
        const answer = await raw(`${server.url}/v1/state/read`, {
          headers: { host, 'content-type': 'application/json' },
          body: JSON.stringify(stateRead({ path: 'tactics' })),
        });
        expect(answer.status).toBe(403);
        expectErrorFormat(answer.body, 'FORBIDDEN');
        expect(answer.body.error.message).toContain('DNS rebinding');
        expect(answer.body.error.details).toEqual({ header: 'Host', value: host });
      },
    );

    it('refuses a non-loopback Origin (and Origin: null), on every route', async () => {
      for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'null', 'file://', 'http://localhost.evil.example']) {
        for (const url of [`${server.url}/openapi.json`, `${server.url}/v1/alice/researcher/sessions`, `${server.url}/nope`]) {
          const answer = await raw(url, { headers: { host: `127.0.0.1:${port}`, origin } });
          expect(answer.status, `${origin} ${url}`).toBe(403);
          expectErrorFormat(answer.body, 'FORBIDDEN');
          expect(answer.body.error.details).toEqual({ header: 'Origin', value: origin });
        }
      }
    });

    it('accepts a loopback Origin on any port', async () => {
      for (const origin of ['http://localhost:5173', 'http://127.0.0.1', 'https://[::1]:8443', `http://127.0.0.1:${port}`]) {
        const answer = await raw(`${server.url}/v1/state/read`, {
          headers: { host: `127.0.0.1:${port}`, origin, 'content-type': 'application/json' },
          body: JSON.stringify(stateRead({ path: 'tactics.keep' })),
        });
        expect(answer.status, origin).toBe(200);
        expect(answer.body).toEqual({ value: 1 });
      }
    });
  });

  describe('chat/completions content shapes, no coercion', () => {
    const chat = (body: unknown) => http(`${server.url}/v1/alice/researcher/chat/completions`, { body });

    it('accepts a single text part, and several text parts joined by a newline', async () => {
      const start = upstream.requests.length;
      const single = await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
      expect(single.status).toBe(200);
      expect(JSON.stringify(upstream.requests[start]?.messages)).toContain('hi');
      const several = await chat({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'first part' }, { type: 'text', text: 'second part' }] }],
      });
      expect(several.status).toBe(200);
      expect(JSON.stringify(upstream.requests[start + 1]?.messages)).toContain('first part\\nsecond part');
      const plain = await chat(ask('a string'));
      expect(plain.status).toBe(200);
    });

    it.each<[string, unknown, string, string]>([
      ['content 5', { model: 'gpt-4o', messages: [{ role: 'user', content: 5 }] }, 'body.messages.0.content', 'body.messages[0].content must be a string, an array of text parts {"type": "text", "text": "…"}, or null.'],
      ['content true', { model: 'gpt-4o', messages: [{ role: 'user', content: true }] }, 'body.messages.0.content', 'body.messages[0].content must be a string, an array of text parts {"type": "text", "text": "…"}, or null.'],
      ['an image part', { model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x' } }] }] }, 'body.messages.0.content', 'body.messages[0].content must be a string, an array of text parts {"type": "text", "text": "…"}, or null.'],
      ['a bare string part', { model: 'gpt-4o', messages: [{ role: 'user', content: ['hi'] }] }, 'body.messages.0.content', 'body.messages[0].content must be a string, an array of text parts {"type": "text", "text": "…"}, or null.'],
      ['a text part without text', { model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'body.messages.0.content', 'body.messages[0].content must be a string, an array of text parts {"type": "text", "text": "…"}, or null.'],
      ['model 5', { model: 5, messages: [{ role: 'user', content: 'hi' }] }, 'body.model', 'body.model must be a string.'],
      ['no model', { messages: [{ role: 'user', content: 'hi' }] }, 'body', 'body needs the member "model".'],
      ['stream "yes"', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: 'yes' }, 'body.stream', 'body.stream must be a boolean.'],
      ['an unknown role', { model: 'gpt-4o', messages: [{ role: 'robot', content: 'hi' }] }, 'body.messages.0.role', 'body.messages[0].role must be one of "system", "developer", "user", "assistant", "tool", "function".'],
    ])('refuses %s with 400 INPUT_INVALID naming the member', async (_, body, field, message) => {
      const answer = await chat(body);
      expect(answer.status).toBe(400);
      expectErrorFormat(answer.body, 'INPUT_INVALID');
      expect(answer.body.error.message).toBe(message);
      expect(answer.body.error.details.field).toBe(field);
    });

    it('refuses unknown members of the session creation body instead of dropping them', async () => {
      const answer = await http(`${server.url}/v1/alice/researcher/sessions`, { body: { name: 'x', nmae: 'y' } });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toBe('body does not accept the member "nmae".');
      const coerced = await http(`${server.url}/v1/alice/researcher/sessions`, { body: { name: 5 } });
      expect(coerced.status).toBe(400);
      expect(coerced.body.error.message).toBe('body.name must be a string.');
    });

    it('still coerces query strings: ?at=1 is revision 1', async () => {
      const created = await http(`${server.url}/v1/alice/researcher/sessions`, { body: {} });
      const at = await http(`${server.url}/v1/alice/researcher/sessions/${created.body.id}/slates?at=1`);
      expect(at.status).toBe(200);
      expect(at.body.rev).toBe(1);
      const bad = await http(`${server.url}/v1/alice/researcher/sessions/${created.body.id}/slates?at=one`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toBe('querystring.at must be an integer.');
    });
  });

  describe('__proto__ and constructor keys are data', () => {
    const before = { ...Object.getOwnPropertyDescriptors(Object.prototype) };

    it('a key written through the CLI is read and deleted over HTTP', async () => {
      const read = await raw(`${server.url}/v1/state/read`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(stateRead({ path: 'tactics' })),
      });
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.body)).toBe('{"value":{"__proto__":{"from":"cli"},"keep":1}}');
      const deleted = await raw(`${server.url}/v1/state/patch`, {
        headers: { 'content-type': 'application/json' },
        body: `{"selection": {"cwd": "${PROJ}", "mode": "active"}, "patch": {"tactics": {"__proto__": null}}}`,
      });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ state_updates: { effective: [{ path: 'tactics.__proto__', deleted: true }], selectors: { cwd: 'cwd[2]' } } });
      expect(await server.store.state(`cwd:${PROJ}`)).toEqual({ tactics: { keep: 1 } });
    });

    it('patches with __proto__ and constructor.prototype keys are stored as data; no prototype is polluted', async () => {
      const body =
        `{"selection": {"cwd": "/work/proto", "mode": "active"}, "patch": {"tactics": ` +
        `{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "plain": {"__proto__": {"polluted": "yes"}}}}}`;
      const patched = await raw(`${server.url}/v1/state/patch`, { headers: { 'content-type': 'application/json' }, body });
      expect(patched.status).toBe(200);
      const read = await raw(`${server.url}/v1/state/read`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ selection: { cwd: '/work/proto', mode: 'active' }, path: 'tactics', projection: 'keys' }),
      });
      expect(read.body).toEqual({ meta: { type: 'object', size: 3 }, keys: JSON.parse('{"__proto__": "object", "constructor": "object", "plain": "object"}') });
      const stored = await server.store.state('cwd:/work/proto');
      expect(Object.keys(stored.tactics as object)).toEqual(['__proto__', 'constructor', 'plain']);
      expect(Object.getPrototypeOf(stored.tactics)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.getOwnPropertyDescriptors(Object.prototype)).toEqual(before);
    });

    it('__proto__ at the top of a body or a selection is an unknown member, not a prototype', async () => {
      const top = await raw(`${server.url}/v1/state/read`, {
        headers: { 'content-type': 'application/json' },
        body: `{"__proto__": {"projection": "keys"}, "selection": {"cwd": "${PROJ}", "mode": "active"}, "path": "tactics"}`,
      });
      expect(top.status).toBe(400);
      expect(top.body.error.message).toContain('"__proto__"');
      const selection = await raw(`${server.url}/v1/state/read`, {
        headers: { 'content-type': 'application/json' },
        body: `{"selection": {"__proto__": {"mode": "active"}, "cwd": "${PROJ}"}, "path": "tactics"}`,
      });
      expect(selection.status).toBe(400);
      expect(selection.body.error.details.field).toBe('selection.__proto__');
      const chat = await raw(`${server.url}/v1/alice/researcher/chat/completions`, {
        headers: { 'content-type': 'application/json' },
        body: `{"__proto__": {"stream": true}, "constructor": {"prototype": {"stream": true}}, "model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}`,
      });
      expect(chat.status).toBe(200);
      expect(({} as Record<string, unknown>).stream).toBeUndefined();
      expect(Object.getOwnPropertyDescriptors(Object.prototype)).toEqual(before);
    });
  });

  describe('fastify client errors in the documented format', () => {
    it('a malformed URL → 400 INPUT_INVALID', async () => {
      const answer = await raw(`${server.url}/v1/demo/notes/sessions/%ZZ`);
      expect(answer.status).toBe(400);
      expectErrorFormat(answer.body, 'INPUT_INVALID');
      expect(answer.body.error.details).toEqual({ field: 'url', reason: 'bad-url' });
    });

    it('an unknown route → 404 NOT_FOUND', async () => {
      const answer = await raw(`${server.url}/v2/nothing`);
      expect(answer.status).toBe(404);
      expectErrorFormat(answer.body, 'NOT_FOUND');
    });

    it('a body over the limit → 413 BODY_TOO_LARGE', async () => {
      const body = JSON.stringify(stateRead({ path: 'x'.repeat(70 * 1024) }));
      const answer = await raw(`${server.url}/v1/state/read`, { headers: { 'content-type': 'application/json' }, body });
      expect(answer.status).toBe(413);
      expectErrorFormat(answer.body, 'BODY_TOO_LARGE');
      expect(answer.body.error.details).toEqual({ limit: 64 * 1024 });
      expect(answer.body.error.message).toBe('The request body is larger than 65536 bytes; send a smaller body.');
    });

    it('a body that is not JSON by content type → 415 MEDIA_TYPE_UNSUPPORTED', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const answer = await raw(`${server.url}/v1/state/read`, { headers: { 'content-type': contentType }, body: JSON.stringify(stateRead({ path: 'tactics' })) });
        expect(answer.status, contentType).toBe(415);
        expectErrorFormat(answer.body, 'MEDIA_TYPE_UNSUPPORTED');
        expect(answer.body.error.details).toEqual({ contentType });
      }
      const none = await raw(`${server.url}/v1/state/read`, { body: JSON.stringify(stateRead({ path: 'tactics' })) });
      expect(none.status).toBe(415);
      expect(none.body.error.message).toBe('The request body must be JSON, sent with "Content-Type: application/json"; got no Content-Type.');
    });

    it('bad JSON → 400 INPUT_INVALID', async () => {
      const answer = await raw(`${server.url}/v1/state/read`, { headers: { 'content-type': 'application/json' }, body: '{"selection":' });
      expect(answer.status).toBe(400);
      expectErrorFormat(answer.body, 'INPUT_INVALID');
      expect(answer.body.error.details).toEqual({ field: 'body', reason: 'json' });
    });
  });

  describe('paths and selections', () => {
    it('a huge path answers a bounded PATH_SYNTAX', async () => {
      const answer = await http(`${server.url}/v1/state/read`, { body: stateRead({ path: `tactics.${'x'.repeat(60_000)}` }) });
      expect(answer.status).toBe(400);
      expectErrorFormat(answer.body, 'PATH_SYNTAX');
      expect(answer.body.error.details.column).toBe(4097);
      expect(JSON.stringify(answer.body).length).toBeLessThan(600);
    });

    it('an unknown selection member, a relative cwd and a missing mode are INPUT_INVALID with clear messages', async () => {
      const typo = await http(`${server.url}/v1/state/read`, { body: { selection: { cwd: '/p', sesion: 'x', mode: 'active' }, path: 'tactics' } });
      expect(typo.status).toBe(400);
      expect(typo.body.error.message).toBe('selection does not accept "sesion"; its members are global, cwd, session and mode.');
      const relative = await http(`${server.url}/v1/state/read`, { body: { selection: { cwd: 'proj', mode: 'active' }, path: 'tactics' } });
      expect(relative.status).toBe(400);
      expect(relative.body.error.message).toMatch(/^selection\.cwd must be an absolute directory path, got the relative path "proj"/);
      const mode = await http(`${server.url}/v1/state/read`, { body: { selection: { cwd: '/p' }, path: 'tactics' } });
      expect(mode.status).toBe(400);
      expect(mode.body.error.message).toBe('selection.mode is required: "active" or "passive".');
    });
  });

  describe('bounded read answers', () => {
    const MIB = 1024 * 1024;
    beforeAll(async () => {
      // One 1 MiB value, written through the library (the server's body limit here is 64 KiB).
      const runtime = createRuntime({ store: server.store, selection: { cwd: '/work/big', mode: 'active' } });
      await runtime.patchState({ patch: { lazy: { big: 'x'.repeat(MIB) } } });
    });
    const read = (body: Record<string, unknown>) => http(`${server.url}/v1/state/read`, { body: { selection: { cwd: '/work/big', mode: 'active' }, ...body } });

    it('a batch of more than 100 paths is 422 RESPONSE_TOO_LARGE before anything is read', async () => {
      for (const count of [101, 400, 600]) {
        const answer = await read({ paths: Array.from({ length: count }, () => 'lazy.big') });
        expect(answer.status).toBe(422);
        expectErrorFormat(answer.body, 'RESPONSE_TOO_LARGE');
        expect(answer.body.error.details).toEqual({ cap: 'paths', limit: 100, requested: count });
      }
    });

    it('results past 8 MiB are 422 RESPONSE_TOO_LARGE naming the cap and the path that crossed it', async () => {
      const answer = await read({ paths: Array.from({ length: 100 }, () => 'lazy.big') });
      expect(answer.status).toBe(422);
      expectErrorFormat(answer.body, 'RESPONSE_TOO_LARGE');
      expect(answer.body.error.details).toEqual({ cap: 'bytes', limit: 8 * MIB, index: 7 });
      expect(answer.body.error.message).toContain('8388608 bytes');
      const fits = await read({ paths: Array.from({ length: 7 }, () => 'lazy.big') });
      expect(fits.status).toBe(200);
      expect(fits.body.value).toHaveLength(7);
      expect((await read({ path: 'lazy.big', projection: 'keys' })).body).toEqual({ meta: { type: 'string', length: MIB }, keys: [] });
    });
  });

  describe('If-Match and X-Session-Id', () => {
    let id: string;
    const call = (headers: Record<string, string>) =>
      raw(`${server.url}/v1/alice/researcher/chat/completions`, { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(ask('hi')) });

    beforeAll(async () => {
      id = (await http(`${server.url}/v1/alice/researcher/sessions`, { body: {} })).body.id;
    });

    it('accepts "<n>" and <n>', async () => {
      const quoted = await call({ 'x-session-id': id, 'if-match': '"1"' });
      expect(quoted.status).toBe(200);
      expect(quoted.headers.etag).toBe('"2"');
      expect((await call({ 'x-session-id': id, 'if-match': '2' })).status).toBe(200);
      expect((await call({ 'x-session-id': id, 'if-match': '2' })).status).toBe(409);
    });

    it.each(['"3', '3"', 'W/"3"', 'w/"3"', '1e23', '99999999999999999999', '*', '"3", "4"', '03', '-1', '3.0', '""'])(
      'refuses If-Match %s with 400 INPUT_INVALID',
      async (value) => {
        const answer = await call({ 'x-session-id': id, 'if-match': value });
        expect(answer.status).toBe(400);
        expectErrorFormat(answer.body, 'INPUT_INVALID');
        expect(answer.body.error.details.field).toBe('If-Match');
        expect(answer.body.error.message).toMatch(/^If-Match (must be one slate revision|".*" is a weak entity tag)/);
      },
    );

    it('an empty or blank X-Session-Id is 400, not a call without a session', async () => {
      for (const value of ['', '   ']) {
        const before = upstream.requests.length;
        const answer = await call({ 'x-session-id': value });
        expect(answer.status).toBe(400);
        expect(answer.body.error.message).toBe('X-Session-Id is empty; send a session id, or omit the header for a call without a session.');
        expect(upstream.requests.length).toBe(before);
      }
      const empty = await call({ 'x-session-id': id, 'if-match': '' });
      expect(empty.status).toBe(400);
      expect(empty.body.error.details).toEqual({ field: 'If-Match', reason: 'empty' });
    });
  });
});

describe('cost per request: the default body limit', () => {
  let dirs: Dirs;
  let server: ServerHandle;
  beforeAll(async () => {
    dirs = await makeDirs();
    server = await startServer({ dir: dirs.dir, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await dirs?.cleanup();
  });
  const patch = (value: unknown) =>
    raw(`${server.url}/v1/state/patch`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ selection: { cwd: '/work/cost', mode: 'active' }, patch: { lazy: { v: value } } }),
    });

  it('is 1 MiB: an 8 MB legal patch (which held the event loop ~9 s) answers 413 without being processed', async () => {
    expect(DEFAULT_BODY_LIMIT).toBe(1024 * 1024);
    const answer = await patch(Array.from({ length: 4 * 1024 * 1024 }, (_, i) => i % 10));
    expect(answer.status).toBe(413);
    expectErrorFormat(answer.body, 'BODY_TOO_LARGE');
    expect(answer.body.error.details).toEqual({ limit: 1024 * 1024 });
    expect((await server.store.head('cwd:/work/cost')).rev).toBe(0);
  });

  it('a patch under the limit is served', async () => {
    const answer = await patch('x'.repeat(1000 * 1000));
    expect(answer.status).toBe(200);
    expect((await server.store.head('cwd:/work/cost')).rev).toBe(1);
  });
});

describe('hostile ladder schemas', () => {
  let dirs: Dirs;
  let upstream: FakeUpstream;
  let server: ServerHandle;
  const GUARDED = `
name: Guarded
slates:
  - title: Notes
    folders:
      - name: log
        tokenLimit: 1000
        files:
          - { name: log.md, init: blank }
steps:
  - id: answer
    fields:
      - { name: Question, type: text, from: input.context }
    slateWrite:
      to: { slate: Notes, folder: log, file: log.md }
      on: append
      match: { type: object, required: [x], properties: { x: { type: string, pattern: "^(a+)+$" } } }
`;
  beforeAll(async () => {
    dirs = await makeDirs();
    await writeFile(path.join(dirs.ladders, 'alice', 'guarded.yaml'), GUARDED);
    await writeFile(path.join(dirs.ladders, 'alice', 'selfref.yaml'), GUARDED.replace(/match: .*/, 'match: { $ref: "#" }'));
    await writeFile(path.join(dirs.ladders, 'alice', 'lookahead.yaml'), GUARDED.replace('^(a+)+$', '^(?=a).*$'));
    await writeFile(
      path.join(dirs.ladders, 'alice', 'gated.yaml'),
      'name: Gated\nsteps:\n  - id: check\n    fields:\n      - { name: Q, type: text, from: input.context }\n    if: { equals: "ok", then: continue, else: abort }\n  - id: answer\n    systemPrompt: "Answer."\n',
    );
    // The model echoes text the user steers: 29 a's and a b (a backtracking engine: ~2^29 steps).
    upstream = await startFakeUpstream(() => JSON.stringify({ x: `${'a'.repeat(29)}b` }));
    server = await startServer({ dir: dirs.dir, ladders: dirs.ladders, port: 0, env: upstreamEnv(upstream), sweepIntervalMs: 0, onWarning: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dirs?.cleanup();
  });

  it('a catastrophic-backtracking pattern fed steered model output does not block the server', async () => {
    const call = http(`${server.url}/v1/alice/guarded/chat/completions`, { body: ask('aaaa') });
    const meanwhile = await http(`${server.url}/openapi.json`);
    expect(meanwhile.status).toBe(200);
    const answer = await call;
    expect(answer.status).toBe(200);
    expect(answer.body.stateflow.refused).toEqual([]);
  }, 5_000);

  it('an aborted run is a distinct answer the official openai client parses: a refusal naming the step, stateflow.aborted', async () => {
    const completion = await ladderClient(server.url, 'alice/gated').chat.completions.create(ask('anything'));
    const choice = completion.choices[0];
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.refusal).toBe('The ladder aborted at step "check" (node 0): its gate did not match and its else is abort.');
    expect(choice?.finish_reason).toBe('stop');
    expect((completion as unknown as { stateflow: { aborted: unknown } }).stateflow.aborted).toEqual({ step: 'check', node: 0, branch: 'else' });
    const completed = await http(`${server.url}/v1/alice/guarded/chat/completions`, { body: ask('aaaa') });
    expect(completed.body.stateflow.aborted).toBeNull();
    expect(typeof completed.body.choices[0].message.content).toBe('string');
  });

  it('a self-referencing schema and a pattern the linear engine cannot run are rejected at start, not 500 per call', async () => {
    const rejected = Object.fromEntries(server.rejected.map((r) => [path.basename(r.file), r]));
    expect(rejected['selfref.yaml']?.code).toBe('CONFIG_INVALID');
    expect(rejected['selfref.yaml']?.message).toContain('refers to itself through "$ref" without descending into the value');
    expect(rejected['lookahead.yaml']?.code).toBe('CONFIG_INVALID');
    expect(rejected['lookahead.yaml']?.message).toContain('cannot run on the linear-time regular expression engine');
    expect(server.ladders).not.toContain('@alice/selfref');
    expect((await http(`${server.url}/v1/alice/selfref/chat/completions`, { body: ask('x') })).status).toBe(404);
  });
});

describe('internal failures and client errors', () => {
  let dirs: Dirs;
  let server: ServerHandle;
  const logged: string[] = [];
  beforeAll(async () => {
    dirs = await makeDirs();
    await mkdir(dirs.dir, { recursive: true });
    const store = await openStore(dirs.dir);
    // A store whose reads of one stream fail with a foreign error: a real internal failure path.
    const failing = new Proxy(store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (key === 'view') {
          return (streams: string[]) => {
            if (streams.includes('cwd:/work/boom')) throw new TypeError('disk said no');
            return target.view(streams);
          };
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    server = await startServer({ store: failing, ladders: dirs.ladders, port: 0, sweepIntervalMs: 0, onWarning: () => undefined, logDestination: { write: (line: string) => logged.push(line) } });
  });
  afterAll(async () => {
    await server?.close();
    await server?.store.close();
    await dirs?.cleanup();
  });

  it('an INTERNAL answer carries a request id, and the server log has a line with that id and the error', async () => {
    const answer = await raw(`${server.url}/v1/state/read`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ selection: { cwd: '/work/boom', mode: 'active' }, path: 'tactics' }),
    });
    expect(answer.status).toBe(500);
    expect(answer.body.error.code).toBe('INTERNAL');
    const id = answer.body.error.details.requestId as string;
    // <server process>-<request counter> (packages/server/src/http/request-id.ts).
    expect(id).toMatch(/^[0-9a-z]{8}-[0-9a-z]+$/);
    expect(answer.headers['x-request-id']).toBe(id);
    expect(JSON.stringify(answer.body)).not.toContain('disk said no');
    const lines = logged.map((line) => JSON.parse(line) as Record<string, any>).filter((entry) => entry.reqId === id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, code: 'INTERNAL', status: 500, method: 'POST', url: '/v1/state/read' });
    expect(JSON.stringify(lines[0]?.err)).toContain('disk said no');
    // A client error is not logged.
    const before = logged.length;
    expect((await http(`${server.url}/v2/nothing`)).status).toBe(404);
    expect(logged.length).toBe(before);
  });

  it("Node's own 431 and 400 answers use the documented error body", async () => {
    const big = await raw(`${server.url}/openapi.json`, { headers: { 'x-filler': 'x'.repeat(32 * 1024) } });
    expect(big.status).toBe(431);
    expectErrorFormat(big.body, 'HEADERS_TOO_LARGE');
    expect(big.body.error.details).toEqual({ limit: 16 * 1024 });
    const garbage = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => socket.end('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4));
    expectErrorFormat(body, 'INPUT_INVALID');
    expect(body.error.details).toEqual({ field: 'request', reason: 'malformed-http' });
  });

  it('slates?at= beyond safe integers is 400 INPUT_INVALID, not a 404 naming Infinity or a rounded revision', async () => {
    const id = (await http(`${server.url}/v1/alice/researcher/sessions`, { body: {} })).body.id as string;
    // Not decimal: refused before coercion could make it Infinity.
    const exponent = await http(`${server.url}/v1/alice/researcher/sessions/${id}/slates?at=1e400`);
    expect([exponent.status, exponent.body.error.code, exponent.body.error.details.field]).toEqual([400, 'INPUT_INVALID', 'querystring.at']);
    for (const at of ['9007199254740993', '9007199254740992']) {
      const answer = await http(`${server.url}/v1/alice/researcher/sessions/${id}/slates?at=${at}`);
      expect(answer.status, at).toBe(400);
      expectErrorFormat(answer.body, 'INPUT_INVALID');
      expect(answer.body.error.details.field).toBe('querystring.at');
      expect(answer.body.error.message).toBe('querystring.at must be <= 9007199254740991.');
    }
    expect((await http(`${server.url}/v1/alice/researcher/sessions/${id}/slates?at=1`)).status).toBe(200);
  });
});

describe('with API keys the Host is not restricted', () => {
  let dirs: Dirs;
  let server: ServerHandle;
  beforeAll(async () => {
    dirs = await makeDirs();
    server = await startServer({ dir: dirs.dir, ladders: dirs.ladders, port: 0, keys: { 'key-a': 'alice' }, sweepIntervalMs: 0, onWarning: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await dirs?.cleanup();
  });

  it('serves any Host and Origin, and reports that a key is required', async () => {
    expect(server.requiresKey).toBe(true);
    const headers = { host: 'stateflow.example.com', origin: 'https://app.example.com' };
    expect((await raw(`${server.url}/v1/alice/researcher/sessions`, { headers })).status).toBe(401);
    const listed = await raw(`${server.url}/v1/alice/researcher/sessions`, { headers: { ...headers, authorization: 'Bearer key-a' } });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ object: 'list', data: [] });
  });

  it('the state API works with a created session and the key', async () => {
    const created = await http(`${server.url}/v1/alice/researcher/sessions`, { body: {}, key: 'key-a' });
    const read = await http(`${server.url}/v1/state/read`, { key: 'key-a', body: { selection: { session: created.body.id, mode: 'active' }, path: 'session', projection: 'keys' } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ meta: { type: 'object', size: 0 }, keys: {} });
  });
});

describe('requiresKey without keys', () => {
  it('is false', async () => {
    const dirs = await makeDirs();
    const server = await startServer({ dir: path.join(dirs.root, 'store'), port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
    try {
      expect(server.requiresKey).toBe(false);
    } finally {
      await server.close();
      await dirs.cleanup();
    }
  });
});
