/**
 * Child process of the kill -9 and power-loss trials: opens the store in `argv[2]`, then
 * publishes forever, `argv[3]` publications in flight at once, each with durability 'fsync' with
 * probability `argv[4]` (default 1; a seeded choice, `argv[5]`) and 'buffered' otherwise, and
 * writes `ack <seq> <hash> <stream> <n> <durability>` to stdout after each publication resolves.
 * The parent kills it.
 */
import { openStore } from '@stateflow/store-leveldb';
import { seededRandom } from '@stateflow/test-kit';

const [dir, concurrencyArg, fsyncShareArg, seedArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 1);
const fsyncShare = Number(fsyncShareArg ?? 1);
const random = seededRandom(Number(seedArg ?? 1));
const store = await openStore(dir, { durability: 'fsync', checkpointInterval: 8 });
let next = store.lastSeq();
process.stdout.write(`ready ${next}\n`);

async function writer(lane) {
  for (;;) {
    const n = ++next;
    // Every patch changes its stream (count is new), so each publication is one transition.
    const stream = `session:${n % 3}`;
    const durability = fsyncShare >= 1 || random() < fsyncShare ? 'fsync' : 'buffered';
    const result = await store.publish({
      changes: { [stream]: { count: n, [`k${n % 17}`]: { n, lane, text: 'x'.repeat(n % 50) } } },
      meta: { n },
      durability,
    });
    const t = result.transition;
    process.stdout.write(`ack ${t.seq} ${t.hash} ${stream} ${n} ${durability}\n`);
  }
}

await Promise.all(Array.from({ length: concurrency }, (_, lane) => writer(lane)));
