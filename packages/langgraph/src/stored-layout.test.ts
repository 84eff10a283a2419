/**
 * The layout README "The stored layout" documents: one stream per thread namespace, one
 * revision per checkpoint and per writes batch, channel values as mapped net patches, LangGraph
 * metadata as transition meta — and a growing message list costing the new messages per step,
 * in stored bytes and in the keys of the objects each step changes, at step 1,000 as at step 100.
 */
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { isJsonObject } from '@stateflow/core';
import type { JsonObject } from '@stateflow/core';
import type { Transition } from '@stateflow/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';
import { storePerTest } from '@stateflow/test-kit';
import type { OpenedStore } from './test-support/backends.js';
import { unbucketed } from './test-support/index-state.js';

const meta = (step: number): CheckpointMetadata => ({ source: 'loop', step, parents: {} });

/** Bytes of a transition's patches (its stored changes, without hash and meta). */
function storedBytes(transition: Transition): number {
  return transition.changes.reduce((sum, { patch }) => sum + Buffer.byteLength(JSON.stringify(patch)), 0);
}

/**
 * The objects of `state` the patch that produced it descends into — what a store that copies
 * each object it changes copies to apply the patch: their keys in all, and the most in one.
 */
function touched(state: JsonObject, patch: JsonObject): { keys: number; widest: number } {
  const out = { keys: Object.keys(state).length, widest: Object.keys(state).length };
  for (const [key, value] of Object.entries(patch)) {
    const child = state[key];
    if (!isJsonObject(value) || !isJsonObject(child)) continue;
    const below = touched(child, value);
    out.keys += below.keys;
    out.widest = Math.max(out.widest, below.widest);
  }
  return out;
}

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
    expect(unbucketed(await opened.store.state(indexStream))).toEqual({ $from: 1, $head: first.id, $state: first.id, [first.id]: { put: 1, at: 1 } });

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

  it('a 1,000-step thread stores and touches as much per step at its end as at its start', async () => {
    const config: RunnableConfig = { configurable: { thread_id: 'chat' } };
    const streams = ['langgraph:chat', 'langgraph-index:chat'];
    let parent = config;
    const messages: Array<HumanMessage | AIMessage> = [];
    const steps: Array<{ bytes: number; keys: number; widest: number; writesBytes: number }> = [];
    for (let step = 0; step < 1_000; step++) {
      const message = step % 2 === 0 ? new HumanMessage({ content: `question ${step} ${'q'.repeat(120)}`, id: `h${step}` }) : new AIMessage({ content: `answer ${step} ${'a'.repeat(120)}`, id: `a${step}` });
      if (step > 0) await saver.putWrites(parent, [['messages', [message]]], `task-${step}`);
      const writesBytes = step > 0 ? storedBytes(await opened.store.transition(opened.store.lastSeq())) : 0;
      messages.push(message);
      const checkpoint: Checkpoint = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { messages: [...messages], step }, channel_versions: { messages: step + 1, step: step + 1 } };
      parent = await saver.put(parent, checkpoint, meta(step), { messages: step + 1, step: step + 1 });
      const put = await opened.store.transition(opened.store.lastSeq());
      const figures = { bytes: storedBytes(put), keys: 0, widest: 0, writesBytes };
      for (const { stream, patch } of put.changes) {
        const { keys, widest } = touched(await opened.store.state(stream), patch);
        figures.keys += keys;
        figures.widest = Math.max(figures.widest, widest);
      }
      steps.push(figures);
    }
    const mean = (from: number, to: number, figure: 'bytes' | 'keys' | 'writesBytes') => steps.slice(from, to).reduce((sum, s) => sum + s[figure], 0) / (to - from);
    // Steps 100–199 against the last 100, with a list 10 times longer: the same bytes stored...
    expect(mean(900, 1_000, 'bytes')).toBeLessThan(mean(100, 200, 'bytes') * 1.05);
    expect(mean(900, 1_000, 'writesBytes')).toBeLessThan(mean(100, 200, 'writesBytes') * 1.05);
    expect(Math.max(...steps.slice(100).map((s) => s.bytes))).toBeLessThan(1_200);
    // ...and no object a step changes holds more than 65 keys (a flat list's 64 items and `$len`;
    // pages and index buckets hold 64 at most), where flat the list and the index would be objects
    // of every message and checkpoint: the keys a store copies grow only while those levels fill.
    expect(Math.max(...steps.slice(1).map((s) => s.widest))).toBeLessThanOrEqual(65);
    expect(mean(900, 1_000, 'keys')).toBeLessThan(mean(100, 200, 'keys') * 1.3);
    const stateBytes = Buffer.byteLength(JSON.stringify(await opened.store.state('langgraph:chat')));
    expect(stateBytes).toBeGreaterThan(300_000);
    const tuple = await saver.getTuple(config);
    expect((tuple?.checkpoint.channel_values['messages'] as HumanMessage[]).map((m) => m.id)).toEqual(messages.map((m) => m.id));
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
