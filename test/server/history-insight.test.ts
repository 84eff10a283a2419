/**
 * The history page's second set of views over HTTP on a real LevelDB store holding the eslint
 * package.json history (imported as `stateflow import` does: one transition per distinct
 * document, `meta.import` with the line's rev, commit and date): search through time, blame of a
 * subtree, the lineage of forks, merges and reverts, a LangGraph thread written by the saver read
 * as steps, and the audit as a background job followed over Server-Sent Events.
 *
 * Needs the shared histories: without them the suite is skipped with a visible message; under
 * CI=true it fails instead.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Command, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createParser } from 'eventsource-parser';
import { diff, isJsonObject, jsonEqual } from '@stateflow/core';
import type { JsonObject, JsonValue } from '@stateflow/core';
import { StateflowSaver } from '@stateflow/langgraph';
import { startServer } from '@stateflow/server';
import type { ServerHandle } from '@stateflow/server';
import type { Store } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { removeDir, tempDir } from '@stateflow/test-kit';
import { HISTORIES, historiesAvailable } from '../cli/helpers.js';
import { buildAgent } from '../langgraph/agent-graph.mjs';

const FILE = 'eslint-package-json.jsonl';
const STREAM = 'cwd:/proj';

/** One imported revision: its document and the line it came from. */
interface Line {
  rev: number;
  commit: string;
  date: string;
  doc: JsonObject;
}

/** The distinct documents of the history, oldest first: revision k of the stream is entry k − 1. */
async function readHistory(file: string): Promise<Line[]> {
  const out: Line[] = [];
  for await (const text of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    if (text.trim() === '') continue;
    const line = JSON.parse(text) as Line;
    const previous = out[out.length - 1];
    if (previous === undefined || !jsonEqual(previous.doc, line.doc)) out.push(line);
  }
  return out;
}

/** Publish the history into `stream` at `lazy.history`, 500 transitions per batch. */
async function importHistory(store: Store, stream: string, lines: Line[]): Promise<void> {
  let previous: JsonObject = {};
  const inputs = lines.map((line) => {
    const patch = { lazy: { history: line.rev === lines[0]?.rev ? line.doc : diff(previous, line.doc) } };
    previous = line.doc;
    return { changes: { [stream]: patch }, meta: { import: { file: FILE, rev: line.rev, commit: line.commit, date: line.date } } };
  });
  for (let i = 0; i < inputs.length; i += 500) await store.publishMany(inputs.slice(i, i + 500));
}

