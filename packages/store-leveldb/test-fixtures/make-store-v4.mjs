// Wrote test-fixtures/store-v4(.json) with @stateflow/store-leveldb at 5605474 (format 4: each
// revision's patch in its log record and again in its revision-index record), run from a copy
// of that commit:
//   node make-store-v4.mjs <dir> <dir>.json
import { writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { openStore } from '@stateflow/store-leveldb';
const [dir, out] = process.argv.slice(2);
const store = await openStore(dir, { checkpointInterval: 4, durability: 'fsync', clock: () => new Date(Date.UTC(2026, 11, 4, 1, 0, 0)) });
const memory = {};
for (let i = 0; i < 1500; i++) memory[`k${i}`] = `value ${i} ${'.'.repeat(40)}`;
await store.publish({ changes: { 'cwd:/big': { lazy: { memory, small: { a: 1 } } }, global: { n: 0, zebra: 1, apple: 2 } }, meta: { by: 'fixture' } });
for (let i = 1; i <= 24; i++) {
  const changes = { 'cwd:/big': { lazy: { memory: { [`k${i * 13}`]: i % 4 === 0 ? null : `changed ${i} é ✓ 𝄞`, [`new${i}`]: i } } } };
  if (i % 5 === 0) changes.global = { n: i, [`z${i}`]: { b: i, a: [i, 'x', false, true, 1.5e-7] } };
  if (i % 7 === 0) changes['session:s'] = { turn: i, note: `t${i}`, ['__proto__']: { i } };
  await store.publish({ changes, id: `p${i}`, ...(i % 3 === 0 ? { meta: { step: i } } : {}) });
}
await store.publishMany([{ changes: { 'session:s': { many: 1 } } }, { changes: { 'session:s': { many: 2 }, global: { many: true } } }]);
await store.fork('global', 'global:fork');
await store.publish({ changes: { 'global:fork': { forked: 'yes' } } });
await store.revert('session:s', 2);
await store.compact('session:s', { keepRevisions: 3 });
const streams = await store.streams();
// Each retained state as sha256 of its JSON text (key order included).
const states = {};
for (const head of streams) {
  states[head.stream] = [];
  for (let rev = head.origin; rev <= head.rev; rev++) states[head.stream].push(createHash('sha256').update(JSON.stringify(await store.stateAt(head.stream, rev))).digest('hex'));
}
// Each transition, and each retained patch, as sha256 of its JSON text.
const transitions = [];
for await (const t of store.transitions()) transitions.push(createHash('sha256').update(JSON.stringify(t)).digest('hex'));
const patches = {};
for (const head of streams) {
  patches[head.stream] = [];
  for (let rev = head.origin + 1; rev <= head.rev; rev++) patches[head.stream].push(createHash('sha256').update(JSON.stringify(await store.patchAt(head.stream, rev))).digest('hex'));
}
const audit = await store.audit();
if (audit.problems.length > 0) throw new Error(JSON.stringify(audit.problems));
await writeFile(out, JSON.stringify({ lastSeq: store.lastSeq(), streams, transitions, states, patches }));
await store.close();
