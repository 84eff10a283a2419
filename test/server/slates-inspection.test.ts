/**
 * Inspecting a session's slates over HTTP on a real server: `GET …/slates` shows every file's user
 * and system metatags beside its contents, and `GET …/slates/history` pages through what each
 * call changed and read.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import { ask, http, makeDirs } from './fixtures.js';
import type { Dirs } from './fixtures.js';

/** Each call appends a fact to a.md, tags it, and reads b.md (an LRU folder records the read). */
const TAGGED_YAML = `
name: tagged
slates:
  - title: Notes
    folders:
      - name: facts
        tokenLimit: 1000
        evictionPolicy: LRU
        metatags: [{ name: topic, type: string }]
        files: [{ name: a.md }, { name: b.md, init: "seed text" }]
steps:
  - id: answer
    fields:
      - { name: Seed, type: text, from: { slate: Notes, folder: facts, file: b.md } }
      - { name: Q, type: text, from: input.context }
    if:
      jsonMatches: { type: object, required: [fact] }
      then: { write: { to: { slate: Notes, folder: facts, file: a.md, metatag: topic }, from: "geography", on: overwrite } }
    slateWrite:
      to: { slate: Notes, folder: facts, file: a.md }
      field: fact
      match: { type: object, required: [fact] }
`;

let dirs: Dirs;
let server: ServerHandle;
let base: string;
let id: string;
const facts = ['Paris is in France.', 'Rome is in Italy.', 'Bern is in Switzerland.'];

beforeAll(async () => {
  dirs = await makeDirs();
  await writeFile(path.join(dirs.ladders, 'alice', 'tagged.yaml'), TAGGED_YAML);
  const script = path.join(dirs.root, 'tagged.jsonl');
  await writeFile(script, facts.map((fact) => JSON.stringify({ content: JSON.stringify({ fact }) })).join('\n'));
  server = await startServer({ dir: dirs.dir, ladders: dirs.ladders, port: 0, env: {}, model: `scripted:${script}`, sweepIntervalMs: 0, onWarning: () => undefined });
  base = `${server.url}/v1/alice/tagged`;
  id = (await http(`${base}/sessions`, { body: {} })).body.id;
  for (const [i] of facts.entries()) {
    const called = await http(`${base}/chat/completions`, { body: ask(`call ${i + 1}`), headers: { 'X-Session-Id': id } });
    expect(called.status, JSON.stringify(called.body)).toBe(200);
  }
});
afterAll(async () => {
  await server?.close();
  await dirs?.cleanup();
});

describe('GET …/sessions/{id}/slates', () => {
  it('shows user metatags and system metatags of every file beside the contents', async () => {
    const read = await http(`${base}/sessions/${id}/slates`);
    expect(read.status).toBe(200);
    expect(read.body.slates).toEqual({ Notes: { facts: { 'a.md': facts.join('\n\n'), 'b.md': 'seed text' } } });
    const a = read.body.metatags.Notes.facts['a.md'];
    expect(a.user).toEqual({ topic: 'geography' });
    expect(a.system).toEqual({
      created: expect.any(String),
      modified: expect.any(String),
      size: Buffer.byteLength(facts.join('\n\n')),
      tokens: expect.any(Number),
    });
    expect(a.system.tokens).toBeGreaterThan(10);
    const b = read.body.metatags.Notes.facts['b.md'];
    expect(b.user).toEqual({});
    expect(b.system).toMatchObject({ size: 9, lastRead: expect.any(String) });
    const first = await http(`${base}/sessions/${id}/slates?at=1`);
    expect(first.body.metatags.Notes.facts['a.md']).toEqual({ user: {}, system: { created: a.system.created, modified: a.system.created, size: 0, tokens: 0 } });
  });
});

describe('GET …/sessions/{id}/slates/history', () => {
  it('lists each revision with its seq, time, kind and the files it changed and read, page by page', async () => {
    const page1 = await http(`${base}/sessions/${id}/slates/history?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ session: id, ladder: '@alice/tagged', head: 4, origin: 0 });
    const a = { slate: 'Notes', folder: 'facts', file: 'a.md' };
    const b = { slate: 'Notes', folder: 'facts', file: 'b.md' };
    expect(page1.body.data).toEqual([
      { rev: 1, seq: expect.any(Number), time: expect.any(String), kind: 'session', changed: [a, b], read: [] },
      { rev: 2, seq: expect.any(Number), time: expect.any(String), kind: 'ladder-call', changed: [a], read: [b] },
    ]);
    expect(page1.body.next).toBe(page1.body.data[1].seq);
    const page2 = await http(`${base}/sessions/${id}/slates/history?limit=2&after=${page1.body.next}`);
    expect(page2.body.data.map((e: { rev: number }) => e.rev)).toEqual([3, 4]);
    expect(page2.body.data.every((e: { kind: string; changed: unknown[] }) => e.kind === 'ladder-call' && e.changed.length === 1)).toBe(true);
    expect(page2.body.next).toBeNull();
    const transition = await server.store.transition(page2.body.data[1].seq);
    expect(transition.time).toBe(page2.body.data[1].time);
    const all = await http(`${base}/sessions/${id}/slates/history`);
    expect(all.body.data).toHaveLength(4);
    expect(all.body.next).toBeNull();
  });

  it('refuses a bad page request with 400 and a foreign or unknown session with 404', async () => {
    for (const query of ['limit=0', 'limit=101', 'after=-1', 'page=2']) {
      const bad = await http(`${base}/sessions/${id}/slates/history?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.code).toBe('INPUT_INVALID');
    }
    const unknown = await http(`${base}/sessions/sess_00000000000000000000000000000000/slates/history`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('SESSION_NOT_FOUND');
  });
});
