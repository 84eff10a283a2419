/**
 * Bench 1 — append: single-writer publish of small patches vs raw LevelDB `put` of values of
 * the same size (the physical limit), buffered and fsync; concurrent publishers vs concurrent
 * raw puts; and `publishMany` (the bulk path) vs a raw LevelDB batch of exactly the records it
 * writes.
 */
import { ClassicLevel } from 'classic-level';
import { openMemoryStorage, openStoreOver } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
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

/** Inputs of the bulk case: one stream, the same small patches. */
const BATCH = 500;
const manyInputs = (from) => Array.from({ length: BATCH }, (_, i) => ({ changes: { 'session:bulk': patchFor(from + i) } }));


/** Transitions per second publishing `n` inputs in `publishMany` batches of {@link BATCH}. */
async function publishManyRate(n) {
  const dir = await tempDir('append-many');
  const store = await openStore(dir);
  try {
    const { ms } = await time(async () => {
      for (let i = 0; i < n; i += BATCH) await store.publishMany(manyInputs(i));
    });
    return n / (ms / 1000);
  } finally {
    await store.close();
    await removeDir(dir);
  }
}

/**
 * The records `publishAll(store)` writes, batch by batch: the same publishes through a store over
 * a memory storage whose commits are recorded (the LevelDB adapter adds its write-ahead-log mark
 * to each batch on disk: the raw side writes one of the same size too).
 */
async function recordedBatches(publishAll) {
  const storage = await openMemoryStorage();
  const batches = [];
  const recording = {
    location: null,
    capabilities: storage.capabilities,
    get: (key) => storage.get(key),
    getMany: (keys) => storage.getMany(keys),
    getSync: (key) => storage.getSync(key),
    iterate: (range) => storage.iterate(range),
    snapshot: (read) => storage.snapshot(read),
    close: () => storage.close(),
    beginWrite: async () => {
      const session = await storage.beginWrite();
      return { commit: (ops, options) => (batches.push(ops), session.commit(ops, options)), abort: () => session.abort() };
    },
  };
  const store = await openStoreOver(recording);
  batches.length = 0; // the format record
  await publishAll(store);
  await store.close();
  return batches;
}

/** A key and value of the size of the LevelDB adapter's write-ahead-log mark. */
const MARK = { key: Buffer.from('\xffstateflow-wal-mark', 'latin1'), value: Buffer.from(JSON.stringify({ boot: '00000000-0000-0000-0000-000000000000', synced: true })) };

/** Transitions per second writing `batches` as raw LevelDB batches (`n` transitions in all), synced when `sync`. */
async function rawBatchRate(n, batches, sync = false) {
  const dir = await tempDir('append-raw-batch');
  const db = new ClassicLevel(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  try {
    const { ms } = await time(async () => {
      for (const ops of batches) {
        const batch = db.batch();
        for (const op of ops) op.type === 'put' ? batch.put(op.key, op.value) : batch.del(op.key);
        batch.put(MARK.key, MARK.value);
        await batch.write({ sync });
      }
    });
    return n / (ms / 1000);
  } finally {
    await db.close();
    await removeDir(dir);
  }
}

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
  const batches = await recordedBatches(async (store) => {
    for (let i = 0; i < n; i += BATCH) await store.publishMany(manyInputs(i));
  });
  const runs = [];
  for (let i = 0; i < REPEATS; i++) {
    const raw = await rawBatchRate(n, batches);
    const ours = await publishManyRate(n);
    runs.push({ raw, ours, ratio: ours / raw });
  }
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
