// profiling driver: N steps of the bench graph on StateflowSaver (LevelDB, fsync)
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store-leveldb';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import path from 'node:path';
import { removeDir, tempDir } from './lib.mjs';
const STEPS = Number(process.env.STEPS ?? 500);
const State = Annotation.Root({ ...MessagesAnnotation.spec, doc: Annotation(), step: Annotation() });
function sentence(i, length) { let text = `step ${i}:`; while (text.length < length) text += ` word${(i * 7 + text.length) % 997}`; return text.slice(0, length); }
const dir = await tempDir('lgprof');
const store = process.env.SAVER === 'sqlite' ? null : await openStore(dir, { durability: process.env.D ?? 'fsync' });
const saver = store ? new StateflowSaver(store, { durability: process.env.D ?? 'fsync' }) : SqliteSaver.fromConnString(path.join(dir, 'x.sqlite'));
const t = {}; for (const m of ['put', 'putWrites']) { const o = saver[m].bind(saver); t[m] = 0; saver[m] = async (...a) => { const s = process.hrtime.bigint(); try { return await o(...a); } finally { t[m] += Number(process.hrtime.bigint() - s) / 1e6; } }; }
const graph = new StateGraph(State).addNode('work', (state) => { const i = state.step ?? 0; const doc = { ...(state.doc ?? {}) }; doc[`section${i % 50}`] = sentence(i, 200); return { messages: [new AIMessage({ content: sentence(i, 200), id: `m${i}` })], doc, step: i + 1 }; })
  .addEdge(START, 'work').addConditionalEdges('work', (s) => (s.step < STEPS ? 'work' : END)).compile({ checkpointer: saver });
const s0 = Date.now();
await graph.invoke({ messages: [new HumanMessage('start')] }, { configurable: { thread_id: 'bench' }, recursionLimit: STEPS + 10, durability: 'sync' });
console.log(process.env.SAVER ?? 'stateflow', 'total', Date.now() - s0, 'ms; put/step', (t.put / STEPS).toFixed(2), 'putWrites/step', (t.putWrites / STEPS).toFixed(2));
if (store) await store.close();
await removeDir(dir);
