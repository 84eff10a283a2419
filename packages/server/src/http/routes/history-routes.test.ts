/**
 * The history endpoints over a real HTTP server on loopback (memory store for speed; the browser
 * end-to-end test in test/ui runs them on LevelDB with a real history).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPatch, jsonEqual } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import { openMemoryStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { startServer } from '../start-server.js';
import type { ServerHandle } from '../start-server.js';
import { fakeClock } from '@stateflow/test-kit';

let store: Store;
let server: ServerHandle;
/** Transitions 1000 ms apart from a fixed start, so the histogram has a known spread. */
const time = fakeClock({ start: '2026-01-01T00:00:01Z', tick: 1000 });

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, { headers });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  store = await openMemoryStore({ checkpointInterval: 4, clock: time.clock });
  // cwd:/p: 30 revisions; version changes every 3rd; global: one key shadowed by cwd.
  await store.publish({ changes: { global: { lazy: { shared: 'from global', onlyGlobal: 1 } } } });
  for (let i = 1; i <= 30; i++) {
    await store.publish({ changes: { 'cwd:/p': { lazy: { doc: { version: `1.${Math.floor(i / 3)}.0`, counter: i, list: [i, i + 1] }, shared: 'from cwd' } } } });
  }
  await store.publish({ changes: { 'session:s1': { lazy: { note: 'hello' } }, 'other:x': { a: 1 } } });
  server = await startServer({ store, port: 0, sweepIntervalMs: 0 });
});

afterAll(async () => {
  await server.close();
  await store.close();
});

describe('GET /v1/history/streams', () => {
  it('pages the streams sorted by id, with counts per kind, head, origin and last change time', async () => {
    const { body } = await get('/v1/history/streams?limit=2');
    expect(body.counts).toEqual({ global: 1, cwd: 1, session: 1, slate: 0, 'ladder-session': 0, other: 1 });
    expect(body.streams.map((s: any) => s.stream)).toEqual(['cwd:/p', 'global']);
    expect(body.streams[0]).toMatchObject({ kind: 'cwd', rev: 30, seq: 31, origin: 0, time: (await store.transition(31)).time });
    const next = await get(`/v1/history/streams?limit=2&after=${encodeURIComponent(body.next)}`);
    expect(next.body.streams.map((s: any) => s.stream)).toEqual(['other:x', 'session:s1']);
    expect(next.body.next).toBeNull();
  });

  it('filters by substring and kind', async () => {
    expect((await get('/v1/history/streams?filter=SESS')).body.streams.map((s: any) => s.stream)).toEqual(['session:s1']);
    expect((await get('/v1/history/streams?kind=other')).body.streams.map((s: any) => s.stream)).toEqual(['other:x']);
  });

  it('refuses a page size over the limit with INPUT_INVALID', async () => {
    const { status, body } = await get('/v1/history/streams?limit=5000');
    expect(status).toBe(400);
    expect(body.error.code).toBe('INPUT_INVALID');
  });
});

describe('GET /v1/history/histogram', () => {
  it('splits the log into the asked number of buckets whose seq ranges cover every transition once', async () => {
    const { body } = await get('/v1/history/histogram?buckets=8');
    expect(body.buckets).toHaveLength(8);
    expect(body.buckets.reduce((n: number, b: any) => n + b.count, 0)).toBe(store.lastSeq());
    expect(body.buckets[0].fromSeq).toBe(1);
    expect(body.buckets.at(-1).toSeq).toBe(store.lastSeq());
    for (let i = 1; i < body.buckets.length; i++) expect(body.buckets[i].fromSeq).toBe(body.buckets[i - 1].toSeq + 1);
    // One transition per second: equal-width buckets hold 4 each (32 transitions, 8 buckets).
    expect(body.buckets.map((b: any) => b.count)).toEqual([4, 4, 4, 4, 4, 4, 4, 4]);
  });

  it('counts only one stream when asked', async () => {
    const { body } = await get('/v1/history/histogram?buckets=4&stream=global');
    expect(body.buckets.map((b: any) => b.count)).toEqual([1, 0, 0, 0]);
  });
});

