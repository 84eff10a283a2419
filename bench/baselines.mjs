/**
 * The physical-limit baselines of the publish benches (append.mjs, scaling.mjs): publishes of
 * small patches on a LevelDB store against raw `classic-level` puts of values of the same size,
 * and `publishMany` against raw batches of exactly the records it writes (recorded through a
 * memory storage). Each function returns a rate (operations or transitions per second).
 */
import { ClassicLevel } from 'classic-level';
import { openMemoryStorage, openStoreOver } from '@stateflow/store';
import { openStore } from '@stateflow/store-leveldb';
import { removeDir, tempDir, time } from './lib.mjs';

/** The small patch of the i-th publish. */
export const patchFor = (i) => ({ n: i, note: `v${i % 1000}` });
/** Bytes of a patch's JSON: the raw side writes values of this size. */
export const valueBytes = Buffer.byteLength(JSON.stringify(patchFor(123456)));

/** Publishes per second: `n` publishes of small patches by `concurrency` loops, one stream each. */
export async function storeRate(n, durability, concurrency) {
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

/** Raw awaited LevelDB puts per second of {@link valueBytes}-byte values, by `concurrency` loops. */
export async function rawRate(n, sync, concurrency) {
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

/** Inputs of a `publishMany` call: {@link BATCH} small patches into one stream. */
export const BATCH = 500;
export const manyInputs = (from) => Array.from({ length: BATCH }, (_, i) => ({ changes: { 'session:bulk': patchFor(from + i) } }));

/** Transitions per second publishing `n` inputs in `publishMany` batches of {@link BATCH}. */
export async function publishManyRate(n) {
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
export async function recordedBatches(publishAll) {
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
export async function rawBatchRate(n, batches, sync = false) {
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

/**
 * `repeats` alternating runs of `n` inputs in publishMany batches of {@link BATCH} against raw
 * batches of exactly the records they write: per run `{ ours, raw, ratio }` (rates).
 */
export async function publishManyRuns(n, repeats) {
  const batches = await recordedBatches(async (store) => {
    for (let i = 0; i < n; i += BATCH) await store.publishMany(manyInputs(i));
  });
  const runs = [];
  for (let i = 0; i < repeats; i++) {
    const raw = await rawBatchRate(n, batches);
    const ours = await publishManyRate(n);
    runs.push({ raw, ours, ratio: ours / raw });
  }
  return runs;
}
