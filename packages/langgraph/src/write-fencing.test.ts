/**
 * Write fencing (README "Write fencing"): a put that continues a thread must still find its
 * parent at the head; deliberate branches (a past checkpoint read by id: updateState on it, a
 * replay from it) are never refused; `fencing: false` turns the check off.
 * Two savers on one store stand for two processes (each has its own memory; only the store is
 * shared), on every backend.
 */
import { Annotation, Command, END, MessagesAnnotation, START, StateGraph, interrupt } from '@langchain/langgraph';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { Checkpoint, CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { isStateflowError } from '@stateflow/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointConflictError } from './checkpoint-conflict.js';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';
import type { OpenedStore } from './test-support/backends.js';
import { rejected } from '@stateflow/test-kit';

const THREAD: RunnableConfig = { configurable: { thread_id: 't' } };
const meta = (step: number): CheckpointMetadata => ({ source: 'loop', step, parents: {} });

function checkpoint(step: number): Checkpoint {
  return { ...emptyCheckpoint(), id: uuid6(0), channel_values: { step }, channel_versions: { step: step + 2 } };
}

async function ids(saver: StateflowSaver): Promise<Array<[string, string | undefined]>> {
  const out: Array<[string, string | undefined]> = [];
  for await (const t of saver.list(THREAD)) out.push([t.checkpoint.id, t.parentConfig?.configurable?.['checkpoint_id'] as string | undefined]);
  return out;
}

describe.each(backends)('write fencing on $name', (backend) => {
  let opened: OpenedStore;
  let a: StateflowSaver;
  let b: StateflowSaver;
  let root: RunnableConfig;
  beforeEach(async () => {
    opened = await backend.open();
    a = new StateflowSaver(opened.store);
    b = new StateflowSaver(opened.store);
    root = await a.put(THREAD, checkpoint(-1), meta(-1), { step: 1 });
  });
  afterEach(async () => {
    await opened.destroy();
  });

  it('two writers that read the head and extend it: the second put is a typed conflict and writes nothing', async () => {
    const [readA, readB] = [await a.getTuple(THREAD), await b.getTuple(THREAD)];
    const won = await a.put(readA!.config, checkpoint(0), meta(0), { step: 2 });
    const seq = opened.store.lastSeq();
    const err = await rejected(b.put(readB!.config, checkpoint(0), meta(0), { step: 2 }));
    expect(err).toBeInstanceOf(CheckpointConflictError);
    expect(isStateflowError(err, 'CONFLICT')).toBe(true);
    expect((err as CheckpointConflictError).details).toMatchObject({
      stream: 'langgraph:t',
      thread_id: 't',
      checkpoint_ns: '',
      parent_checkpoint_id: root.configurable?.['checkpoint_id'],
      head_checkpoint_id: won.configurable?.['checkpoint_id'],
      actual: 2,
    });
    expect(opened.store.lastSeq()).toBe(seq);
    expect(await ids(a)).toEqual([
      [won.configurable?.['checkpoint_id'], root.configurable?.['checkpoint_id']],
      [root.configurable?.['checkpoint_id'], undefined],
    ]);
  });

  it('puts racing at the same moment: exactly one wins', async () => {
    await Promise.all([a.getTuple(THREAD), b.getTuple(THREAD)]);
    const results = await Promise.allSettled([a.put(root, checkpoint(0), meta(0), { step: 2 }), b.put(root, checkpoint(0), meta(0), { step: 2 })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failure = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failure.reason).toBeInstanceOf(CheckpointConflictError);
    expect(await ids(a)).toHaveLength(2);
  });

  it('a writer continues its own chain, put after put, while the head stays its own', async () => {
    await a.getTuple(THREAD);
    let config = root;
    for (let step = 0; step < 5; step++) config = await a.put(config, checkpoint(step), meta(step), { step: step + 2 });
    expect(await ids(a)).toHaveLength(6);
  });

  it('a racing writes batch does not fence a put: only a new checkpoint does', async () => {
    const read = await a.getTuple(THREAD);
    await b.putWrites(root, [['step', 5]], 'task-b');
    await expect(a.put(read!.config, checkpoint(0), meta(0), { step: 2 })).resolves.toBeDefined();
  });

  it('a past checkpoint read by id branches (updateState on it, a replay from it), in this or another saver', async () => {
    await a.getTuple(THREAD);
    const child = await a.put(root, checkpoint(0), meta(0), { step: 2 });
    await a.put(child, checkpoint(1), meta(1), { step: 3 });
    const past = await a.getTuple(root);
    const branch = await a.put(past!.config, checkpoint(0), { ...meta(0), source: 'update' }, { step: 2 });
    const fresh = new StateflowSaver(opened.store);
    const replayed = await fresh.getTuple(child);
    const branch2 = await fresh.put(replayed!.config, checkpoint(1), { ...meta(1), source: 'fork' }, { step: 3 });
    const parents = new Map(await ids(a));
    expect(parents.get(branch.configurable?.['checkpoint_id'])).toBe(root.configurable?.['checkpoint_id']);
    expect(parents.get(branch2.configurable?.['checkpoint_id'])).toBe(child.configurable?.['checkpoint_id']);
    expect((await a.getTuple(THREAD))?.checkpoint.id).toBe(branch2.configurable?.['checkpoint_id']);
  });

  it('reading the head by id fences too: a resume that names the head checkpoint is a continuation', async () => {
    await a.getTuple(root);
    await b.getTuple(root);
    await a.put(root, checkpoint(0), meta(0), { step: 2 });
    expect(await rejected(b.put(root, checkpoint(0), meta(0), { step: 2 }))).toBeInstanceOf(CheckpointConflictError);
  });

  it('two writers starting the same new thread: the second first checkpoint is a conflict', async () => {
    const fresh: RunnableConfig = { configurable: { thread_id: 'new' } };
    expect(await a.getTuple(fresh)).toBeUndefined();
    expect(await b.getTuple(fresh)).toBeUndefined();
    const won = await a.put(fresh, checkpoint(-1), meta(-1), { step: 1 });
    const err = await rejected(b.put(fresh, checkpoint(-1), meta(-1), { step: 1 }));
    expect((err as CheckpointConflictError).details).toMatchObject({ parent_checkpoint_id: null, head_checkpoint_id: won.configurable?.['checkpoint_id'], expected: 'none' });
  });

  it('a thread deleted under a writer: its next put is a conflict naming no head', async () => {
    await a.getTuple(THREAD);
    await b.deleteThread('t');
    const err = await rejected(a.put(root, checkpoint(0), meta(0), { step: 2 }));
    expect((err as CheckpointConflictError).details).toMatchObject({ head_checkpoint_id: null });
    expect(await a.getTuple(THREAD)).toBeUndefined();
  });

  it('with fencing: false both writers are accepted and the thread forks', async () => {
    const x = new StateflowSaver(opened.store, { fencing: false });
    const y = new StateflowSaver(opened.store, { fencing: false });
    await Promise.all([x.getTuple(THREAD), y.getTuple(THREAD)]);
    await x.put(root, checkpoint(0), meta(0), { step: 2 });
    await y.put(root, checkpoint(0), meta(0), { step: 2 });
    const parents = (await ids(x)).map(([, parent]) => parent);
    expect(parents.filter((p) => p === root.configurable?.['checkpoint_id'])).toHaveLength(2);
  });
});

describe.each(backends)('two LangGraph runs resuming one thread at once on $name', (backend) => {
  let opened: OpenedStore;
  beforeEach(async () => {
    opened = await backend.open();
  });
  afterEach(async () => {
    await opened.destroy();
  });

  it('exactly one resume wins; the loser fails with CONFLICT; every checkpoint stays on the head chain', async () => {
    let arrived = 0;
    let release!: () => void;
    const bothResumed = new Promise<void>((resolve) => (release = resolve));
    const State = Annotation.Root({ ...MessagesAnnotation.spec, answer: Annotation<string>() });
    const workflow = new StateGraph(State)
      .addNode('ask', () => ({ messages: [new AIMessage('approve?')] }))
      .addNode('review', async () => {
        const answer = interrupt('approve?') as string;
        if (++arrived === 2) release();
        await bothResumed;
        return { answer, messages: [new HumanMessage(answer)] };
      })
      .addNode('finish', (s) => ({ messages: [new AIMessage(`done: ${s.answer}`)] }))
      .addEdge(START, 'ask')
      .addEdge('ask', 'review')
      .addEdge('review', 'finish')
      .addEdge('finish', END);
    const first = workflow.compile({ checkpointer: new StateflowSaver(opened.store) });
    await first.invoke({ messages: [new HumanMessage('start')] }, THREAD);

    const graphs = [workflow.compile({ checkpointer: new StateflowSaver(opened.store) }), workflow.compile({ checkpointer: new StateflowSaver(opened.store) })];
    const results = await Promise.allSettled(graphs.map((g, i) => g.invoke(new Command({ resume: `yes-${i}` }), THREAD)));
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(isStateflowError(loser.reason, 'CONFLICT')).toBe(true);

    const saver = new StateflowSaver(opened.store);
    const all: Array<[string, string | undefined]> = [];
    for await (const t of saver.list(THREAD)) all.push([t.checkpoint.id, t.parentConfig?.configurable?.['checkpoint_id'] as string | undefined]);
    const parentOf = new Map(all);
    const chain: string[] = [];
    for (let id: string | undefined = all[0]?.[0]; id !== undefined; id = parentOf.get(id)) chain.push(id);
    expect(chain).toEqual(all.map(([id]) => id));
    const winner = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ answer: string }>).value;
    expect((await first.getState(THREAD)).values.answer).toBe(winner.answer);
    expect(await opened.store.audit()).toMatchObject({ problems: [] });
  });
});
