/**
 * One process of the LangGraph end-to-end test, on a LevelDB store in `dir`:
 *
 * - `start DIR THREAD TOPIC`: run the agent until its review interrupt, print
 *   `{ interrupt, next }` as one JSON line, then wait to be killed (the store is never closed).
 * - `resume DIR THREAD`: approve the interrupted run, print its messages; read the history; fork
 *   from the checkpoint before review (updateState with an edited draft), run the fork to its
 *   interrupt and reject it; print everything and the store's audit as one JSON line; exit.
 */
import { Command } from '@langchain/langgraph';
import { openStore } from '@stateflow/store-leveldb';
import { StateflowSaver } from '@stateflow/langgraph';
import { buildAgent } from './agent-graph.mjs';

const [command, dir, threadId, topic] = process.argv.slice(2);
const store = await openStore(dir);
const agent = buildAgent(new StateflowSaver(store));
const config = { configurable: { thread_id: threadId } };
const text = (messages) => messages.map((m) => m.content);

if (command === 'start') {
  const result = await agent.invoke({ messages: [{ role: 'user', content: topic }] }, config);
  const state = await agent.getState(config);
  process.stdout.write(`${JSON.stringify({ interrupt: result.__interrupt__?.[0]?.value, next: state.next })}\n`);
  setInterval(() => {}, 60_000);
} else if (command === 'resume') {
  const approved = await agent.invoke(new Command({ resume: 'yes' }), config);
  const history = [];
  for await (const snapshot of agent.getStateHistory(config)) history.push(snapshot);
  const beforeReview = history.find((s) => s.next.length === 1 && s.next[0] === 'review');
  const forkConfig = await agent.updateState(beforeReview.config, { draft: { ...beforeReview.values.draft, body: 'Shorter.' } }, 'write');
  const forked = await agent.invoke(null, forkConfig);
  const rejected = await agent.invoke(new Command({ resume: 'no' }), config);
  const audit = await store.audit();
  await store.close();
  process.stdout.write(
    `${JSON.stringify({
      approved: text(approved.messages),
      history: history.map((s) => ({ id: s.config.configurable.checkpoint_id, step: s.metadata.step, source: s.metadata.source, next: s.next })),
      beforeReview: beforeReview.config.configurable.checkpoint_id,
      fork: forkConfig.configurable.checkpoint_id,
      forkInterrupt: forked.__interrupt__?.[0]?.value,
      rejected: text(rejected.messages),
      rejectedDraft: rejected.draft,
      audit: { problems: audit.problems, transitions: audit.transitions },
    })}\n`,
  );
} else {
  throw new Error(`unknown command ${command}`);
}
