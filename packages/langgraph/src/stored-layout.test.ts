/**
 * The layout README "The stored layout" documents: one stream per thread namespace, one
 * revision per checkpoint and per writes batch, channel values as mapped net patches, LangGraph
 * metadata as transition meta — and a growing message list costing the new messages per step.
 */
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';
import { storePerTest } from '@stateflow/test-kit';
import type { OpenedStore } from './test-support/backends.js';

const meta = (step: number): CheckpointMetadata => ({ source: 'loop', step, parents: {} });

describe.each(backends)('stored layout on $name', (backend) => {
  let opened: OpenedStore;
  let saver: StateflowSaver;
  storePerTest(backend, { beforeEach, afterEach }, (o) => {
    opened = o;
    saver = new StateflowSaver(o.store);
  });

  it('a checkpoint is a revision whose state is that checkpoint and whose meta is its metadata', async () => {
    const first = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { topic: 'x', n: null }, channel_versions: { topic: 1, n: 1 } };
    const c1 = await saver.put({ configurable: { thread_id: 'thread/1', checkpoint_ns: 'child:a|b' } }, first, meta(-1), { topic: 1, n: 1 });
    await saver.putWrites(c1, [['topic', 'y']], 'task-1', '~path');
    const stream = 'langgraph:thread%2F1/child:a|b';
    const indexStream = 'langgraph-index:thread%2F1/child:a|b';
    expect((await opened.store.streams()).map((h) => h.stream)).toEqual([indexStream, stream]);
    // The index stream points at the put; the head state is this checkpoint (writes on it add no entry).
    expect(await opened.store.state(indexStream)).toEqual({ $from: 1, $head: first.id, $state: first.id, [first.id]: { put: 1, at: 1 } });

    const state = await opened.store.stateAt(stream, 2);
    expect(state).toEqual({
      checkpoint_id: first.id,
      checkpoint: { type: 'json', value: { v: 4, ts: first.ts, channel_versions: { topic: 1, n: 1 }, versions_seen: {} } },
      channels: { topic: { version: 1, type: 'json', value: 'x' }, n: { version: 1, type: 'json', value: { $null: true } } },
      writes: { 'task-1#0': { task_id: 'task-1', idx: 0, channel: 'topic', task_path: '~path', type: 'json', value: 'y' } },
    });
    const [put, writes] = await Promise.all([opened.store.transition(1), opened.store.transition(2)]);
    expect(put.meta).toEqual({
      langgraph: { op: 'put', thread_id: 'thread/1', checkpoint_ns: 'child:a|b', checkpoint_id: first.id, metadata: { source: 'loop', step: -1, parents: {} } },
    });
    expect(writes.meta).toEqual({
      langgraph: { op: 'writes', thread_id: 'thread/1', checkpoint_ns: 'child:a|b', checkpoint_id: first.id, task_id: 'task-1', channels: ['topic'] },
    });
    expect(writes.changes[0]?.patch).toEqual({ writes: { 'task-1#0': { task_id: 'task-1', idx: 0, channel: 'topic', task_path: '~path', type: 'json', value: 'y' } } });

    // The child stores only what its new versions name; the parent's writes leave with the parent.
    const second = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { topic: 'y', n: null }, channel_versions: { topic: 2, n: 1 } };
    await saver.put(c1, second, meta(0), { topic: 2 });
    expect((await opened.store.transition(3)).changes[0]?.patch).toEqual({
      checkpoint_id: second.id,
      parent_checkpoint_id: first.id,
      checkpoint: { value: { ts: second.ts, channel_versions: { topic: 2 } } },
      channels: { topic: { version: 2, value: 'y' } },
      writes: null,
    });
    expect(await opened.store.audit()).toMatchObject({ problems: [] });
  });

  it('a growing message list costs about the new messages per step, not the whole list', async () => {
    const config: RunnableConfig = { configurable: { thread_id: 'chat' } };
    let parent = config;
    const messages: Array<HumanMessage | AIMessage> = [];
    const patchBytes: number[] = [];
    for (let step = 0; step < 300; step++) {
      messages.push(step % 2 === 0 ? new HumanMessage({ content: `question ${step} ${'q'.repeat(120)}`, id: `h${step}` }) : new AIMessage({ content: `answer ${step} ${'a'.repeat(120)}`, id: `a${step}` }));
      const checkpoint: Checkpoint = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { messages: [...messages], step }, channel_versions: { messages: step + 1, step: step + 1 } };
      parent = await saver.put(parent, checkpoint, meta(step), { messages: step + 1, step: step + 1 });
      const head = await opened.store.head('langgraph:chat');
      patchBytes.push(Buffer.byteLength(JSON.stringify(await opened.store.patchAt('langgraph:chat', head.rev))));
    }
    const stateBytes = Buffer.byteLength(JSON.stringify(await opened.store.state('langgraph:chat')));
    const early = Math.max(...patchBytes.slice(10, 60));
    const late = Math.max(...patchBytes.slice(-50));
    expect(stateBytes).toBeGreaterThan(80_000);
    expect(late).toBeLessThan(early * 1.2);
    expect(late).toBeLessThan(1_000);
    const tuple = await saver.getTuple(config);
    expect((tuple?.checkpoint.channel_values['messages'] as unknown[]).length).toBe(300);
  });

  it('editing one field of a document channel stores that field', async () => {
    const doc = { title: 'Plan', sections: { intro: 'a'.repeat(2_000), body: 'b'.repeat(2_000), end: 'c' } };
    const c1 = await saver.put({ configurable: { thread_id: 'doc' } }, { ...emptyCheckpoint(), channel_values: { doc }, channel_versions: { doc: 1 } }, meta(0), { doc: 1 });
    const edited = { ...doc, sections: { ...doc.sections, end: 'the end' } };
    await saver.put(c1, { ...emptyCheckpoint(), channel_values: { doc: edited }, channel_versions: { doc: 2 } }, meta(1), { doc: 2 });
    const patch = await opened.store.patchAt('langgraph:doc', 2);
    expect((patch['channels'] as Record<string, unknown>)['doc']).toEqual({ version: 2, value: { sections: { end: 'the end' } } });
  });
});
