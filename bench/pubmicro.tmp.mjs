import { openStore } from '@stateflow/store-leveldb';
import { tempDir, removeDir } from './lib.mjs';
const dir = await tempDir('pm');
const store = await openStore(dir, { durability: process.env.D ?? 'buffered' });
const N = Number(process.env.N ?? 300);
const value = { $len: N }; for (let i = 0; i < N; i++) value[i] = { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'AIMessage'], kwargs: { content: 'x'.repeat(200), id: `m${i}`, tool_calls: [], additional_kwargs: {} } };
await store.publish({ changes: { s: { channels: { messages: { version: 1, type: 'json', value } } } } });
for (const kind of ['writes', 'append', 'writes', 'append']) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 100; i++) {
    const patch = kind === 'writes' ? { writes: { [`t${i}`]: { v: 'y'.repeat(200) } } } : { channels: { messages: { value: { $len: N + i + 1, [N + i]: { lc: 1, kwargs: { content: 'z'.repeat(200) } } } } } };
    await store.publish({ changes: { s: patch } });
  }
  console.log(kind, (Number(process.hrtime.bigint() - t0) / 1e6 / 100).toFixed(3), 'ms/publish');
}
await store.close(); await removeDir(dir);
