/**
 * Two `stateflow serve --store postgres://…` processes on one fresh schema (server README
 * "Several servers on one PostgreSQL store"): the sessions flow of test/server/chat-sessions
 * (create, two calls, slates time travel, state API) with requests alternating between the
 * servers; concurrent calls on one session through both are serialised by the session's
 * advisory lock (every exchange lands, in the order the upstream answered); concurrent state
 * API patches through both all land; a call paused on one server is resumed through the other.
 *
 * Needs the test PostgreSQL (`STATEFLOW_TEST_POSTGRES`): skipped visibly without it, failing
 * under CI=true.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPostgresStore } from '@stateflow/store-postgres';
import { freshPostgresUrl, testPostgres } from '@stateflow/test-kit';
import type { FakeUpstream } from '../server/fake-upstream.js';
import { TWO_STEPS_YAML, ask, countingAnswers, gatedUpstream, http, makeDirs, untilRequestsWaiting, upstreamEnv } from '../server/fixtures.js';
import type { Dirs } from '../server/fixtures.js';
import { spawnServe, type ServeProcess } from './processes.js';

const server = await testPostgres();

describe.skipIf('unavailable' in server)('two servers on one PostgreSQL store', () => {
  let dirs: Dirs;
  let url: string;
  let upstream: FakeUpstream;
  let gated: ReturnType<typeof gatedUpstream>;
  let a: ServeProcess;
  let b: ServeProcess;
  /** Server i % 2: requests alternate between the two. */
  const at = (i: number): string => (i % 2 === 0 ? a.url : b.url);

  beforeAll(async () => {
    dirs = await makeDirs();
    await writeFile(path.join(dirs.ladders, 'alice', 'twostep.yaml'), TWO_STEPS_YAML);
    url = freshPostgresUrl('serve');
    gated = gatedUpstream(countingAnswers());
    upstream = await gated.started;
    const args = ['--ladders', dirs.ladders];
    [a, b] = await Promise.all([spawnServe(url, args, upstreamEnv(upstream)), spawnServe(url, args, upstreamEnv(upstream))]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await upstream?.close();
    await dropPostgresStore(url);
    await dirs?.cleanup();
  });

  it('the sessions flow with requests alternating between the servers', async () => {
    expect(a.url).not.toBe(b.url);
    const created = await http(`${a.url}/v1/alice/researcher/sessions`, { body: { name: 'two servers' } });
    expect(created.status).toBe(200);
    const id: string = created.body.id;
    const start = upstream.requests.length;
    const day1 = await http(`${b.url}/v1/alice/researcher/chat/completions`, { body: ask('Start with quantum gates.'), headers: { 'x-session-id': id } });
    expect(day1.status).toBe(200);
    expect(day1.body.choices[0].message.content).toBe(`Answer ${start + 1}. {"exchange": "answer #${start + 1}"}`);
    const day2 = await http(`${a.url}/v1/alice/researcher/chat/completions`, { body: ask('Now error correction.'), headers: { 'x-session-id': id } });
    expect(day2.status).toBe(200);
    // The call through A saw the slate write of the call through B.
    expect(JSON.stringify(upstream.requests[start + 1]?.messages)).toContain(`answer #${start + 1}`);

    const session = await http(`${b.url}/v1/alice/researcher/sessions/${id}`);
    expect(session.body).toMatchObject({ id, name: 'two servers', status: 'active' });
    const slates = await http(`${a.url}/v1/alice/researcher/sessions/${id}/slates`);
    expect(slates.body.rev).toBe(3);
    expect(JSON.stringify(slates.body.slates)).toContain(`answer #${start + 2}`);
    const atCreation = await http(`${b.url}/v1/alice/researcher/sessions/${id}/slates?at=1`);
    expect(atCreation.body).toMatchObject({ session: id, rev: 1, head: 3 });
    expect(JSON.stringify(atCreation.body.slates)).not.toContain('answer #');

    const selection = { session: id, mode: 'active' as const };
    const patched = await http(`${b.url}/v1/state/patch`, { body: { selection, patch: { lazy: { plan: ['a', 'b'] } } } });
    expect(patched.status).toBe(200);
    const read = await http(`${a.url}/v1/state/read`, { body: { selection, paths: ['lazy.plan[1:2]', 'lazy'], projection: 'value' } });
    expect(read.body).toEqual({ value: [['b'], { plan: ['a', 'b'] }] });

    await http(`${a.url}/v1/alice/researcher/sessions/${id}/close`, { method: 'POST' });
    const closed = await http(`${b.url}/v1/state/patch`, { body: { selection, patch: { lazy: { x: 1 } } } });
    expect([closed.status, closed.body.error.code]).toEqual([410, 'SESSION_CLOSED']);
    const late = await http(`${b.url}/v1/alice/researcher/chat/completions`, { body: ask('x'), headers: { 'x-session-id': id } });
    expect([late.status, late.body.error.code]).toEqual([410, 'SESSION_CLOSED']);
  });

  it('concurrent calls on one session through both servers are serialised: every exchange lands, in answer order', async () => {
    const id: string = (await http(`${b.url}/v1/alice/researcher/sessions`, { body: {} })).body.id;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => http(`${at(i)}/v1/alice/researcher/chat/completions`, { body: ask(`question ${i}`), headers: { 'x-session-id': id } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 200));
    const written = results.map((r) => Number(/answer #(\d+)/.exec(r.body.choices[0].message.content as string)?.[1]));
    expect(new Set(written).size).toBe(12);
    const slates = await http(`${a.url}/v1/alice/researcher/sessions/${id}/slates`);
    const file: string = slates.body.slates['Conversation Memory'].history['messages.md'];
    const appended = file.split('\n\n').map((entry) => (JSON.parse(entry) as { exchange: string }).exchange);
    // One call at a time across both servers: each saw the one before, so the file holds every
    // exchange in the order the upstream produced them, and each call made one revision.
    expect(appended).toEqual([...written].sort((x, y) => x - y).map((n) => `answer #${n}`));
    expect(slates.body.rev).toBe(13);
  });

  it('concurrent state API patches through both servers all land (CAS and re-evaluation)', async () => {
    const selection = { global: true, mode: 'active' as const };
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => http(`${at(i)}/v1/state/patch`, { body: { selection, patch: { tactics: { [`k${i}`]: i } } } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 16 }, () => 200));
    const read = await http(`${b.url}/v1/state/read`, { body: { selection, path: 'global.tactics' } });
    expect(read.body.value).toEqual(Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, i])));
  });

  /**
   * Create a twostep session on `server`, start a call there and ask to pause it while its
   * draft step waits for the upstream (the pause is pending until `gated.release()`).
   */
  async function startPausing(server: string) {
    gated.arm();
    const id: string = (await http(`${server}/v1/alice/twostep/sessions`, { body: {} })).body.id;
    const call = http(`${server}/v1/alice/twostep/chat/completions`, { body: ask('What is a qubit?'), headers: { 'x-session-id': id } });
    await gated.draftAsked;
    const pausing = http(`${server}/v1/alice/twostep/sessions/${id}/pause`, { method: 'POST' });
    // The pause reaches the call (it waits at the next model call) before the draft answers.
    await untilRequestsWaiting(server, 'pause', 1);
    return { id, call, pausing };
  }

  /** {@link startPausing}, then let the draft answer: the call parks after its draft step. */
  async function pauseMidCall(server: string) {
    const { id, call, pausing } = await startPausing(server);
    gated.release();
    return { id, call, paused: await pausing };
  }

  it('a call paused on one server is resumed through the other and continues where it stopped', async () => {
    const drafts = upstream.requests.filter(gated.isDraft).length;
    const { id, call, paused } = await pauseMidCall(a.url);
    expect(paused.body).toMatchObject({ status: 'paused', execution: { step: 'refine', calls: [{ step: 'draft', output: 'draft text' }] } });
    expect((await http(`${b.url}/v1/alice/twostep/sessions/${id}`)).body.status).toBe('paused');
    const meanwhile = await http(`${b.url}/v1/alice/twostep/chat/completions`, { body: ask('meanwhile'), headers: { 'x-session-id': id } });
    expect([meanwhile.status, meanwhile.body.error.code]).toEqual([409, 'SESSION_PAUSED']);

    const resumed = await http(`${b.url}/v1/alice/twostep/sessions/${id}/resume`, { method: 'POST' });
    expect([resumed.status, resumed.body.status]).toEqual([200, 'active']);
    const done = await call;
    expect(done.status).toBe(200);
    expect(done.body.choices[0].message.content).toBe('refined {"exchange": "refined from the draft"}');
    expect(upstream.requests.filter(gated.isDraft)).toHaveLength(drafts + 1);
    const slates = await http(`${b.url}/v1/alice/twostep/sessions/${id}/slates`);
    expect(slates.body.slates.Notes.log['log.md']).toBe('{"exchange":"refined from the draft"}');
    // The session is usable through either server afterwards.
    const next = await http(`${b.url}/v1/alice/twostep/chat/completions`, { body: ask('again'), headers: { 'x-session-id': id } });
    expect(next.status).toBe(200);
  });

  it('a resume sent to the other server while the pause is still pending resumes the call once it parks', async () => {
    const { id, call, pausing } = await startPausing(a.url);
    // B cannot reach A's call: it waits until the call parks (its lock held, the record paused), then resumes the record.
    const resuming = http(`${b.url}/v1/alice/twostep/sessions/${id}/resume`, { method: 'POST' });
    await untilRequestsWaiting(b.url, 'resume', 1);
    gated.release();
    expect((await pausing).body.status).toBe('paused');
    expect((await resuming).body.status).toBe('active');
    const done = await call;
    expect([done.status, done.body.choices?.[0]?.message.content]).toEqual([200, 'refined {"exchange": "refined from the draft"}']);
  });

  it('a call paused on one server fails closed when the session is closed through the other', async () => {
    const { id, call, paused } = await pauseMidCall(b.url);
    expect(paused.body.status).toBe('paused');
    const closed = await http(`${a.url}/v1/alice/twostep/sessions/${id}/close`, { method: 'POST' });
    expect([closed.status, closed.body.status]).toEqual([200, 'closed']);
    const failed = await call;
    expect([failed.status, failed.body.error.code]).toEqual([410, 'SESSION_CLOSED']);
    // The paused call wrote nothing; the slates stay readable during retention.
    const slates = await http(`${a.url}/v1/alice/twostep/sessions/${id}/slates`);
    expect([slates.status, slates.body.rev]).toEqual([200, 1]);
  });
});
