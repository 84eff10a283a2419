/**
 * `prune`, `copyThread` and `deleteForRuns` (README "Pruning threads", "Copying a thread,
 * deleting runs"), shaped like LangGraph's. `prune`: `keep_latest` keeps each
 * namespace's latest checkpoint and its writes — readable, listed, continued with fencing as
 * before, the store's audit clean — and removes the older ones from the store; `delete` removes
 * the thread; other threads are untouched; bad input writes nothing. On memory-level, LevelDB and
 * PostgreSQL. `copyThread` copies every listed checkpoint (ids, order, values, writes, metadata,
 * namespaces) to an empty thread, leaving the source as it was; `deleteForRuns` removes the
 * runs' checkpoints from the store, keeps the others readable by id, moves the head back and
 * fences a writer of the removed head.
 */
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejectionOf } from '@stateflow/test-kit';
import { StateflowSaver } from './stateflow-saver.js';
import { backends, postgresBackend } from './test-support/backends.js';
import type { OpenedStore } from './test-support/backends.js';

const meta = (step: number, runId?: string): CheckpointMetadata => ({ source: 'loop', step, parents: {}, ...(runId === undefined ? {} : { run_id: runId }) });
const checkpoint = (value: number): Checkpoint => ({ ...emptyCheckpoint(), id: uuid6(value), channel_values: { value }, channel_versions: { value } });

async function all(saver: StateflowSaver, config: RunnableConfig): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const t of saver.list(config)) out.push(t);
  return out;
}

const pg = await postgresBackend();
const every = [...backends.map((b) => ({ name: b.name, open: () => b.open() })), ...('unavailable' in pg ? [] : [pg])];
if ('unavailable' in pg) console.warn(`[prune] PostgreSQL skipped: ${pg.unavailable}`);

