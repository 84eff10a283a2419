/**
 * A thread's revisions decoded as LangGraph shows them (README "Reading a thread decoded"), on
 * a real graph run: channel values and messages without the stored form's `$len` / `$null` tags
 * or serializer records, the pending writes of a writes revision, and what a step changed, with
 * a growing message list as the messages it added.
 */
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemoryStore } from '@stateflow/store';
import type { Store } from '@stateflow/store';
import { checkpointChanges, viewCheckpoint } from './checkpoint-view.js';
import { StateflowSaver } from './stateflow-saver.js';

let store: Store;
beforeEach(async () => {
  store = await openMemoryStore();
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => ({ messages: [{ role: 'ai', content: `you said ${String(state.messages.at(-1)?.content)}` }] }))
    .addEdge('__start__', 'reply')
    .compile({ checkpointer: new StateflowSaver(store) });
  await graph.invoke({ messages: [{ role: 'user', content: 'hi' }] }, { configurable: { thread_id: 'chat-1' } });
});
afterEach(async () => {
  await store.close();
});

/** The revisions of the thread, with the op each transition's meta names. */
async function revisions(): Promise<{ rev: number; op: string }[]> {
  const out: { rev: number; op: string }[] = [];
  for await (const t of store.transitions({ stream: 'langgraph:chat-1' })) {
    out.push({ rev: t.changes[0]?.rev ?? 0, op: String((t.meta?.['langgraph'] as { op?: unknown } | undefined)?.op) });
  }
  return out;
}

describe('viewCheckpoint', () => {
  it('shows the messages as LangGraph does ({content, type, id, …}), none of the stored tags', async () => {
    const head = (await store.head('langgraph:chat-1')).rev;
    const stored = await store.stateAt('langgraph:chat-1', head);
    expect(JSON.stringify(stored)).toContain('"$len"');
    const view = await viewCheckpoint(stored);
    expect(view?.checkpoint_id).toBe(stored['checkpoint_id']);
    expect(view?.parent_checkpoint_id).toBe(stored['parent_checkpoint_id']);
    expect(view?.ts).toMatch(/^\d{4}-\d\d-\d\dT/);
    const messages = view?.channel_values['messages'] as { type: string; content: string; id: string }[];
    expect(messages.map((m) => [m.type, m.content])).toEqual([
      ['human', 'hi'],
      ['ai', 'you said hi'],
    ]);
    expect(messages.every((m) => typeof m.id === 'string')).toBe(true);
    expect(JSON.stringify(view)).not.toMatch(/"\$len"|"\$null"|"lc":1/);
  });

  it('shows a writes revision with its pending writes, and an empty state as null', async () => {
    const writes = (await revisions()).find((r) => r.op === 'writes');
    expect(writes).toBeDefined();
    const view = await viewCheckpoint(await store.stateAt('langgraph:chat-1', writes!.rev));
    expect(view?.pending_writes.length).toBeGreaterThan(0);
    expect(view?.pending_writes.every((w) => typeof w.task_id === 'string' && typeof w.channel === 'string')).toBe(true);
    expect(await viewCheckpoint({})).toBeNull();
    // A write for a checkpoint not put yet (LangGraph may send one before the put) waits in early_writes.
    await new StateflowSaver(store).putWrites({ configurable: { thread_id: 'chat-1', checkpoint_ns: '', checkpoint_id: 'not-put-yet' } }, [['notes', ['x', null]]], 'task-early');
    const head = await viewCheckpoint(await store.stateAt('langgraph:chat-1', (await store.head('langgraph:chat-1')).rev));
    expect(head?.early_writes).toEqual([{ checkpoint_id: 'not-put-yet', task_id: 'task-early', channel: 'notes', value: ['x', null] }]);
  });
});

describe('checkpointChanges', () => {
  it('gives what a step changed: the message it appended, and the pending writes it consumed', async () => {
    const puts = (await revisions()).filter((r) => r.op === 'put');
    const [input, , last] = puts as [{ rev: number }, { rev: number }, { rev: number }];
    const before = await viewCheckpoint(await store.stateAt('langgraph:chat-1', last.rev - 1));
    const after = await viewCheckpoint(await store.stateAt('langgraph:chat-1', last.rev));
    const changes = checkpointChanges(before, after);
    expect(changes.checkpoint_id).toBe(after?.checkpoint_id);
    expect(changes.from_checkpoint_id).toBe(before?.checkpoint_id);
    const appended = changes.channel_values['messages'] as { appended: { type: string; content: string }[] };
    expect(appended.appended.map((m) => [m.type, m.content])).toEqual([['ai', 'you said hi']]);
    expect(changes.pending_writes?.removed.length).toBeGreaterThan(0);
    // Back to the earlier checkpoint (a fork from it): the list lost the message at its end.
    const back = checkpointChanges(after, before).channel_values['messages'] as { removed: { type: string }[] };
    expect(back.removed.map((m) => m.type)).toEqual(['ai']);

    const first = checkpointChanges(null, await viewCheckpoint(await store.stateAt('langgraph:chat-1', input.rev)));
    expect(first.from_checkpoint_id).toBeNull();
    expect(Object.values(first.channel_values).every((c) => 'after' in c && !('before' in c))).toBe(true);
    expect(checkpointChanges(after, after)).toEqual({ checkpoint_id: after?.checkpoint_id, parent_checkpoint_id: after?.parent_checkpoint_id, from_checkpoint_id: after?.checkpoint_id, channel_values: {} });
  });
});
