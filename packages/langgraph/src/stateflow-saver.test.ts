/**
 * Behaviour of StateflowSaver beyond the official suite: writes that arrive early or late,
 * thread deletion, reads from a fresh saver (nothing lives only in memory), typed input errors
 * that write nothing, and compaction by the store's retention — on every backend.
 */
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { isStateflowError } from '@stateflow/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';
import { rejectionOf, storePerTest } from '@stateflow/test-kit';
import type { OpenedStore } from './test-support/backends.js';

const meta = (step: number, source: CheckpointMetadata['source'] = 'loop'): CheckpointMetadata => ({ source, step, parents: {} });

function checkpoint(value: unknown, version: number): Checkpoint {
  return { ...emptyCheckpoint(), id: uuid6(0), channel_values: { value }, channel_versions: { value: version } };
}

async function all(saver: StateflowSaver, config: RunnableConfig, options?: Parameters<StateflowSaver['list']>[1]): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const t of saver.list(config, options)) out.push(t);
  return out;
}

describe.each(backends)('StateflowSaver on $name', (backend) => {
  let opened: OpenedStore;
  let saver: StateflowSaver;
  storePerTest(backend, { beforeEach, afterEach }, (o) => {
    opened = o;
    saver = new StateflowSaver(o.store);
  });

  it('writes to a checkpoint after its child was put go back to it (the stream switches to it for one revision)', async () => {
    const c1 = await saver.put({ configurable: { thread_id: 't' } }, checkpoint('a', 1), meta(0), { value: 1 });
    const c2 = await saver.put(c1, checkpoint('b', 2), meta(1), { value: 2 });
    await saver.putWrites(c1, [['value', 'late']], 'task-late');
    expect((await saver.getTuple(c1))?.pendingWrites).toEqual([['task-late', 'value', 'late']]);
    expect((await saver.getTuple(c2))?.pendingWrites).toEqual([]);
    // The next put continues from c2's state, not from the switched-to c1.
    const c3 = await saver.put(c2, { ...checkpoint('ignored', 2), channel_values: {} }, meta(2), {});
    expect((await saver.getTuple(c3))?.checkpoint.channel_values).toEqual({ value: 'b' });
    expect((await saver.getTuple({ configurable: { thread_id: 't' } }))?.checkpoint.id).toBe(c3.configurable?.['checkpoint_id']);
  });

  it('writes that arrive before their checkpoint wait for it and join it when it is put', async () => {
    const c1 = await saver.put({ configurable: { thread_id: 't' } }, checkpoint('a', 1), meta(0), { value: 1 });
    const next = checkpoint('b', 2);
    const early: RunnableConfig = { configurable: { thread_id: 't', checkpoint_ns: '', checkpoint_id: next.id } };
    await saver.putWrites(early, [['value', 'early']], 'task-early');
    expect(await saver.getTuple(early)).toBeUndefined();
    expect((await saver.getTuple(c1))?.pendingWrites).toEqual([]);
    await saver.put(c1, next, meta(1), { value: 2 });
    expect((await saver.getTuple(early))?.pendingWrites).toEqual([['task-early', 'value', 'early']]);
  });

  it('keeps the first regular write of a (task, index) and lets special writes replace', async () => {
    const c1 = await saver.put({ configurable: { thread_id: 't' } }, checkpoint('a', 1), meta(0), { value: 1 });
    await saver.putWrites(c1, [['value', 'first'], ['__error__', 'e1']], 'task');
    const seq = opened.store.lastSeq();
    await saver.putWrites(c1, [['value', 'second']], 'task');
    expect(opened.store.lastSeq()).toBe(seq);
    await saver.putWrites(c1, [['__error__', 'e2']], 'task');
    expect((await saver.getTuple(c1))?.pendingWrites).toEqual([
      ['task', '__error__', 'e2'],
      ['task', 'value', 'first'],
    ]);
  });

  it('a fresh saver reads everything from the store alone (index rebuilt from the log)', async () => {
    let config: RunnableConfig = { configurable: { thread_id: 't' } };
    for (let i = 0; i < 5; i++) {
      config = await saver.put(config, checkpoint(i, i + 1), meta(i, i === 0 ? 'input' : 'loop'), { value: i + 1 });
      await saver.putWrites(config, [['value', i * 10]], `task-${i}`);
    }
    const fresh = new StateflowSaver(opened.store);
    expect(await all(fresh, { configurable: { thread_id: 't' } })).toEqual(await all(saver, { configurable: { thread_id: 't' } }));
    expect((await all(fresh, { configurable: { thread_id: 't' } }, { filter: { source: 'input' } })).map((t) => t.checkpoint.channel_values)).toEqual([{ value: 0 }]);
  });

  it('a fresh saver reads a long thread from its newest end: the head costs the last transitions, not the thread', async () => {
    const configs: RunnableConfig[] = [];
    let config: RunnableConfig = { configurable: { thread_id: 'long' } };
    for (let i = 0; i < 300; i++) {
      configs.push((config = await saver.put(config, checkpoint(i, i + 1), meta(i), { value: i + 1 })));
      await saver.putWrites(config, [['value', i]], `task-${i}`);
    }
    let read = 0;
    const counted = new Proxy(opened.store, {
      get(target, prop) {
        if (prop === 'transitions') return (range: Parameters<typeof target.transitions>[0]) => count(target.transitions(range));
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    async function* count<T>(it: AsyncIterable<T>): AsyncGenerator<T> {
      for await (const x of it) {
        read++;
        yield x;
      }
    }
    const fresh = new StateflowSaver(counted);
    expect((await fresh.getTuple({ configurable: { thread_id: 'long' } }))?.checkpoint.channel_values).toEqual({ value: 299 });
    expect(read).toBeLessThanOrEqual(64);
    const three = await all(fresh, { configurable: { thread_id: 'long', checkpoint_ns: '' } }, { limit: 3 });
    expect(three.map((t) => t.checkpoint.channel_values['value'])).toEqual([299, 298, 297]);
    expect(read).toBeLessThanOrEqual(64);
    // An old checkpoint by id is a point read through the index stream: no transition read.
    const before = read;
    expect((await fresh.getTuple(configs[5] as RunnableConfig))?.pendingWrites).toEqual([['task-5', 'value', 5]]);
    expect(read).toBe(before);
    expect(await all(fresh, { configurable: { thread_id: 'long' } })).toEqual(await all(saver, { configurable: { thread_id: 'long' } }));
  });

  it('reading back from the newest end stops at a deletion: older checkpoints never come back', async () => {
    const old = await saver.put({ configurable: { thread_id: 't' } }, checkpoint('old', 1), meta(0), { value: 1 });
    // A deletion whose compaction did not run (the tombstone alone must be enough).
    const state = await opened.store.state('langgraph:t');
    await opened.store.publish({ changes: { 'langgraph:t': Object.fromEntries(Object.keys(state).map((k) => [k, null])) }, meta: { langgraph: { op: 'delete', thread_id: 't' } } });
    const fresh1 = await new StateflowSaver(opened.store).put({ configurable: { thread_id: 't' } }, checkpoint('new', 1), meta(0), { value: 1 });
    const fresh = new StateflowSaver(opened.store);
    expect((await all(fresh, { configurable: { thread_id: 't' } })).map((t) => t.checkpoint.channel_values)).toEqual([{ value: 'new' }]);
    expect(await fresh.getTuple(old)).toBeUndefined();
    expect((await fresh.getTuple(fresh1))?.checkpoint.channel_values).toEqual({ value: 'new' });
  });

  it('lists every namespace of a thread, every thread, and honours before and limit', async () => {
    const r1 = await saver.put({ configurable: { thread_id: 'a' } }, checkpoint(1, 1), meta(0), { value: 1 });
    const r2 = await saver.put(r1, checkpoint(2, 2), meta(1), { value: 2 });
    await saver.put({ configurable: { thread_id: 'a', checkpoint_ns: 'sub:1' } }, checkpoint(3, 1), meta(0), { value: 1 });
    await saver.put({ configurable: { thread_id: 'b' } }, checkpoint(4, 1), meta(0), { value: 1 });
    const values = (tuples: CheckpointTuple[]) => tuples.map((t) => t.checkpoint.channel_values['value']);
    expect(values(await all(saver, { configurable: { thread_id: 'a' } }))).toEqual([2, 1, 3]);
    expect(values(await all(saver, { configurable: { thread_id: 'a', checkpoint_ns: '' } }))).toEqual([2, 1]);
    expect(values(await all(saver, {}))).toEqual([2, 1, 3, 4]);
    expect(values(await all(saver, { configurable: { thread_id: 'a', checkpoint_ns: '' } }, { before: r2 }))).toEqual([1]);
    expect(values(await all(saver, {}, { limit: 3 }))).toEqual([2, 1, 3]);
  });

  it('deleteThread removes every namespace of the thread from the store, and only that thread', async () => {
    const c1 = await saver.put({ configurable: { thread_id: 'gone' } }, checkpoint('a', 1), meta(0), { value: 1 });
    await saver.put(c1, checkpoint('b', 2), meta(1), { value: 2 });
    await saver.put({ configurable: { thread_id: 'gone', checkpoint_ns: 'sub:1' } }, checkpoint('c', 1), meta(0), { value: 1 });
    await saver.put({ configurable: { thread_id: 'gone-too-similar' } }, checkpoint('d', 1), meta(0), { value: 1 });
    await saver.deleteThread('gone');
    expect(await saver.getTuple({ configurable: { thread_id: 'gone' } })).toBeUndefined();
    expect(await saver.getTuple(c1)).toBeUndefined();
    expect(await all(saver, { configurable: { thread_id: 'gone' } })).toEqual([]);
    expect((await saver.getTuple({ configurable: { thread_id: 'gone-too-similar' } }))?.checkpoint.channel_values).toEqual({ value: 'd' });
    // The data is gone from the store, not just hidden: history before the deletion is compacted.
    expect((await rejectionOf(() => opened.store.stateAt('langgraph:gone', 1))).code).toBe('HISTORY_NOT_RETAINED');
    expect(await opened.store.state('langgraph:gone/sub:1')).toEqual({});
    expect(await opened.store.audit()).toMatchObject({ problems: [] });
    // The thread id can be used again.
    await saver.put({ configurable: { thread_id: 'gone' } }, checkpoint('new', 1), meta(0), { value: 1 });
    expect((await all(saver, { configurable: { thread_id: 'gone' } })).map((t) => t.checkpoint.channel_values)).toEqual([{ value: 'new' }]);
  });

  it.each([
    ['put without configurable', (s: StateflowSaver) => s.put({}, checkpoint(1, 1), meta(0), {}), 'thread_id'],
    ['put with an empty thread_id', (s: StateflowSaver) => s.put({ configurable: { thread_id: '' } }, checkpoint(1, 1), meta(0), {}), 'thread_id'],
    ['put with a lone surrogate in thread_id', (s: StateflowSaver) => s.put({ configurable: { thread_id: 'a\ud800' } }, checkpoint(1, 1), meta(0), {}), 'thread_id'],
    ['put with a thread_id over the stream id limit', (s: StateflowSaver) => s.put({ configurable: { thread_id: 'x'.repeat(2000) } }, checkpoint(1, 1), meta(0), {}), 'thread_id'],
    ['put with an object thread_id', (s: StateflowSaver) => s.put({ configurable: { thread_id: { id: 1 } } }, checkpoint(1, 1), meta(0), {}), 'thread_id'],
    ['put of a checkpoint without id', (s: StateflowSaver) => s.put({ configurable: { thread_id: 't' } }, { ...checkpoint(1, 1), id: '' }, meta(0), {}), 'checkpoint.id'],
    ['putWrites without checkpoint_id', (s: StateflowSaver) => s.putWrites({ configurable: { thread_id: 't' } }, [['a', 1]], 'task'), 'checkpoint_id'],
    ['putWrites with an empty task id', (s: StateflowSaver) => s.putWrites({ configurable: { thread_id: 't', checkpoint_id: 'c' } }, [['a', 1]], ''), 'task_id'],
    ['a checkpoint_ns that is not a string', (s: StateflowSaver) => s.getTuple({ configurable: { thread_id: 't', checkpoint_ns: 7 } }), 'checkpoint_ns'],
  ])('%s is INPUT_INVALID naming the field, and writes nothing', async (_, call, field) => {
    const before = opened.store.lastSeq();
    const err = await rejectionOf(() => call(saver));
    expect(isStateflowError(err, 'INPUT_INVALID')).toBe(true);
    expect(err.details).toMatchObject({ field });
    expect(opened.store.lastSeq()).toBe(before);
  });

  it('reads without a thread_id return nothing', async () => {
    expect(await saver.getTuple({ configurable: {} })).toBeUndefined();
    expect(await saver.getTuple({})).toBeUndefined();
  });
});

describe.each(backends)('StateflowSaver on a store with retention on $name', (backend) => {
  it('checkpoints compacted away by retention are no longer listed or found; the rest read as before', async () => {
    const opened = await backend.open();
    try {
      const saver = new StateflowSaver(opened.store);
      const configs: RunnableConfig[] = [];
      let config: RunnableConfig = { configurable: { thread_id: 't' } };
      for (let i = 0; i < 10; i++) configs.push((config = await saver.put(config, checkpoint(i, i + 1), meta(i), { value: i + 1 })));
      await opened.store.compact('langgraph:t', { keepRevisions: 4 });
      expect(await saver.getTuple(configs[0] as RunnableConfig)).toBeUndefined();
      expect((await saver.getTuple(configs[9] as RunnableConfig))?.checkpoint.channel_values).toEqual({ value: 9 });
      // Revisions 7–10 are retained; the put that made revision 7 (the origin) was pruned with its metadata.
      const values = async (s: StateflowSaver) => (await all(s, { configurable: { thread_id: 't' } })).map((t) => t.checkpoint.channel_values['value']);
      expect(await values(saver)).toEqual([9, 8, 7]);
      expect(await values(new StateflowSaver(opened.store))).toEqual([9, 8, 7]);
    } finally {
      await opened.destroy();
    }
  });
});
