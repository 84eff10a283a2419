import { ClassicLevel } from 'classic-level';
import { openMemoryStorage, openStore, openStoreOver } from '@stateflow/store';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
const N = 1000;
const patchFor = (i) => ({ n: i, note: `v${i % 1000}` });
// recorded ops of N single publishes
const storage = await openMemoryStorage();
const batches = [];
const rec = { location: null, capabilities: storage.capabilities, get: (k) => storage.get(k), getMany: (k) => storage.getMany(k), getSync: (k) => storage.getSync(k), iterate: (r) => storage.iterate(r), snapshot: (r) => storage.snapshot(r), close: () => storage.close(),
  beginWrite: async () => { const s = await storage.beginWrite(); return { commit: (ops, o) => (batches.push(ops), s.commit(ops, o)), abort: () => s.abort() }; } };
const rs = await openStoreOver(rec); batches.length = 0;
for (let i = 0; i < N; i++) await rs.publish({ changes: { 'session:0': patchFor(i) } });
await rs.close();
for (let round = 0; round < 3; round++) {
  const d1 = await mkdtemp(path.join(tmpdir(), 'sf-raw-'));
  const db = new ClassicLevel(d1, { keyEncoding: 'view', valueEncoding: 'view' }); await db.open();
  let t0 = performance.now();
  for (const ops of batches) { const b = db.batch(); for (const op of ops) op.type === 'put' ? b.put(op.key, op.value) : b.del(op.key); b.put(Buffer.from('Mwal'), Buffer.alloc(50)); await b.write({ sync: true }); }
  const raw = (performance.now() - t0) / N;
  await db.close(); await rm(d1, { recursive: true });
  const d2 = await mkdtemp(path.join(tmpdir(), 'sf-pub-'));
  const store = await openStore(d2, { durability: 'fsync' });
  t0 = performance.now();
  for (let i = 0; i < N; i++) await store.publish({ changes: { 'session:0': patchFor(i) } });
  const pub = (performance.now() - t0) / N;
  await store.close(); await rm(d2, { recursive: true });
  console.log(`raw synced batch ${raw.toFixed(3)} ms, fsync publish ${pub.toFixed(3)} ms, ratio ${(pub / raw).toFixed(2)}`);
}
