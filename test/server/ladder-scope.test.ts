/**
 * Sessions and slates belong to one ladder (seeds/ladr-stateful-sessions.txt "Each session is
 * currently bound to one ladder"; seeds/ladr-persistent-memory-with-slates.txt "Slates are
 * scoped to the ladder"): a real server over classic-level with two ladders of one author that
 * declare the same slate, calls through HTTP, model calls to a fake upstream on loopback.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { RESEARCHER_YAML, ask, http, makeDirs, startCountingUpstream, upstreamEnv } from './fixtures.js';
import type { Dirs } from './fixtures.js';

describe('sessions and slates are scoped to the ladder', () => {
  let dirs: Dirs;
  let upstream: FakeUpstream;
  let server: ServerHandle;

  beforeAll(async () => {
    dirs = await makeDirs();
    // A second ladder of the same author declaring the same slate, folder and file.
    await writeFile(path.join(dirs.ladders, 'alice', 'assistant.yaml'), RESEARCHER_YAML.replace('name: Research Assistant', 'name: Second Assistant'));
    await writeFile(path.join(dirs.ladders, 'local', 'other.yaml'), RESEARCHER_YAML);
    upstream = await startCountingUpstream();
    server = await startServer({ dir: dirs.dir, ladders: dirs.ladders, port: 0, env: upstreamEnv(upstream), sweepIntervalMs: 0, onWarning: () => undefined });
    expect(server.ladders).toEqual(['@alice/assistant', '@alice/researcher', '@local/notes', '@local/other']);
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await dirs?.cleanup();
  });

  const base = (ladder: string) => `${server.url}/v1/${ladder}`;
  const call = (ladder: string, question: string, session?: string) =>
    http(`${base(ladder)}/chat/completions`, { body: ask(question), headers: session === undefined ? {} : { 'x-session-id': session } });
  const history = async (ladder: string, session: string): Promise<string> =>
    (await http(`${base(ladder)}/sessions/${session}/slates`)).body.slates['Conversation Memory'].history['messages.md'];

  it('#69 stateful sessions ("Two different ladders cannot share a session"): a session used on another ladder of its author is 404 SESSION_NOT_FOUND, on every route', async () => {
    const id: string = (await http(`${base('alice/researcher')}/sessions`, { body: {} })).body.id;
    const calls = upstream.requests.length;
    const answers = [
      await call('alice/assistant', 'Borrowed session?', id),
      await http(`${base('alice/assistant')}/sessions/${id}`),
      await http(`${base('alice/assistant')}/sessions/${id}/slates`),
      await http(`${base('alice/assistant')}/sessions/${id}/pause`, { method: 'POST' }),
      await http(`${base('alice/assistant')}/sessions/${id}/close`, { method: 'POST' }),
    ];
    expect(answers.map((a) => [a.status, a.body.error.code])).toEqual(Array.from({ length: 5 }, () => [404, 'SESSION_NOT_FOUND']));
    expect(answers[0]?.body.error.message).toBe(`Session "${id}" not found`);
    expect(upstream.requests).toHaveLength(calls);
    // Its own ladder still serves it, untouched by the refused requests.
    expect((await http(`${base('alice/researcher')}/sessions/${id}`)).body).toMatchObject({ id, ladder: '@alice/researcher', status: 'created' });
    expect((await call('alice/researcher', 'Own ladder.', id)).status).toBe(200);
  });

  it('L-N2 slates ("Two different ladders by the same author have separate slates"): writes through one ladder never reach the other\'s slate', async () => {
    const researcher: string = (await http(`${base('alice/researcher')}/sessions`, { body: {} })).body.id;
    const assistant: string = (await http(`${base('alice/assistant')}/sessions`, { body: {} })).body.id;
    const first = await call('alice/researcher', 'Quantum gates.', researcher);
    const n = Number(/answer #(\d+)/.exec(first.body.choices[0].message.content as string)?.[1]);
    await call('alice/assistant', 'Error correction.', assistant);
    expect(await history('alice/researcher', researcher)).toBe(`{"exchange":"answer #${n}"}`);
    expect(await history('alice/assistant', assistant)).toBe(`{"exchange":"answer #${n + 1}"}`);
    // The second ladder's call did not see the first ladder's memory.
    expect(JSON.stringify(upstream.requests.at(-1)?.messages)).not.toContain(`answer #${n}"`);
    // Local ladders, which keep their slate without sessions, are scoped the same way.
    await call('local/notes', 'Local one.'); // answer #n+2, kept in local/notes' slate
    expect((await call('local/other', 'Local two.')).status).toBe(200);
    expect(JSON.stringify(upstream.requests.at(-1)?.messages)).not.toContain(`answer #${n + 2}`);
    expect((await call('local/notes', 'Local three.')).status).toBe(200);
    expect(JSON.stringify(upstream.requests.at(-1)?.messages)).toContain(`answer #${n + 2}`);
  });
});
