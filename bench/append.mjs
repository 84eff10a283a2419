/**
 * Bench 1 — append: single-writer publish of small patches vs raw LevelDB `put` of values of
 * the same size (the physical limit), buffered and fsync; and concurrent publishers vs
 * concurrent raw puts.
 */
import { ClassicLevel } from 'classic-level';
import { openStore } from '@stateflow/store';
import { REPEATS, median, removeDir, report, scaled, tempDir, time } from './lib.mjs';

const CONCURRENCY = 8;
const patchFor = (i) => ({ n: i, note: `v${i % 1000}` });
const valueBytes = Buffer.byteLength(JSON.stringify(patchFor(123456)));

async function storeRate(n, durability, concurrency) {
  const dir = await tempDir('append');
  const store = await openStore(dir, { durability });
  try {
    const per = Math.ceil(n / concurrency);
    const { ms } = await time(() =>
      Promise.all(
        Array.from({ length: concurrency }, async (_, lane) => {
          for (let i = 0; i < per; i++) await store.publish({ changes: { [`session:${lane}`]: patchFor(i) } });
        }),
      ),
    );
    return (per * concurrency) / (ms / 1000);
  } finally {
    await store.close();
    await removeDir(dir);
  }
}

async function rawRate(n, sync, concurrency) {
  const dir = await tempDir('append-raw');
  const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    const per = Math.ceil(n / concurrency);
    const value = Buffer.alloc(valueBytes, 0x61);
    const { ms } = await time(() =>
      Promise.all(
        Array.from({ length: concurrency }, async (_, lane) => {
          for (let i = 0; i < per; i++) {
            const key = Buffer.alloc(12);
            key.writeUInt32BE(lane, 0);
            key.writeBigUInt64BE(BigInt(i), 4);
            await db.put(key, value, { sync });
          }
        }),
      ),
    );
    return (per * concurrency) / (ms / 1000);
  } finally {
    await db.close();
    await removeDir(dir);
  }
}

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

await report(
  'Append: publish vs raw LevelDB put (the physical limit)',
  ['scenario', 'ops', 'publish/s', 'raw put/s', 'ratio publish/raw'],
  rows,
  [
    `Patch ${JSON.stringify(patchFor(123456))} (${valueBytes} B); raw puts write values of the same ${valueBytes} B under 12-byte keys.`,
    'A publish writes one atomic batch (log entry, sealed revision-index record with the patch, seq index, head, tip, a checkpoint when the replay budget is reached) and hashes the transition (sha256 over RFC 8785 JSON); a buffered one is acknowledged once the batch is appended to the store journal (one synchronous write), and LevelDB gets it in the background.',
    'fsync = LevelDB `sync: true` per write on both sides; concurrent = that many async loops on one store / one raw database.',
    `Each case ran ${REPEATS} times (raw puts, then publishes, alternating); each column is the median, the ratio the median of the per-run ratios.`,
  ],
);