describe('GET /v1/history/node', () => {
  it('reads the level at a pointer as of a seq, with change marks and read_state paths', async () => {
    // seq 10 is cwd revision 9: counter 9, version 1.3.0 (changed from 1.2.0 at 9).
    const { body } = await get('/v1/history/node?stream=cwd:/p&seq=10&pointer=/lazy/doc');
    expect(body).toMatchObject({ rev: 9, seq: 10, head: 30, origin: 0, path: 'cwd[9].lazy.doc', kind: 'object', total: 3, changed: true });
    const byLabel = Object.fromEntries(body.children.map((c: any) => [c.label, c]));
    expect(byLabel.version).toMatchObject({ preview: '1.3.0', changed: true, path: 'cwd[9].lazy.doc.version' });
    expect(byLabel.counter).toMatchObject({ preview: 9, changed: true });
    expect(byLabel.list).toMatchObject({ kind: 'array', length: 2, changed: true });
    expect(body.cli).toBe("stateflow --cwd /p read 'cwd[9].lazy.doc'");
  });

  it('marks unchanged children as unchanged', async () => {
    const { body } = await get('/v1/history/node?stream=cwd:/p&rev=10&pointer=/lazy/doc');
    const byLabel = Object.fromEntries(body.children.map((c: any) => [c.label, c]));
    expect(byLabel.version.changed).toBe(false);
    expect(byLabel.counter.changed).toBe(true);
  });

  it('pages array items with [i] labels', async () => {
    const { body } = await get('/v1/history/node?stream=cwd:/p&rev=5&pointer=/lazy/doc/list&offset=1&limit=1');
    expect(body).toMatchObject({ kind: 'array', total: 2, offset: 1 });
    expect(body.children).toEqual([{ label: '[1]', pointer: '/lazy/doc/list/1', kind: 'number', preview: 6, changed: true, path: 'cwd[5].lazy.doc.list[1]' }]);
  });

  it('answers PATH_NOT_FOUND for a pointer outside the state and NOT_FOUND for nothing', async () => {
    const missing = await get('/v1/history/node?stream=cwd:/p&rev=5&pointer=/lazy/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('PATH_NOT_FOUND');
  });

  it('gives the CLI command for a stream without read_state paths', async () => {
    const { body } = await get('/v1/history/node?stream=other:x&pointer=');
    expect(body.path).toBeNull();
    expect(body.children[0].path).toBeNull();
    expect(body.cli).toBe('stateflow --json diff other:x 0 1');
  });
});

describe('GET /v1/history/effective-node', () => {
  it('marks the scope each value comes from and what it shadows', async () => {
    const { body } = await get('/v1/history/effective-node?global=true&cwd=/p&pointer=/lazy');
    const byLabel = Object.fromEntries(body.children.map((c: any) => [c.label, c]));
    expect(byLabel.shared).toMatchObject({ preview: 'from cwd', scope: 'cwd', shadows: [{ scope: 'global', kind: 'string', preview: 'from global' }] });
    expect(byLabel.onlyGlobal).toMatchObject({ scope: 'global', shadows: [] });
    expect(byLabel.doc).toMatchObject({ scope: 'cwd' });
    expect(byLabel.doc.merges).toBeUndefined();
    expect(body.path).toBe(`effective[${store.lastSeq()}].lazy`);
    const root = await get('/v1/history/effective-node?global=true&cwd=/p&pointer=');
    expect(root.body.children[0]).toMatchObject({ label: 'lazy', scope: 'cwd', merges: ['global', 'cwd'], shadows: [] });
  });

  it('shows the view as of an earlier seq', async () => {
    const { body } = await get('/v1/history/effective-node?global=true&cwd=/p&seq=1&pointer=/lazy');
    expect(body.children.find((c: any) => c.label === 'shared')).toMatchObject({ preview: 'from global', scope: 'global', changed: true });
  });

  it('takes global=1 as /mcp does, and refuses other values', async () => {
    const one = await get('/v1/history/effective-node?global=1&pointer=/lazy');
    expect(one.status).toBe(200);
    expect(one.body.children.find((c: any) => c.label === 'onlyGlobal')).toMatchObject({ scope: 'global' });
    const yes = await get('/v1/history/effective-node?global=yes&pointer=/lazy');
    expect(yes.status).toBe(400);
    expect(yes.body.error).toMatchObject({ code: 'INPUT_INVALID' });
  });

  it('needs at least one owner', async () => {
    const { status, body } = await get('/v1/history/effective-node?pointer=');
    expect(status).toBe(400);
    expect(body.error.code).toBe('INPUT_INVALID');
  });
});

describe('GET /v1/history/revisions', () => {
  it('pages a stream by revision number with each revision seq and time', async () => {
    const { body } = await get('/v1/history/revisions?stream=cwd:/p&from=11&limit=5');
    expect(body.revisions.map((r: any) => [r.rev, r.seq])).toEqual([
      [11, 12],
      [12, 13],
      [13, 14],
      [14, 15],
      [15, 16],
    ]);
    expect(body.next).toBe(16);
    const last = await get('/v1/history/revisions?stream=cwd:/p&from=29&limit=5');
    expect(last.body.revisions.map((r: any) => r.rev)).toEqual([29, 30]);
    expect(last.body.next).toBeNull();
  });
});

describe('GET /v1/history/path-history', () => {
  it('lists exactly the revisions that changed the path, with old and new values', async () => {
    const { body } = await get('/v1/history/path-history?stream=cwd:/p&pointer=/lazy/doc/version');
    const expected = [];
    for (let i = 1; i <= 30; i++) if (i === 1 || Math.floor(i / 3) !== Math.floor((i - 1) / 3)) expected.push(i);
    expect(body.changes.map((c: any) => c.rev)).toEqual(expected);
    expect(body.changes[0]).toMatchObject({ rev: 1, change: 'added', before: { absent: true }, after: { value: '1.0.0' } });
    expect(body.changes[1]).toMatchObject({ rev: 3, change: 'changed', before: { value: '1.0.0' }, after: { value: '1.1.0' } });
    expect(body.next).toBeNull();
  });

  it('pages by entries and by revisions scanned, and resumes where it stopped', async () => {
    const first = await get('/v1/history/path-history?stream=cwd:/p&pointer=/lazy/doc/version&limit=2');
    expect(first.body.changes.map((c: any) => c.rev)).toEqual([1, 3]);
    expect(first.body.next).toBe(3);
    const scanned = await get(`/v1/history/path-history?stream=cwd:/p&pointer=/lazy/doc/version&after=${first.body.next}&scan=4`);
    expect(scanned.body.changes.map((c: any) => c.rev)).toEqual([6]);
    expect(scanned.body.next).toBe(7);
  });
});

describe('GET /v1/history/diff', () => {
  it('a → a+1 gives the stored patch and a structural diff of exactly its changes', async () => {
    const { body } = await get('/v1/history/diff?stream=cwd:/p&a=8&b=9');
    expect(body.storedPatch).toEqual(await store.patchAt('cwd:/p', 9));
    expect(jsonEqual(applyPatch(await store.stateAt('cwd:/p', 8), body.patch as JsonObject), await store.stateAt('cwd:/p', 9))).toBe(true);
    const leaves = body.entries.filter((e: any) => e.container === undefined);
    expect(leaves.map((e: any) => [e.pointer, e.change, e.before.value, e.after.value])).toEqual([
      ['/lazy/doc/version', 'changed', '1.2.0', '1.3.0'],
      ['/lazy/doc/counter', 'changed', 8, 9],
      ['/lazy/doc/list/0', 'changed', 8, 9],
      ['/lazy/doc/list/1', 'changed', 9, 10],
    ]);
    expect(body.entries[0]).toMatchObject({ pointer: '/lazy', change: 'changed', container: { unchanged: 1 } });
    expect(body.counts).toEqual({ added: 0, removed: 0, changed: 4 });
    expect(body.cli).toBe('stateflow diff cwd:/p 8 9');
  });

  it('compares two streams (a fork against its source) and two seqs of the effective view', async () => {
    const fork = await get('/v1/history/diff?stream=other:x&a=0&streamB=global&b=1');
    expect(fork.body.counts).toEqual({ added: 1, removed: 0, changed: 0 });
    expect(fork.body.entries.map((e: any) => [e.pointer, e.change])).toEqual([['/lazy', 'added']]);
    const effective = await get('/v1/history/diff?global=true&a=0&b=1');
    expect(effective.body.storedPatch).toEqual({ lazy: { shared: 'from global', onlyGlobal: 1 } });
  });
});

describe('with API keys', () => {
  let keyed: ServerHandle;
  beforeAll(async () => {
    keyed = await startServer({ store, port: 0, sweepIntervalMs: 0, keys: { 'key-a': 'alice' } });
  });
  afterAll(async () => keyed.close());

  it('hides shared streams: the rail is empty, a stream read answers NOT_FOUND, the global histogram needs a stream', async () => {
    const auth = { authorization: 'Bearer key-a' };
    const rail = await (await fetch(`${keyed.url}/v1/history/streams`, { headers: auth })).json();
    expect(rail.streams).toEqual([]);
    const node = await fetch(`${keyed.url}/v1/history/node?stream=global`, { headers: auth });
    expect(node.status).toBe(404);
    expect((await node.json()).error.code).toBe('NOT_FOUND');
    const histogram = await fetch(`${keyed.url}/v1/history/histogram`, { headers: auth });
    expect(histogram.status).toBe(400);
    expect((await histogram.json()).error.code).toBe('INPUT_INVALID');
    const anonymous = await fetch(`${keyed.url}/v1/history/streams`);
    expect(anonymous.status).toBe(401);
  });

  it('serves everything to the server token (the store owner)', async () => {
    const rail = await (await fetch(`${keyed.url}/v1/history/streams`, { headers: { authorization: `Bearer ${keyed.token}` } })).json();
    expect(rail.streams).toHaveLength(4);
  });
});

describe('the page at /ui/', () => {
  it('is served with a same-origin Content-Security-Policy, and /ui redirects to it', async () => {
    const page = await fetch(`${server.url}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(1000);
    const redirect = await fetch(`${server.url}/ui`, { redirect: 'manual' });
    await redirect.arrayBuffer();
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/ui/');
  });
});

describe('a compacted stream', () => {
  let compacted: Store;
  let handle: ServerHandle;
  beforeAll(async () => {
    compacted = await openMemoryStore({ checkpointInterval: 2 });
    for (let i = 1; i <= 10; i++) await compacted.publish({ changes: { 'cwd:/c': { lazy: { n: i } } } });
    await compacted.compact('cwd:/c', { keepRevisions: 3 });
    handle = await startServer({ store: compacted, port: 0, sweepIntervalMs: 0 });
  });
  afterAll(async () => {
    await handle.close();
    await compacted.close();
  });

  it('answers HISTORY_NOT_RETAINED with the origin before it, and reads from the origin on', async () => {
    const origin = (await compacted.head('cwd:/c')).origin;
    expect(origin).toBeGreaterThan(1);
    const before = await fetch(`${handle.url}/v1/history/node?stream=cwd:/c&rev=1`);
    expect(before.status).toBe(410);
    expect((await before.json()).error).toMatchObject({ code: 'HISTORY_NOT_RETAINED', details: { origin } });
    const at = await (await fetch(`${handle.url}/v1/history/node?stream=cwd:/c&rev=${origin}&pointer=/lazy`)).json();
    expect(at).toMatchObject({ rev: origin, origin, changed: null, seq: null });
    // As of a seq before the origin's transition (seq n is revision n here): compacted, not the origin.
    const asOf = await fetch(`${handle.url}/v1/history/node?stream=cwd:/c&seq=2`);
    expect(asOf.status).toBe(410);
    expect((await asOf.json()).error).toMatchObject({ code: 'HISTORY_NOT_RETAINED', details: { origin } });
    const atOrigin = await (await fetch(`${handle.url}/v1/history/node?stream=cwd:/c&seq=${origin}`)).json();
    expect(atOrigin).toMatchObject({ rev: origin });
    expect(at.children[0]).toMatchObject({ label: 'n', preview: origin });
  });

  it('starts path history and the histogram at what is retained', async () => {
    const origin = (await compacted.head('cwd:/c')).origin;
    const history = await (await fetch(`${handle.url}/v1/history/path-history?stream=cwd:/c&pointer=/lazy/n`)).json();
    expect(history.firstRev).toBe(origin + 1);
    expect(history.changes.map((c: any) => c.rev)).toEqual(Array.from({ length: 10 - origin }, (_, i) => origin + 1 + i));
    const histogram = await (await fetch(`${handle.url}/v1/history/histogram?buckets=3`)).json();
    // The origin revision is a checkpoint: its transition is pruned too, the next one is the first kept.
    expect(histogram.firstSeq).toBe(origin + 1);
    expect(histogram.buckets.reduce((n: number, b: any) => n + b.count, 0)).toBe(10 - origin);
  });
});

describe('the OpenAPI document', () => {
  it('documents every history endpoint with its query parameters', async () => {
    const doc = (await get('/openapi.json')).body;
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1/history/'));
    expect(paths.sort()).toEqual(
      ['audit-job', 'audit-job/events', 'blame', 'diff', 'effective-node', 'histogram', 'langgraph-steps', 'lineage', 'node', 'path-history', 'revisions', 'search', 'slates', 'streams'].map(
        (p) => `/v1/history/${p}`,
      ),
    );
    const node = doc.paths['/v1/history/node'].get;
    expect(node.parameters.map((p: any) => p.name)).toEqual(['stream', 'rev', 'seq', 'pointer', 'offset', 'limit', 'shape', 'token']);
    expect(node.parameters[0].required).toBe(true);
  });
});
