// Wrote test-fixtures/store-v4-paged(.json) with @stateflow/store-leveldb at 5605474 (format 4, paged
// checkpoints whose root names every page), run from a copy of that commit:
//   node make-store-v4-paged.mjs <dir> <dir>.json
import { writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { openStore } from '@stateflow/store-leveldb';
const [dir, out] = process.argv.slice(2);
const store = await openStore(dir, { checkpointInterval: 4, durability: 'fsync' });
const memory = {};
for (let i = 0; i < 3000; i++) memory[`k${i}`] = `value ${i} ${'.'.repeat(40)}`;
await store.publish({ changes: { 'cwd:/big': { lazy: { memory, small: { a: 1 } } }, global: { n: 0 } } });
for (let i = 1; i <= 14; i++) {
  const changes = { 'cwd:/big': { lazy: { memory: { [`k${i * 13}`]: i % 4 === 0 ? null : `changed ${i}`, [`new${i}`]: i } } } };
  if (i % 5 === 0) changes.global = { n: i };
  await store.publish({ changes, id: `p${i}` });
}
const head = await store.head('cwd:/big');
const stateDigests = [];
for (let rev = 1; rev <= head.rev; rev++) stateDigests.push(createHash('sha256').update(JSON.stringify(await store.stateAt('cwd:/big', rev))).digest('hex'));
await writeFile(out, JSON.stringify({ stateDigests, global: await store.state('global'), lastSeq: store.lastSeq() }));
await store.close();
