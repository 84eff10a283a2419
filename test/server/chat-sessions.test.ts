/**
 * The HTTP server end to end (server README "A session from create to a time-travel read"): a real server on a
 * loopback port over classic-level, the official `openai` client calling chat/completions with
 * `X-Session-Id`, and the ladder's model calls going to a fake upstream also on loopback.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { startServer } from '@stateflow/server';
import { createRuntime } from '@stateflow/tools';
import type { ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { ask, http, ladderClient, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';

/** All text the upstream saw in one request. */
const seen = (upstream: FakeUpstream, index: number) => JSON.stringify(upstream.requests[index]?.messages ?? null);

/** The contents of the conversation file in a slates response (projection shape agnostic). */
const historyText = (slates: unknown) => JSON.stringify(slates);

describe('chat/completions over sessions (one local user)', () => {
  let dirs: Dirs;
  let upstream: FakeUpstream;
  let server: ServerHandle;
  const warnings: string[] = [];

  beforeAll(async () => {
    dirs = await makeDirs();
    upstream = await startCountingUpstream();
    server = await startServer({
      dir: dirs.dir,
      ladders: dirs.ladders,
      port: 0,
      env: upstreamEnv(upstream),
      sweepIntervalMs: 0,
      onWarning: (m) => warnings.push(m),
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dirs?.cleanup();
  });

  it('serves valid ladders and reports the bad one without serving it', async () => {
    expect(server.ladders).toEqual(['@alice/researcher', '@local/notes']);
    expect(server.rejected.map((r) => [r.file.endsWith('broken.yaml'), r.code])).toEqual([[true, 'CONFIG_INVALID']]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('broken.yaml');
    const broken = await http(`${server.url}/v1/alice/broken/sessions`, { body: {} });
    expect(broken.status).toBe(404);
    expect(broken.body.error.code).toBe('NOT_FOUND');
    expect(broken.body.error.message).toBe("Ladder @alice/broken is not served: no valid alice/broken.yaml in the server's ladders directory; served: @alice/researcher, @local/notes");
  });

  it('a server given no ladders says so, and how to serve some, to a ladder call', async () => {
    const bare = await startServer({ store: server.store, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
    try {
      const call = await http(`${bare.url}/v1/demo/notes/chat/completions`, { body: ask('hello') });
      expect([call.status, call.body.error.code]).toEqual([404, 'NOT_FOUND']);
      expect(call.body.error.message).toBe('Ladder @demo/notes is not served: this server serves no ladders: start it with --ladders DIR, a directory of DIR/<author>/<name>.yaml files');
    } finally {
      await bare.close();
    }
  });

  it('day 1 / day 2: the second call sees the first call’s slate writes; a call without the header does not', async () => {
    const created = await http(`${server.url}/v1/alice/researcher/sessions`, { body: { name: 'Quantum computing deep dive' } });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'id', 'ladder']);
    expect(created.body.ladder).toBe('@alice/researcher');
    const id: string = created.body.id;
    expect(id).toMatch(/^sess_[0-9a-f]{32}$/);

    const client = ladderClient(server.url, 'alice/researcher');
    const start = upstream.requests.length;
    const day1 = await client.chat.completions.create(ask('Start with quantum gates.'), { headers: { 'X-Session-Id': id } });
    expect(day1.object).toBe('chat.completion');
    expect(day1.model).toBe('gpt-4o');
    expect(day1.choices[0]?.message.content).toBe(`Answer ${start + 1}. {"exchange": "answer #${start + 1}"}`);
    expect(upstream.requests[start]?.model).toBe('gpt-4o');
    expect(upstream.requests[start]?.authorization).toBe('Bearer upstream-secret');
    expect(seen(upstream, start)).toContain('Start with quantum gates.');

    const day2 = await client.chat.completions.create(ask('Now dive into error correction.'), { headers: { 'X-Session-Id': id } });
    expect(day2.choices[0]?.message.content).toContain(`answer #${start + 2}`);
    expect(seen(upstream, start + 1)).toContain(`answer #${start + 1}`);

    const fresh = await client.chat.completions.create(ask('No session here.'));
    expect(fresh.choices[0]?.message.content).toContain(`answer #${start + 3}`);
    expect((fresh as unknown as { stateflow: unknown }).stateflow).toMatchObject({ session: null, rev: null, transition: null });
    expect(seen(upstream, start + 2)).not.toContain('answer #');

    const session = await http(`${server.url}/v1/alice/researcher/sessions/${id}`);
    expect(session.body).toMatchObject({ id, ladder: '@alice/researcher', name: 'Quantum computing deep dive', status: 'active' });
    const slates = await http(`${server.url}/v1/alice/researcher/sessions/${id}/slates`);
    expect(slates.status).toBe(200);
    expect(slates.body.rev).toBe(session.body.rev);
    expect(historyText(slates.body.slates)).toContain(`answer #${start + 1}`);
    expect(historyText(slates.body.slates)).toContain(`answer #${start + 2}`);
    expect(historyText(slates.body.slates)).not.toContain(`answer #${start + 3}`);

    // Time travel: revision 1 is the session as created (blank file), before either call.
    const atCreation = await http(`${server.url}/v1/alice/researcher/sessions/${id}/slates?at=1`);
    expect(atCreation.status).toBe(200);
    expect(atCreation.body).toMatchObject({ session: id, rev: 1, head: slates.body.rev });
    expect(historyText(atCreation.body.slates)).not.toContain('answer #');
    const future = await http(`${server.url}/v1/alice/researcher/sessions/${id}/slates?at=${slates.body.rev + 1}`);
    expect(future.status).toBe(404);
    expect(future.body.error.code).toBe('REVISION_NOT_FOUND');
  });

  it('20 concurrent calls on one session all land', async () => {
    const { body } = await http(`${server.url}/v1/alice/researcher/sessions`, { body: {} });
    const client = ladderClient(server.url, 'alice/researcher');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.chat.completions.create(ask(`question ${i}`), { headers: { 'X-Session-Id': body.id } })),
    );
    const written = results.map((r) => /answer #(\d+)/.exec(r.choices[0]?.message.content ?? '')?.[1]);
    expect(new Set(written).size).toBe(20);
    const slates = await http(`${server.url}/v1/alice/researcher/sessions/${body.id}/slates`);
    const file: string = slates.body.slates['Conversation Memory'].history['messages.md'];
    const appended = file.split('\n\n').map((entry) => (JSON.parse(entry) as { exchange: string }).exchange);
    // Serialised: the file holds the 20 exchanges in the order the upstream produced them.
    expect(appended).toEqual(
      written
        .map(Number)
        .sort((a, b) => a - b)
        .map((n) => `answer #${n}`),
    );
    expect(slates.body.rev).toBe(21);
  });

  it('If-Match with a stale revision → 409 CONFLICT; with the current one the call runs', async () => {
    const { body } = await http(`${server.url}/v1/alice/researcher/sessions`, { body: {} });
    const client = ladderClient(server.url, 'alice/researcher');
    const ok = await client.chat.completions
      .create(ask('first'), { headers: { 'X-Session-Id': body.id, 'If-Match': '"1"' } })
      .withResponse();
    expect(ok.response.headers.get('etag')).toBe('"2"');
    const stale = await client.chat.completions
      .create(ask('second'), { headers: { 'X-Session-Id': body.id, 'If-Match': '"1"' } })
      .catch((err: unknown) => err);
    expect(stale).toBeInstanceOf(APIError);
    expect((stale as APIError).status).toBe(409);
    expect((stale as APIError).code).toBe('CONFLICT');
    expect((stale as APIError).error).toMatchObject({ details: { expected: 1, actual: 2 } });
    const bad = await http(`${server.url}/v1/alice/researcher/chat/completions`, {
      body: ask('x'),
      headers: { 'x-session-id': body.id, 'if-match': 'yesterday' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INPUT_INVALID');
  });

  it('local/ ladders persist their slate in the local store without sessions', async () => {
    const client = ladderClient(server.url, 'local/notes');
    const first = await client.chat.completions.create(ask('remember this'));
    const n = /answer #(\d+)/.exec(first.choices[0]?.message.content ?? '')?.[1];
    const before = upstream.requests.length;
    await client.chat.completions.create(ask('and now?'));
    expect(seen(upstream, before)).toContain(`answer #${n}`);
    const sessions = await http(`${server.url}/v1/local/notes/sessions`, { body: {} });
    expect(sessions.status).toBe(400);
    expect(sessions.body.error.code).toBe('INPUT_INVALID');
  });

  it('pause rejects calls with 409 SESSION_PAUSED until resume; close → 410 SESSION_CLOSED', async () => {
    const { body } = await http(`${server.url}/v1/alice/researcher/sessions`, { body: {} });
    const base = `${server.url}/v1/alice/researcher/sessions/${body.id}`;
    expect((await http(`${base}/pause`, { method: 'POST' })).body.status).toBe('paused');
    const paused = await http(`${server.url}/v1/alice/researcher/chat/completions`, { body: ask('x'), headers: { 'x-session-id': body.id } });
    expect(paused.status).toBe(409);
    expect(paused.body.error.code).toBe('SESSION_PAUSED');
    expect((await http(`${base}/resume`, { method: 'POST' })).body.status).toBe('active');
    const client = ladderClient(server.url, 'alice/researcher');
    await client.chat.completions.create(ask('resumed'), { headers: { 'X-Session-Id': body.id } });
    expect((await http(`${base}/close`, { method: 'POST' })).body.status).toBe('closed');
    const closed = await client.chat.completions.create(ask('x'), { headers: { 'X-Session-Id': body.id } }).catch((e: unknown) => e);
    expect((closed as APIError).status).toBe(410);
    expect((closed as APIError).code).toBe('SESSION_CLOSED');
    const readable = await http(`${base}/slates`);
    expect(readable.status).toBe(200);
  });

  it('state API: read and patch answer exactly what the tools answer', async () => {
    const { body } = await http(`${server.url}/v1/alice/researcher/sessions`, { body: {} });
    const selection = { session: body.id, mode: 'active' as const };
    const patched = await http(`${server.url}/v1/state/patch`, { body: { selection, patch: { lazy: { plan: ['a', 'b'] } } } });
    expect(patched.status).toBe(200);
    const input = { paths: ['lazy.plan[1:2]', 'lazy'], projection: 'value' };
    const read = await http(`${server.url}/v1/state/read`, { body: { selection, ...input } });
    expect(read.body).toEqual({ value: [['b'], { plan: ['a', 'b'] }] });
    expect(read.body).toEqual(await createRuntime({ store: server.store, selection }).readState(input));
    const global = await http(`${server.url}/v1/state/read`, { body: { selection: { global: true, mode: 'passive' }, path: 'global', projection: 'keys' } });
    expect(global.status).toBe(200);
    const bad = await http(`${server.url}/v1/state/read`, { body: { selection, path: 'lazy.*' } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'PATH_SYNTAX']);
    const missing = await http(`${server.url}/v1/state/read`, { body: { selection, path: 'lazy.nothing' } });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'PATH_NOT_FOUND']);
    const noSelection = await http(`${server.url}/v1/state/read`, { body: { path: 'lazy' } });
    expect([noSelection.status, noSelection.body.error.code]).toEqual([400, 'INPUT_INVALID']);
    await http(`${server.url}/v1/alice/researcher/sessions/${body.id}/close`, { method: 'POST' });
    const closed = await http(`${server.url}/v1/state/patch`, { body: { selection, patch: { lazy: { x: 1 } } } });
    expect([closed.status, closed.body.error.code]).toEqual([410, 'SESSION_CLOSED']);
    expect((await http(`${server.url}/v1/state/read`, { body: { selection, path: 'lazy.plan' } })).body).toEqual({ value: ['a', 'b'] });
  });

  it('answers bad input with 400 and serves the OpenAPI document', async () => {
    const noUser = await http(`${server.url}/v1/alice/researcher/chat/completions`, { body: { model: 'm', messages: [{ role: 'system', content: 's' }] } });
    expect(noUser.status).toBe(400);
    expect(noUser.body.error.code).toBe('INPUT_INVALID');
    const noMessages = await http(`${server.url}/v1/alice/researcher/chat/completions`, { body: { model: 'm' } });
    expect(noMessages.status).toBe(400);
    const unknown = await http(`${server.url}/v1/alice/researcher/sessions/sess_00000000000000000000000000000000`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('SESSION_NOT_FOUND');
    const doc = await http(`${server.url}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/{author}/{ladder}/sessions',
        '/v1/{author}/{ladder}/sessions/{id}',
        '/v1/{author}/{ladder}/sessions/{id}/close',
        '/v1/{author}/{ladder}/sessions/{id}/slates',
        '/v1/{author}/{ladder}/chat/completions',
        '/v1/state/read',
        '/v1/state/patch',
      ]),
    );
  });
});

describe('a scripted model (--model scripted:<file.jsonl>)', () => {
  it('answers from the script, in call order, with no upstream configured', async () => {
    const dirs = await makeDirs();
    const script = path.join(dirs.root, 'demo.jsonl');
    await writeFile(script, ['{"content": "first {\\"exchange\\": \\"one\\"}"}', '{"content": "second"}', ''].join('\n'));
    const server = await startServer({ dir: dirs.dir, ladders: dirs.ladders, port: 0, env: {}, model: `scripted:${script}`, sweepIntervalMs: 0 });
    try {
      const client = ladderClient(server.url, 'alice/researcher');
      const { body } = await http(`${server.url}/v1/alice/researcher/sessions`, { body: {} });
      const one = await client.chat.completions.create(ask('q1'), { headers: { 'X-Session-Id': body.id } });
      expect(one.choices[0]?.message.content).toBe('first {"exchange": "one"}');
      const two = await client.chat.completions.create(ask('q2'), { headers: { 'X-Session-Id': body.id } });
      expect(two.choices[0]?.message.content).toBe('second');
      const slates = await http(`${server.url}/v1/alice/researcher/sessions/${body.id}/slates`);
      expect(slates.body.slates['Conversation Memory'].history['messages.md']).toBe('{"exchange":"one"}');
    } finally {
      await server.close();
      await dirs.cleanup();
    }
  });

  it('refuses a model option that is not scripted:<file>', async () => {
    const err = await startServer({ dir: '/nonexistent', port: 0, env: {}, model: 'gpt-4o' }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('USAGE');
  });
});
