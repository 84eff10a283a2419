/**
 * LangGraph behaves the same on StateflowSaver as on its own MemorySaver: the same graph runs,
 * interrupts, resumes (from a new saver over the same store: a new process), time-travels
 * (updateState on a past checkpoint, replay from an old checkpoint_id) and runs subgraphs, and
 * every step of the resulting histories has the same values, next nodes and metadata.
 */
import { Annotation, Command, END, MemorySaver, START, StateGraph, interrupt } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { StateflowSaver } from './stateflow-saver.js';
import { backends } from './test-support/backends.js';

const Log = Annotation.Root({ log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });
const CONFIG = { configurable: { thread_id: 'parity' } };

/**
 * before → (sub | sibling) → review → after. `sub` is a subgraph that interrupts; `sibling`
 * finishes in the same superstep, so on resume its result must come back from the pending writes
 * (a saver that lost them would run it again: `runs` counts every run of a node).
 */
function subgraphAgent(runs: string[]) {
  const sub = new StateGraph(Log)
    .addNode('inner', () => ({ log: ['inner'] }))
    .addNode('ask', () => ({ log: [`ask:${interrupt('sub?') as string}`] }))
    .addEdge(START, 'inner')
    .addEdge('inner', 'ask')
    .addEdge('ask', END)
    .compile();
  return new StateGraph(Log)
    .addNode('before', () => ({ log: ['before'] }))
    .addNode('sub', sub)
    .addNode('sibling', () => {
      runs.push('sibling');
      return { log: ['sibling'] };
    })
    .addNode('review', () => ({ log: [`review:${interrupt('top?') as string}`] }))
    .addNode('after', () => ({ log: ['after'] }))
    .addEdge(START, 'before')
    .addEdge('before', 'sub')
    .addEdge('before', 'sibling')
    .addEdge(['sub', 'sibling'], 'review')
    .addEdge('review', 'after')
    .addEdge('after', END);
}

/** The scenario on `makeSaver()` savers over one store; returns what a LangGraph user sees. */
async function scenario(makeSaver: () => BaseCheckpointSaver): Promise<unknown> {
  const runs: string[] = [];
  const workflow = subgraphAgent(runs);
  const seen: unknown[] = [];
  const run = async (input: unknown, config: object = CONFIG) => {
    const graph = workflow.compile({ checkpointer: makeSaver() });
    const result = (await graph.invoke(input as never, config)) as { log: string[]; __interrupt__?: Array<{ value: unknown }> };
    seen.push({ log: result.log, interrupt: result.__interrupt__?.map((i) => i.value) });
    return graph;
  };
  await run({ log: ['start'] });
  await run(new Command({ resume: 'sub-yes' }));
  const graph = await run(new Command({ resume: 'top-yes' }));
  const history = [];
  for await (const s of graph.getStateHistory(CONFIG)) history.push(s);
  // Fork: updateState on the checkpoint that waited for review, then run the branch.
  const waiting = history.find((s) => s.next.includes('review'));
  const fork = await graph.updateState(waiting!.config, { log: ['edited'] }, 'sub');
  await run(null, fork);
  await run(new Command({ resume: 'top-no' }));
  // Replay from the first checkpoint.
  await run(null, history.at(-1)!.config);
  const all = [];
  for await (const s of workflow.compile({ checkpointer: makeSaver() }).getStateHistory(CONFIG)) {
    all.push({ values: s.values, next: s.next, source: s.metadata?.source, step: s.metadata?.step, tasks: s.tasks.map((t) => t.name) });
  }
  const subState = await workflow.compile({ checkpointer: makeSaver() }).getState(CONFIG, { subgraphs: true });
  return { runs, seen, history: all, subgraphTasks: subState.tasks.map((t) => [t.name, (t.state as { values?: unknown } | undefined)?.values]) };
}

describe.each(backends)('LangGraph on StateflowSaver ($name) behaves as on MemorySaver', (backend) => {
  it('interrupts, resumes in a new saver, forks, replays and runs subgraphs identically', async () => {
    const memory = new MemorySaver();
    const expected = await scenario(() => memory);
    const opened = await backend.open();
    try {
      const actual = await scenario(() => new StateflowSaver(opened.store));
      expect(actual).toEqual(expected);
      expect(await opened.store.audit()).toMatchObject({ problems: [] });
    } finally {
      await opened.destroy();
    }
  });
});
