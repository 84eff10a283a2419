/**
 * Child process of the kill -9 trials: opens the store in `argv[2]`, then publishes forever
 * with durability 'fsync', `argv[3]` publications in flight at once, and writes
 * `ack <seq> <hash>` to stdout after each publication resolves. The parent kills it.
 */
import { openStore } from '@stateflow/store';

const [dir, concurrencyArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 1);
const store = await openStore(dir, { durability: 'fsync', checkpointInterval: 8 });
let next = store.lastSeq();
process.stdout.write(`ready ${next}\n`);

async function writer(lane) {
  for (;;) {
    const n = ++next;
    // Every patch changes its stream (count is new), so each publication is one transition.
    const stream = `session:${n % 3}`;
    const result = await store.publish({
      changes: { [stream]: { count: n, [`k${n % 17}`]: { n, lane, text: 'x'.repeat(n % 50) } } },
      meta: { n },
    });
    const t = result.transition;
    process.stdout.write(`ack ${t.seq} ${t.hash} ${stream} ${n}\n`);
  }
}

await Promise.all(Array.from({ length: concurrency }, (_, lane) => writer(lane)));