/** Every pointer of `value` (below `at`) whose key contains `needle` or whose string contains it, case-insensitive. */
function mentions(value: JsonValue, needle: string, at = ''): string[] {
  const found: string[] = [];
  if (typeof value === 'string' && value.toLowerCase().includes(needle)) found.push(at);
  if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const child = `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (key.toLowerCase().includes(needle) && !found.includes(child)) found.push(child);
      for (const p of mentions(value[key] as JsonValue, needle, child)) if (!found.includes(p)) found.push(p);
    }
  }
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...mentions(item, needle, `${at}/${i}`)));
  return found;
}

const available = historiesAvailable([FILE]);

(available ? describe : describe.skip)('search, blame, lineage, LangGraph steps and the audit job on the eslint history (LevelDB)', () => {
  let root: string;
  let store: Store;
  let server: ServerHandle;
  let lines: Line[];

  const get = async <T = any>(route: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${server.url}${route}`, init);
    return { status: response.status, body: (await response.json()) as T };
  };
  const seqOf = async (stream: string, rev: number): Promise<number> => store.revisionSeq(stream, rev);
  const version = (rev: number) => (lines[rev - 1]?.doc as JsonObject)['version'];

  beforeAll(async () => {
    root = await tempDir();
    lines = await readHistory(path.join(HISTORIES, FILE));
    store = await openStore(path.join(root, 'store'));
    await importHistory(store, STREAM, lines);
    server = await startServer({ store, port: 0, sweepIntervalMs: 0, onWarning: () => undefined });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await store?.close();
    if (root !== undefined) await removeDir(root);
  });

  describe('GET /v1/history/search', () => {
    /** Every hit of a search, asking again from `next` until it is null; also the number of empty pages that had a next. */
    const searchAll = async (query: string): Promise<{ hits: any[]; emptyPages: number; pages: number }> => {
      const hits: any[] = [];
      let after = 0;
      let emptyPages = 0;
      let pages = 0;
      for (;;) {
        const { status, body } = await get(`/v1/history/search?${query}&after=${after}`);
        expect(status, JSON.stringify(body)).toBe(200);
        pages++;
        hits.push(...body.hits);
        if (body.hits.length === 0 && body.next !== null) emptyPages++;
        expect(body.scanned).toBeLessThanOrEqual(Number(/scan=(\d+)/.exec(query)?.[1] ?? 5000));
        if (body.next === null) break;
        after = body.next;
      }
      return { hits, emptyPages, pages };
    };

    it('finds the revisions where version becomes 9.2.0 and stops being it, across pages with a small scan budget', async () => {
      const became = lines.findIndex((line, i) => line.doc['version'] === '9.2.0' && version(i) !== '9.2.0') + 1;
      const left = lines.findIndex((line, i) => i + 1 > became && line.doc['version'] !== '9.2.0') + 1;
      expect(became).toBeGreaterThan(900);
      const { hits, emptyPages } = await searchAll(`stream=${encodeURIComponent(STREAM)}&key=version&value=${encodeURIComponent('"9.2.0"')}&scan=100`);
      expect(emptyPages).toBeGreaterThan(5);
      expect(hits.map((h) => [h.rev, h.appeared.map((m: any) => m.pointer), h.disappeared.map((m: any) => m.pointer)])).toEqual([
        [became, ['/lazy/history/version'], []],
        [left, [], ['/lazy/history/version']],
      ]);
      expect(hits[0]).toMatchObject({ stream: STREAM, seq: await seqOf(STREAM, became), date: lines[became - 1]?.date, appeared: [{ value: { value: '9.2.0' } }] });
    });

    it('a text search names the first revision that mentions babel, in a key or a string, over every stream', async () => {
      const first = lines.findIndex((line) => mentions(line.doc, 'babel').length > 0) + 1;
      const { body } = await get(`/v1/history/search?text=babel&limit=1`);
      expect(body.hits).toHaveLength(1);
      expect(body.hits[0].rev).toBe(first);
      expect(body.hits[0].appeared.map((m: any) => m.pointer).sort()).toEqual(mentions(lines[first - 1]!.doc, 'babel', '/lazy/history').sort());
      expect(body.next).toBe(await seqOf(STREAM, first));
    });

    it('a key alone finds where the key appears and disappears', async () => {
      const { hits } = await searchAll(`stream=${encodeURIComponent(STREAM)}&key=${encodeURIComponent('/devDependencies/mocha')}&scan=2000`);
      const expected: Array<[number, string]> = [];
      lines.forEach((line, i) => {
        const has = (doc: JsonObject | undefined) => isJsonObject(doc?.['devDependencies']) && 'mocha' in (doc['devDependencies'] as JsonObject);
        if (has(line.doc) !== has(lines[i - 1]?.doc)) expected.push([i + 1, has(line.doc) ? 'appeared' : 'disappeared']);
      });
      expect(expected.length).toBeGreaterThan(0);
      expect(hits.map((h) => [h.rev, h.appeared.length > 0 ? 'appeared' : 'disappeared'])).toEqual(expected);
    });

    it('refuses a value that is not JSON, and an empty search, with INPUT_INVALID', async () => {
      const notJson = await get(`/v1/history/search?value=9.2.0`);
      expect([notJson.status, notJson.body.error.code, notJson.body.error.details]).toEqual([400, 'INPUT_INVALID', { field: 'value', reason: 'not-json' }]);
      const empty = await get(`/v1/history/search?stream=${encodeURIComponent(STREAM)}`);
      expect([empty.status, empty.body.error.details.reason]).toEqual([400, 'empty']);
    });
  });

  describe('GET /v1/history/blame', () => {
    /** The last revision ≤ `at` whose document changed `key` (by value). */
    const lastChange = (key: string, at: number): number => {
      for (let rev = at; rev >= 1; rev--) {
        const before = rev === 1 ? undefined : (lines[rev - 2]?.doc[key] as JsonValue | undefined);
        const now = lines[rev - 1]?.doc[key] as JsonValue | undefined;
        if (before === undefined ? now !== undefined : now === undefined || !jsonEqual(before, now)) return rev;
      }
      return 0;
    };

    it('names the revision, seq and meta date that last changed version, license and devDependencies at revision 900', async () => {
      const { status, body } = await get(`/v1/history/blame?stream=${encodeURIComponent(STREAM)}&rev=900&pointer=/lazy/history`);
      expect(status, JSON.stringify(body)).toBe(200);
      const byLabel = Object.fromEntries(body.entries.map((e: any) => [e.label, e]));
      expect(body.total).toBe(Object.keys(lines[899]!.doc).length);
      for (const key of ['version', 'license', 'devDependencies']) {
        const rev = lastChange(key, 900);
        expect(rev, key).toBeGreaterThan(0);
        expect(byLabel[key].change, key).toEqual({ stream: STREAM, rev, seq: await seqOf(STREAM, rev), time: (await store.transition(await seqOf(STREAM, rev))).time, date: lines[rev - 1]?.date });
      }
      expect(new Set(body.entries.map((e: any) => e.change.rev)).size).toBeGreaterThan(3);
    });

    it('with a small scan budget says which children were last changed before the revisions it read', async () => {
      const { body } = await get(`/v1/history/blame?stream=${encodeURIComponent(STREAM)}&rev=900&pointer=/lazy/history&scan=10`);
      expect(body).toMatchObject({ from: 891, scanned: 10 });
      const license = body.entries.find((e: any) => e.label === 'license');
      expect(license).toEqual({ label: 'license', pointer: '/lazy/history/license', change: null, atOrBefore: 890 });
      const versionEntry = body.entries.find((e: any) => e.label === 'version');
      if (lastChange('version', 900) > 890) expect(versionEntry.change.rev).toBe(lastChange('version', 900));
    });

    it('names the writer when the meta has one, and blames array items one by one', async () => {
      await store.publish({ changes: { 'cwd:/w': { lazy: { list: ['a', 'b', 'c'] } } }, meta: { writer: 'agent-1' } });
      await store.publish({ changes: { 'cwd:/w': { lazy: { list: ['a', 'B', 'c', 'd'] } } }, meta: { user: 'alice' } });
      const { body } = await get(`/v1/history/blame?stream=${encodeURIComponent('cwd:/w')}&pointer=/lazy/list`);
      expect(body.entries.map((e: any) => [e.label, e.change.rev, e.change.writer])).toEqual([
        ['[0]', 1, 'agent-1'],
        ['[1]', 2, 'alice'],
        ['[2]', 1, 'agent-1'],
        ['[3]', 2, 'alice'],
      ]);
    });

    it('names a writer the server stamped by its user, surface and client', async () => {
      await store.publish({ changes: { 'cwd:/stamped': { lazy: { k: 1 } } }, meta: { writer: { user: 'alice', surface: 'mcp-http', client: 'claude-code/1.2.0', request: 'p1-9' } } });
      const { body } = await get(`/v1/history/blame?stream=${encodeURIComponent('cwd:/stamped')}&pointer=/lazy`);
      expect(body.entries.map((e: any) => [e.label, e.change.writer])).toEqual([['k', 'alice mcp-http claude-code/1.2.0']]);
    });
  });

  describe('time from the meta', () => {
    it('the histogram over meta dates spans the commits, not the import, and the revisions and path history carry the date', async () => {
      const { body } = await get(`/v1/history/histogram?stream=${encodeURIComponent(STREAM)}&axis=date&buckets=13`);
      expect(body).toMatchObject({ axis: 'date', undated: 0, truncated: false });
      expect(body.buckets.reduce((n: number, b: any) => n + b.count, 0)).toBe(lines.length);
      expect(body.buckets[0].start).toBe(new Date(lines[0]!.date).toISOString());
      expect(Date.parse(body.buckets.at(-1).end)).toBeGreaterThanOrEqual(Date.parse(lines.at(-1)!.date));
      expect(body.buckets[0].fromSeq).toBe(await seqOf(STREAM, 1));
      const time = await get(`/v1/history/histogram?stream=${encodeURIComponent(STREAM)}&buckets=13`);
      expect(time.body.buckets.filter((b: any) => b.count > 0).length).toBeLessThan(body.buckets.filter((b: any) => b.count > 0).length);
      const revisions = await get(`/v1/history/revisions?stream=${encodeURIComponent(STREAM)}&from=100&limit=1`);
      expect(revisions.body.revisions[0].date).toBe(lines[99]!.date);
      const history = await get(`/v1/history/path-history?stream=${encodeURIComponent(STREAM)}&pointer=/lazy/history/version&limit=2`);
      expect(history.body.changes.map((c: any) => c.date)).toEqual([lines[0]!.date, lines[history.body.changes[1].rev - 1]!.date]);
      const noStream = await get('/v1/history/histogram?axis=date');
      expect([noStream.status, noStream.body.error.details]).toEqual([400, { field: 'stream' }]);
    });
  });

  describe('GET /v1/history/lineage', () => {
    it('shows a fork with its fork point, a merge back and a revert, from either side', async () => {
      await store.fork(STREAM, 'cwd:/a', { at: 50 });
      await store.publish({ changes: { 'cwd:/a': { lazy: { note: 'on a' } } } });
      await store.fork('cwd:/a', 'cwd:/b');
      await store.publish({ changes: { 'cwd:/b': { lazy: { note: 'on b' } } } });
      const merged = await store.merge({ from: 'cwd:/b', into: 'cwd:/a' });
      expect(merged.status).toBe('accepted');
      await store.revert('cwd:/a', 1);
      const { body } = await get(`/v1/history/lineage?stream=${encodeURIComponent('cwd:/a')}`);
      expect(body.truncated).toBe(false);
      expect(body.streams.map((s: any) => [s.stream, s.relation])).toEqual([
        ['cwd:/a', 'self'],
        [STREAM, 'ancestor'],
        ['cwd:/b', 'descendant'],
      ]);
      expect(body.events.map((e: any) => [e.kind, e.stream, e.rev, e.from ?? e.to])).toEqual([
        ['fork', 'cwd:/a', 1, { stream: STREAM, rev: 50 }],
        ['fork', 'cwd:/b', 1, { stream: 'cwd:/a', rev: 2 }],
        ['merge', 'cwd:/a', 3, { stream: 'cwd:/b', rev: 2 }],
        ['revert', 'cwd:/a', 4, 1],
      ]);
      expect(body.events[2].base).toEqual({ stream: 'cwd:/a', rev: 2 });
      const fromSource = await get(`/v1/history/lineage?stream=${encodeURIComponent(STREAM)}`);
      expect(fromSource.body.streams.map((s: any) => [s.stream, s.relation])).toEqual([
        [STREAM, 'self'],
        ['cwd:/a', 'descendant'],
        ['cwd:/b', 'descendant'],
      ]);
    });
  });

  describe('GET /v1/history/langgraph-steps', () => {
    it('reads a thread written by the saver as steps with its messages and pending writes, decoded', async () => {
      const agent = buildAgent(new StateflowSaver(store));
      const config = { configurable: { thread_id: 'otters' } };
      await agent.invoke({ messages: [{ role: 'user', content: 'otters' }] }, config);
      await agent.invoke(new Command({ resume: 'yes' }), config);
      const { status, body } = await get(`/v1/history/langgraph-steps?stream=${encodeURIComponent('langgraph:otters')}`);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(JSON.stringify(body)).not.toMatch(/\$len|\$pages|\$null|"lc":1/);
      expect(body.thread_id).toBe('otters');
      expect(body.steps.map((s: any) => [s.step, s.source])).toEqual([
        [-1, 'input'],
        [0, 'loop'],
        [1, 'loop'],
        [2, 'loop'],
        [3, 'loop'],
        [4, 'loop'],
      ]);
      const last = body.steps.at(-1);
      expect(last.messages.map((m: any) => [m.type, m.content])).toEqual([
        ['human', 'otters'],
        ['ai', 'plan: write about otters'],
        ['ai', 'draft ready'],
        ['human', 'yes'],
        ['ai', 'published: On otters'],
      ]);
      expect(last.channel_values.draft).toEqual({ title: 'On otters', body: 'First draft.', revision: 1 });
      const planned = body.steps[1];
      expect(planned.pending_writes.map((w: any) => [w.node, w.channel])).toEqual([
        ['plan', 'messages'],
        ['plan', 'branch:to:write'],
      ]);
      expect(planned.pending_writes[0].value.map((m: any) => m.content)).toEqual(['plan: write about otters']);
      expect(body.steps[2].changed).toContain('messages');
      const review = body.steps[3];
      expect(review.pending_writes.map((w: any) => w.channel)).toContain('__interrupt__');
      const paged = await get(`/v1/history/langgraph-steps?stream=${encodeURIComponent('langgraph:otters')}&limit=2`);
      expect(paged.body.steps.map((s: any) => s.step)).toEqual([-1, 0]);
      expect(paged.body.next).toBe(body.steps[2].rev);
    });

    it('decodes a thread whose message list is stored in pages as its whole list', async () => {
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('chat', (state) => ({ messages: Array.from({ length: 40 }, (_, i) => ({ role: 'ai', content: `reply ${state.messages.length + i}` })) }))
        .addEdge(START, 'chat')
        .addEdge('chat', END)
        .compile({ checkpointer: new StateflowSaver(store) });
      const config = { configurable: { thread_id: 'long' } };
      for (let turn = 0; turn < 3; turn++) await graph.invoke({ messages: [{ role: 'user', content: `turn ${turn}` }] }, config);
      const stored = (await store.state('langgraph:long')) as any;
      expect(Object.keys(stored.channels.messages.value)).toEqual(['$len', '$pages']);
      const { status, body } = await get(`/v1/history/langgraph-steps?stream=${encodeURIComponent('langgraph:long')}`);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(JSON.stringify(body)).not.toMatch(/\$len|\$pages|\$null|"lc":1/);
      const last = body.steps.at(-1);
      expect(last.messages).toHaveLength(123);
      expect(last.messages.slice(-2).map((m: any) => [m.type, m.content])).toEqual([
        ['ai', 'reply 121'],
        ['ai', 'reply 122'],
      ]);
      expect(last.messages[82]).toMatchObject({ type: 'human', content: 'turn 2' });
    });
  });

  describe('the audit job', () => {
    it('runs in the background, streams its progress, and ends with a clean report', async () => {
      const started = await get('/v1/history/audit-job', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(started.status).toBe(200);
      expect(started.body.started).toBe(true);
      const response = await fetch(`${server.url}/v1/history/audit-job/events`);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const text = await response.text();
      const events: Array<readonly [string | undefined, any]> = [];
      const parser = createParser({ onEvent: (event) => events.push([event.event, JSON.parse(event.data)] as const) });
      parser.feed(text);
      expect(events[0]?.[0]).toBe('job');
      const end = events.at(-1);
      expect(end?.[0]).toBe('job');
      expect(end?.[1]).toMatchObject({ id: started.body.job.id, state: 'done', report: { transitions: store.lastSeq(), problems: [] }, findings: [] });
      expect(end?.[1].done).toBe(end?.[1].total);
      for (const [name, data] of events.slice(1, -1)) {
        expect(name).toBe('progress');
        expect(data.done).toBeLessThanOrEqual(data.total);
      }
      const latest = await get('/v1/history/audit-job');
      expect(latest.body.job).toEqual(end?.[1]);
    });
  });
});
