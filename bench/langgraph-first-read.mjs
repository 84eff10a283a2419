/**
 * Child of bench/langgraph.mjs: a new process that opens a checkpointer's store and times its
 * first `getTuple` of one old checkpoint, as a server restarted and asked "show me step N of this
 * thread" does. Prints one JSON line: `{ openMs, readMs }` (open: the store or database file;
 * read: the one getTuple, checked against what that step wrote).
 *
 *   node bench/langgraph-first-read.mjs <leveldb|postgres|sqlite|pgsaver> <dir|url|file|url?schema=S> <checkpoint_id> <step>
 */
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store-leveldb';
import { openPostgresStore } from '@stateflow/store-postgres';

const [kind, place, checkpointId, stepText] = process.argv.slice(2);
const step = Number(stepText);
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

const openStart = process.hrtime.bigint();
let saver;
let close;
if (kind === 'sqlite') {
  saver = SqliteSaver.fromConnString(place);
  close = async () => saver.db.close();
} else if (kind === 'pgsaver') {
  const url = new URL(place);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  saver = PostgresSaver.fromConnString(url.toString(), { schema });
  close = () => saver.end();
} else {
  const store = kind === 'postgres' ? await openPostgresStore(place, { cacheSize: 0 }) : await openStore(place, { cacheSize: 0 });
  saver = new StateflowSaver(store);
  close = () => store.close();
}
const openMs = ms(openStart);
const readStart = process.hrtime.bigint();
const tuple = await saver.getTuple({ configurable: { thread_id: 'bench', checkpoint_ns: '', checkpoint_id: checkpointId } });
const readMs = ms(readStart);
const values = tuple?.checkpoint.channel_values;
// BENCH_LANGGRAPH_MESSAGES=delta (inherited from the parent): the messages are not in the checkpoint.
const messagesWrong = process.env.BENCH_LANGGRAPH_MESSAGES !== 'delta' && values?.messages.length !== step + 1;
if (values?.step !== step || messagesWrong) throw new Error(`the first getTuple of step ${step} returned the wrong state`);
await close();
process.stdout.write(`${JSON.stringify({ openMs, readMs })}\n`);
