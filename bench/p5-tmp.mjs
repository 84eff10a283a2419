import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { AIMessage } from '@langchain/core/messages';
import { openStore } from '@stateflow/store';
import { StateflowSaver } from '@stateflow/langgraph';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
const store = await openStore(await mkdtemp(path.join(tmpdir(), 'p-')));
const saver = new StateflowSaver(store);
const msgs = Array.from({ length: 20 }, (_, i) => new AIMessage({ content: 'x'.repeat(200), id: `m${i}` }));
let config = { configurable: { thread_id: 't' } };
const N = 1000;
const s = performance.now();
for (let i = 0; i < N; i++) {
  const cp = { ...emptyCheckpoint(), id: uuid6(0), channel_values: { messages: msgs, step: i, doc: { a: 'y'.repeat(200), n: i } }, channel_versions: { messages: i + 1, step: i + 1, doc: i + 1 }, versions_seen: { work: { messages: i, step: i } } };
  config = await saver.put(config, cp, { source: 'loop', step: i, parents: {} }, { step: i + 1, doc: i + 1 });
  await saver.putWrites(config, [['messages', [msgs[0]]], ['step', i]], `task${i}`, '~work');
}
console.log('per put+putWrites', ((performance.now() - s) / N).toFixed(3));
await store.close();
