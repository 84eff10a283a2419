/**
 * Child process of the multi-process tests: opens the PostgreSQL store at argv[2] and publishes
 * argv[3] transitions on overlapping streams, each with a random `expected` revision read just
 * before (so races lose with CONFLICT), printing one line per outcome:
 *   ack <seq> <hash> <stream> <rev>   |   conflict <stream> <expected> <actual>   |   error <code>
 * argv[4] = 'forever' keeps publishing until killed.
 */
import { openPostgresStore } from '@stateflow/store-postgres';

const [url, countArg, mode] = process.argv.slice(2);
const count = Number(countArg);
const store = await openPostgresStore(url, { maxConnections: 3 });
const streams = ['global', 'session:shared', 'cwd:/a', 'cwd:/b'];
process.stdout.write('ready\n');
for (let i = 0; mode === 'forever' || i < count; i++) {
  const stream = streams[Math.floor(Math.random() * streams.length)];
  const head = await store.head(stream);
  // Mostly the head just read (races may make it stale), sometimes 'any'.
  const expected = Math.random() < 0.8 ? { [stream]: head.rev === 0 ? 'none' : head.rev } : undefined;
  try {
    const r = await store.publish({ changes: { [stream]: { [`k${process.pid}_${i}`]: i, last: process.pid } }, ...(expected ? { expected } : {}) });
    const change = r.transition.changes[0];
    process.stdout.write(`ack ${r.transition.seq} ${r.transition.hash} ${change.stream} ${change.rev}\n`);
  } catch (err) {
    if (err.code === 'CONFLICT') process.stdout.write(`conflict ${err.details.stream} ${err.details.expected} ${err.details.actual}\n`);
    else process.stdout.write(`error ${err.code ?? err.message}\n`);
  }
}
await store.close();
process.stdout.write('done\n');
