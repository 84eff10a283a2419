/**
 * Every kind of value LangGraph keeps in channels, writes and metadata comes back from the
 * store exactly as LangGraph's serializer gives it back (what every other saver returns), on
 * every backend: the mapping of README "Value mapping" loses nothing.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { JsonPlusSerializer, emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import type { CheckpointMetadata, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';
import { storePerTest } from '@stateflow/test-kit';
import type { OpenedStore } from './test-support/backends.js';

function deep(levels: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = { down: value };
  return value;
}

const KINDS: Array<[string, unknown]> = [
  ['null', null],
  ['undefined', undefined],
  ['a Date (the serializer keeps its ISO text)', new Date('2026-01-02T03:04:05.678Z')],
  ['bytes (a top-level Uint8Array)', new Uint8Array([0, 1, 2, 253, 254, 255])],
  ['bytes nested in an object', { blob: new Uint8Array([7, 0, 9]), name: 'x' }],
  ['a HumanMessage', new HumanMessage({ content: 'hi', id: 'm1' })],
  [
    'an AIMessage with tool calls',
    new AIMessage({ content: '', id: 'm2', tool_calls: [{ id: 'call-1', name: 'search', args: { q: 'stateflow', n: null } }] }),
  ],
  ['a message list', [new SystemMessage('be brief'), new HumanMessage('hi'), new ToolMessage({ content: 'ok', tool_call_id: 'call-1' })]],
  ['keys like "[1]", "$ref", "__proto__" and ""', JSON.parse('{"[1]":1,"$ref":"x","__proto__":{"p":1},"":0,"[]":[null]}')],
  ['Map, Set, RegExp, Error', { map: new Map([['k', 1]]), set: new Set([1, 2]), re: /a+b/gi, err: new Error('boom') }],
  ['strings and keys with lone surrogates', { text: 'a\ud800b', ['\udc00']: 'key' }],
  ['arrays with nulls and long arrays', { sparse: [1, null, 3], long: Array.from({ length: 40 }, (_, i) => i) }],
  ['a value nested 600 levels deep', deep(600)],
  ['numbers at the edges', { big: Number.MAX_SAFE_INTEGER, small: 5e-324, neg: -1.5, exp: 1e300 }],
];

/** What the serializer alone gives back: the reference every saver should match. */
async function viaSerde(serde: SerializerProtocol, value: unknown): Promise<unknown> {
  const [type, bytes] = await serde.dumpsTyped(value);
  return serde.loadsTyped(type, bytes);
}

describe.each(backends)('value round trips on $name', (backend) => {
  let opened: OpenedStore;
  let saver: StateflowSaver;
  storePerTest(backend, { beforeEach, afterEach }, (o) => {
    opened = o;
    saver = new StateflowSaver(o.store);
  });

  it.each(KINDS)('%s: as a channel value, a pending write and in metadata', async (_, value) => {
    const serde = new JsonPlusSerializer();
    const expected = await viaSerde(serde, value);
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { v: value }, channel_versions: { v: 1 } };
    const metadata = { source: 'input', step: -1, parents: {}, extra: value } as CheckpointMetadata;
    const config = await saver.put({ configurable: { thread_id: 't' } }, checkpoint, metadata, { v: 1 });
    await saver.putWrites(config, [['v', value]], 'task-1');

    const tuple = await saver.getTuple(config);
    expect(tuple?.checkpoint.channel_values['v']).toEqual(expected);
    expect(tuple?.pendingWrites?.[0]?.[2]).toEqual(expected);
    expect((tuple?.metadata as Record<string, unknown>)['extra']).toEqual(expected);
    // A fresh saver over the same store reads it back the same way (nothing lives in memory).
    const again = await new StateflowSaver(opened.store).getTuple(config);
    expect(again?.checkpoint.channel_values['v']).toEqual(expected);
    expect(await opened.store.audit()).toMatchObject({ problems: [] });
  });

  it('revives message objects as their classes, and bytes as Uint8Array', async () => {
    const messages = [new HumanMessage('hi'), new AIMessage({ content: 'hello', tool_calls: [{ id: 'c', name: 'f', args: {} }] })];
    const bytes = new Uint8Array([1, 2, 3]);
    const checkpoint = { ...emptyCheckpoint(), channel_values: { messages, bytes }, channel_versions: { messages: 1, bytes: 1 } };
    const config = await saver.put({ configurable: { thread_id: 't' } }, checkpoint, { source: 'input', step: -1, parents: {} }, { messages: 1, bytes: 1 });
    const values = (await saver.getTuple(config))?.checkpoint.channel_values as { messages: unknown[]; bytes: unknown };
    expect(values.messages[0]).toBeInstanceOf(HumanMessage);
    expect(values.messages[1]).toBeInstanceOf(AIMessage);
    expect((values.messages[1] as AIMessage).tool_calls).toEqual([{ id: 'c', name: 'f', args: {} }]);
    expect(values.bytes).toBeInstanceOf(Uint8Array);
    expect([...(values.bytes as Uint8Array)]).toEqual([1, 2, 3]);
  });

  it("keeps a custom serializer's own types and bytes exactly", async () => {
    const custom: SerializerProtocol = {
      async dumpsTyped(data) {
        return ['reversed', new TextEncoder().encode(JSON.stringify(data)).reverse()];
      },
      async loadsTyped(type, data) {
        expect(type).toBe('reversed');
        return JSON.parse(new TextDecoder().decode((data as Uint8Array).slice().reverse()));
      },
    };
    const customSaver = new StateflowSaver(opened.store, { serde: custom });
    const checkpoint = { ...emptyCheckpoint(), channel_values: { v: { a: [1, null] } }, channel_versions: { v: 1 } };
    const config = await customSaver.put({ configurable: { thread_id: 'c' } }, checkpoint, { source: 'input', step: -1, parents: {} }, { v: 1 });
    const tuple = await customSaver.getTuple(config);
    expect(tuple?.checkpoint.channel_values).toEqual({ v: { a: [1, null] } });
    expect(tuple?.metadata).toEqual({ source: 'input', step: -1, parents: {} });
    expect(await opened.store.audit()).toMatchObject({ problems: [] });
  });
});