describe.each(every)('prune on $name', (backend) => {
  let opened: OpenedStore;
  let saver: StateflowSaver;
  beforeEach(async () => {
    opened = await backend.open();
    saver = new StateflowSaver(opened.store);
  });
  afterEach(async () => {
    await opened.destroy();
  });

  /** `n` checkpoints of `thread` (namespace `ns`), each with one write; their configs. */
  async function thread(threadId: string, n: number, ns = '', runOf: (step: number) => string | undefined = () => undefined, from?: RunnableConfig): Promise<RunnableConfig[]> {
    const configs: RunnableConfig[] = [];
    let config: RunnableConfig = from ?? { configurable: { thread_id: threadId, checkpoint_ns: ns } };
    const first = from === undefined ? 1 : ((await saver.getTuple(from))?.metadata?.step ?? 0) + 1;
    for (let i = first; i < first + n; i++) {
      configs.push((config = await saver.put(config, checkpoint(i), meta(i, runOf(i)), { value: i })));
      await saver.putWrites(config, [['value', i * 10]], `task-${i}`);
    }
    return configs;
  }

  it('keep_latest keeps the latest checkpoint of each namespace with its writes, and the thread goes on', async () => {
    const main = await thread('t', 5);
    const sub = await thread('t', 3, 'child:1');
    const other = await thread('u', 4);
    await saver.prune(['t'], { strategy: 'keep_latest' });
    const latest = await saver.getTuple({ configurable: { thread_id: 't', checkpoint_ns: '' } });
    expect(latest?.checkpoint.channel_values).toEqual({ value: 5 });
    expect(latest?.pendingWrites).toEqual([['task-5', 'value', 50]]);
    expect((await all(saver, { configurable: { thread_id: 't', checkpoint_ns: '' } })).map((t) => t.checkpoint.id)).toEqual([main[4]?.configurable?.checkpoint_id]);
    expect((await all(saver, { configurable: { thread_id: 't', checkpoint_ns: 'child:1' } })).map((t) => t.checkpoint.id)).toEqual([sub[2]?.configurable?.checkpoint_id]);
    expect(await saver.getTuple(main[1] as RunnableConfig)).toBeUndefined();
    expect((await all(saver, { configurable: { thread_id: 'u', checkpoint_ns: '' } })).length).toBe(4);
    expect((await opened.store.head('langgraph:t')).origin).toBeGreaterThan(0);
    // The head did not move: the next put continues from the latest, and a stale parent is still refused.
    const next = await saver.put(main[4] as RunnableConfig, checkpoint(6), meta(6), { value: 6 });
    expect((await saver.getTuple(next))?.checkpoint.channel_values).toEqual({ value: 6 });
    expect((await rejectionOf(saver.put(main[3] as RunnableConfig, checkpoint(7), meta(7), { value: 7 }))).code).toBe('CONFLICT');
    expect((await opened.store.audit()).problems).toEqual([]);
    expect(other.length).toBe(4);
  });

  it('delete removes the thread; unknown threads are skipped; a bad strategy or id writes nothing', async () => {
    await thread('t', 2);
    await thread('u', 2);
    const seq = opened.store.lastSeq();
    expect((await rejectionOf(saver.prune(['t'], { strategy: 'drop' as 'delete' }))).code).toBe('INPUT_INVALID');
    expect((await rejectionOf(saver.prune(['t', '']))).code).toBe('INPUT_INVALID');
    expect(opened.store.lastSeq()).toBe(seq);
    await saver.prune(['t', 'nobody'], { strategy: 'delete' });
    expect(await saver.getTuple({ configurable: { thread_id: 't' } })).toBeUndefined();
    expect((await saver.getTuple({ configurable: { thread_id: 'u' } }))?.checkpoint.channel_values).toEqual({ value: 2 });
    expect((await opened.store.audit()).problems).toEqual([]);
  });

  /** Each tuple of `config`'s listing as [id, value, metadata step, pending writes]. */
  async function listing(config: RunnableConfig): Promise<unknown[]> {
    return (await all(saver, config)).map((t) => [t.checkpoint.id, t.checkpoint.channel_values, t.metadata?.step, t.metadata?.run_id, t.pendingWrites]);
  }
  const root = (threadId: string, ns = ''): RunnableConfig => ({ configurable: { thread_id: threadId, checkpoint_ns: ns } });

  it('copyThread copies every checkpoint of every namespace with its writes and metadata; the source is untouched', async () => {
    const main = await thread('src', 4, '', (i) => `run-${i}`);
    await thread('src', 2, 'child:1');
    const before = [await listing(root('src')), await listing(root('src', 'child:1'))];
    await saver.copyThread('src', 'dst');
    expect(await listing(root('dst'))).toEqual(before[0]);
    expect((before[0] as unknown[]).length).toBe(4);
    expect(await listing(root('dst', 'child:1'))).toEqual(before[1]);
    expect([await listing(root('src')), await listing(root('src', 'child:1'))]).toEqual(before);
    // Time travel on the copy: an old checkpoint by id, and its parent link.
    const old = await saver.getTuple({ configurable: { thread_id: 'dst', checkpoint_ns: '', checkpoint_id: main[1]?.configurable?.checkpoint_id } });
    expect(old?.checkpoint.channel_values).toEqual({ value: 2 });
    expect(old?.parentConfig?.configurable?.checkpoint_id).toBe(main[0]?.configurable?.checkpoint_id);
    expect(old?.pendingWrites).toEqual([['task-2', 'value', 20]]);
    // The copy goes on from its head; a stale parent on it is refused (fencing).
    const head = await saver.getTuple(root('dst'));
    const next = await saver.put(head?.config as RunnableConfig, checkpoint(5), meta(5), { value: 5 });
    expect((await saver.getTuple(root('dst')))?.checkpoint.id).toBe(next.configurable?.checkpoint_id);
    expect((await rejectionOf(saver.put(head?.config as RunnableConfig, checkpoint(6), meta(6), { value: 6 }))).code).toBe('CONFLICT');
    expect((await saver.getTuple(root('src')))?.checkpoint.channel_values).toEqual({ value: 4 });
    expect((await opened.store.audit()).problems).toEqual([]);
  });

  it('copyThread copies what a pruned source keeps; refuses a non-empty target, the same thread and bad ids without writing', async () => {
    await thread('src', 3);
    await saver.prune(['src']);
    await thread('busy', 1);
    const seq = opened.store.lastSeq();
    expect((await rejectionOf(saver.copyThread('src', 'busy'))).details).toEqual({ field: 'to_thread_id', reason: 'not-empty' });
    expect((await rejectionOf(saver.copyThread('src', 'src'))).details).toEqual({ field: 'to_thread_id', reason: 'same-thread' });
    expect((await rejectionOf(saver.copyThread('', 'x'))).code).toBe('INPUT_INVALID');
    expect(opened.store.lastSeq()).toBe(seq);
    await saver.copyThread('nobody', 'empty');
    expect(opened.store.lastSeq()).toBe(seq);
    await saver.copyThread('src', 'dst');
    expect(await listing(root('dst'))).toEqual(await listing(root('src')));
    expect((await listing(root('dst'))).length).toBe(1);
    // A deleted thread is empty: it can be the target of a copy.
    await saver.deleteThread('busy');
    await saver.copyThread('src', 'busy');
    expect(await listing(root('busy'))).toEqual(await listing(root('src')));
    expect((await opened.store.audit()).problems).toEqual([]);
  });

  it('deleteForRuns removes the runs\' checkpoints from the store in every namespace; the rest stays readable by id', async () => {
    const run = (i: number): string => (i <= 2 ? 'r1' : i <= 4 ? 'r2' : 'r3');
    const main = await thread('t', 6, '', run);
    const sub = await thread('t', 2, 'child:1', () => 'r2');
    const other = await thread('u', 2, '', () => 'r9');
    const ids = (configs: RunnableConfig[]): unknown[] => configs.map((c) => c.configurable?.checkpoint_id);
    const keptBefore = (await listing(root('t'))).filter((row) => (row as unknown[])[3] !== 'r2');
    const otherBefore = await listing(root('u'));
    const seq = opened.store.lastSeq();
    await saver.deleteForRuns([]);
    await saver.deleteForRuns(['nobody']);
    expect(opened.store.lastSeq()).toBe(seq);
    await saver.deleteForRuns(['r2']);
    expect(await listing(root('t'))).toEqual(keptBefore);
    expect((await all(saver, root('t'))).map((t) => t.checkpoint.id)).toEqual(ids([main[5], main[4], main[1], main[0]] as RunnableConfig[]));
    expect(await listing(root('t', 'child:1'))).toEqual([]);
    expect(await saver.getTuple(main[2] as RunnableConfig)).toBeUndefined();
    expect(await saver.getTuple(sub[0] as RunnableConfig)).toBeUndefined();
    expect((await saver.getTuple(main[1] as RunnableConfig))?.pendingWrites).toEqual([['task-2', 'value', 20]]);
    expect(await listing(root('u'))).toEqual(otherBefore);
    expect(other.length).toBe(2);
    // The removed checkpoints' data left the store: no retained revision holds them.
    const head = await opened.store.head('langgraph:t');
    for (let rev = head.origin; rev <= head.rev; rev++) {
      const id = (await opened.store.stateAt('langgraph:t', rev))['checkpoint_id'];
      expect(ids([main[2], main[3]] as RunnableConfig[])).not.toContain(id);
    }
    expect((await opened.store.audit()).problems).toEqual([]);
  });

  it('deleteForRuns of the latest run moves the head back: the thread goes on from there and the removed head is fenced', async () => {
    const first = await thread('t', 2, '', () => 'r1');
    const head = await saver.getTuple(root('t'));
    const second = await thread('t', 2, '', () => 'r2', head?.config);
    const stale = await saver.getTuple(root('t'));
    expect(stale?.checkpoint.id).toBe(second[1]?.configurable?.checkpoint_id);
    await saver.deleteForRuns(['r2']);
    expect((await saver.getTuple(root('t')))?.checkpoint.id).toBe(first[1]?.configurable?.checkpoint_id);
    expect((await rejectionOf(saver.put(stale?.config as RunnableConfig, checkpoint(9), meta(9), { value: 9 }))).code).toBe('CONFLICT');
    const back = await saver.getTuple(root('t'));
    const next = await saver.put(back?.config as RunnableConfig, checkpoint(5), meta(5, 'r3'), { value: 5 });
    expect((await all(saver, root('t'))).map((t) => t.checkpoint.id)).toEqual([next, first[1], first[0]].map((c) => c?.configurable?.checkpoint_id));
    expect((await rejectionOf(saver.deleteForRuns(['']))).code).toBe('INPUT_INVALID');
    expect((await opened.store.audit()).problems).toEqual([]);
  });
});
