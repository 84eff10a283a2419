/**
 * `prune` (README "Pruning threads"), shaped like LangGraph's: `keep_latest` keeps each
 * namespace's latest checkpoint and its writes — readable, listed, continued with fencing as
 * before, the store's audit clean — and removes the older ones from the store; `delete` removes
 * the thread; other threads are untouched; bad input writes nothing. On memory-level, LevelDB and
 * PostgreSQL.
 */
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejectionOf } from '@stateflow/test-kit';
import { StateflowSaver } from './stateflow-saver.js';
import { backends, postgresBackend } from './test-support/backends.js';
import type { OpenedStore } from './test-support/backends.js';

const meta = (step: number): CheckpointMetadata => ({ source: 'loop', step, parents: {} });
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
  async function thread(threadId: string, n: number, ns = ''): Promise<RunnableConfig[]> {
    const configs: RunnableConfig[] = [];
    let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: ns } };
    for (let i = 1; i <= n; i++) {
      configs.push((config = await saver.put(config, checkpoint(i), meta(i), { value: i })));
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
});
