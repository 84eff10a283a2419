import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store-leveldb';
import { removeDir, tempDir } from './lib.mjs';
const STEPS = Number(process.env.STEPS ?? 300);
const State = Annotation.Root({ ...MessagesAnnotation.spec, doc: Annotation(), step: Annotation() });
function sentence(i, length) { let text = `step ${i}:`; while (text.length < length) text += ` word${(i * 7 + text.length) % 997}`; return text.slice(0, length); }
const dir = await tempDir('lgprof');
const store = await openStore(dir, { durability: process.env.D ?? 'fsync' });
const times = {};
const wrapped = new Proxy(store, { get(t, p) { const v = Reflect.get(t, p, t); if (typeof v !== 'function') return v; return async (...a) => { const s = process.hrtime.bigint(); try { return await v.apply(t, a); } finally { times[p] = (times[p] ?? 0) + Number(process.hrtime.bigint() - s) / 1e6; times[p + '#'] = (times[p + '#'] ?? 0) + 1; } }; } });
const saver = new StateflowSaver(wrapped);
const t = {}; for (const m of ['put', 'putWrites']) { const o = saver[m].bind(saver); t[m] = 0; saver[m] = async (...a) => { const s = process.hrtime.bigint(); try { return await o(...a); } finally { t[m] += Number(process.hrtime.bigint() - s) / 1e6; } }; }
const ser = saver.serde; const od = ser.dumpsTyped.bind(ser); t.dumps = 0; ser.dumpsTyped = async (...a) => { const s = process.hrtime.bigint(); try { return await od(...a); } finally { t.dumps += Number(process.hrtime.bigint() - s) / 1e6; } };
const graph = new StateGraph(State).addNode('work', (state) => { const i = state.step ?? 0; const doc = { ...(state.doc ?? {}) }; doc[`section${i % 50}`] = sentence(i, 200); return { messages: [new AIMessage({ content: sentence(i, 200), id: `m${i}` })], doc, step: i + 1 }; })
  .addEdge(START, 'work').addConditionalEdges('work', (s) => (s.step < STEPS ? 'work' : END)).compile({ checkpointer: saver });
const s0 = Date.now();
await graph.invoke({ messages: [new HumanMessage('start')] }, { configurable: { thread_id: 'bench' }, recursionLimit: STEPS + 10, durability: 'sync' });
console.log('total', Date.now() - s0, 'ms; per step:', Object.fromEntries(Object.entries(t).map(([k, v]) => [k, (v / STEPS).toFixed(2)])), Object.fromEntries(Object.entries(times).map(([k, v]) => [k, k.endsWith('#') ? v : (v / STEPS).toFixed(2)])));
await store.close();
await removeDir(dir);
