/**
 * The namespace's index stream (README "Finding a checkpoint"): each put and writes batch names
 * its revision there in the same transition; a checkpoint read by id follows it, checked
 * against the log; a stream written before the index existed is still read from its log, and
 * an index written before its entries were bucketed is read as it is and bucketed by its next
 * write; a deletion clears the index with the thread.
 */
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';
import { rejectionOf, storePerTest } from '@stateflow/test-kit';
import type { OpenedStore } from './test-support/backends.js';
import { unbucketed } from './test-support/index-state.js';
import { bucketed } from './internal/checkpoint-pointers.js';
import type { JsonObject } from '@stateflow/core';

const meta = (step: number): CheckpointMetadata => ({ source: 'loop', step, parents: {} });
const checkpoint = (value: number): Checkpoint => ({ ...emptyCheckpoint(), id: uuid6(0), channel_values: { value }, channel_versions: { value } });

describe.each(backends)('the checkpoint index stream on $name', (backend) => {
  let opened: OpenedStore;
  let saver: StateflowSaver;
  storePerTest(backend, { beforeEach, afterEach }, (o) => {
    opened = o;
    saver = new StateflowSaver(o.store);
  });

  /** `n` checkpoints of thread `t`, each with one write; their configs. */
  async function thread(n: number, from: RunnableConfig = { configurable: { thread_id: 't' } }): Promise<RunnableConfig[]> {
    const configs: RunnableConfig[] = [];
    let config = from;
    for (let i = 1; i <= n; i++) {
      configs.push((config = await saver.put(config, checkpoint(i), meta(i), { value: i })));
      await saver.putWrites(config, [['value', i * 10]], `task-${i}`);
    }
    return configs;
  }

  const idOf = (config: RunnableConfig | undefined): string => config?.configurable?.['checkpoint_id'] as string;
  /** A patch of the index stream that sets these entries (by checkpoint id) in their buckets. */
  const entries = (byId: JsonObject): JsonObject => ({ $ids: bucketed(new Map(Object.entries(byId))) });

  it('points at each put and at the latest revision holding each checkpoint, in the same transitions', async () => {
    const [c1, c2] = await thread(2);
    await saver.putWrites(c1 as RunnableConfig, [['value', -1]], 'late');
    // c2's put ends c1's run at revision 2; the late write switches the state back to c1, ending c2's at 4.
    const index = await opened.store.state('langgraph-index:t');
    expect(Object.keys(index).sort()).toEqual(['$from', '$head', '$ids', '$state']);
    expect(unbucketed(index)).toEqual({ $from: 1, $head: idOf(c2), $state: idOf(c1), [idOf(c1)]: { put: 1, at: 5 }, [idOf(c2)]: { put: 3, at: 4 } });
    // Puts and switching writes carry their entries; writes on the head state change one stream.
    const streams = await Promise.all([1, 2, 3, 4, 5].map(async (seq) => (await opened.store.transition(seq)).changes.map((c) => c.stream)));
    expect(streams).toEqual([
      ['langgraph:t', 'langgraph-index:t'],
      ['langgraph:t'],
      ['langgraph:t', 'langgraph-index:t'],
      ['langgraph:t'],
      ['langgraph:t', 'langgraph-index:t'],
    ]);
    const fresh = new StateflowSaver(opened.store);
    expect((await fresh.getTuple(c1 as RunnableConfig))?.pendingWrites).toEqual([['late', 'value', -1], ['task-1', 'value', 10]]);
    expect((await fresh.getTuple(c2 as RunnableConfig))?.pendingWrites).toEqual([['task-2', 'value', 20]]);
  });

  it('a stream written before the index existed is read from its log, and indexed from the next put on', async () => {
    const configs = await thread(3);
    // As a stream of an earlier version of the saver: no index entries.
    const index = await opened.store.state('langgraph-index:t');
    await opened.store.publish({ changes: { 'langgraph-index:t': Object.fromEntries(Object.keys(index).map((k) => [k, null])) } });
    const fresh = new StateflowSaver(opened.store);
    expect((await fresh.getTuple(configs[0] as RunnableConfig))?.checkpoint.channel_values).toEqual({ value: 1 });
    expect((await fresh.getTuple({ configurable: { thread_id: 't' } }))?.config.configurable?.['checkpoint_id']).toBe(idOf(configs[2]));
    const next = await fresh.put(configs[2] as RunnableConfig, checkpoint(4), meta(4), { value: 4 });
    expect(unbucketed(await opened.store.state('langgraph-index:t'))).toEqual({ $from: 7, $head: idOf(next), $state: idOf(next), [idOf(configs[2])]: { at: 6 }, [idOf(next)]: { put: 7, at: 7 } });
    const later = new StateflowSaver(opened.store);
    expect((await later.getTuple(configs[1] as RunnableConfig))?.pendingWrites).toEqual([['task-2', 'value', 20]]);
    expect((await later.getTuple(configs[2] as RunnableConfig))?.pendingWrites).toEqual([['task-3', 'value', 30]]);
    expect((await later.getTuple(next))?.checkpoint.channel_values).toEqual({ value: 4 });
  });

  it('an index written before buckets (entries beside $from) is read as it is, and the next put moves every entry into $ids', async () => {
    const configs = await thread(3);
    const flat = unbucketed(await opened.store.state('langgraph-index:t'));
    await opened.store.publish({ changes: { 'langgraph-index:t': { ...flat, $ids: null } } });
    expect(await opened.store.state('langgraph-index:t')).toEqual(flat);
    const fresh = new StateflowSaver(opened.store);
    for (const [i, config] of configs.entries()) expect((await fresh.getTuple(config))?.checkpoint.channel_values).toEqual({ value: i + 1 });
    const next = await fresh.put(configs[2] as RunnableConfig, checkpoint(4), meta(4), { value: 4 });
    const index = await opened.store.state('langgraph-index:t');
    expect(Object.keys(index).sort()).toEqual(['$from', '$head', '$ids', '$state']);
    expect(unbucketed(index)).toEqual({ ...flat, $head: idOf(next), $state: idOf(next), [idOf(configs[2])]: { put: 5, at: 6 }, [idOf(next)]: { put: 7, at: 7 } });
    const later = new StateflowSaver(opened.store);
    for (const [i, config] of [...configs, next].entries()) expect((await later.getTuple(config))?.checkpoint.channel_values).toEqual({ value: i + 1 });
    expect(await opened.store.audit()).toMatchObject({ problems: [] });
  });

  it('a checkpoint id like __proto__ or $ids is an entry like any other', async () => {
    let config: RunnableConfig = { configurable: { thread_id: 't' } };
    for (const [i, id] of ['__proto__', '$ids', 'constructor'].entries()) config = await saver.put(config, { ...checkpoint(i + 1), id }, meta(i + 1), { value: i + 1 });
    const fresh = new StateflowSaver(opened.store);
    for (const [i, id] of ['__proto__', '$ids', 'constructor'].entries()) {
      expect((await fresh.getTuple({ configurable: { thread_id: 't', checkpoint_id: id } }))?.checkpoint.channel_values).toEqual({ value: i + 1 });
    }
    expect(Object.getPrototypeOf(await opened.store.state('langgraph-index:t'))).toBe(Object.prototype);
  });

  it('a pointer the log contradicts fails closed with STORE_CORRUPT', async () => {
    const [c1, c2] = await thread(2);
    // Point c2's id at c1's put.
    await opened.store.publish({ changes: { 'langgraph-index:t': entries({ [idOf(c2)]: { put: 1, at: 2 } }) } });
    expect((await rejectionOf(() => new StateflowSaver(opened.store).getTuple(c2 as RunnableConfig))).code).toBe('STORE_CORRUPT');
    // Point c1's latest revision at c2's state.
    await opened.store.publish({ changes: { 'langgraph-index:t': entries({ [idOf(c2)]: { put: 3, at: 4 }, [idOf(c1)]: { at: 4 } }) } });
    expect((await rejectionOf(() => new StateflowSaver(opened.store).getTuple(c1 as RunnableConfig))).code).toBe('STORE_CORRUPT');
    expect((await rejectionOf(() => new StateflowSaver(opened.store).getTuple(c1 as RunnableConfig))).details).toMatchObject({ stream: 'langgraph:t' });
  });

  it('deleteThread clears the index stream with the thread, and a new thread of that id is indexed again', async () => {
    const [c1] = await thread(2);
    await saver.deleteThread('t');
    expect(await opened.store.state('langgraph-index:t')).toEqual({});
    expect(await new StateflowSaver(opened.store).getTuple(c1 as RunnableConfig)).toBeUndefined();
    const again = await thread(1);
    expect((await new StateflowSaver(opened.store).getTuple(again[0] as RunnableConfig))?.checkpoint.channel_values).toEqual({ value: 1 });
    expect(await new StateflowSaver(opened.store).getTuple(c1 as RunnableConfig)).toBeUndefined();
    expect(await opened.store.audit()).toMatchObject({ problems: [] });
  });
});
