/**
 * The StateGraph of the LangGraph benches (langgraph.mjs, langgraph-put-parts.mjs): one node run
 * STEPS times (1,000 × BENCH_SCALE), each appending a 200-character AIMessage and rewriting one
 * of SECTIONS 200-character sections of a document channel, and counting `step`.
 *
 * BENCH_LANGGRAPH_MESSAGES=delta: the message list in LangGraph's DeltaChannel (beta), whose
 * checkpoints carry each step's new messages only (and a snapshot every 100 updates), read back
 * through the saver's getDeltaChannelHistory; default: MessagesAnnotation, the whole list per put.
 */
import { AIMessage } from '@langchain/core/messages';
import { Annotation, DeltaChannel, END, MessagesAnnotation, START, StateGraph, messagesDeltaReducer } from '@langchain/langgraph';
import { scaled } from './lib.mjs';

export const STEPS = scaled(1000, 20);
export const SECTIONS = 50;
export const DELTA = process.env.BENCH_LANGGRAPH_MESSAGES === 'delta';

const State = Annotation.Root({
  ...(DELTA ? { messages: new DeltaChannel(messagesDeltaReducer, { initialValueFactory: () => [] }) } : MessagesAnnotation.spec),
  doc: Annotation(),
  step: Annotation(),
});

/** The text of step `i`'s message and section, `length` characters. */
export function sentence(i, length) {
  let text = `step ${i}:`;
  while (text.length < length) text += ` word${(i * 7 + text.length) % 997}`;
  return text.slice(0, length);
}

/** The graph on `checkpointer`: invoke it with `{ messages: [new HumanMessage('start')] }` and `recursionLimit: STEPS + 10`. */
export function buildGraph(checkpointer) {
  return new StateGraph(State)
    .addNode('work', (state) => {
      const i = state.step ?? 0;
      const doc = { ...(state.doc ?? {}) };
      doc[`section${i % SECTIONS}`] = sentence(i, 200);
      return { messages: [new AIMessage({ content: sentence(i, 200), id: `m${i}` })], doc, step: i + 1 };
    })
    .addEdge(START, 'work')
    .addConditionalEdges('work', (state) => (state.step < STEPS ? 'work' : END))
    .compile({ checkpointer });
}
