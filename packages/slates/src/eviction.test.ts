import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@stateflow/store';
import { levelBackend, steppingClock } from '../test-fixtures/harness.js';
import { loadLadder } from './load-ladder.js';
import type { Ladder } from './load-ladder.js';
import { runLadder } from './run-ladder.js';
import { scriptedModel } from './scripted-model.js';
import { loadTokenCounter } from './token-counter.js';
import { decodeSlateState } from './slate-state.js';
import { storePerTest } from '@stateflow/test-kit';

let store: Store;
storePerTest(levelBackend, { beforeEach, afterEach }, (opened) => {
  store = opened.store;
  expect(store.lastSeq()).toBe(0);
});

const STREAM = 'slate:budget:s';
const T5a = 'one two three four five'; // 5 tokens (o200k_base)
const T5b = 'six seven eight nine ten'; // 5
const T6 = 'eleven twelve thirteen fourteen fifteen'; // 6
const T3 = 'sixteen seventeen'; // 3
const T26 = 'a b c d e f g h i j k l m n o p q r s t u v w x y z'; // 26

const match = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } };

/** Steps: `ra` reads a.md's contents, `wa` / `wb` write a.md / b.md from {"text": …}. */
function budgetLadder(policy: string, on = 'append'): Ladder {
  const to = (file: string) => ({ slate: 'M', folder: 'f', file });
  return loadLadder({
    name: 'budget',
    slates: [{ title: 'M', folders: [{ name: 'f', tokenLimit: 12, evictionPolicy: policy, files: [{ name: 'a.md' }, { name: 'b.md' }] }] }],
    steps: [
      { id: 'ra', fields: [{ name: 'A', type: 'text', from: 'input.context' }, { name: 'Acontents', type: 'slateRead', from: to('a.md') }] },
      { id: 'wa', fields: [{ name: 'In', type: 'text', from: 'input.context' }], slateWrite: { to: to('a.md'), field: 'text', on, match } },
      { id: 'wb', fields: [{ name: 'In', type: 'text', from: 'input.context' }], slateWrite: { to: to('b.md'), field: 'text', on, match } },
    ],
  });
}

const w = (text: string | null) => (text === null ? 'skip' : JSON.stringify({ text }));
const clock = steppingClock();

async function call(ladder: Ladder, a: string | null, b: string | null) {
  return runLadder({ store, ladder, input: 'go', session: 's', model: scriptedModel(['read', w(a), w(b)]), clock });
}

