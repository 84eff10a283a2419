// Crash-test child: publishes in a loop (durability fsync unless told 'buffered') and prints
// "ack <seq> <id>" after each acknowledged transition. The parent SIGKILLs it at a random moment.
// With the tag 'hold' it only holds the open store. Run with plain node on the built package:
// node crash-child.mjs <dir> <tag> [fsync|buffered]
import { openStore } from '../../dist/index.js';

const [dir, tag, durability = 'fsync'] = process.argv.slice(2);
const store = await openStore(dir, { checkpointInterval: 4, durability });
process.stdout.write('ready\n');
if (tag === 'hold') await new Promise(() => setInterval(() => undefined, 60_000));
for (let i = 0; ; i++) {
  const changes = { global: { n: i, [`k${i % 7}`]: `${tag}-${i}` } };
  if (i % 2 === 0) changes[`session:${i % 3}`] = { last: i, list: [tag, i] };
  const r = await store.publish({ changes, id: `${tag}-${i}`, meta: { tag } });
  if (r.status === 'accepted') process.stdout.write(`ack ${r.transition.seq} ${r.transition.id}\n`);
}
