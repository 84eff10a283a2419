/**
 * Pause mid-execution over HTTP (seeds/ladr-stateful-sessions.txt "Paused (optional)"): a pause
 * during a call lets the current step finish, records the execution state in the store, and a
 * resume continues from there — in the same process, or after a restart.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import type { FakeUpstream } from './fake-upstream.js';
import { TWO_STEPS_YAML, ask, gatedUpstream, http, untilRequestsWaiting, upstreamEnv } from './fixtures.js';
import { removeDir, tempDir } from '@stateflow/test-kit';

describe('pause mid-call and resume', () => {
  let root: string;
  let ladders: string;
  beforeAll(async () => {
    root = await tempDir('pause');
    ladders = path.join(root, 'ladders');
    await mkdir(path.join(ladders, 'alice'), { recursive: true });
    await writeFile(path.join(ladders, 'alice', 'twostep.yaml'), TWO_STEPS_YAML);
  });
  afterAll(() => removeDir(root));

  /** Create a session, start a call, pause it once its draft step is done. */
  async function pauseMidCall(server: ServerHandle, gated: ReturnType<typeof gatedUpstream>, model = 'gpt-4o') {
    expect(server.rejected).toEqual([]);
    const base = `${server.url}/v1/alice/twostep`;
    const id = (await http(`${base}/sessions`, { body: {} })).body.id as string;
    const call = http(`${base}/chat/completions`, { body: { ...ask('What is a qubit?'), model }, headers: { 'x-session-id': id } });
    await gated.draftAsked;
    const pausing = http(`${base}/sessions/${id}/pause`, { method: 'POST' });
    // The pause waits on the call before its draft answers: the call meets it at the next model call.
    await untilRequestsWaiting(server.url, 'pause', 1);
    gated.release();
    const paused = await pausing;
    return { base, id, call, paused };
  }

  it('in one process: the call waits at the next step and continues on resume', async () => {
    const gated = gatedUpstream();
    const upstream: FakeUpstream = await gated.started;
    const server = await startServer({ dir: path.join(root, 'live'), ladders, port: 0, env: upstreamEnv(upstream), sweepIntervalMs: 0 });
    try {
      const { base, id, call, paused } = await pauseMidCall(server, gated);
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({
        status: 'paused',
        execution: {
          step: 'refine',
          node: 0,
          round: 1,
          calls: [{ step: 'draft', node: 0, round: 1, output: 'draft text' }],
          call: { context: 'What is a qubit?', model: 'gpt-4o' },
        },
      });
      expect((await http(`${base}/sessions/${id}`)).body.status).toBe('paused');
      const other = await http(`${base}/chat/completions`, { body: ask('meanwhile'), headers: { 'x-session-id': id } });
      expect([other.status, other.body.error.code]).toEqual([409, 'SESSION_PAUSED']);
      expect(upstream.requests).toHaveLength(1);

      const resumed = await http(`${base}/sessions/${id}/resume`, { method: 'POST' });
      expect(resumed.body.status).toBe('active');
      expect(resumed.body.execution).toBeUndefined();
      const done = await call;
      expect(done.status).toBe(200);
      expect(done.body.choices[0].message.content).toBe('refined {"exchange": "refined from the draft"}');
      expect(upstream.requests.filter(gated.isDraft)).toHaveLength(1);
      const slates = await http(`${base}/sessions/${id}/slates`);
      expect(slates.body.slates.Notes.log['log.md']).toBe('{"exchange":"refined from the draft"}');
    } finally {
      await server.close();
      await upstream.close();
    }
  });

  it('a resume sent while the pause is still pending cancels it: every request answers and later calls work', async () => {
    const gated = gatedUpstream();
    const upstream: FakeUpstream = await gated.started;
    const server = await startServer({ dir: path.join(root, 'pending'), ladders, port: 0, env: upstreamEnv(upstream), sweepIntervalMs: 0 });
    try {
      const base = `${server.url}/v1/alice/twostep`;
      const id = (await http(`${base}/sessions`, { body: {} })).body.id as string;
      const call = http(`${base}/chat/completions`, { body: ask('What is a qubit?'), headers: { 'x-session-id': id } });
      await gated.draftAsked;
      const pausing = http(`${base}/sessions/${id}/pause`, { method: 'POST' });
      // The pause is pending (the draft step has not finished); the resume must not queue behind the call.
      await untilRequestsWaiting(server.url, 'pause', 1);
      const resumed = await http(`${base}/sessions/${id}/resume`, { method: 'POST' });
      expect([resumed.status, resumed.body.status]).toEqual([200, 'active']);
      const paused = await pausing;
      expect([paused.status, paused.body.status]).toEqual([200, 'active']);
      gated.release();
      const done = await call;
      expect(done.status).toBe(200);
      expect(done.body.choices[0].message.content).toBe('refined {"exchange": "refined from the draft"}');
      const next = await http(`${base}/chat/completions`, { body: ask('again'), headers: { 'x-session-id': id } });
      expect(next.status).toBe(200);
    } finally {
      await server.close();
      await upstream.close();
    }
  });

  it('across a restart: resume replays the recorded draft from the store and finishes the call', async () => {
    const gated = gatedUpstream();
    const upstream: FakeUpstream = await gated.started;
    const options = { dir: path.join(root, 'restart'), ladders, port: 0, env: upstreamEnv(upstream), sweepIntervalMs: 0, upstreamModel: 'gpt-4o-mini' };
    const first = await startServer(options);
    // Called with the ladder's own id as model: the default upstream model, before and after the restart.
    const { id, call } = await pauseMidCall(first, gated, '@alice/twostep');
    await first.close();
    const interrupted = await call;
    expect([interrupted.status, interrupted.body.error.code]).toEqual([409, 'SESSION_PAUSED']);

    const second = await startServer(options);
    try {
      const base = `${second.url}/v1/alice/twostep`;
      expect((await http(`${base}/sessions/${id}`)).body.status).toBe('paused');
      const before = upstream.requests.length;
      const resumed = await http(`${base}/sessions/${id}/resume`, { method: 'POST' });
      expect(resumed.status).toBe(200);
      expect(resumed.body.status).toBe('active');
      expect(resumed.body.completion.choices[0].message.content).toBe('refined {"exchange": "refined from the draft"}');
      expect(resumed.body.completion.stateflow).toMatchObject({ session: id, rev: 2 });
      expect(upstream.requests.slice(before).map(gated.isDraft)).toEqual([false]);
      expect(upstream.requests.map((request) => request.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
      expect(resumed.body.completion.model).toBe('@alice/twostep');
      const slates = await http(`${base}/sessions/${id}/slates`);
      expect(slates.body.slates.Notes.log['log.md']).toBe('{"exchange":"refined from the draft"}');
      expect((await second.store.audit()).problems).toEqual([]);
    } finally {
      await second.close();
      await upstream.close();
    }
  });
});
