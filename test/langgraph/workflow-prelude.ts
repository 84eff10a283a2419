/**
 * The `workflow` the root README's "Use with LangGraph.js" lines name, defined before they run:
 * a one-node StateGraph that answers the last message with "you said …".
 */
export const WORKFLOW_PRELUDE = `
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
const workflow = new StateGraph(MessagesAnnotation)
  .addNode('reply', (state) => ({ messages: [{ role: 'ai', content: 'you said ' + state.messages.at(-1).content }] }))
  .addEdge('__start__', 'reply');
`;
