// Crash-state explorer's workload child (README "Durability contract", "Every crash state"): runs
// one workload on a store in <dir> and, after each acknowledgement, writes a ledger line to
// <ledger> (`{"seq","hash","id","durability"}`) with one write(2), so the trace orders every
// acknowledgement among LevelDB's file operations. Ends by SIGKILL of itself (or after a close,
// for 'close'). Run with plain node on the built package, under strace:
// node workload-child.mjs <dir> <ledger> <workload>
import { openSync, writeSync } from 'node:fs';
import { openStoreOver } from '@stateflow/store';
import { openDiskStorage } from '../../../dist/index.js';

const [dir, ledgerPath, workload] = process.argv.slice(2);
const ledger = openSync(ledgerPath, 'a');
let n = 0;
const note = (result, durability) => {
  if (result.status !== 'accepted') return;
  const { seq, hash, id } = result.transition;
  writeSync(ledger, `${JSON.stringify({ seq, hash, id, durability })}\n`);
};
const open = async (options = {}) =>
  openStoreOver(await openDiskStorage(dir, { createIfMissing: true, writeBufferSize: options.writeBufferSize }), { checkpointInterval: options.checkpointInterval ?? 4 });
const durabilityOf = (i) => (i % 3 === 1 ? 'fsync' : 'buffered');
const publish = async (store, stream, value, durability = durabilityOf(n)) => {
  const id = `w-${n++}`;
  note(await store.publish({ changes: { [stream]: value }, id, durability }), durability);
};

const workloads = {
  async publish(store) {
    for (let i = 0; i < 9; i++) await publish(store, i % 2 === 0 ? 'a' : 'b', { i, [`k${i % 3}`]: `v${i}` });
  },
  async publishMany(store) {
    const batch = (durability) => [0, 1, 2].map((j) => ({ changes: { [`m${j}`]: { n, j } }, id: `w-${n++}`, durability }));
    for (const durability of ['fsync', 'buffered', 'fsync', 'buffered']) {
      for (const result of await store.publishMany(batch(durability))) note(result, durability);
    }
  },
  async forkMerge(store) {
    await publish(store, 'main', { plan: 'a', steps: [1] }, 'fsync');
    const id = `w-${n++}`;
    note(await store.fork('main', 'branch', { id }), 'buffered');
    await publish(store, 'branch', { plan: 'b' }, 'buffered');
    await publish(store, 'main', { other: 1 }, 'fsync');
    const merged = await store.merge({ from: 'branch', into: 'main', id: `w-${n++}` });
    note(merged, 'buffered');
    await publish(store, 'main', { after: true }, 'fsync');
  },
  async compaction(store) {
    for (let i = 0; i < 8; i++) await publish(store, 's', { i, big: 'x'.repeat(200) });
    await store.compact('s', { keepRevisions: 2 });
    for (let i = 8; i < 11; i++) await publish(store, 's', { i });
  },
  async close(store) {
    for (let i = 0; i < 4; i++) await publish(store, 'c', { i });
    await store.close();
    const again = await open();
    for (let i = 4; i < 7; i++) await publish(again, 'c', { i });
    await again.close();
  },
  async logSwitch(store) {
    // 64 KiB memtables: ~90 publishes of ~3 KiB switch logs and flush tables several times, and
    // the fifth table on level 0 starts a table compaction.
    for (let i = 0; i < 90; i++) await publish(store, `t${i % 5}`, { i, blob: `${i}`.padEnd(3000, 'y') });
  },
};

const store = await open(workload === 'logSwitch' ? { writeBufferSize: 65_536 } : workload === 'compaction' ? { checkpointInterval: 2 } : {});
await workloads[workload](store);
if (workload !== 'close') process.kill(process.pid, 'SIGKILL');
