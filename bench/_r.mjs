import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { diff } from '@stateflow/core';
import { openStore } from '@stateflow/store';
const docs = readFileSync('/work/shared/data/histories/eslint-package-json.jsonl','utf8').split('\n').filter(Boolean).map(l=>JSON.parse(l).doc);
const revs=[]; let prev={}; for (const d of docs){ const p=diff(prev,d); if(Object.keys(p).length) revs.push(p); prev=d; }
const dir = mkdtempSync('/tmp/prof/r-');
let store = await openStore(dir);
for (const p of revs) await store.publish({ changes: { 'cwd:/repo': p } });
await store.close(); store = await openStore(dir, { cacheSize: 0 });
let x = 1;
for (let round = 0; round < 4; round++) {
  const t = performance.now();
  for (let i = 0; i < 5000; i++) { x = (x * 48271) % 2147483647; await store.stateAt('cwd:/repo', 1 + (x % revs.length)); }
  console.log('µs/read', ((performance.now() - t) * 1000 / 5000).toFixed(1));
}
await store.close(); rmSync(dir, { recursive: true });
