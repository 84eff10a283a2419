// Crash-test child: a buffered publish (LevelDB gets it in the background; its journal frame
// stays), an fsync publish, another buffered one, then SIGKILL of itself in the tick of its
// acknowledgement — the journal must not be replayed over the fsync commit, and its frames skip
// the number that commit took. Run on the built package: node mixed-child.mjs <dir> same|other
import { openStore } from '../../dist/index.js';

const [dir, variant = 'same'] = process.argv.slice(2);
const store = await openStore(dir);
const a = await store.publish({ changes: { [variant === 'same' ? 's' : 'a']: { v: 1 } }, id: 'a' });
process.stdout.write(`ack ${a.transition.seq}\n`);
await new Promise((resolve) => setTimeout(resolve, 50)); // LevelDB takes the buffered commit
const b = await store.publish({ changes: { [variant === 'same' ? 's' : 'b']: { v: 2 } }, id: 'b', durability: 'fsync' });
process.stdout.write(`ack ${b.transition.seq}\n`);
// Then buffered again: the journal's frames skip the number the fsync commit took.
const c = await store.publish({ changes: { [variant === 'same' ? 's' : 'c']: { v: 3 } }, id: 'c' });
process.stdout.write(`ack ${c.transition.seq}\n`);
process.kill(process.pid, 'SIGKILL');