describe('token budgets (gpt-tokenizer o200k_base)', () => {
  it('the texts have the token counts the tests assume', async () => {
    const count = await loadTokenCounter();
    expect([T5a, T5b, T6, T3, T26].map(count)).toEqual([5, 5, 6, 3, 26]);
  });

  it('FIFO drops the oldest entries of the folder; history stays readable with stateAt', async () => {
    const ladder = budgetLadder('FIFO');
    expect((await call(ladder, T5a, null)).evicted).toEqual([]);
    expect((await call(ladder, null, T5b)).evicted).toEqual([]);
    const third = await call(ladder, T3, null); // 5 + 5 + 3 = 13 > 12
    expect(third.evicted).toEqual([{ slate: 'M', folder: 'f', file: 'a.md', tokens: 5, text: T5a, step: 'wa', node: 0 }]);
    expect(third.slates.M?.f).toEqual({ 'a.md': T3, 'b.md': T5b });
    const fourth = await call(ladder, null, T6); // 3 + 5 + 6 = 14 > 12
    expect(fourth.evicted).toEqual([{ slate: 'M', folder: 'f', file: 'b.md', tokens: 5, text: T5b, step: 'wb', node: 0 }]);
    expect(fourth.slates.M?.f).toEqual({ 'a.md': T3, 'b.md': T6 });
    expect(fourth.transition).toBe(4);
    const files = (rev: number) => store.stateAt(STREAM, rev).then((s: any) => s.slates.M.folders.f.files);
    expect((await files(1))['a.md'].entries.map((e: any) => e.text)).toEqual([T5a]);
    expect((await files(2))['b.md'].entries.map((e: any) => e.text)).toEqual([T5b]);
    expect((await files(3))['a.md'].entries.map((e: any) => e.text)).toEqual([T3]);
  });

  it('LRU drops entries of the least-recently-read file first (read recency in the same transition)', async () => {
    const ladder = budgetLadder('LRU');
    await call(ladder, T5a, T5b); // ra reads a.md; total 10
    const second = await call(ladder, null, T3); // ra reads a.md again; 13 > 12: b.md is least recently read
    expect(second.evicted).toEqual([{ slate: 'M', folder: 'f', file: 'b.md', tokens: 5, text: T5b, step: 'wb', node: 0 }]);
    expect(second.slates.M?.f).toEqual({ 'a.md': T5a, 'b.md': T3 });
    const head = (await store.state(STREAM)) as any;
    expect(head.slates.M.folders.f.files['a.md'].lastRead).toBeDefined();
    expect(head.slates.M.folders.f.files['b.md'].lastRead).toBeUndefined();
    const patch = (await store.transition(2)).changes[0]?.patch as any;
    expect(patch.slates.M.folders.f.files['a.md'].lastRead).toBe(head.slates.M.folders.f.files['a.md'].lastRead);
  });

  it('LRU: a call that only reads records the recency in its one transition, so the file just read is not the one evicted', async () => {
    const to = (file: string) => ({ slate: 'M', folder: 'f', file });
    const slates = [{ title: 'M', folders: [{ name: 'f', tokenLimit: 12, evictionPolicy: 'LRU', files: [{ name: 'a.md' }, { name: 'b.md' }] }] }];
    // The seeds' reflexion pattern: read the lessons every call, write only sometimes.
    const reader = loadLadder({ name: 'budget', slates, steps: [{ id: 'rb', fields: [{ name: 'B', type: 'slateRead', from: to('b.md') }] }] });
    const writer = loadLadder({
      name: 'budget',
      slates,
      steps: [{ id: 'wa', fields: [{ name: 'In', type: 'text', from: 'input.context' }], slateWrite: { to: to('a.md'), field: 'text', on: 'append', match } }],
    });
    await call(budgetLadder('LRU'), T5a, T5b); // ra reads a.md; b.md never read yet
    const before = (await store.head(STREAM)).rev;
    const read = await runLadder({ store, ladder: reader, input: 'go', session: 's', model: scriptedModel(['nothing to write']), clock });
    expect(read.transition).not.toBeNull();
    expect((await store.head(STREAM)).rev).toBe(before + 1);
    const patch = (await store.transition(read.transition as number)).changes[0]?.patch as any;
    expect(Object.keys(patch.slates.M.folders.f.files)).toEqual(['b.md']);
    const written = await runLadder({ store, ladder: writer, input: 'go', session: 's', model: scriptedModel([w(T3)]), clock }); // 13 > 12
    expect(written.evicted).toEqual([{ slate: 'M', folder: 'f', file: 'a.md', tokens: 5, text: T5a, step: 'wa', node: 0 }]);
    expect(written.slates.M?.f).toEqual({ 'a.md': T3, 'b.md': T5b });
    // A read of a FIFO folder changes nothing eviction depends on: still nothing published.
    const fifoReader = loadLadder({ name: 'fifo', slates: [{ title: 'M', folders: [{ name: 'f', tokenLimit: 12, files: [{ name: 'a.md' }] }] }], steps: [{ id: 'r', fields: [{ name: 'A', type: 'slateRead', from: to('a.md') }] }] });
    await store.publish({ changes: { 'slate:fifo:s': { layout: 1, tick: 0, slates: { M: { folders: { f: { files: {} } } } } } } });
    const seq = store.lastSeq();
    expect((await runLadder({ store, ladder: fifoReader, input: 'go', session: 's', model: scriptedModel(['x']), clock })).transition).toBeNull();
    expect(store.lastSeq()).toBe(seq);
  });

  it('FIFO on the same history evicts a.md instead (contrast with LRU)', async () => {
    const ladder = budgetLadder('FIFO');
    await call(ladder, T5a, T5b);
    const second = await call(ladder, null, T3);
    expect(second.evicted.map((e) => [e.file, e.tokens])).toEqual([['a.md', 5]]);
  });

  it('reject refuses the write and keeps existing content; nothing is published', async () => {
    const ladder = budgetLadder('reject');
    await call(ladder, T5a, T5b);
    const refused = await call(ladder, T3, null);
    expect(refused.refused).toEqual([
      {
        slate: 'M', folder: 'f', file: 'a.md', step: 'wa', node: 0, tokens: 3, limit: 12,
        reason: 'folder "f" would hold 13 tokens, over its budget of 12 tokens (evictionPolicy: reject)',
      },
    ]);
    expect(refused.evicted).toEqual([]);
    expect(refused.transition).toBeNull();
    expect(refused.slates.M?.f).toEqual({ 'a.md': T5a, 'b.md': T5b });
    expect(store.lastSeq()).toBe(1);
  });

  it('a single entry larger than the whole budget is refused and evicts nothing', async () => {
    const ladder = budgetLadder('FIFO');
    await call(ladder, T5a, null);
    const big = await call(ladder, null, T26);
    expect(big.refused).toEqual([
      {
        slate: 'M', folder: 'f', file: 'b.md', step: 'wb', node: 0, tokens: 26, limit: 12,
        reason: 'an entry of 26 tokens exceeds the whole budget of folder "f" (12 tokens)',
      },
    ]);
    expect(big.evicted).toEqual([]);
    expect(big.slates.M?.f).toEqual({ 'a.md': T5a, 'b.md': '' });
  });

  it('overwrite counts the file’s new size, not old plus new', async () => {
    const ladder = budgetLadder('reject', 'overwrite');
    await call(ladder, T5a, T5b); // 10
    const over = await call(ladder, T6, null); // 6 + 5 = 11 ≤ 12 (old + new would be 16)
    expect(over.refused).toEqual([]);
    expect(over.slates.M?.f).toEqual({ 'a.md': T6, 'b.md': T5b });
  });

  it('system metatags "created / modified / size (file-level)" ("System metatag: file timestamps"): an eviction that empties a file moves its modified time and its size to 0', async () => {
    const to = (file: string) => ({ slate: 'M', folder: 'f', file });
    const ladder = loadLadder({
      name: 'budget',
      slates: [{ title: 'M', folders: [{ name: 'f', tokenLimit: 12, evictionPolicy: 'FIFO', files: [{ name: 'a.md' }, { name: 'b.md' }] }] }],
      steps: [
        {
          id: 'meta',
          fields: [
            { name: 'ACreated', type: 'slateRead', from: { ...to('a.md'), metatag: 'created' } },
            { name: 'AModified', type: 'slateRead', from: { ...to('a.md'), metatag: 'modified' } },
            { name: 'ASize', type: 'slateRead', from: { ...to('a.md'), metatag: 'size' } },
          ],
        },
        { id: 'wa', fields: [{ name: 'In', type: 'text', from: 'input.context' }], slateWrite: { to: to('a.md'), field: 'text', on: 'append', match } },
        { id: 'wb', fields: [{ name: 'In', type: 'text', from: 'input.context' }], slateWrite: { to: to('b.md'), field: 'text', on: 'append', match } },
      ],
    });
    const run = async (a: string | null, b: string | null) => {
      const model = scriptedModel(['meta', w(a), w(b)]);
      const result = await runLadder({ store, ladder, input: 'go', session: 's', model, clock });
      return { result, fields: model.requests[0]?.messages.at(-1)?.content };
    };
    await run(T5a, null); // a.md: 5 tokens
    await run(null, T5b); // b.md: 5 tokens
    const evicting = await run(null, T6); // 5 + 5 + 6 = 16 > 12: FIFO drops a.md's only entry
    expect(evicting.result.evicted.map((e) => e.file)).toEqual(['a.md']);
    expect(evicting.result.slates.M?.f?.['a.md']).toBe('');
    const state = decodeSlateState(STREAM, await store.state(STREAM));
    const evictedAt = state.slates.M?.folders.f?.files['b.md']?.modified as string;
    const after = await run(null, null);
    const created = /ACreated:\n(.*)/.exec(after.fields as string)?.[1];
    expect(after.fields).toBe(`ACreated:\n${created}\n\nAModified:\n${evictedAt}\n\nASize:\n0`);
    expect(created).not.toBe(evictedAt);
    expect(state.slates.M?.folders.f?.files['a.md']?.modified).toBe(evictedAt);
  });

  it('the encoding is configurable', async () => {
    const code = '        return {"key": value}  # indented';
    const [o200k, r50k] = await Promise.all([loadTokenCounter('o200k_base'), loadTokenCounter('r50k_base')]);
    expect(o200k(code)).not.toBe(r50k(code));
    await expect(loadTokenCounter('gpt9')).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});
