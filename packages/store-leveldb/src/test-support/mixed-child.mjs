// Crash-test child: a buffered publish, an fsync publish, another buffered one, then SIGKILL of
// itself in the tick of its acknowledgement: all three must reopen, in order, on the same or on
// other streams. Run on the built package: node mixed-child.mjs <dir> same|other
import { openStore } from '../../dist/index.js';

const [dir, variant = 'same'] = process.argv.slice(2);
const store = await openStore(dir);
const a = await store.publish({ changes: { [variant === 'same' ? 's' : 'a']: { v: 1 } }, id: 'a' });
process.stdout.write(`ack ${a.transition.seq}\n`);
const b = await store.publish({ changes: { [variant === 'same' ? 's' : 'b']: { v: 2 } }, id: 'b', durability: 'fsync' });
process.stdout.write(`ack ${b.transition.seq}\n`);
const c = await store.publish({ changes: { [variant === 'same' ? 's' : 'c']: { v: 3 } }, id: 'c' });
process.stdout.write(`ack ${c.transition.seq}\n`);
process.kill(process.pid, 'SIGKILL');
