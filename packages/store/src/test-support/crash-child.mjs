// Crash-test child: publishes in a loop (durability fsync unless told 'buffered') and prints
// "ack <seq> <id>" after each acknowledged transition. The parent SIGKILLs it at a random moment.
// Run with plain node on the built package: node crash-child.mjs <dir> <tag> [fsync|buffered]
import { openStore } from '../../dist/index.js';

const [dir, tag, durability = 'fsync'] = process.argv.slice(2);
const store = await openStore(dir, { checkpointInterval: 4, durability });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const changes = { global: { n: i, [`k${i % 7}`]: `${tag}-${i}` } };
  if (i % 2 === 0) changes[`session:${i % 3}`] = { last: i, list: [tag, i] };
  const r = await store.publish({ changes, id: `${tag}-${i}`, meta: { tag } });
  if (r.status === 'accepted') process.stdout.write(`ack ${r.transition.seq} ${r.transition.id}\n`);
}
