// Crash-test child: a buffered publish (LevelDB gets it in the background; its journal frame
// stays), then an fsync publish, then SIGKILL of itself — the journal must not be replayed over
// the later commit. Run on the built package: node mixed-child.mjs <dir> same|other
import { openStore } from '../../dist/index.js';

const [dir, variant = 'same'] = process.argv.slice(2);
const store = await openStore(dir);
const a = await store.publish({ changes: { [variant === 'same' ? 's' : 'a']: { v: 1 } }, id: 'a' });
process.stdout.write(`ack ${a.transition.seq}\n`);
await new Promise((resolve) => setTimeout(resolve, 50)); // LevelDB takes the buffered commit
const b = await store.publish({ changes: { [variant === 'same' ? 's' : 'b']: { v: 2 } }, id: 'b', durability: 'fsync' });
process.stdout.write(`ack ${b.transition.seq}\n`);
process.kill(process.pid, 'SIGKILL');
