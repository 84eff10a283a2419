/**
 * One of two processes resuming the same interrupted thread at once, through the store's
 * server (`@stateflow/client`'s remote Store): `node resume-racer.mjs URL TOKEN THREAD ANSWER`.
 * Once its review node has the answer it prints `ready` and waits for a `go` line on stdin, so
 * the test releases both racers into their puts together; then it prints one JSON line:
 * `{ outcome: 'won', approved }` or `{ outcome: 'refused', code, details }`.
 */
import { createInterface } from 'node:readline';
import { Command } from '@langchain/langgraph';
import { openRemoteStore } from '@stateflow/client';
import { StateflowSaver } from '@stateflow/langgraph';
import { buildAgent } from './agent-graph.mjs';

const [url, token, threadId, answer] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin });
const go = new Promise((resolve) => lines.once('line', resolve));
const store = await openRemoteStore({ url, token });
const agent = buildAgent(new StateflowSaver(store), {
  async afterResume() {
    process.stdout.write('ready\n');
    await go;
  },
});
let result;
try {
  const state = await agent.invoke(new Command({ resume: answer }), { configurable: { thread_id: threadId } });
  result = { outcome: 'won', approved: state.approved, last: state.messages.at(-1).content };
} catch (err) {
  result = { outcome: 'refused', code: err.code, details: err.details };
}
await store.close();
lines.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
