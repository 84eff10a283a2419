/**
 * One of two processes resuming the same interrupted thread at once:
 * `node resume-racer.mjs THREAD ANSWER LOCATION [TOKEN]`, where LOCATION is a `postgres://` URL
 * (the racer opens the PostgreSQL store itself, as any number of processes may) or the `http://`
 * URL of a store's server (the racer writes through `@stateflow/client`'s remote Store, with
 * TOKEN). Once its review node has the answer it prints `ready` and waits for a `go` line on
 * stdin, so the test releases both racers into their puts together; then it prints one JSON
 * line: `{ outcome: 'won', approved }` or `{ outcome: 'refused', code, details }`.
 */
import { createInterface } from 'node:readline';
import { Command } from '@langchain/langgraph';
import { openRemoteStore } from '@stateflow/client';
import { StateflowSaver } from '@stateflow/langgraph';
import { openPostgresStore } from '@stateflow/store-postgres';
import { buildAgent } from './agent-graph.mjs';

const [threadId, answer, location, token] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin });
const go = new Promise((resolve) => lines.once('line', resolve));
const store = location.startsWith('postgres://') ? await openPostgresStore(location, { maxConnections: 2 }) : await openRemoteStore({ url: location, token });
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
