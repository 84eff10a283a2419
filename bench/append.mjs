/**
 * Bench 1 — append: single-writer publish of small patches vs raw LevelDB `put` of values of
 * the same size (the physical limit), buffered and fsync; concurrent publishers vs concurrent
 * raw puts; and `publishMany` (the bulk path) vs a raw LevelDB batch of exactly the records it
 * writes.
 */
import { BATCH, patchFor, publishManyRuns, rawBatchRate, rawRate, recordedBatches, storeRate, valueBytes } from './baselines.mjs';
import { REPEATS, median, report, scaled } from './lib.mjs';

const CONCURRENCY = 8;

const cases = [
  ['single writer, buffered', scaled(20_000, 200), 'buffered', 1],
  ['single writer, fsync', scaled(2_000, 50), 'fsync', 1],
  [`${CONCURRENCY} concurrent publishers, buffered`, scaled(20_000, 200), 'buffered', CONCURRENCY],
  [`${CONCURRENCY} concurrent publishers, fsync`, scaled(2_000, 50), 'fsync', CONCURRENCY],
];

const rows = [];
for (const [label, n, durability, concurrency] of cases) {
  // Each case REPEATS times, raw and store alternating; the row is the median of each.
  const runs = [];
  for (let i = 0; i < REPEATS; i++) {
    const raw = await rawRate(n, durability === 'fsync', concurrency);
    const ours = await storeRate(n, durability, concurrency);
    runs.push({ raw, ours, ratio: ours / raw });
  }
  rows.push([label, n, median(runs.map((r) => r.ours)), median(runs.map((r) => r.raw)), median(runs.map((r) => r.ratio))]);
}
{
  // A single fsync publish against a raw synced LevelDB batch of exactly its records.
  const n = scaled(2_000, 50);
  const batches = await recordedBatches(async (store) => {
    for (let i = 0; i < n; i++) await store.publish({ changes: { 'session:0': patchFor(i) } });
  });
  const runs = [];
  for (let i = 0; i < REPEATS; i++) {
    const raw = await rawBatchRate(n, batches, true);
    const ours = await storeRate(n, 'fsync', 1);
    runs.push({ raw, ours, ratio: ours / raw });
  }
  rows.push(['single writer, fsync (vs a raw synced batch of the same records)', n, median(runs.map((r) => r.ours)), median(runs.map((r) => r.raw)), median(runs.map((r) => r.ratio))]);
}
{
  const n = scaled(20_000, BATCH);
  const runs = await publishManyRuns(n, REPEATS);
  rows.push([`publishMany, batches of ${BATCH}, buffered (vs a raw batch of the same records)`, n, median(runs.map((r) => r.ours)), median(runs.map((r) => r.raw)), median(runs.map((r) => r.ratio))]);
}
{
  // Concurrent durability: 8 fsync publishers against one (the rows above, same run).
  const single = rows.find((row) => row[0] === 'single writer, fsync');
  const concurrent = rows.find((row) => row[0] === `${CONCURRENCY} concurrent publishers, fsync`);
  rows.push([`${CONCURRENCY} concurrent fsync publishers vs the single fsync writer`, '', concurrent[2], single[2], concurrent[2] / single[2]]);
}
const GOALS = {
  'single writer, buffered': '≥ 0.6',
  'single writer, fsync (vs a raw synced batch of the same records)': '≥ 0.77 (publish ≤ 1.3× the batch)',
  [`publishMany, batches of ${BATCH}, buffered (vs a raw batch of the same records)`]: '≥ 0.8',
  [`${CONCURRENCY} concurrent fsync publishers vs the single fsync writer`]: '≥ 3',
};
for (const row of rows) row.push(GOALS[row[0]] ?? '');

await report(
  'Append: publish vs raw LevelDB put (the physical limit)',
  ['scenario', 'ops', 'publish/s', 'raw put/s (batch/s of transitions)', 'ratio publish/raw', 'goal'],
  rows,
  [
    `Patch ${JSON.stringify(patchFor(123456))} (${valueBytes} B); raw puts write values of the same ${valueBytes} B under 12-byte keys.`,
    'A publish writes one atomic LevelDB batch (log entry, sealed revision-index record with the patch, seq index, head, tip, the write-ahead-log mark, a checkpoint when the replay budget is reached) and hashes the transition (sha256 over RFC 8785 JSON); a buffered one is acknowledged once LevelDB appended the batch to its log (unsynced), as a raw put is.',
    `publishMany: ${BATCH} inputs per call, each its own transition, one batch per call; the raw side writes exactly the records those calls wrote (recorded through a memory storage), one raw batch per call, so the ratio is the cost of staging (validation, net patches, hashing, encoding) over the write itself.`,
    'fsync = LevelDB `sync: true` per write on both sides; concurrent = that many async loops on one store / one raw database.',
    `Each case ran ${REPEATS} times (raw puts, then publishes, alternating); each column is the median, the ratio the median of the per-run ratios.`,
  ],
);
