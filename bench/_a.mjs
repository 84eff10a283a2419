import { openStore } from '@stateflow/store';
import { rmSync, mkdtempSync } from 'node:fs';
const patchFor = (i) => ({ n: i, note: `v${i % 1000}` });
for (let round=0; round<3; round++) {
  const dir = mkdtempSync('/tmp/prof/a-');
  const store = await openStore(dir, { durability: 'buffered' });
  const n = 20000, t = performance.now();
  for (let i = 0; i < n; i++) await store.publish({ changes: { 'session:0': patchFor(i) } });
  console.log('publish/s', (n / ((performance.now() - t) / 1000)).toFixed(0));
  await store.close(); rmSync(dir, { recursive: true });
}
