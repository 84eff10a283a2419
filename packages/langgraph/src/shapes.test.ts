/**
 * README "Shapes": a graph whose state annotation changed — a channel renamed and a string that
 * became a list — resumes a thread written under the old one, through an upcaster declared on
 * the saver's checkpoint family (`langgraph:*`) and written against the stored layout. The
 * stored bytes and the audit stay as they were; a saver reading `stored` sees the old shape.
 */
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import type { JsonObject, UpcastOperation } from '@stateflow/core';
import { setShape } from '@stateflow/store';
import type { ShapeSelector, Store } from '@stateflow/store';
import { asStateflowError, rejectionOf, storePerTest, thrown } from '@stateflow/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';
import type { OpenedStore } from './test-support/backends.js';

const STREAM = 'langgraph:chat-1';
const CONFIG = { configurable: { thread_id: 'chat-1' } };
const notes = Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] });

/** v1 of the graph: one `topic` string. */
const V1 = Annotation.Root({ topic: Annotation<string>(), notes });
/** v2: the topic became a list of `topics`. */
const V2 = Annotation.Root({ topics: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }), notes });

function graphV1(store: Store, shape?: ShapeSelector) {
  return new StateGraph(V1)
    .addNode('note', (s) => ({ notes: [`note:${s.topic}`] }))
    .addEdge(START, 'note')
    .addEdge('note', END)
    .compile({ checkpointer: new StateflowSaver(store, shape === undefined ? {} : { shape }) });
}

function graphV2(store: Store, shape?: ShapeSelector) {
  return new StateGraph(V2)
    .addNode('note', (s) => ({ notes: [`note:${s.topics.join('+')}`] }))
    .addEdge(START, 'note')
    .addEdge('note', END)
    .compile({ checkpointer: new StateflowSaver(store, shape === undefined ? {} : { shape }) });
}

/** A channel's stored `value` (README "Value mapping"): a list of ≤ 16 strings is an array, a longer one `{ $len, … }`. */
const storedList: JsonObject = {
  anyOf: [
    { type: 'array', items: { type: 'string' } },
    { type: 'object', properties: { $len: { type: 'integer' } }, required: ['$len'] },
  ],
};

/** v1 of the `chat` shape, over the stored layout: `channels.topic.value` is a string. */
const SCHEMA_V1: JsonObject = {
  type: 'object',
  properties: { channels: { type: 'object', properties: { topic: { type: 'object', properties: { value: { type: 'string' } } } } } },
};

/** v2: `channels.topics.value` is a stored list, and no `topic` channel is left. */
const SCHEMA_V2: JsonObject = {
  type: 'object',
  properties: {
    channels: { type: 'object', properties: { topics: { type: 'object', properties: { value: storedList } } }, propertyNames: { not: { const: 'topic' } } },
  },
};

/**
 * v1 → v2 on the stored layout: the channel's entry, its version in the checkpoint header and in
 * what each node has seen move to the new name; its value (a string, stored as itself) is
 * wrapped, which is the stored form of a one-item list; the input checkpoint's `__start__` value
 * (the graph's input, an object) gets the same rename.
 */
const UPCAST_V2: UpcastOperation[] = [
  { op: 'move', from: '/channels/topic', path: '/channels/topics' },
  { op: 'wrap', path: '/channels/topics/value' },
  { op: 'move', from: '/checkpoint/value/channel_versions/topic', path: '/checkpoint/value/channel_versions/topics' },
  { op: 'each', path: '/checkpoint/value/versions_seen', ops: [{ op: 'move', from: '/topic', path: '/topics' }] },
  { op: 'move', from: '/channels/__start__/value/topic', path: '/channels/__start__/value/topics' },
  { op: 'wrap', path: '/channels/__start__/value/topics' },
];

