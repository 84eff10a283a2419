/**
 * Space comes back (store README "Retention"): a retention run ends with the storage's reclaim —
 * LevelDB's compaction of its whole key range — so the files shrink at once, not in LevelDB's
 * own time; a dry run leaves the tables as they were.
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { retain, setRetention } from '@stateflow/store';
import { fakeClock, removeDir, tempDir } from '@stateflow/test-kit';
import { openStore } from './open-store.js';

async function tableBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.endsWith('.ldb') || name.endsWith('.log')) total += (await stat(path.join(dir, name))).size;
  return total;
}

describe('retention on LevelDB', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('retention-space');
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it('a run gives the removed revisions\' space back to the file system; a dry run does not change the tables', async () => {
    const time = fakeClock();
    let store = await openStore(dir, { clock: time.clock });
    for (let n = 1; n <= 300; n++) await store.publish({ changes: { 'langgraph:t': { step: n, output: randomBytes(1000).toString('hex') } } });
    await setRetention(store, 'langgraph:*', { maxRevisions: 1 });
    await store.close();
    store = await openStore(dir, { clock: time.clock });
    const before = await tableBytes(dir);
    // Random output: LevelDB's compression cannot shrink it.
    expect(before).toBeGreaterThan(300 * 2000);
    await retain(store, { dryRun: true, now: time.now() });
    expect(await tableBytes(dir)).toBe(before);
    const run = await retain(store, { now: time.now() });
    expect(run.total.revisions).toBe(300);
    const after = await tableBytes(dir);
    expect(after / before).toBeLessThan(0.1);
    expect((await store.audit()).problems).toEqual([]);
    await store.close();
  });
});
