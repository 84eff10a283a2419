/**
 * Where a LangGraph checkpoint put's time goes, early and late in a thread: the graph of
 * langgraph-graph.mjs (1,000 steps × BENCH_SCALE, a message list growing by one message per
 * step, a document section rewritten per step; BENCH_LANGGRAPH_MESSAGES=delta as there) on StateflowSaver (LevelDB, fsync and buffered)
 * and on SqliteSaver, each put and putWrites timed whole and split into LangGraph's serializer
 * (`serde.dumpsTyped`, which every saver calls on what it is handed), the store's `publish`
 * (StateflowSaver) and the rest (the saver's own work; SqliteSaver: its SQLite statements).
 * Medians of 3 alternating rounds.
 */
import path from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store-leveldb';
import { REPEATS, median, removeDir, report, tempDir } from './lib.mjs';
import { SECTIONS, STEPS, buildGraph } from './langgraph-graph.mjs';

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** Wrap `object[method]` so that its time adds to `parts[name]` while a timed call runs. */
function addsTo(parts, name, object, method) {
  const original = object[method].bind(object);
  object[method] = async (...args) => {
    const start = now();
    try {
      return await original(...args);
    } finally {
      parts[name] += now() - start;
    }
  };
}

/** Run the graph on `saver` (`store`: its Stateflow store, if any); per call of put and putWrites: [total, serializer, publish]. */
async function run(saver, store) {
  const parts = { serializer: 0, publish: 0 };
  addsTo(parts, 'serializer', saver.serde, 'dumpsTyped');
  if (store !== undefined) addsTo(parts, 'publish', store, 'publish');
  const calls = { put: [], putWrites: [] };
  for (const method of Object.keys(calls)) {
    const original = saver[method].bind(saver);
    saver[method] = async (...args) => {
      parts.serializer = 0;
      parts.publish = 0;
      const start = now();
      try {
        return await original(...args);
      } finally {
        calls[method].push([now() - start, parts.serializer, parts.publish]);
      }
    };
  }
  const graph = buildGraph(saver);
  const out = await graph.invoke({ messages: [new HumanMessage('start')] }, { configurable: { thread_id: 'bench' }, recursionLimit: STEPS + 10, durability: 'sync' });
  if (out.step !== STEPS) throw new Error(`the graph ran ${out.step} steps`);
  return calls;
}

async function stateflow(durability) {
  const dir = await tempDir('langgraph-parts');
  try {
    const store = await openStore(dir);
    const calls = await run(new StateflowSaver(store, { durability }), store);
    await store.close();
    return calls;
  } finally {
    await removeDir(dir);
  }
}

async function sqlite() {
  const dir = await tempDir('langgraph-parts-sqlite');
  try {
    const saver = SqliteSaver.fromConnString(path.join(dir, 'checkpoints.sqlite'));
    const calls = await run(saver, undefined);
    saver.db.close();
    return calls;
  } finally {
    await removeDir(dir);
  }
}

const columns = [
  ['StateflowSaver fsync', () => stateflow('fsync'), true],
  ['StateflowSaver buffered', () => stateflow('buffered'), true],
  ['SqliteSaver', () => sqlite(), false],
];
const tenth = Math.ceil(STEPS / 10);
const windows = [
  ['first 10%', (xs) => xs.slice(0, tenth)],
  ['last 10%', (xs) => xs.slice(-tenth)],
];
/** The rows of one run: per method and window, the mean of each part. */
function figures(calls, isStateflow) {
  const out = {};
  for (const method of ['put', 'putWrites']) {
    for (const [label, pick] of windows) {
      const xs = pick(calls[method]);
      const mean = (k) => xs.reduce((sum, x) => sum + x[k], 0) / xs.length;
      const [total, serializer, publish] = [0, 1, 2].map(mean);
      out[`${method} ms, ${label}: all`] = total;
      out[`${method} ms, ${label}: LangGraph's serializer`] = serializer;
      out[`${method} ms, ${label}: store.publish`] = isStateflow ? publish : '–';
      out[`${method} ms, ${label}: the rest (saver's own; SQLite: its statements)`] = total - serializer - publish;
    }
  }
  return out;
}
const rounds = columns.map(() => []);
for (let round = 0; round < REPEATS; round++) {
  for (const [i, [, runner, isStateflow]] of columns.entries()) rounds[i].push(figures(await runner(), isStateflow));
}
const labels = Object.keys(rounds[0][0]);
const rows = labels.map((label) => [label, ...rounds.map((fs) => (typeof fs[0][label] === 'string' ? fs[0][label] : median(fs.map((f) => f[label]))))]);
await report('LangGraph: where a put goes, early and late in a 1,000-step thread', ['figure', ...columns.map(([title]) => title)], rows, [
  `The graph of bench/langgraph.mjs: ${STEPS} steps, each appending a 200-character AIMessage and rewriting one of ${SECTIONS} document sections; graph.invoke with durability "sync".`,
  `first / last 10%: the mean over the first and the last ${tenth} calls; each part is the time spent inside it during the call (serializer: serde.dumpsTyped, called by the saver on every value it stores; store.publish: StateflowSaver's one store call per put or writes batch).`,
  `${REPEATS} rounds alternating the ${columns.length}, each on a new store; each figure is the median over the rounds.`,
]);
