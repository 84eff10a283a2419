/**
 * The LangGraph agent the end-to-end tests run: plan → write → review (interrupt: a person
 * approves) → publish, over a growing message list and an edited draft document.
 */
import { Annotation, END, MessagesAnnotation, START, StateGraph, interrupt } from '@langchain/langgraph';
import { AIMessage, HumanMessage } from '@langchain/core/messages';

const AgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  draft: Annotation(),
  approved: Annotation(),
});

/**
 * The compiled agent over `checkpointer`. `hooks.afterResume(verdict)`, when given, runs in the
 * review node once the interrupt has its answer, before the node returns (a test holds two
 * resuming processes there so that both put at once).
 */
export function buildAgent(checkpointer, hooks = {}) {
  return new StateGraph(AgentState)
    .addNode('plan', (state) => ({ messages: [new AIMessage(`plan: write about ${state.messages[0].content}`)] }))
    .addNode('write', (state) => ({
      draft: { title: `On ${state.messages[0].content}`, body: 'First draft.', revision: (state.draft?.revision ?? 0) + 1 },
      messages: [new AIMessage('draft ready')],
    }))
    .addNode('review', async (state) => {
      const verdict = interrupt({ question: 'Publish this draft?', title: state.draft.title });
      await hooks.afterResume?.(verdict);
      return { approved: verdict === 'yes', messages: [new HumanMessage(verdict)] };
    })
    .addNode('publish', (state) => ({ messages: [new AIMessage(state.approved ? `published: ${state.draft.title}` : 'discarded')] }))
    .addEdge(START, 'plan')
    .addEdge('plan', 'write')
    .addEdge('write', 'review')
    .addEdge('review', 'publish')
    .addEdge('publish', END)
    .compile({ checkpointer });
}
