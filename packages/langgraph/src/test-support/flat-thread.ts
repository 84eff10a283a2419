/**
 * A thread stored before long lists were paged: `flat-thread.json` is the log (every
 * transition, verbatim) of {@link flatThreadGraph} run to its interrupt on a memory store by
 * the saver of commit 2e89272, whose mapping stored every list as one flat object
 * `{"$len": n, "0": …, "n-1": …}`. Its message list ends flat with 73 items, past the 64 at
 * which lists are paged now. `store.appendMany` takes the log into any store as it was written.
 */
import { readFileSync } from 'node:fs';
import { AIMessage } from '@langchain/core/messages';
import { Annotation, END, MessagesAnnotation, START, StateGraph, interrupt } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { Transition } from '@stateflow/store';

/** The thread's config. */
export const FLAT_THREAD = { configurable: { thread_id: 'flat' } };

/** Runs of `work`, each appending {@link MESSAGES_PER_STEP} messages, before `ask` interrupts. */
export const FLAT_STEPS = 8;
const MESSAGES_PER_STEP = 9;

const State = Annotation.Root({ ...MessagesAnnotation.spec, step: Annotation<number>() });

/**
 * START → work (×8: appends 9 messages, counts `step`) → ask (interrupts for an answer, then
 * appends `approved: <answer>`) → END. Run with `{ messages: [{ role: 'user', content: 'start' }] }`:
 * 73 messages at the interrupt, 74 after the resume.
 */
export function flatThreadGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode('work', (state) => {
      const step = state.step ?? 0;
      const messages = Array.from({ length: MESSAGES_PER_STEP }, (_, i) => new AIMessage({ content: `step ${step} note ${i}`, id: `m${step}-${i}` }));
      return { messages, step: step + 1 };
    })
    .addNode('ask', () => ({ messages: [new AIMessage({ content: `approved: ${interrupt('approve?') as string}`, id: 'approved' })] }))
    .addEdge(START, 'work')
    .addConditionalEdges('work', (state) => (state.step < FLAT_STEPS ? 'work' : 'ask'))
    .addEdge('ask', END)
    .compile({ checkpointer });
}

/** The recorded log (`flat-thread.json`), as `store.transitions()` gave it. */
export function flatThreadLog(): Transition[] {
  return JSON.parse(readFileSync(new URL('./flat-thread.json', import.meta.url), 'utf8')) as Transition[];
}