describe.each(backends)('a thread written under shape v1 resumes under v2 ($name)', (backend) => {
  let opened: OpenedStore;
  storePerTest(backend, { beforeEach, afterEach }, (o) => {
    opened = o;
  });

  /** The thread run under v1, and every revision's stored state before v2 is declared. */
  async function threadUnderV1(): Promise<JsonObject[]> {
    await setShape(opened.store, 'chat', { streams: 'langgraph:*', schema: SCHEMA_V1 });
    expect(await graphV1(opened.store).invoke({ topic: 'hello' }, CONFIG)).toEqual({ topic: 'hello', notes: ['note:hello'] });
    const head = (await opened.store.head(STREAM)).rev;
    const stored: JsonObject[] = [];
    for (let rev = 1; rev <= head; rev++) stored.push(await opened.store.stateAt(STREAM, rev));
    return stored;
  }

  it('resumes the old thread with the new graph, history upcast, stored bytes and audit unchanged', async () => {
    const before = await threadUnderV1();
    const declared = await setShape(opened.store, 'chat', { streams: 'langgraph:*', schema: SCHEMA_V2, upcast: UPCAST_V2 });
    expect(declared).toMatchObject({ version: 2, upgraded: [STREAM] });
    const store = backend.persistent ? await opened.reopen() : opened.store; // a new process, where the backend has one

    const graph = graphV2(store);
    expect((await graph.getState(CONFIG)).values).toEqual({ topics: ['hello'], notes: ['note:hello'] });
    expect(await graph.invoke({ topics: ['world'] }, CONFIG)).toEqual({ topics: ['hello', 'world'], notes: ['note:hello', 'note:hello+world'] });

    // Every earlier checkpoint reads in v2; the input checkpoint's input is renamed too.
    const history = [];
    for await (const snapshot of graphV2(store).getStateHistory(CONFIG)) history.push({ values: snapshot.values, step: snapshot.metadata?.step });
    expect(history.slice(-3)).toEqual([
      { values: { topics: ['hello'], notes: ['note:hello'] }, step: 1 },
      { values: { topics: ['hello'], notes: [] }, step: 0 },
      { values: { topics: [], notes: [] }, step: -1 },
    ]);
    const input = await new StateflowSaver(store).getTuple({ configurable: { ...CONFIG.configurable, checkpoint_id: await firstCheckpointId(store) } });
    expect(input?.checkpoint.channel_values).toEqual({ __start__: { topics: ['hello'] } });
    expect(input?.checkpoint.channel_versions).toMatchObject({ __start__: 1 });

    // The log keeps what v1 wrote, byte for byte; the new revisions were written in v2.
    for (const [i, state] of before.entries()) expect(await store.stateAt(STREAM, i + 1)).toEqual(state);
    expect(((await store.state(STREAM))['channels'] as JsonObject)['topics']).toMatchObject({ value: ['hello', 'world'] });
    expect(await store.audit()).toMatchObject({ problems: [] });
  });

  it('a saver reading stored sees the thread as v1 wrote it', async () => {
    await threadUnderV1();
    await setShape(opened.store, 'chat', { streams: 'langgraph:*', schema: SCHEMA_V2, upcast: UPCAST_V2 });
    const history = [];
    for await (const snapshot of graphV1(opened.store, 'stored').getStateHistory(CONFIG)) history.push(snapshot.values);
    // The head is the upgrade (v2 in the log); below it, the checkpoints as written.
    expect(history.slice(-2)).toEqual([{ topic: 'hello', notes: [] }, { notes: [] }]);
  });

  it('a shape option that is no selector is refused where it is given', async () => {
    for (const shape of ['newest', 0, 1.5] as unknown[]) {
      const err = asStateflowError(thrown(() => new StateflowSaver(opened.store, { shape: shape as ShapeSelector })));
      expect(err.code).toBe('INPUT_INVALID');
      expect(err.details).toEqual({ field: 'shape' });
    }
  });

  it('a put the new shape refuses writes nothing', async () => {
    await threadUnderV1();
    await setShape(opened.store, 'chat', { streams: 'langgraph:*', schema: SCHEMA_V2, upcast: UPCAST_V2 });
    const head = await opened.store.head(STREAM);
    // The old graph, still running somewhere, puts its `topic` channel again.
    const saver = new StateflowSaver(opened.store);
    const parent = (await saver.getTuple(CONFIG))!;
    const checkpoint = { ...parent.checkpoint, id: `${parent.checkpoint.id}-next`, channel_values: { topic: 'again' }, channel_versions: { ...parent.checkpoint.channel_versions, topic: 9 } };
    const err = await rejectionOf(() => saver.put(parent.config, checkpoint, { source: 'loop', step: 2, parents: {} }, { topic: 9 }));
    expect(err.code).toBe('SHAPE_VIOLATION');
    expect(err.details).toMatchObject({ stream: STREAM, shape: 'chat', version: 2, path: '/channels', rule: 'not' });
    expect(await opened.store.head(STREAM)).toEqual(head);
  });
});

/** The id of the thread's first checkpoint (its input), from revision 1's stored state. */
async function firstCheckpointId(store: Store): Promise<string> {
  return (await store.stateAt(STREAM, 1))['checkpoint_id'] as string;
}
