import { openStore } from '@stateflow/store-leveldb';
import { tempDir, removeDir } from './lib.mjs';
const N = 300;
for (const two of [false, true, false, true, false, true]) {
  const dir = await tempDir('two');
  const store = await openStore(dir, { durability: process.env.D ?? 'fsync' });
  const t0 = process.hrtime.bigint();
  for (let i = 1; i <= N; i++) {
    const changes = { 'langgraph:x': { writes: { [`t${i}`]: { v: 'x'.repeat(200) } } } };
    const expected = { 'langgraph:x': i - 1 };
    if (two) { changes['langgraph-index:x'] = { [`id${i}`]: { put: i, at: i } }; expected['langgraph-index:x'] = i - 1; }
    await store.publish({ changes, expected, meta: { langgraph: { op: 'writes', checkpoint_id: 'abc' } } });
  }
  console.log(two ? 'two' : 'one', Number(process.hrtime.bigint() - t0) / 1e6 / N, 'ms/publish');
  await store.close(); await removeDir(dir);
}
