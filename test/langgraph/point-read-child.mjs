/**
 * Child of checkpoint-point-read.test.ts: a new process that opens the LevelDB store in `dir`
 * and reads one checkpoint by id as its first call. Prints one JSON line: the checkpoint's
 * channel values, its pending writes, its parent's id, and how many transitions the saver read
 * from the log (through `store.transitions`) to find it.
 *
 *   node point-read-child.mjs <dir> <thread_id> <checkpoint_id>
 */
import { StateflowSaver } from '@stateflow/langgraph';
import { openStore } from '@stateflow/store-leveldb';

const [dir, threadId, checkpointId] = process.argv.slice(2);
const store = await openStore(dir, { cacheSize: 0 });
let transitionsRead = 0;
const counted = new Proxy(store, {
  get(target, prop) {
    if (prop === 'transitions') {
      return async function* (range) {
        for await (const t of target.transitions(range)) {
          transitionsRead++;
          yield t;
        }
      };
    }
    const value = Reflect.get(target, prop, target);
    return typeof value === 'function' ? value.bind(target) : value;
  },
});
const tuple = await new StateflowSaver(counted).getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId } });
await store.close();
process.stdout.write(
  `${JSON.stringify({ values: tuple?.checkpoint.channel_values ?? null, pendingWrites: tuple?.pendingWrites ?? null, parent: tuple?.parentConfig?.configurable?.checkpoint_id ?? null, transitionsRead })}\n`,
);
