/**
 * Bench 2 — historical read: `stateAt` at random revisions of 1k-, 10k- and 100k-revision
 * streams (flatness ratio 100k/1k) vs replaying net patches from revision 0 (naive event
 * sourcing over the same store's log).
 */
import { applyPatch } from '@stateflow/core';
import { openStore } from '@stateflow/store-leveldb';
import { REPEATS, median, removeDir, report, rng, scaled, tempDir, time } from './lib.mjs';

const STREAM = 'session:history';
const READS = 200;
const NAIVE_READS = 5;

/**
 * Patch i: edits, additions and deletions over a window of 100 items, so the state size stays
 * bounded and only the history length differs between the streams.
 */
function patchFor(i) {
  const slot = i % 100;
  if (i % 7 === 0) return { [`item${(slot + 50) % 100}`]: null, counter: i };
  return { counter: i, [`item${slot}`]: { title: `item ${i}`, tags: ['a', 'b'], done: i % 2 === 0 }, meta: { last: i } };
}

async function naiveStateAt(store, rev) {
  let state = {};
  for await (const t of store.transitions({ stream: STREAM })) {
    const change = t.changes.find((c) => c.stream === STREAM);
    if (change.rev > rev) break;
    state = applyPatch(state, change.patch);
  }
  return state;
}

async function measure(revisions, random) {
  const dir = await tempDir('history');
  let store = await openStore(dir);
  try {
    for (let i = 1; i <= revisions; i++) await store.publish({ changes: { [STREAM]: patchFor(i) } });
    await store.close();
    // No history cache: every read reconstructs from the nearest checkpoint.
    store = await openStore(dir, { cacheSize: 0 });
    const revs = Array.from({ length: READS }, () => 1 + Math.floor(random() * revisions));
    await store.stateAt(STREAM, revs[0]); // warm the code paths, not the data
    // The READS random revisions are read REPEATS times; the median pass is reported.
    const passes = [];
    for (let i = 0; i < REPEATS; i++) {
      const pass = await time(async () => {
        for (const r of revs) await store.stateAt(STREAM, r);
      });
      passes.push(pass.ms);
    }
    const fast = { ms: median(passes) };
    // Naive replay is O(rev): fewer reads on long streams keep the run short.
    const naiveRevs = revs.slice(0, revisions > 20_000 ? 1 : NAIVE_READS);
    const naive = await time(async () => {
      for (const r of naiveRevs) await naiveStateAt(store, r);
    });
    return { stateAtMs: fast.ms / revs.length, naiveMs: naive.ms / naiveRevs.length };
  } finally {
    await store.close();
    await removeDir(dir);
  }
}

const random = rng(7);
const sizes = [scaled(1_000, 10), scaled(10_000, 100), scaled(100_000, 1000)];
const results = [];
for (const n of sizes) results.push({ n, ...(await measure(n, random)) });
const base = results[0];
const rows = results.map((r) => [r.n, r.stateAtMs, r.naiveMs, r.naiveMs / r.stateAtMs, r.stateAtMs / base.stateAtMs]);

await report(
  'Historical read: stateAt vs naive replay from revision 0',
  ['revisions', 'stateAt ms/read', 'naive replay ms/read', 'speed-up (naive/stateAt)', `stateAt vs ${base.n}-rev stream`],
  rows,
  [
    `Flatness ratio ${results.at(-1).n}/${base.n}: ${(results.at(-1).stateAtMs / base.stateAtMs).toFixed(2)} (1.00 = read cost independent of history length).`,
    `${READS} random revisions per stream, read ${REPEATS} times (the median pass), history cache off (cacheSize 0), checkpoints by the replay budget (K = 64 cap, default); naive = ${NAIVE_READS} reads (1 above 20k revisions), each replaying net patches from revision 0 via transitions({ stream }).`,
  ],
);
