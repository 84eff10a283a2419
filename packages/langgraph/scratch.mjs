import { StateGraph, MessagesAnnotation, Annotation, START, END, interrupt, Command } from '@langchain/langgraph';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { openMemoryStore } from '@stateflow/store';
import { StateflowSaver } from './dist/index.js';

const State = Annotation.Root({ ...MessagesAnnotation.spec, approved: Annotation() , doc: Annotation() });
const g = new StateGraph(State)
  .addNode('draft', (s) => ({ messages: [new AIMessage(`draft ${s.messages.length}`)], doc: { title: 'x', body: 'b'.repeat(s.messages.length) } }))
  .addNode('review', () => { const answer = interrupt({ question: 'approve?' }); return { approved: answer, messages: [new AIMessage(`review: ${answer}`)] }; })
  .addNode('publish', (s) => ({ messages: [new AIMessage(`published ${s.approved}`)] }))
  .addEdge(START, 'draft').addEdge('draft', 'review').addEdge('review', 'publish').addEdge('publish', END);
const store = await openMemoryStore();
const saver = new StateflowSaver(store);
const graph = g.compile({ checkpointer: saver });
const cfg = { configurable: { thread_id: 't1' } };
let r = await graph.invoke({ messages: [new HumanMessage('hello')] }, cfg);
console.log('after first', r.__interrupt__?.[0]?.value, r.messages.length);
r = await graph.invoke(new Command({ resume: 'yes' }), cfg);
console.log('after resume', r.messages.map((m) => m.content));
const hist = [];
for await (const s of graph.getStateHistory(cfg)) hist.push(s);
console.log('history', hist.map((s) => [s.metadata.source, s.metadata.step, s.next, s.values.messages?.length]));
// fork from the checkpoint before review
const before = hist.find((s) => s.next.includes('review'));
const forkCfg = await graph.updateState(before.config, { messages: [new HumanMessage('edited')] });
console.log('fork', forkCfg.configurable.checkpoint_id);
r = await graph.invoke(null, forkCfg);
console.log('after fork run', r.__interrupt__?.[0]?.value, r.messages.map((m) => m.content));
r = await graph.invoke(new Command({ resume: 'no' }), cfg);
console.log('resumed fork', r.messages.map((m) => m.content));
// replay from old
const first = hist.find((s) => s.next.includes('draft'));
r = await graph.invoke(null, first.config);
console.log('replay', r.__interrupt__?.[0]?.value, r.messages.map((m) => m.content));
const audit = await store.audit();
console.log('audit', audit.problems, audit.transitions);
for await (const t of store.transitions()) console.log(t.seq, t.changes.map(c => c.stream + '@' + c.rev).join(','), JSON.stringify(t.meta.langgraph).slice(0, 150), JSON.stringify(t.changes[0].patch).length);
console.log(JSON.stringify((await store.transition(9)).changes[0].patch, null, 1).slice(0, 2500));
console.log(JSON.stringify(await store.state('langgraph:t1')).length);
